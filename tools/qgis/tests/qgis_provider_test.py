#!/usr/bin/env python3
"""Tests of the terrazo QGIS Processing provider (tools/qgis/terrazo_provider, docs/qgis.md), one case per
ctest entry (label qgis): `qgis_provider_test.py CASE`.

Each case runs an algorithm headless, `qgis_process run terrazo:ALG -- ...` with QT_QPA_PLATFORM=
offscreen and the plugin found through QGIS_PLUGINPATH and enabled in a throw-away profile (the
cancel cases drive the algorithm from a PyQGIS script instead, since qgis_process has no cancel
button), then runs the terrazo program with the same settings (sources given as cell columns and
rows, the plugin's as map coordinates, possibly in another CRS) and checks that the outputs are equal
bit for bit: every cell read with GDAL's Python bindings, nodata, type, geotransform and CRS, and
GeoJSON/CSV files byte for byte.

Exit status 77 (ctest: skipped) when qgis_process, GDAL's Python bindings or, for the Python-package
cases, the package are missing; the reason is printed.

Environment (set by tools/qgis/CMakeLists.txt): TERRAZO_BINARY (the program), TERRAZO_PYTHONPATH (build/python,
or empty when the package is not built), TERRAZO_DATASETS, TERRAZO_QGIS_PLUGINS (the folder holding
terrazo_provider), QGIS_PROCESS (optional: the qgis_process to run).
"""

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

SKIP = 77

BINARY = os.environ.get("TERRAZO_BINARY", "")
PYTHONPATH = os.environ.get("TERRAZO_PYTHONPATH", "")
DATASETS = os.environ.get("TERRAZO_DATASETS", "")
PLUGINS = os.environ.get("TERRAZO_QGIS_PLUGINS", "")
DEM = os.path.join(DATASETS, "real", "pysheds_dem.tif")  # 367 x 359 cells, WGS 84, nodata -9999
UTM_DEM = os.path.join(DATASETS, "real", "srtm_bigtujunga30m_utm11.tif")


def skip(reason):
    print("SKIPPED: %s" % reason)
    sys.exit(SKIP)


def fail(message):
    print("FAILED: %s" % message)
    sys.exit(1)


def find_qgis_process():
    """qgis_process, or None. Debian's /usr/bin/qgis_process (3.22) is a shell wrapper that passes
    --noversioncheck, which qgis_process itself refuses; the real program beside it is qgis_process.bin."""
    named = os.environ.get("QGIS_PROCESS")
    if named:
        return named if shutil.which(named) else None
    wrapper = shutil.which("qgis_process")
    if wrapper is None:
        return None
    real = os.path.realpath(wrapper) + ".bin"
    return real if os.access(real, os.X_OK) else wrapper


