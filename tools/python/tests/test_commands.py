"""The file functions give the terrazo program's outputs bit for bit and its --json summary."""

import json
import os

import pytest

import terrazo
from conftest import assert_same_raster, assert_same_summary, dataset, read

# (dataset, weight, source cells): the shipped DEMs of several formats and cell types.
COST_CASES = [
    ("real/pysheds_dem.tif", "friction", [(180, 180)]),
    ("real/hugo_site.asc", "absdiff", [(38, 27), (66, 30)]),
    ("real/west_bijou_gully.asc", "friction", [(20, 44)]),
    ("real/Mandakini.bil", "max", [(300, 300), (159, 466)]),
    ("real/srtm_bigtujunga30m_utm11.tif", "absdiff", [(600, 300)]),
]


def test_version_and_commands():
    assert terrazo.__version__ and terrazo.__version__ != "unknown"
    assert terrazo._native.commands() == ["clump", "corridor", "export", "fill", "flowacc", "flowdir", "gen", "import", "index", "info",
                                          "mst", "network", "od-matrix", "path", "render", "sssp", "watershed"]
    assert "--source x,y" in terrazo.usage("sssp")


def test_fill_matches_cli(cli, tmp_path):
    dem = dataset("real/N44W072.hgt")
    summary = terrazo.fill(dem, tmp_path / "py.tif", outlets="edge", memory="256M", tile=128)
    cli.run("fill", "--outlets", "edge", "--memory", "256M", "--tile", "128", dem, tmp_path / "cli.tif")
    assert summary["raised_cells"] > 0 and summary["closed_cells"] == 0
    assert (tmp_path / "py.tif").read_bytes() == (tmp_path / "cli.tif").read_bytes()


def test_flow_direction_matches_cli(cli, tmp_path):
    dem = dataset("real/N44W072.hgt")
    terrazo.fill(dem, tmp_path / "filled.tif", memory="256M")
    summary = terrazo.flow_direction(tmp_path / "filled.tif", tmp_path / "py.tif", memory="256M", tile=128)
    cli.run("flowdir", "--memory", "256M", "--tile", "128", tmp_path / "filled.tif", tmp_path / "cli.tif")
    assert summary["flat_cells"] > 0 and summary["undrained_cells"] == 0
    assert (tmp_path / "py.tif").read_bytes() == (tmp_path / "cli.tif").read_bytes()
def test_flow_accumulation_matches_cli(cli, tmp_path):
    # 6 x 4 cells flowing east, the last column south, the bottom-right cell an outlet; a nodata cell
    # ends the flow of the cell west of it.
    rows = [[1, 1, 1, 1, 1, 4]] * 3 + [[1, 1, 255, 1, 1, 0]]
    directions = tmp_path / "dir.asc"
    directions.write_text("ncols 6\nnrows 4\nxllcorner 0\nyllcorner 0\ncellsize 1\nNODATA_value 255\n" +
                          "".join(" ".join(str(v) for v in row) + "\n" for row in rows))
    summary = terrazo.flow_accumulation(directions, tmp_path / "py.tif", tile=16)
    cli.run("flowacc", "--tile", "16", directions, tmp_path / "cli.tif")
    assert summary["valid_cells"] == 23 and summary["largest"] == 21 and summary["outlets"] == 2
    assert (tmp_path / "py.tif").read_bytes() == (tmp_path / "cli.tif").read_bytes()
    basins = terrazo.watershed(directions, tmp_path / "py_basins.tif", tile=16)
    cli.run("watershed", "--tile", "16", directions, tmp_path / "cli_basins.tif")
    assert basins["valid_cells"] == 23 and basins["basins"] == 2
    assert (tmp_path / "py_basins.tif").read_bytes() == (tmp_path / "cli_basins.tif").read_bytes()
    # pour points as a list of (x, y) (the keyword ``outlets``), snapped to the accumulation
    gauged = terrazo.watershed(directions, tmp_path / "py_gauged.tif", outlets=[(2, 1), (0, 3)], snap=1,
                               accumulation=tmp_path / "py.tif", tile=16)
    cli.run("watershed", "--tile", "16", "--outlet", "2,1", "--outlet", "0,3", "--snap", "1", "--accumulation",
            tmp_path / "py.tif", directions, tmp_path / "cli_gauged.tif")
    assert [(p["snapped_x"], p["snapped_y"], p["basin"]) for p in gauged["pour_points"]] == [(3, 0, 1), (1, 2, 2)]
    assert (tmp_path / "py_gauged.tif").read_bytes() == (tmp_path / "cli_gauged.tif").read_bytes()
    # the stream network of accumulation >= 5: the last column (orders 1, 2, 2, 2) and the cells west of it
    streams = terrazo.watershed(directions, tmp_path / "py_b.tif", streams=5, accumulation=tmp_path / "py.tif",
                                streams_raster=tmp_path / "py_s.tif", streams_vector=tmp_path / "py_s.geojson", tile=16)
    cli.run("watershed", "--tile", "16", "--streams", "5", "--accumulation", tmp_path / "py.tif", "--streams-raster",
            tmp_path / "cli_s.tif", "--streams-vector", tmp_path / "cli_s.geojson", directions, tmp_path / "cli_b.tif")
    assert (streams["stream_cells"], streams["segments"], streams["max_order"]) == (7, 5, 2)
    for name in ("s.tif", "s.geojson"):
        assert (tmp_path / ("py_" + name)).read_bytes() == (tmp_path / ("cli_" + name)).read_bytes()