class Harness:
    def __init__(self, backend, enable_with_qgis_process=False):
        self.qgis_process = find_qgis_process()
        if self.qgis_process is None:
            skip("qgis_process is not installed (tools/setup.sh installs qgis)")
        try:
            import osgeo.gdal  # noqa: F401
        except ImportError:
            skip("GDAL's Python bindings are missing (apt install python3-gdal)")
        if not BINARY or not os.access(BINARY, os.X_OK):
            fail("TERRAZO_BINARY '%s' is not the terrazo program" % BINARY)
        if backend == "python" and not (PYTHONPATH and os.path.isdir(os.path.join(PYTHONPATH, "terrazo"))):
            skip("the terrazo Python package is not built in this build (python.not_built says why)")
        self.backend = backend
        self.dir = tempfile.mkdtemp(prefix="terrazo_qgis_")
        home = os.path.join(self.dir, "home")
        runtime = os.path.join(self.dir, "runtime")
        os.makedirs(home)
        os.makedirs(runtime, mode=0o700)
        env = dict(os.environ)
        env.update({"HOME": home, "XDG_RUNTIME_DIR": runtime, "QT_QPA_PLATFORM": "offscreen",
                    "QGIS_PLUGINPATH": PLUGINS, "TERRAZO_BACKEND": backend, "PYTHONDONTWRITEBYTECODE": "1"})
        env.pop("QGIS_CUSTOM_CONFIG_PATH", None)
        if backend == "python":
            env["TERRAZO_PYTHONPATH"] = PYTHONPATH
            env.pop("TERRAZO_EXECUTABLE", None)
        else:
            env["TERRAZO_EXECUTABLE"] = BINARY
            env.pop("TERRAZO_PYTHONPATH", None)
            # the package must not be importable, so that the program is what runs
            env["PYTHONPATH"] = os.pathsep.join(p for p in env.get("PYTHONPATH", "").split(os.pathsep)
                                                if p and not os.path.isdir(os.path.join(p, "terrazo")))
        self.env = env
        if enable_with_qgis_process:  # the documented way (docs/qgis.md), one qgis_process start
            self.qgis(["plugins", "enable", "terrazo_provider"])
        else:  # what it records in the profile, without the start
            settings = os.path.join(home, ".local", "share", "QGIS", "QGIS3", "profiles", "default", "QGIS")
            os.makedirs(settings)
            with open(os.path.join(settings, "QGIS3.ini"), "w") as f:
                f.write("[PythonPlugins]\nterrazo_provider=true\n")

    def input(self, raster):
        """A copy of the shipped raster in the scratch folder (QGIS may write .aux.xml beside what it opens)."""
        copy = self.path(os.path.basename(raster))
        if not os.path.exists(copy):
            shutil.copyfile(raster, copy)
        return copy

    def path(self, name):
        return os.path.join(self.dir, name)

    def qgis(self, args):
        completed = subprocess.run([self.qgis_process] + args, env=self.env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, universal_newlines=True, timeout=600)
        if completed.returncode != 0:
            fail("qgis_process %s exited %d:\n%s" % (" ".join(args), completed.returncode, completed.stdout))
        return completed.stdout

    def run_algorithm(self, algorithm, parameters):
        """qgis_process run terrazo:ALG -- KEY=VALUE ...; checks which backend ran; returns the outputs."""
        args = ["run", "terrazo:" + algorithm, "--json", "--"] + ["%s=%s" % kv for kv in parameters.items()]
        output = self.qgis(args)
        start = output.find("{")
        try:
            results = json.loads(output[start:])
        except ValueError:
            fail("qgis_process printed no JSON:\n%s" % output)
        log = results.get("log", {}).get("html", "") + output
        expected = "via the Python package" if self.backend == "python" else "via the program"
        if expected not in log:
            fail("the algorithm did not run %s:\n%s" % (expected, output))
        return results["results"]

    def cli(self, args):
        completed = subprocess.run([BINARY] + args + ["--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   universal_newlines=True, timeout=600)
        if completed.returncode != 0:
            fail("terrazo %s exited %d: %s" % (" ".join(args), completed.returncode, completed.stderr))
        return json.loads(completed.stdout.strip().splitlines()[-1])

    def same_raster_as_cli(self, algorithm, parameters, command, output):
        """Runs `algorithm` with `parameters` and OUTPUT q_<output>, then `terrazo COMMAND... c_<output>`;
        the two rasters must be equal (same_raster). Returns the program's JSON summary."""
        self.run_algorithm(algorithm, dict(parameters, OUTPUT=self.path("q_" + output)))
        expected = self.cli(command + [self.path("c_" + output)])
        same_raster(self.path("q_" + output), self.path("c_" + output))
        return expected

    def done(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        print("PASSED")


def on_dem(case):
    """A case `case(h, dem)` in a fresh Harness `h` with `dem` a copy of DEM in its folder; h.done() after."""
    def run(backend):
        h = Harness(backend)
        case(h, h.input(DEM))
        h.done()
    return run


def same_raster(produced, expected):
    """Every cell, the type, nodata, geotransform and CRS of two rasters are equal."""
    from osgeo import gdal
    import numpy
    if not os.path.exists(produced):
        fail("no output %s" % produced)
    a, b = gdal.Open(produced), gdal.Open(expected)
    if (a.RasterXSize, a.RasterYSize, a.RasterCount) != (b.RasterXSize, b.RasterYSize, b.RasterCount):
        fail("%s: size differs from %s" % (produced, expected))
    if a.GetGeoTransform() != b.GetGeoTransform() or a.GetProjection() != b.GetProjection():
        fail("%s: georeferencing differs from %s" % (produced, expected))
    band_a, band_b = a.GetRasterBand(1), b.GetRasterBand(1)
    if band_a.DataType != band_b.DataType or band_a.GetNoDataValue() != band_b.GetNoDataValue():
        fail("%s: type or nodata differs from %s" % (produced, expected))
    cells_a, cells_b = band_a.ReadAsArray(), band_b.ReadAsArray()
    # bit for bit: the bytes of the cells (NaN == NaN, -0.0 != 0.0)
    if cells_a.tobytes() != cells_b.tobytes():
        differing = int(numpy.count_nonzero(cells_a != cells_b))
        fail("%s: %d cells differ from %s" % (produced, differing, expected))
    valid = numpy.count_nonzero(cells_a != band_a.GetNoDataValue()) if band_a.GetNoDataValue() is not None else cells_a.size
    if valid == 0:
        fail("%s: no valid cell (a test that cannot fail)" % produced)


def same_file(produced, expected):
    with open(produced, "rb") as a, open(expected, "rb") as b:
        if a.read() != b.read():
            fail("%s differs from %s" % (produced, expected))


def cell_centres(raster, cells, epsg=None):
    """Map coordinates of the centres of `cells` [(col, row), ...] of `raster`, in its CRS or, with
    epsg, transformed to EPSG:epsg (traditional GIS order: x east, y north)."""
    from osgeo import gdal, osr
    dataset = gdal.Open(raster)
    x0, dx, rx, y0, ry, dy = dataset.GetGeoTransform()
    points = [(x0 + (c + 0.5) * dx + (r + 0.5) * rx, y0 + (c + 0.5) * ry + (r + 0.5) * dy) for c, r in cells]
    if epsg is None:
        return points
    source = osr.SpatialReference(wkt=dataset.GetProjection())
    target = osr.SpatialReference()
    target.ImportFromEPSG(epsg)
    for srs in (source, target):
        srs.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    transform = osr.CoordinateTransformation(source, target)
    return [transform.TransformPoint(x, y)[:2] for x, y in points]


def point_layer(path, points, epsg):
    """A GeoPackage point layer (written with OGR, so its CRS is recorded) of `points`, in order, with the
    String field name: p1, p2, ..."""
    return point_layer_with_fields(path, points, epsg, {"name": ["p%d" % (i + 1) for i in range(len(points))]})


def point_layer_with_fields(path, points, epsg, fields):
    """A GeoPackage point layer of `points` with the fields `fields` {name: [value or None per point]}: String
    fields where a value is a string, else Real."""
    from osgeo import ogr, osr
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(epsg)
    srs.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    dataset = ogr.GetDriverByName("GPKG").CreateDataSource(path)
    layer = dataset.CreateLayer("points", srs, ogr.wkbPoint)
    for name, values in fields.items():
        kind = ogr.OFTString if any(isinstance(v, str) for v in values) else ogr.OFTReal
        layer.CreateField(ogr.FieldDefn(name, kind))
    for i, (x, y) in enumerate(points):
        feature = ogr.Feature(layer.GetLayerDefn())
        for name, values in fields.items():
            if values[i] is None:
                feature.SetFieldNull(name)
            else:
                feature.SetField(name, values[i])
        point = ogr.Geometry(ogr.wkbPoint)
        point.AddPoint_2D(x, y)
        feature.SetGeometry(point)
        layer.CreateFeature(feature)
    dataset = None
    return path


# --- cases ---------------------------------------------------------------------------------------

SOURCE_CELLS = [(180, 180), (20, 40), (300, 320)]


def costdistance_layer(backend):
    """Sources from a point layer in another CRS (Web Mercator) than the DEM's (WGS 84): cost,
    backlink and allocation equal the program's run from the same cells."""
    h = Harness(backend, enable_with_qgis_process=True)
    dem = h.input(DEM)
    layer = point_layer(h.path("sources.gpkg"), cell_centres(dem, SOURCE_CELLS, epsg=3857), 3857)
    results = h.run_algorithm("costdistance", {"INPUT": dem, "SOURCES": layer, "MEMORY": 256, "DEVICE": 1,
                                               "OUTPUT": h.path("q_cost.tif"), "BACKLINK": h.path("q_back.tif"),
                                               "ALLOCATION": h.path("q_alloc.tif")})
    expected = h.cli(["sssp", "--memory=256M", "--device=cpu"] + ["--source=%d,%d" % c for c in SOURCE_CELLS] +
                     ["--backlink=" + h.path("c_back.tif"), "--allocation=" + h.path("c_alloc.tif"),
                      dem, h.path("c_cost.tif")])
    for name in ("cost", "back", "alloc"):
        same_raster(h.path("q_%s.tif" % name), h.path("c_%s.tif" % name))
    summary = json.loads(results["SUMMARY"])
    if summary["reached_cells"] != expected["reached_cells"] or summary["max_distance"] != expected["max_distance"]:
        fail("summary differs: %s vs %s" % (summary, expected))
    h.done()


@on_dem
def costdistance_fields(h, dem):
    """Per-source settings from the layer's fields (initial cost, maximum, multiplier; nulls take the
    run's values) beside a clicked point, with knight's moves: equal to the program's --sources-file run
    on the same layer."""
    fields = {"init": [0.0, 2000.0, None], "maxc": [None, 30000.0, 8000.0], "mult": [2.0, None, 0.5]}
    layer = point_layer_with_fields(h.path("sources.gpkg"), cell_centres(dem, SOURCE_CELLS, epsg=3857), 3857, fields)
    (x, y), = cell_centres(dem, [(100, 250)])
    results = h.run_algorithm("costdistance", {"INPUT": dem, "SOURCES": layer, "INITIAL_FIELD": "init",
                                               "MAX_FIELD": "maxc", "MULTIPLIER_FIELD": "mult",
                                               "SOURCE_MULTIPLIER": 1.5, "SOURCE_INITIAL": 100.0, "CONNECTIVITY": 2,
                                               "SOURCE_POINT": "%r,%r [EPSG:4326]" % (x, y), "MEMORY": 256,
                                               "OUTPUT": h.path("q_cost.tif"), "ALLOCATION": h.path("q_alloc.tif")})
    point_file = h.path("c_points.geojson")
    with open(point_file, "w") as out:  # the layer's points in WGS 84, then the clicked point
        centres = cell_centres(dem, SOURCE_CELLS + [(100, 250)])
        json.dump({"type": "FeatureCollection", "features": [
            {"type": "Feature", "properties": {name: values[i] for name, values in fields.items()} if i < 3 else {},
             "geometry": {"type": "Point", "coordinates": [cx, cy]}} for i, (cx, cy) in enumerate(centres)]}, out)
    expected = h.cli(["sssp", "--memory=256M", "--connectivity=16", "--sources-file=" + point_file, "--source-initial-field=init",
                      "--source-max-field=maxc", "--source-multiplier-field=mult", "--source-multiplier=1.5",
                      "--source-initial=100", "--allocation=" + h.path("c_alloc.tif"), dem, h.path("c_cost.tif")])
    same_raster(h.path("q_cost.tif"), h.path("c_cost.tif"))
    same_raster(h.path("q_alloc.tif"), h.path("c_alloc.tif"))
    summary = json.loads(results["SUMMARY"])
    if summary["source_groups"] != 4 or summary["source_groups"] != expected["source_groups"]:
        fail("source_groups: %s vs %s (4 expected)" % (summary["source_groups"], expected["source_groups"]))


@on_dem
def costdistance_point(h, dem):
    """A clicked point ('x,y [EPSG:4326]') and options: absdiff weight, 4-connectivity, Float32, max cost."""
    (x, y), = cell_centres(dem, [(100, 250)])
    h.run_algorithm("costdistance", {"INPUT": dem, "SOURCE_POINT": "%r,%r [EPSG:4326]" % (x, y), "WEIGHT": 1,
                                     "CONNECTIVITY": 1, "COST_TYPE": 1, "MAX_COST": 500.5, "MEMORY": 64,
                                     "OUTPUT": h.path("q_cost.tif"), "BACKLINK": h.path("q_back.tif")})
    h.cli(["sssp", "--source=100,250", "--weight=absdiff", "--connectivity=4", "--ot=Float32", "--max-cost=500.5",
           "--memory=64M", "--backlink=" + h.path("c_back.tif"), dem, h.path("c_cost.tif")])
    same_raster(h.path("q_cost.tif"), h.path("c_cost.tif"))
    same_raster(h.path("q_back.tif"), h.path("c_back.tif"))


@on_dem
def leastcostpath(h, dem):
    """Paths from a destination layer through the program's backlink: the GeoJSON and the mask equal
    the program's byte for byte."""
    h.cli(["sssp", "--source=180,180", "--backlink=" + h.path("back.tif"), dem, h.path("cost.tif")])
    dests = [(10, 20), (350, 300), (200, 5)]
    layer = point_layer(h.path("dests.gpkg"), cell_centres(dem, dests), 4326)
    h.run_algorithm("leastcostpath", {"BACKLINK": h.path("back.tif"), "COST": h.path("cost.tif"),
                                      "DESTINATIONS": layer, "OUTPUT": h.path("q_paths.geojson"),
                                      "MASK": h.path("q_mask.tif")})
    expected = h.cli(["path", "--backlink=" + h.path("back.tif"), "--cost=" + h.path("cost.tif")] +
                     ["--dest=%d,%d" % d for d in dests] + ["--mask=" + h.path("c_mask.tif"), h.path("c_paths.geojson")])
    if len(expected["paths"]) != len(dests):
        fail("the program traced %d paths" % len(expected["paths"]))
    same_file(h.path("q_paths.geojson"), h.path("c_paths.geojson"))
    same_raster(h.path("q_mask.tif"), h.path("c_mask.tif"))


def mst(backend):
    """Minimum spanning forest of a projected DEM with an edge list: raster and edge list equal."""
    h = Harness(backend)
    utm_dem = h.input(UTM_DEM)
    results = h.run_algorithm("mst", {"INPUT": utm_dem, "WEIGHT": 1, "MEMORY": 128, "DEVICE": 1,
                                      "OUTPUT": h.path("q_edges.tif"), "EDGE_LIST": h.path("q_edges.bin")})
    expected = h.cli(["mst", "--weight=absdiff", "--memory=128M", "--device=cpu",
                      "--edge-list=" + h.path("c_edges.bin"), utm_dem, h.path("c_edges.tif")])
    same_raster(h.path("q_edges.tif"), h.path("c_edges.tif"))
    same_file(h.path("q_edges.bin"), h.path("c_edges.bin"))
    if json.loads(results["SUMMARY"])["total_weight"] != expected["total_weight"]:
        fail("total weight differs")
    h.done()


@on_dem
def clump(h, dem):
    """Clump by range with statistics: labels and CSV equal."""
    expected = h.same_raster_as_cli("clump", {"INPUT": dem, "BY": 2, "RANGE_LOW": 200, "RANGE_HIGH": 250,
                                              "CONNECTIVITY": 1, "STATS": h.path("q_stats.csv")},
                                    ["clump", "--by=range:200.0,250.0", "--connectivity=4",
                                     "--stats=" + h.path("c_stats.csv"), dem], "labels.tif")
    if expected["regions"] < 2:
        fail("too few regions for a meaningful test: %s" % expected)
    same_file(h.path("q_stats.csv"), h.path("c_stats.csv"))


def flowacc(backend):
    """Flow accumulation and watersheds of a hand-made direction grid: the rasters equal the program's."""
    h = Harness(backend)
    directions = h.path("dir.asc")
    rows = [[1, 1, 1, 1, 1, 4]] * 3 + [[1, 1, 255, 1, 1, 0]]
    with open(directions, "w") as f:
        f.write("ncols 6\nnrows 4\nxllcorner 0\nyllcorner 0\ncellsize 1\nNODATA_value 255\n")
        f.writelines(" ".join(str(v) for v in row) + "\n" for row in rows)
    expected = h.same_raster_as_cli("flowacc", {"INPUT": directions}, ["flowacc", directions], "acc.tif")
    if expected["largest"] != 21:
        fail("unexpected accumulation: %s" % expected)
    expected = h.same_raster_as_cli("watershed", {"INPUT": directions}, ["watershed", directions], "basins.tif")
    if expected["basins"] != 2:
        fail("unexpected basins: %s" % expected)
    # a clicked pour point (the centre of cell 2,1) snapped to the largest accumulation within 1 cell
    expected = h.same_raster_as_cli("watershed", {"INPUT": directions, "OUTLET_POINT": "2.5,2.5",
                                                  "ACCUMULATION": h.path("c_acc.tif"), "SNAP": 1},
                                    ["watershed", "--outlet=2,1", "--snap=1", "--accumulation=" + h.path("c_acc.tif"),
                                     directions], "gauged.tif")
    if expected["basins"] != 1 or expected["pour_points"][0]["snapped_x"] != 3:
        fail("unexpected pour point basins: %s" % expected)
    # the stream network of accumulation >= 5: the Strahler raster and the segments equal the program's
    expected = h.same_raster_as_cli("watershed", {"INPUT": directions, "ACCUMULATION": h.path("c_acc.tif"),
                                                  "STREAMS": 5, "STREAMS_RASTER": h.path("q_strahler.tif"),
                                                  "STREAMS_VECTOR": h.path("q_streams.geojson")},
                                    ["watershed", "--streams=5", "--accumulation=" + h.path("c_acc.tif"),
                                     "--streams-raster=" + h.path("c_strahler.tif"),
                                     "--streams-vector=" + h.path("c_streams.geojson"), directions], "streams.tif")
    if (expected["stream_cells"], expected["segments"], expected["max_order"]) != (7, 5, 2):
        fail("unexpected stream network: %s" % expected)
    same_raster(h.path("q_strahler.tif"), h.path("c_strahler.tif"))
    same_file(h.path("q_streams.geojson"), h.path("c_streams.geojson"))
    h.done()


@on_dem
def fill(h, dem):
    """Fill depressions with edge outlets and 4 neighbours: the filled raster equals the program's."""
    expected = h.same_raster_as_cli("fill", {"INPUT": dem, "OUTLETS": 1, "CONNECTIVITY": 1},
                                    ["fill", "--outlets=edge", "--connectivity=4", dem], "filled.tif")
    if expected["raised_cells"] < 1:
        fail("no cell raised: not a meaningful test: %s" % expected)


@on_dem
def flowdir(h, dem):
    """Flow directions of a filled DEM with edge outlets: the direction raster equals the program's."""
    h.cli(["fill", "--outlets=edge", dem, h.path("filled.tif")])
    expected = h.same_raster_as_cli("flowdir", {"INPUT": h.path("filled.tif"), "OUTLETS": 1},
                                    ["flowdir", "--outlets=edge", h.path("filled.tif")], "flowdir.tif")
    if expected["flat_cells"] < 1:
        fail("no flat cell: not a meaningful test: %s" % expected)


@on_dem
def corridor(h, dem):
    """The corridor of two cost surfaces, 5 percent above the least cost: equal to the program's."""
    h.cli(["sssp", "--source=20,40", dem, h.path("a.tif")])
    h.cli(["sssp", "--source=300,320", dem, h.path("b.tif")])
    costs = [h.path("a.tif"), h.path("b.tif")]
    expected = h.same_raster_as_cli("corridor", {"COST_A": costs[0], "COST_B": costs[1], "KEEP": 2, "VALUE": 5},
                                    ["corridor", "--percent=5.0"] + costs, "corridor.tif")
    if not 0 < expected["corridor_cells"] < expected["valid_cells"]:
        fail("a corridor of %d cells tests nothing" % expected["corridor_cells"])


SITE_CELLS = [(20, 40), (300, 320), (180, 180), (350, 10)]


@on_dem
def odmatrix(h, dem):
    """The index built by the plugin equals the program's byte for byte; the matrix through it from a
    site layer (wide table) equals `terrazo od-matrix --index`'s."""
    layer = point_layer(h.path("sites.gpkg"), cell_centres(dem, SITE_CELLS), 4326)
    h.run_algorithm("index", {"INPUT": dem, "DEVICE": 1, "OUTPUT": h.path("q.tzi")})
    h.cli(["index", "--device=cpu", dem, h.path("c.tzi")])
    same_file(h.path("q.tzi"), h.path("c.tzi"))
    h.run_algorithm("odmatrix", {"INPUT": dem, "SITES": layer, "INDEX": h.path("q.tzi"), "WIDE": True,
                                 "OUTPUT": h.path("q_matrix.csv")})
    h.cli(["od-matrix", "--index=" + h.path("c.tzi"), "--wide"] + ["--site=%d,%d" % c for c in SITE_CELLS] +
          [dem, h.path("c_matrix.csv")])
    same_file(h.path("q_matrix.csv"), h.path("c_matrix.csv"))


@on_dem
def network(h, dem):
    """The least-cost network of a site layer in Web Mercator: the GeoJSON equals the program's."""
    layer = point_layer(h.path("sites.gpkg"), cell_centres(dem, SITE_CELLS, epsg=3857), 3857)
    h.run_algorithm("network", {"INPUT": dem, "SITES": layer, "OUTPUT": h.path("q_network.geojson")})
    expected = h.cli(["network"] + ["--site=%d,%d" % c for c in SITE_CELLS] + [dem, h.path("c_network.geojson")])
    if expected["edges"] != len(SITE_CELLS) - 1:
        fail("the network has %d edges" % expected["edges"])
    same_file(h.path("q_network.geojson"), h.path("c_network.geojson"))
    # Regions instead of sites: a zones raster on the DEM's grid, 3 x 3 cells around each site cell.
    from osgeo import gdal
    source = gdal.Open(dem)
    zones = gdal.GetDriverByName("GTiff").Create(h.path("zones.tif"), source.RasterXSize, source.RasterYSize, 1,
                                                 gdal.GDT_Int32)
    zones.SetGeoTransform(source.GetGeoTransform())
    zones.SetProjection(source.GetProjection())
    band = zones.GetRasterBand(1)
    band.SetNoDataValue(0)
    for i, (c, r) in enumerate(SITE_CELLS):
        band.WriteRaster(max(0, c - 1), max(0, r - 1), 3, 3, struct.pack("<9i", *([10 * (i + 1)] * 9)))
    zones = None
    h.run_algorithm("network", {"INPUT": dem, "REGIONS": h.path("zones.tif"), "OUTPUT": h.path("q_regions.geojson")})
    expected = h.cli(["network", "--sites-raster=" + h.path("zones.tif"), dem, h.path("c_regions.geojson")])
    if expected["sites"] != len(SITE_CELLS) or expected["edges"] != len(SITE_CELLS) - 1:
        fail("the region network has %d sites, %d edges" % (expected["sites"], expected["edges"]))
    same_file(h.path("q_regions.geojson"), h.path("c_regions.geojson"))


def skip_empty(backend):
    """A point layer of point, no geometry, point: refused by default (the ids would shift); with Skip
    features without geometry, the matrix names the sites 1 and 3 and the allocation holds 1 and 3,
    as the program's --skip-empty-features runs on the same layer."""
    from osgeo import ogr, osr
    h = Harness(backend)
    dem = h.input(DEM)
    points = cell_centres(dem, SITE_CELLS[:2])
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(4326)
    srs.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    layer = h.path("gaps.gpkg")
    dataset = ogr.GetDriverByName("GPKG").CreateDataSource(layer)
    table = dataset.CreateLayer("points", srs, ogr.wkbPoint)
    for xy in (points[0], None, points[1]):
        feature = ogr.Feature(table.GetLayerDefn())
        if xy is not None:
            point = ogr.Geometry(ogr.wkbPoint)
            point.AddPoint_2D(*xy)
            feature.SetGeometry(point)
        table.CreateFeature(feature)
    dataset = None
    refused = subprocess.run([h.qgis_process, "run", "terrazo:odmatrix", "--", "INPUT=" + dem, "SITES=" + layer,
                              "OUTPUT=" + h.path("refused.csv")], env=h.env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, universal_newlines=True, timeout=600)
    if refused.returncode == 0 or "no geometry" not in refused.stdout:
        fail("a feature without geometry was not refused:\n%s" % refused.stdout)
    h.run_algorithm("odmatrix", {"INPUT": dem, "SITES": layer, "SKIP_EMPTY_FEATURES": True,
                                 "OUTPUT": h.path("q_matrix.csv")})
    h.cli(["od-matrix", "--sites-file=" + layer, "--skip-empty-features", dem, h.path("c_matrix.csv")])
    same_file(h.path("q_matrix.csv"), h.path("c_matrix.csv"))
    with open(h.path("c_matrix.csv")) as matrix:
        if "\n1,3," not in matrix.read():
            fail("the matrix does not name the sites 1 and 3")
    h.run_algorithm("costdistance", {"INPUT": dem, "SOURCES": layer, "SKIP_EMPTY_FEATURES": True, "DEVICE": 1,
                                     "OUTPUT": h.path("q_cost.tif"), "ALLOCATION": h.path("q_alloc.tif")})
    h.cli(["sssp", "--device=cpu", "--sources-file=" + layer, "--skip-empty-features",
           "--allocation=" + h.path("c_alloc.tif"), dem, h.path("c_cost.tif")])
    same_raster(h.path("q_alloc.tif"), h.path("c_alloc.tif"))
    same_raster(h.path("q_cost.tif"), h.path("c_cost.tif"))
    h.done()


@on_dem
def bad_input(h, dem):
    """terrazo's one-line error reaches QGIS and nothing is written: a source outside the raster."""
    args = ["run", "terrazo:costdistance", "--", "INPUT=" + dem, "SOURCE_POINT=0,0 [EPSG:4326]",
            "OUTPUT=" + h.path("q_cost.tif")]
    completed = subprocess.run([h.qgis_process] + args, env=h.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True, timeout=600)
    if completed.returncode == 0:
        fail("a source outside the raster was accepted:\n%s" % completed.stdout)
    if "source" not in completed.stdout or "outside" not in completed.stdout:
        fail("terrazo's message is not shown:\n%s" % completed.stdout)
    if os.path.exists(h.path("q_cost.tif")):
        fail("an output was written")


def cancel(backend):
    """Cancel pressed at the first progress report: the run stops, the algorithm fails with
    'canceled', and no output exists. Driven from PyQGIS (qgis_process has no cancel button)."""
    h = Harness(backend)
    big = h.path("big.tif")
    h.cli(["gen", "--width=3000", "--height=3000", "--seed=5", "--type=Float32", big])
    script = h.path("cancel.py")
    with open(script, "w") as f:
        f.write(CANCEL_SCRIPT)
    env = dict(h.env)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, ["/usr/share/qgis/python", "/usr/share/qgis/python/plugins",
                                                      PLUGINS, env.get("PYTHONPATH", "")]))
    completed = subprocess.run([sys.executable, script, big, h.path("q_cost.tif")], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, universal_newlines=True, timeout=600)
    print(completed.stdout)
    if completed.returncode != 0:
        fail("the cancel script exited %d" % completed.returncode)
    if os.path.exists(h.path("q_cost.tif")):
        fail("an output was written after Cancel")
    leftovers = [n for n in os.listdir(h.dir) if n.startswith("q_cost")]
    if leftovers:
        fail("files left after Cancel: %s" % leftovers)
    h.done()


CANCEL_SCRIPT = r'''
import sys
from qgis.core import QgsApplication, QgsProcessingContext, QgsProcessingFeedback, QgsRasterLayer
app = QgsApplication([], False)
app.initQgis()
from terrazo_provider.provider import TerrazoProvider
provider = TerrazoProvider()
QgsApplication.processingRegistry().addProvider(provider)


class CancelAtFirstProgress(QgsProcessingFeedback):
    progress_calls = 0
    def __init__(self):
        super().__init__()
        self.progressChanged.connect(self.on_progress)
        self.errors = []
    def on_progress(self, value):
        self.progress_calls += 1
        self.cancel()
    def reportError(self, error, fatal=False):
        self.errors.append(error)


algorithm = QgsApplication.processingRegistry().algorithmById("terrazo:costdistance")
feedback = CancelAtFirstProgress()
context = QgsProcessingContext()
centre = QgsRasterLayer(sys.argv[1], "big").extent().center()
results, ok = algorithm.run({"INPUT": sys.argv[1], "SOURCE_POINT": "%r,%r" % (centre.x(), centre.y()), "DEVICE": 1,
                             "OUTPUT": sys.argv[2]}, context, feedback)
print("ok", ok, "progress calls", feedback.progress_calls, "errors", feedback.errors)
status = 0
if ok or feedback.progress_calls == 0 or not any("canceled" in e for e in feedback.errors):
    print("FAILED: the run was not canceled cleanly")
    status = 1
QgsApplication.processingRegistry().removeProvider(provider)
app.exitQgis()
sys.exit(status)
'''

def settings(backend):
    """The provider's settings (Processing > Options > Providers > terrazo) choose the backend when no
    environment variable does: the backend by its name, the package folder, the program's path."""
    h = Harness(backend)
    script = h.path("settings.py")
    with open(script, "w") as f:
        f.write(SETTINGS_SCRIPT)
    env = dict(h.env)
    for name in ("TERRAZO_BACKEND", "TERRAZO_PYTHONPATH", "TERRAZO_EXECUTABLE"):
        env.pop(name, None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, ["/usr/share/qgis/python", "/usr/share/qgis/python/plugins",
                                                      PLUGINS]))
    completed = subprocess.run([sys.executable, script, backend, PYTHONPATH if backend == "python" else BINARY],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                               timeout=600)
    print(completed.stdout)
    if completed.returncode != 0:
        fail("the settings script exited %d" % completed.returncode)
    h.done()


SETTINGS_SCRIPT = r'''
import os, sys
from qgis.core import QgsApplication
app = QgsApplication([], False)
app.initQgis()
from processing.core.Processing import Processing
Processing.initialize()
from processing.core.ProcessingConfig import ProcessingConfig
from terrazo_provider.provider import TerrazoProvider
from terrazo_provider import backend
provider = TerrazoProvider()
QgsApplication.processingRegistry().addProvider(provider)
wanted, where = sys.argv[1], sys.argv[2]
status = 0
ProcessingConfig.setSettingValue(backend.SETTING_BACKEND, backend.BACKENDS.index(wanted))
ProcessingConfig.setSettingValue(backend.SETTING_PYTHONPATH if wanted == "python" else backend.SETTING_EXECUTABLE, where)
kind, found = backend.choose_backend()
found = os.path.dirname(os.path.dirname(found.__file__)) if kind == "python" else found
print("chose", kind, found)
if kind != wanted or os.path.realpath(found) != os.path.realpath(where):
    print("FAILED: expected", wanted, where)
    status = 1
os.environ["TERRAZO_BACKEND"] = "bogus"  # the environment wins over the setting
try:
    backend.choose_backend()
    print("FAILED: TERRAZO_BACKEND=bogus was accepted")
    status = 1
except Exception as error:
    print("refused:", error)
ProcessingConfig.setSettingValue(backend.SETTING_BACKEND, 0)
ProcessingConfig.setSettingValue(backend.SETTING_PYTHONPATH, "")
ProcessingConfig.setSettingValue(backend.SETTING_EXECUTABLE, "")
QgsApplication.processingRegistry().removeProvider(provider)
app.exitQgis()
sys.exit(status)
'''