@pytest.mark.parametrize("name,weight,sources", COST_CASES, ids=[os.path.basename(c[0]) for c in COST_CASES])
def test_cost_distance_matches_cli(cli, tmp_path, name, weight, sources):
    dem = dataset(name)
    py, sh = tmp_path / "py", tmp_path / "cli"
    py.mkdir(), sh.mkdir()
    summary = terrazo.cost_distance(dem, py / "cost.tif", sources=sources, backlink=py / "back.tif",
                                    allocation=py / "alloc.tif", weight=weight, memory="256M", tile=64)
    args = ["sssp"] + ["--source=%d,%d" % s for s in sources] + [
        "--backlink", sh / "back.tif", "--allocation", sh / "alloc.tif", "--weight", weight, "--memory", "256M",
        "--tile", "64", dem, sh / "cost.tif"]
    expected = cli.json(*args)
    assert_same_summary(summary, expected)
    assert summary["sources"] == len(sources) and summary["reached_cells"] > 0
    for out in ("cost.tif", "back.tif", "alloc.tif"):
        assert_same_raster(py / out, sh / out)


def test_cost_distance_outputs_equal_byte_for_byte_with_gdal(cli, tmp_path):
    gdal = pytest.importorskip("osgeo.gdal")
    dem = dataset("real/pysheds_dem.tif")
    terrazo.cost_distance(dem, tmp_path / "py.tif", sources=[(180, 180), (10, 300)], threads=1)
    cli.run("sssp", "-q", "--source", "180,180", "--source", "10,300", "--threads", "1", dem, tmp_path / "cli.tif")
    gdal.UseExceptions()
    python_dataset, cli_dataset = gdal.Open(str(tmp_path / "py.tif")), gdal.Open(str(tmp_path / "cli.tif"))
    assert python_dataset.GetRasterBand(1).ReadRaster() == cli_dataset.GetRasterBand(1).ReadRaster()
    assert python_dataset.GetGeoTransform() == cli_dataset.GetGeoTransform()
    assert python_dataset.GetProjection() == cli_dataset.GetProjection()


def test_cost_distance_without_cost_raster(cli, tmp_path):
    dem = dataset("real/pysheds_dem.tif")
    summary = terrazo.cost_distance(dem, None, sources=(180, 180), backlink=tmp_path / "back.tif")
    assert summary["output"] == "" and summary["sources"] == 1
    cli.run("sssp", "-q", "--source", "180,180", "--backlink", tmp_path / "cli_back.tif", dem, "-")
    assert_same_raster(tmp_path / "back.tif", tmp_path / "cli_back.tif")


def test_path_matches_cli(cli, tmp_path):
    dem = dataset("real/pysheds_dem.tif")
    terrazo.cost_distance(dem, tmp_path / "cost.tif", sources=[(180, 180)], backlink=tmp_path / "back.tif")
    summary = terrazo.path(tmp_path / "py.geojson", backlink=tmp_path / "back.tif", cost=tmp_path / "cost.tif",
                           dests=[(10, 20), (350, 300)], mask=tmp_path / "py_mask.tif")
    expected = cli.json("path", "--backlink", tmp_path / "back.tif", "--cost", tmp_path / "cost.tif", "--dest",
                        "10,20", "--dest", "350,300", "--mask", tmp_path / "cli_mask.tif", tmp_path / "cli.geojson")
    assert_same_summary(summary, expected)
    with open(tmp_path / "py.geojson") as a, open(tmp_path / "cli.geojson") as b:
        assert json.load(a) == json.load(b)
    assert_same_raster(tmp_path / "py_mask.tif", tmp_path / "cli_mask.tif")