def same_summary(produced, expected, what):
    """Two --json summaries equal key for key, timings and the paths that name the run's own files aside."""
    ignore = {"seconds", "output", "input", "elapsed_seconds"}
    a = {k: v for k, v in produced.items() if k not in ignore and "seconds" not in k}
    b = {k: v for k, v in expected.items() if k not in ignore and "seconds" not in k}
    if a != b:
        fail("%s summary differs:\n%s\n%s" % (what, a, b))


def files(backend):
    """gen, import, info and export through QGIS, each against the program: the generated GeoTIFF cell
    for cell, the tile store byte for byte, info's summary key for key, the exported GeoTIFF cell for cell."""
    h = Harness(backend)
    h.same_raster_as_cli("gen", {"WIDTH": 150, "HEIGHT": 100, "SEED": 3, "TYPE": 3, "NODATA_HOLES": 0.05},
                         ["gen", "--width=150", "--height=100", "--seed=3", "--type=Int16", "--nodata-holes=0.05"],
                         "gen.tif")
    dem = h.input(DEM)
    h.run_algorithm("import", {"INPUT": dem, "TILE": 64, "MEMORY": 64, "OUTPUT": h.path("q.tzs")})
    h.cli(["import", "--tile=64", "--memory=64M", dem, h.path("c.tzs")])
    same_file(h.path("q.tzs"), h.path("c.tzs"))
    results = h.run_algorithm("info", {"INPUT": h.path("q.tzs"), "OUTPUT": h.path("q_info.json")})
    expected = h.cli(["info", h.path("q.tzs")])
    same_summary(json.loads(results["SUMMARY"]), expected, "info")
    with open(h.path("q_info.json")) as f:
        same_summary(json.load(f), expected, "info (file)")
    if expected.get("valid_cells", 0) == 0:
        fail("info found no valid cell: %s" % expected)
    h.same_raster_as_cli("export", {"INPUT": h.path("q.tzs"), "BLOCK": 128, "CREATION_OPTIONS": "COMPRESS=DEFLATE"},
                         ["export", "--block=128", "--co=COMPRESS=DEFLATE", h.path("c.tzs")], "export.tif")
    h.done()