MST_CASES = ["real/pysheds_dem.tif", "real/hugo_site.asc", "real/Mandakini.bil"]


@pytest.mark.parametrize("name", MST_CASES, ids=[os.path.basename(c) for c in MST_CASES])
def test_mst_matches_cli(cli, tmp_path, name):
    dem = dataset(name)
    summary = terrazo.mst(dem, tmp_path / "py.tif", edge_list=tmp_path / "py.bin", tile=64, memory="128M")
    expected = cli.json("mst", "--edge-list", tmp_path / "cli.bin", "--tile", "64", "--memory", "128M", dem,
                        tmp_path / "cli.tif")
    assert_same_summary(summary, expected)
    assert_same_raster(tmp_path / "py.tif", tmp_path / "cli.tif")
    assert (tmp_path / "py.bin").read_bytes() == (tmp_path / "cli.bin").read_bytes()


def test_clump_matches_cli(cli, tmp_path):
    dem = dataset("real/srtm_bigtujunga30m_utm11.tif")
    summary = terrazo.clump(dem, tmp_path / "py.tif", by="range:1000,1500", stats=tmp_path / "py.csv", tile=128)
    expected = cli.json("clump", "--by", "range:1000,1500", "--stats", tmp_path / "cli.csv", "--tile", "128", dem,
                        tmp_path / "cli.tif")
    assert_same_summary(summary, expected)
    assert summary["regions"] > 1
    assert_same_raster(tmp_path / "py.tif", tmp_path / "cli.tif")
    assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()


def test_index_od_matrix_network_corridor_match_cli(cli, tmp_path):
    """index, od_matrix, network, corridor as functions, and through run() (the QGIS provider's
    Python backend, docs/qgis.md)."""
    dem = dataset("real/pysheds_dem.tif")
    sites = [(20, 40), (300, 320), (180, 180)]
    site_flags = [a for s in sites for a in ("--site", "%d,%d" % s)]
    summary = terrazo.index(dem, tmp_path / "py.tzi", device="cpu")
    expected = cli.json("index", "--device", "cpu", dem, tmp_path / "cli.tzi")
    for rate in (summary, expected):
        rate.pop("matrices_per_second")  # a measure of the run, not of its result
    assert_same_summary(summary, expected)
    assert (tmp_path / "py.tzi").read_bytes() == (tmp_path / "cli.tzi").read_bytes()
    summary = terrazo.od_matrix(dem, tmp_path / "py.csv", sites=sites, index=tmp_path / "cli.tzi")  # the same bytes
    expected = cli.json("od-matrix", *site_flags, "--index", tmp_path / "cli.tzi", dem, tmp_path / "cli.csv")
    assert_same_summary(summary, expected)
    assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()
    summary = terrazo.network(dem, tmp_path / "py.geojson", sites=sites)
    assert_same_summary(summary, cli.json("network", *site_flags, dem, tmp_path / "cli.geojson"))
    assert summary["edges"] == 2
    assert (tmp_path / "py.geojson").read_bytes() == (tmp_path / "cli.geojson").read_bytes()
    terrazo.cost_distance(dem, tmp_path / "a.tif", sources=[sites[0]])
    terrazo.cost_distance(dem, tmp_path / "b.tif", sources=[sites[1]])
    summary = terrazo.corridor(tmp_path / "a.tif", tmp_path / "b.tif", tmp_path / "py_corridor.tif", percent=5.0)
    expected = cli.json("corridor", "--percent", "5.0", tmp_path / "a.tif", tmp_path / "b.tif",
                        tmp_path / "cli_corridor.tif")
    assert_same_summary(summary, expected)
    assert 0 < summary["corridor_cells"] < summary["valid_cells"]
    assert_same_raster(tmp_path / "py_corridor.tif", tmp_path / "cli_corridor.tif")
    summary = terrazo.run("od-matrix", dem, tmp_path / "run.csv", sites=sites, wide=True)
    assert_same_summary(summary, cli.json("od-matrix", *site_flags, "--wide", dem, tmp_path / "cli_wide.csv"))
    assert (tmp_path / "run.csv").read_bytes() == (tmp_path / "cli_wide.csv").read_bytes()