@on_dem
def render(h, dem):
    """A cost picture with the terrain's hillshade, a path layer, a source marker and magma: the PNG
    equals the program's byte for byte."""
    h.cli(["sssp", "--source=180,180", "--backlink=" + h.path("back.tif"), dem, h.path("cost.tif")])
    h.cli(["path", "--backlink=" + h.path("back.tif"), "--cost=" + h.path("cost.tif"), "--dest=10,20",
           "--dest=350,300", h.path("paths.geojson")])
    (x, y), = cell_centres(dem, [(180, 180)])
    results = h.run_algorithm("render", {"INPUT": h.path("cost.tif"), "KIND": 2, "WIDTH": 240, "TERRAIN": dem,
                                         "PATHS": h.path("paths.geojson"), "SOURCE_POINT": "%r,%r [EPSG:4326]" % (x, y),
                                         "CONTOURS": 8, "COLOUR_MAP": 1, "OUTPUT": h.path("q.png")})
    expected = h.cli(["render", "--kind=cost", "--width=240", "--terrain=" + dem, "--paths=" + h.path("paths.geojson"),
                      "--source=180,180", "--contours=8", "--colour-map=magma", h.path("cost.tif"), h.path("c.png")])
    if expected["path_lines"] != 2 or expected["sources"] != 1:
        fail("the program drew %s path lines and %s sources" % (expected["path_lines"], expected["sources"]))
    same_file(h.path("q.png"), h.path("c.png"))
    same_summary(json.loads(results["SUMMARY"]), expected, "render")


CASES = {"costdistance_layer": costdistance_layer, "costdistance_fields": costdistance_fields,
         "costdistance_point": costdistance_point,
         "leastcostpath": leastcostpath, "mst": mst, "fill": fill, "flowdir": flowdir, "flowacc": flowacc, "clump": clump, "corridor": corridor, "odmatrix": odmatrix,
         "network": network, "skip_empty": skip_empty, "bad_input": bad_input, "cancel": cancel, "settings": settings, "files": files,
         "render": render}

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in CASES or sys.argv[2] not in ("python", "cli"):
        print("usage: qgis_provider_test.py CASE python|cli; cases: %s" % ", ".join(sorted(CASES)))
        sys.exit(2)
    CASES[sys.argv[1]](sys.argv[2])