def test_render_matches_cli(cli, tmp_path):
    """A cost picture with terrain, paths (repeated --paths), sources, range and magma, and a labels
    picture without legend: the PNGs equal the program's byte for byte."""
    dem = dataset("real/pysheds_dem.tif")
    terrazo.cost_distance(dem, tmp_path / "cost.tif", sources=[(180, 180), (20, 40)], backlink=tmp_path / "back.tif",
                          allocation=tmp_path / "alloc.tif")
    terrazo.path(tmp_path / "a.geojson", backlink=tmp_path / "back.tif", cost=tmp_path / "cost.tif", dests=[(10, 300)])
    terrazo.path(tmp_path / "b.geojson", backlink=tmp_path / "back.tif", cost=tmp_path / "cost.tif", dests=[(350, 20)])
    summary = terrazo.render(tmp_path / "cost.tif", tmp_path / "py.png", terrain=dem, width=200,
                             paths=[tmp_path / "a.geojson", tmp_path / "b.geojson"], sources=[(180, 180), (20, 40)],
                             range=(0.0, 5000.5), colour_map="magma", contours=6)
    expected = cli.json("render", "--terrain", dem, "--width", "200", "--paths", tmp_path / "a.geojson", "--paths",
                        tmp_path / "b.geojson", "--source", "180,180", "--source", "20,40", "--range", "0,5000.5",
                        "--colour-map", "magma", "--contours", "6", tmp_path / "cost.tif", tmp_path / "cli.png")
    assert_same_summary(summary, expected)
    assert summary["kind"] == "cost" and summary["path_lines"] == 2 and summary["sources"] == 2
    assert (tmp_path / "py.png").read_bytes() == (tmp_path / "cli.png").read_bytes()
    summary = terrazo.render(tmp_path / "alloc.tif", tmp_path / "py_zones.png", width=120, legend=False)
    expected = cli.json("render", "--width", "120", "--no-legend", tmp_path / "alloc.tif", tmp_path / "cli_zones.png")
    assert summary["kind"] == "labels" and summary["height"] == expected["height"]
    assert (tmp_path / "py_zones.png").read_bytes() == (tmp_path / "cli_zones.png").read_bytes()


def test_import_export_info_match_cli(cli, tmp_path):
    dem = dataset("real/hugo_site.asc")
    imported = terrazo.import_raster(dem, tmp_path / "py.tzs", tile=32)
    assert_same_summary(imported, cli.json("import", "--tile", "32", dem, tmp_path / "cli.tzs"))
    assert (tmp_path / "py.tzs").read_bytes() == (tmp_path / "cli.tzs").read_bytes()
    exported = terrazo.export_raster(tmp_path / "py.tzs", tmp_path / "py.tif", co={"COMPRESS": "DEFLATE"})
    expected = cli.json("export", "--co", "COMPRESS=DEFLATE", tmp_path / "cli.tzs", tmp_path / "cli.tif")
    assert_same_summary(exported, expected)
    assert_same_raster(tmp_path / "py.tif", tmp_path / "cli.tif")
    assert_same_raster(tmp_path / "py.tif", dem)
    described = terrazo.info(tmp_path / "py.tzs")
    assert_same_summary(described, cli.json("info", tmp_path / "py.tzs"))
    assert described["width"] == 76 and described["height"] == 55


def test_generate_matches_cli(cli, tmp_path):
    summary = terrazo.generate(tmp_path / "py.tif", width=300, height=200, seed=7, nodata_holes=0.05, base=-500.0,
                               type="Int16")
    expected = cli.json("gen", "--width", "300", "--height", "200", "--seed", "7", "--nodata-holes", "0.05",
                        "--base", "-500", "--type", "Int16", tmp_path / "cli.tif")
    assert_same_summary(summary, expected)
    assert_same_raster(tmp_path / "py.tif", tmp_path / "cli.tif")
    cells, info = read(tmp_path / "py.tif")
    assert info["type"] == "Int16" and cells.shape == (200, 300)


def test_flags_spelling():
    from terrazo._commands import _flags
    assert _flags("sssp", {"sources": [(1, 2), (3.5, 4)], "map_coords": True, "max_cost": 0.1, "backlink": None,
                           "quiet": False, "co": {"COMPRESS": "NONE"}}) == [
        "--source=1,2", "--source=3.5,4", "--map-coords", "--max-cost=0.1", "--co=COMPRESS=NONE"]
    assert _flags("sssp", {"sources": (1, 2)}) == ["--source=1,2"]
    assert _flags("sssp", {"source": [(1, 2)]}) == ["--source=1,2"]  # the flag's own name too
    assert _flags("path", {"dests": [[5, 6]]}) == ["--dest=5,6"]
    assert _flags("clump", {"co": ["A=1", "B=2"]}) == ["--co=A=1", "--co=B=2"]
    assert _flags("od-matrix", {"sites": [(1, 2), (3, 4)]}) == ["--site=1,2", "--site=3,4"]
    import pathlib
    assert _flags("render", {"paths": pathlib.Path("a.geojson")}) == ["--paths=a.geojson"]
    assert _flags("render", {"paths": ["a.geojson", pathlib.Path("b.geojson")], "range": (0, 2.5)}) == [
        "--paths=a.geojson", "--paths=b.geojson", "--range=0,2.5"]
    # A keyword no flag of the command has is spelled by the rule and refused by the parser.
    assert _flags("info", {"no_such_flag": 1}) == ["--no-such-flag=1"]


def test_flag_table_reaches_python():
    """The keywords come from the engine's flag table: every command's flags, the repeatable ones
    with their plural keyword, the shared ones with one wording."""
    from terrazo import _native
    for command in _native.commands():
        flags = _native.flags(command)
        names = [f["name"] for f in flags]
        assert "--memory" in names and "--json" in names, command
        assert len(names) == len(set(names)), command
        for flag in flags:
            assert flag["name"] in terrazo.usage(command), (command, flag["name"])
            assert (flag["type"] == "switch") == (flag["value_name"] == ""), flag
    sources = [f for f in _native.flags("sssp") if f["name"] == "--source"][0]
    assert sources["repeatable"] and sources["keyword"] == "sources" and sources["type"] == "point"
    memory = _native.shared_flag("--memory")
    assert memory["default"] == "1G" and memory["type"] == "size"
    assert [f for f in _native.flags("mst") if f["name"] == "--memory"][0]["help"] == memory["help"]
    with pytest.raises(ValueError, match="unknown flag '--device' for 'import'"):
        terrazo.import_raster("a.tif", "b.tzs", device="cpu")


def test_region_sites_od_matrix_and_network_match_cli(cli, tmp_path):
    """sites_raster= (region sites, docs/index.md "Region sites") through od_matrix and network: a zones
    grid of hugo_site.asc's size, written as an ESRI ASCII grid."""
    dem = dataset("real/hugo_site.asc")
    with open(dem) as f:
        lines = f.read().splitlines()
    rows = [line.split() for line in lines[6:]]
    valid = [(x, y) for y, row in enumerate(rows) for x, v in enumerate(row) if v != "-9999"]
    zones = [[0] * len(rows[0]) for _ in rows]
    step = len(valid) // 4
    for n in range(4):  # four regions of 3 valid cells each (in row order), ids 10, 20, 30, 40
        for x, y in valid[n * step + 1:n * step + 4]:
            zones[y][x] = 10 * (n + 1)
    path = tmp_path / "zones.asc"
    path.write_text("\n".join(lines[:6]) + "\n" + "\n".join(" ".join(str(v) for v in row) for row in zones) + "\n")
    summary = terrazo.od_matrix(dem, tmp_path / "py.csv", sites_raster=path)
    assert_same_summary(summary, cli.json("od-matrix", "--sites-raster", path, dem, tmp_path / "cli.csv"))
    assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()
    assert (tmp_path / "py.csv").read_text().splitlines()[1] == "10,10,0"
    summary = terrazo.network(dem, tmp_path / "py.geojson", sites_raster=path)
    assert_same_summary(summary, cli.json("network", "--sites-raster", path, dem, tmp_path / "cli.geojson"))
    assert summary["sites"] == 4 and summary["edges"] == 3
    assert (tmp_path / "py.geojson").read_bytes() == (tmp_path / "cli.geojson").read_bytes()
    assert '"from_id": 10' in (tmp_path / "py.geojson").read_text()
