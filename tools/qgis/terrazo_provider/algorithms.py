"""terrazo's commands as QGIS Processing algorithms (docs/qgis.md "Algorithms").

Each algorithm turns its QGIS parameters into the terrazo command's flags and files and hands them to
backend.run, which runs the terrazo Python package or the terrazo program: the same parser, the same
run, the program's outputs bit for bit. Nothing here computes terrain: points are only transformed
into the raster's CRS (QgsCoordinateTransform) and given to terrazo as map coordinates
(--map-coords), which terrazo maps to cells.

An algorithm is data: its command, names and help, and PARAMETERS, a list of parameter kinds
(parameters.py) that each name their terrazo flag; the choices of an enum are the flag's in the
engine's flag table (terrazo._native.flags). Parameters that several algorithms share (INPUT, BAND,
CONNECTIVITY, MAX_COST, MEMORY, DEVICE, EXTRA, ...) are declared once, in
algorithm_base.COMMON_PARAMETERS. TerrazoAlgorithm declares the parameters and runs the command; an
algorithm's methods compute only what is not one flag per parameter (points, ranges, modes).
"""

from qgis.core import (QgsProcessing, QgsProcessingException, QgsProcessingParameterBoolean,
                       QgsProcessingParameterCrs, QgsProcessingParameterEnum, QgsProcessingParameterField,
                       QgsProcessingParameterFeatureSource, QgsProcessingParameterFile,
                       QgsProcessingParameterPoint, QgsProcessingParameterRasterLayer, QgsProcessingParameterString,
                       QgsProcessingParameterVectorLayer)

from .algorithm_base import CONNECTIVITIES, CELL_TYPES, _Number, _advanced, TerrazoAlgorithm
from .parameters import Choice, Common, Custom, File, Number, Output, Raster, Switch


def _points(name, label):
    return lambda: QgsProcessingParameterFeatureSource(name, label, [QgsProcessing.TypeVectorPoint], None, True)


def _point(name, label):
    return lambda: QgsProcessingParameterPoint(name, label, None, True)


def _skip_empty(what):
    return Custom(None, lambda: _advanced(QgsProcessingParameterBoolean(
        "SKIP_EMPTY_FEATURES", "Skip %s features without geometry (their ids stay unused; "
        "--skip-empty-features)" % what, False)))


def _value(name, label):
    return lambda: _Number(name, label, _Number.Double, None, True)


# Per-source settings (docs/sssp.md "Per-source settings"): numeric fields of the source layer.
SOURCE_FIELDS = [("INITIAL_FIELD", "source-initial-field", "Initial cost field of the source points (null: Initial cost)"),
                 ("MAX_FIELD", "source-max-field", "Maximum cost field of the source points (null: none)"),
                 ("MULTIPLIER_FIELD", "source-multiplier-field",
                  "Cost multiplier field of the source points (null: Cost multiplier)")]


def _source_field(name, description):
    return lambda: _advanced(QgsProcessingParameterField(
        name, description, None, "SOURCES", QgsProcessingParameterField.Numeric, False, True))


class CostDistance(TerrazoAlgorithm):
    CONNECTIVITIES = CONNECTIVITIES + ["16"]  # 16: knight's moves, as GRASS r.cost -k (docs/sssp.md)
    COMMAND = "sssp"
    NAME = "costdistance"
    TITLE = "Cost distance (with backlink and allocation)"
    HELP = ("<p>Exact cumulative cost distance from one or more sources over the grid graph of a raster, out of "
            "core (docs/sssp.md). Sources: the points of a point layer (in its order: ids 1, 2, ...) and/or a "
            "clicked point; each lies in the cell under it. Backlink (direction to the predecessor, input of "
            "<i>Least-cost path</i>) and allocation (nearest source id) rasters are optional. Advanced: per-source "
            "initial cost, maximum cost and cost multiplier from numeric fields of the point layer (ArcGIS's source "
            "characteristics; docs/sssp.md \"Per-source settings\").</p>")
    PARAMETERS = [
        Common("INPUT", "BAND"),
        Custom("source_flags", _points("SOURCES", "Source points"), _point("SOURCE_POINT", "Source point (clicked)")),
        Choice("WEIGHT", "weight", "Edge weight (friction: mean of the two cells x step length)",
               ["friction", "absdiff", "max", "unit", "geometric"]),
        Choice("DISTANCE", "distance", "Step length", ["cells", "map", "geodesic"]),
        Common("CONNECTIVITY", "MAX_COST"),
        Raster("BARRIER", "barrier-raster", "Barrier raster (cells not 0 and not nodata cannot be entered)", True),
        Custom(None, *[_source_field(name, description) for name, _, description in SOURCE_FIELDS]),
        Number("SOURCE_INITIAL", "source-initial", "Initial cost of every source without its own", default=0.0,
               limits=(0.0,), omit=0, advanced=True),
        Number("SOURCE_MULTIPLIER", "source-multiplier", "Cost multiplier of every source without its own",
               default=1.0, limits=(0.0,), omit=1, advanced=True),
        _skip_empty("source"),
        Common("MEMORY", "DEVICE"),
        Choice("COST_TYPE", "ot", "Cell type of the cost raster", ["Float64", "Float32"], advanced=True),
        Common("EXTRA"),
        Output("OUTPUT", "Cost distance"),
        Output("BACKLINK", "Backlink", "backlink", optional=True),
        Output("ALLOCATION", "Allocation", "allocation", optional=True),
    ]

    def source_flags(self, parameters, context):
        layer = self.raster_path(parameters, "INPUT", context)[0]
        skip_empty = self.parameterAsBoolean(parameters, "SKIP_EMPTY_FEATURES", context)
        sources = self.points(parameters, "SOURCES", "SOURCE_POINT", context, layer.crs(), skip_empty)
        if not sources:
            raise QgsProcessingException("no source: give a point layer (Source points) or a clicked Source point")
        fields = [(flag, self.parameterAsString(parameters, name, context)) for name, flag, _ in SOURCE_FIELDS]
        fields = [(flag, field) for flag, field in fields if field]
        if not (fields or skip_empty):
            return [("source", point) for point in sources] + [("map-coords", True)]
        # the points and their attributes as a GeoJSON file (WGS 84), in the same order
        path = self.points_file(parameters, "SOURCES", "SOURCE_POINT", [field for _, field in fields], context,
                                skip_empty)
        return [("sources-file", path)] + fields + ([("skip-empty-features", True)] if skip_empty else [])


class LeastCostPath(TerrazoAlgorithm):
    COMMAND = "path"
    NAME = "leastcostpath"
    TITLE = "Least-cost path"
    HELP = ("<p>Least-cost paths from destination points back to their nearest source, traced through the "
            "backlink and cost rasters of one <i>Cost distance</i> run; one line per destination, vertices at cell "
            "centres, with its cost and length (docs/path.md).</p>")
    PARAMETERS = [
        Raster("BACKLINK", "backlink", "Backlink raster (from Cost distance)"),
        Raster("COST", "cost", "Cost distance raster (of the same run)"),
        Custom("dest_flags", _points("DESTINATIONS", "Destination points"),
               _point("DESTINATION_POINT", "Destination point (clicked)")),
        Common("MEMORY", "EXTRA"),
        Output("OUTPUT", "Least-cost paths", vector=QgsProcessing.TypeVectorLine),
        Output("MASK", "Path cells (1 on a path, 0 elsewhere)", "mask", optional=True),
    ]

    def dest_flags(self, parameters, context):
        layer = self.raster_path(parameters, "BACKLINK", context)[0]
        dests = self.points(parameters, "DESTINATIONS", "DESTINATION_POINT", context, layer.crs())
        if not dests:
            raise QgsProcessingException("no destination: give a point layer (Destination points) or a clicked point")
        return [("dest", point) for point in dests] + [("map-coords", True)]


class MinimumSpanningTree(TerrazoAlgorithm):
    COMMAND = "mst"
    NAME = "mst"
    TITLE = "Minimum spanning forest"
    HELP = ("<p>Exact minimum spanning forest of the raster's grid graph, out of core (docs/mst.md). The edge "
            "raster holds, per cell, bit 0 E, 1 SE, 2 S, 3 SW for the tree edges to those neighbours; 255 at "
            "nodata cells.</p>")
    PARAMETERS = [
        Common("INPUT", "BAND", INPUT="Elevation raster"),
        Choice("WEIGHT", "weight", "Edge weight", ["max", "absdiff", "friction"]),
        Common("CONNECTIVITY", "MEMORY", "DEVICE", "EXTRA"),
        Output("OUTPUT", "Tree edges"),
        Output("EDGE_LIST", "Edge list (binary records: u64 a, u64 b, u32 weight)", "edge-list",
               file_filter="Binary files (*.bin)", optional=True),
    ]


class FillDepressions(TerrazoAlgorithm):
    COMMAND = "fill"
    NAME = "fill"
    TITLE = "Fill depressions"
    HELP = ("<p>Fills the depressions of an elevation raster, exactly and out of core: each cell is raised to "
            "the lowest level at which its water leaves the raster (Priority-Flood by tiles on the CPU, rounds of "
            "tile solves with the raster in GPU memory on a GPU; docs/fill.md). "
            "Cells on no depression keep their value; the output has the input's cell type.</p>")
    PARAMETERS = [
        Common("INPUT", "BAND", INPUT="Elevation raster"),
        Choice("OUTLETS", "outlets", "Where water leaves: the raster's edge, cells next to nodata, or both",
               ["both", "edge", "nodata"]),
        Common("CONNECTIVITY", "MEMORY", "DEVICE", "EXTRA"),
        Output("OUTPUT", "Filled elevation"),
    ]


class FlowDirection(TerrazoAlgorithm):
    COMMAND = "flowdir"
    NAME = "flowdir"
    TITLE = "Flow direction (D8)"
    HELP = ("<p>D8 flow directions of a filled elevation raster, exactly and out of core (docs/flow.md): each "
            "cell flows to its steepest lower neighbour; flats drain towards their outlets and away from "
            "higher terrain (Barnes, Lehman and Mulla 2014). Byte codes as ESRI's: 1 E, 2 SE, 4 S, 8 SW, 16 W, "
            "32 NW, 64 N, 128 NE; 0 no flow (an outlet, or an undrained pit); 255 nodata. Fill the "
            "depressions first. On a GPU the whole raster is held in its memory, the same bytes.</p>")
    PARAMETERS = [
        Common("INPUT", "BAND", INPUT="Filled elevation raster"),
        Choice("OUTLETS", "outlets", "Where water leaves: the raster's edge, cells next to nodata, or both (as in the fill)",
               ["both", "edge", "nodata"]),
        Common("MEMORY", "DEVICE", "EXTRA"),
        Output("OUTPUT", "Flow directions"),
    ]


class FlowAccumulation(TerrazoAlgorithm):
    COMMAND = "flowacc"
    NAME = "flowacc"
    TITLE = "Flow accumulation"
    HELP = ("<p>Flow accumulation of a D8 direction raster (ESRI codes 1..128, 0 no flow, 255 nodata, as "
            "<i>terrazo flowdir</i> writes them), exactly and out of core (Barnes 2017, docs/flow.md): each cell "
            "gets the number of cells whose flow passes through it, itself included, or with a weight raster the "
            "sum of their weights (Float64). A code pointing off the raster or at nodata ends the flow there; "
            "directions that loop are refused. On a GPU the whole raster is accumulated in its memory, the same "
            "bytes.</p>")
    PARAMETERS = [
        Common("INPUT", "BAND", INPUT="D8 flow directions"),
        Raster("WEIGHT", "weight", "Weight raster (empty: count cells; a nodata weight counts 0)", True),
        Common("MEMORY", "DEVICE", "EXTRA"),
        Output("OUTPUT", "Flow accumulation"),
    ]


class Watershed(TerrazoAlgorithm):
    COMMAND = "watershed"
    NAME = "watershed"
    TITLE = "Watershed (drainage basins)"
    HELP = ("<p>Drainage basins of a D8 direction raster (ESRI codes, as <i>terrazo flowdir</i> writes them), "
            "exactly and out of core (docs/flow.md): the cells whose flow ends at the same cell share a basin, "
            "labelled 1..K in raster order of each basin's first cell, 0 at nodata. With pour points (a point "
            "layer and/or a clicked point), only the cells draining to a pour point are labelled (the others 0); "
            "a pour point upstream of another cuts its basin out of the downstream one's. With a flow "
            "accumulation raster (<i>Flow accumulation</i> of the same directions) and a snap distance, each "
            "pour point first moves to the cell of largest accumulation within that many cells. With the "
            "accumulation and a stream threshold, the stream network too: the cells whose accumulation is at least "
            "the threshold, as a raster of Strahler orders and/or lines, one per segment (from a source or a "
            "junction to the next junction), with their order and the segment they flow into.</p>")
    PARAMETERS = [
        Common("INPUT", "BAND", INPUT="D8 flow directions"),
        Custom("outlet_flags", _points("OUTLETS", "Pour points (empty: every basin)"),
               _point("OUTLET_POINT", "Pour point (clicked)")),
        Raster("ACCUMULATION", "accumulation", "Flow accumulation, to snap the pour points to or for the streams",
               True),
        Number("SNAP", "snap", "Snap the pour points to the largest accumulation within (cells)", integer=True,
               limits=(0,)),
        Number("STREAMS", "streams", "Stream threshold: the least accumulation of a stream cell (cells)",
               integer=True, limits=(1,)),
        Common("MEMORY", "EXTRA"),
        Output("OUTPUT", "Basins"),
        Output("STREAMS_RASTER", "Stream network (Strahler orders)", "streams-raster", optional=True),
        Output("STREAMS_VECTOR", "Stream segments", "streams-vector", vector=QgsProcessing.TypeVectorLine,
               optional=True),
    ]

    def outlet_flags(self, parameters, context):
        layer = self.raster_path(parameters, "INPUT", context)[0]
        points = self.points(parameters, "OUTLETS", "OUTLET_POINT", context, layer.crs())
        return [("outlet", point) for point in points] + [("map-coords", True)] if points else []


class Clump(TerrazoAlgorithm):
    COMMAND = "clump"
    NAME = "clump"
    TITLE = "Clump (connected regions)"
    HELP = ("<p>Connected regions of equal value (or of valid cells, or of cells within a range), labelled 1..K "
            "in raster order, 0 at nodata, out of core (docs/clump.md). A floating-point raster needs "
            "<i>valid</i> or <i>range</i>.</p>")
    BY = ["value", "valid", "range"]
    PARAMETERS = [
        Common("INPUT", "BAND", INPUT="Raster"),
        Custom("by_flags", lambda: QgsProcessingParameterEnum("BY", "What joins neighbours", Clump.BY, False, 0),
               _value("RANGE_LOW", "Range: lowest value (with by range)"),
               _value("RANGE_HIGH", "Range: highest value (with by range)")),
        Common("CONNECTIVITY"),
        Number("MIN_SIZE", "min-size", "Merge regions of fewer cells into a neighbour (empty: keep all)", integer=True,
               limits=(1,)),
        Common("MEMORY", "DEVICE", "EXTRA"),
        Output("OUTPUT", "Region labels"),
        Output("STATS", "Region statistics", "stats", file_filter="CSV files (*.csv)", optional=True),
    ]

    def by_flags(self, parameters, context):
        by = self.enum(parameters, "BY", self.BY, context)
        if by == "range":
            if not (self.has(parameters, "RANGE_LOW") and self.has(parameters, "RANGE_HIGH")):
                raise QgsProcessingException("by range needs Range: lowest value and Range: highest value")
            by = "range:%r,%r" % (self.parameterAsDouble(parameters, "RANGE_LOW", context),
                                  self.parameterAsDouble(parameters, "RANGE_HIGH", context))
        return [("by", by)]


class Corridor(TerrazoAlgorithm):
    COMMAND = "corridor"
    NAME = "corridor"
    TITLE = "Least-cost corridor"
    HELP = ("<p>The least-cost corridor between two sources: the sum of their two cost-distance rasters (two "
            "<i>Cost distance</i> runs over the same raster, one from each source), kept where it is within a "
            "threshold or within a percentage of the least-cost path's cost (docs/corridor.md).</p>")
    MODES = ["all cells", "threshold (cost units)", "percent above the least cost"]
    PARAMETERS = [
        Raster("COST_A", None, "Cost distance from source A"),
        Raster("COST_B", None, "Cost distance from source B"),
        Custom("keep_flags", lambda: QgsProcessingParameterEnum("KEEP", "Cells kept", Corridor.MODES, False, 2),
               lambda: _Number("VALUE", "Threshold or percent", _Number.Double, 5.0, True, 0.0)),
        Common("MEMORY", "EXTRA"),
        Output("OUTPUT", "Corridor"),
    ]

    def keep_flags(self, parameters, context):
        keep = self.parameterAsEnum(parameters, "KEEP", context)
        if not keep:
            return []
        if not self.has(parameters, "VALUE"):
            raise QgsProcessingException("Cells kept by threshold or percent needs Threshold or percent")
        return [("threshold" if keep == 1 else "percent", self.parameterAsDouble(parameters, "VALUE", context))]


class SitesAlgorithm(TerrazoAlgorithm):
    """od-matrix and network: K sites over a cost raster, with or without a boundary-graph index."""

    SITES_PARAMETERS = [
        Common("INPUT"),
        Custom("sites_flags",
               _points("SITES", "Sites (ids 1, 2, ... in feature order; or Regions below)"),
               lambda: QgsProcessingParameterRasterLayer(
                   "REGIONS", "Regions instead of sites: a raster of zone ids on INPUT's grid (positive integers; 0 "
                   "and nodata: none), e.g. habitat patches", None, True),
               lambda: QgsProcessingParameterFile(
                   "INDEX", "Boundary-graph index of INPUT (terrazo index; empty: none)",
                   QgsProcessingParameterFile.File, "tzi", None, True),
               lambda: QgsProcessingParameterBoolean(
                   "SKIP_FINGERPRINT_CHECK", "With an index: do not check that it was built from INPUT's cells "
                   "(--skip-fingerprint-check)", False)),
        Choice("WEIGHT", "weight", "Edge weight", ["friction", "absdiff", "max"]),
        Common("CONNECTIVITY"),
        _skip_empty("site"),
    ]

    def sites_flags(self, parameters, context):
        if self.has(parameters, "REGIONS"):
            # Region sites (docs/index.md "Region sites"): the zones raster as it is, ids its values.
            if self.has(parameters, "SITES"):
                raise QgsProcessingException("Sites and Regions: give one of them, not both")
            flags = [("sites-raster", self.raster_path(parameters, "REGIONS", context)[1])]
        else:
            layer = self.raster_path(parameters, "INPUT", context)[0]
            skip_empty = self.parameterAsBoolean(parameters, "SKIP_EMPTY_FEATURES", context)
            sites = self.points(parameters, "SITES", None, context, layer.crs(), skip_empty)
            if len(sites) < 2:
                raise QgsProcessingException("Sites: %d point(s); at least 2 are needed (or give Regions)" % len(sites))
            if skip_empty:  # a file keeps the ids of the features skipped (--skip-empty-features)
                flags = [("sites-file", self.points_file(parameters, "SITES", None, [], context, True)),
                         ("skip-empty-features", True)]
            else:
                flags = [("site", point) for point in sites] + [("map-coords", True)]
        index = self.parameterAsFile(parameters, "INDEX", context)
        if index:
            flags.append(("index", index))
            if self.parameterAsBoolean(parameters, "SKIP_FINGERPRINT_CHECK", context):
                flags.append(("skip-fingerprint-check", True))
        return flags


class OdMatrix(SitesAlgorithm):
    COMMAND = "od-matrix"
    NAME = "odmatrix"
    TITLE = "Cost-distance matrix between sites"
    HELP = ("<p>The exact cost-distance matrix between K sites (the numbers <i>Cost distance</i> gives at the "
            "sites), as a CSV table: from_id, to_id, cost, or K x K with <i>wide</i> (docs/index.md).</p>")
    PARAMETERS = SitesAlgorithm.SITES_PARAMETERS + [
        Common("MAX_COST"),
        Switch("WIDE", "wide", "Wide table (K x K)"),
        Common("MEMORY", "EXTRA"),
        Output("OUTPUT", "Cost matrix", file_filter="CSV files (*.csv)"),
    ]


class Network(SitesAlgorithm):
    COMMAND = "network"
    NAME = "network"
    TITLE = "Least-cost network between sites"
    HELP = ("<p>The least-cost network connecting K sites: the minimum spanning tree of their exact cost "
            "matrix, each tree edge traced as a least-cost path; one line per edge with from_id, to_id, cost, "
            "length (docs/index.md). Sites are points, or regions (a raster of zone ids, e.g. habitat patches): "
            "then the cost between two regions is the least over their cells' pairs, each line runs between the "
            "regions' nearest cells, and from_id, to_id are the zone ids.</p>")
    PARAMETERS = SitesAlgorithm.SITES_PARAMETERS + [
        Common("MEMORY", "EXTRA"),
        Output("OUTPUT", "Network", vector=QgsProcessing.TypeVectorLine),
    ]


class BoundaryIndex(TerrazoAlgorithm):
    COMMAND = "index"
    NAME = "index"
    TITLE = "Boundary-graph index (for many-site queries)"
    HELP = ("<p>Builds the boundary-graph index of a cost raster, once per terrain and weight model; "
            "<i>Cost-distance matrix</i> and <i>Least-cost network</i> answer many-site queries fast with it "
            "(docs/index.md). About 32 bytes per cell.</p>")
    PARAMETERS = [
        Common("INPUT"),
        Choice("WEIGHT", "weight", "Edge weight", ["friction", "absdiff", "max"]),
        Common("CONNECTIVITY", "MEMORY", "DEVICE", "EXTRA"),
        Output("OUTPUT", "Index", file_filter="terrazo index (*.tzi)"),
    ]


class Render(TerrazoAlgorithm):
    COMMAND = "render"
    NAME = "render"
    TITLE = "Quick-look picture (PNG)"
    HELP = ("<p>A PNG of any terrazo input or output: a DEM under its hillshade, a cost surface in viridis with "
            "contour lines, backlink directions, allocation zones or clump labels, MST edges; least-cost paths "
            "and source points drawn on top; a legend and a scale bar under the map. Read at the picture's "
            "size, so it works on rasters larger than memory (docs/render.md).</p>")
    PARAMETERS = [
        Common("INPUT", "BAND", INPUT="Raster (a DEM or any terrazo output)"),
        Choice("KIND", "kind", "What the raster is", ["auto", "dem", "cost", "backlink", "labels", "edges"]),
        Number("WIDTH", "width", "Picture width (pixels)", integer=True, default=1024, optional=False,
               limits=(1, 16384)),
        Raster("TERRAIN", "terrain", "Terrain (a DEM of the raster's size: its hillshade underneath)", True),
        Custom("paths_flags", lambda: QgsProcessingParameterVectorLayer(
            "PATHS", "Paths (a line layer in the raster's CRS, e.g. from Least-cost path)",
            [QgsProcessing.TypeVectorLine], None, True)),
        Custom("marker_flags", _points("SOURCES", "Source points (markers)"),
               _point("SOURCE_POINT", "Source point (clicked)")),
        Number("CONTOURS", "contours", "Contour levels (empty: 10 for cost, none otherwise)", integer=True,
               limits=(0, 1000)),
        Custom("range_flags", _value("RANGE_MIN", "Colour range: lowest value (empty: the raster's)"),
               _value("RANGE_MAX", "Colour range: highest value (empty: the raster's)")),
        Choice("COLOUR_MAP", "colour-map", "Colour map (cost)", ["viridis", "magma"], omit_default=True),
        Switch("LEGEND", "no-legend", "Legend and scale bar", default=True, when=False),
        Common("MEMORY", "EXTRA"),
        Output("OUTPUT", "Picture", file_filter="PNG files (*.png)"),
    ]

    def paths_flags(self, parameters, context):
        if not self.has(parameters, "PATHS"):
            return []
        paths = self.parameterAsVectorLayer(parameters, "PATHS", context)
        if paths is None or paths.providerType() != "ogr":
            raise QgsProcessingException("PATHS: terrazo reads line files through OGR; save the layer as GeoJSON")
        return [("paths", paths.source().split("|")[0])]

    def marker_flags(self, parameters, context):
        layer = self.raster_path(parameters, "INPUT", context)[0]
        sources = self.points(parameters, "SOURCES", "SOURCE_POINT", context, layer.crs())
        return [("source", point) for point in sources] + [("map-coords", True)] if sources else []

    def range_flags(self, parameters, context):
        if self.has(parameters, "RANGE_MIN") != self.has(parameters, "RANGE_MAX"):
            raise QgsProcessingException("Colour range: give both the lowest and the highest value, or neither")
        if not self.has(parameters, "RANGE_MIN"):
            return []
        return [("range", (self.parameterAsDouble(parameters, "RANGE_MIN", context),
                           self.parameterAsDouble(parameters, "RANGE_MAX", context)))]


class Import(TerrazoAlgorithm):
    COMMAND = "import"
    NAME = "import"
    TITLE = "Import into a tile store (.tzs)"
    HELP = ("<p>Any GDAL raster into a terrazo tile store, one streaming pass (docs/tile_store_format.md). Every terrazo "
            "algorithm reads stores as well as rasters; a store read many times is faster than a compressed "
            "GeoTIFF. <i>Export</i> turns it back into a GeoTIFF.</p>")
    PARAMETERS = [
        Common("INPUT", "BAND", INPUT="Raster"),
        Number("TILE", "tile", "Tile edge (power of two, 16..4096; empty: 256)", integer=True, limits=(16, 4096)),
        Common("MEMORY", "EXTRA"),
        Output("OUTPUT", "Tile store", file_filter="terrazo tile store (*.tzs)"),
    ]


class Export(TerrazoAlgorithm):
    COMMAND = "export"
    NAME = "export"
    TITLE = "Export to GeoTIFF"
    HELP = ("<p>A terrazo tile store (or any raster) to a tiled, compressed GeoTIFF that QGIS and every GIS "
            "open. Creation options as GDAL's -co, e.g. <code>COMPRESS=DEFLATE</code>.</p>")
    PARAMETERS = [
        File("INPUT", label="Tile store (.tzs) or raster"),
        Number("BLOCK", "block", "GeoTIFF block edge (multiple of 16; empty: 256)", integer=True, limits=(16, 4096)),
        Custom("creation_flags", lambda: QgsProcessingParameterString(
            "CREATION_OPTIONS", "GeoTIFF creation options (KEY=VALUE, separated by spaces)", "", False, True)),
        Common("MEMORY", "EXTRA"),
        Output("OUTPUT", "GeoTIFF"),
    ]

    def creation_flags(self, parameters, context):
        return [("co", option) for option in self.parameterAsString(parameters, "CREATION_OPTIONS", context).split()]


class Info(TerrazoAlgorithm):
    COMMAND = "info"
    NAME = "info"
    TITLE = "Information (size, type, nodata, min/max)"
    HELP = ("<p>Size, cell type, tiles, nodata, valid cells, min and max (read from every cell), geotransform "
            "and CRS of a tile store or any raster, or what a boundary-graph index (.tzi) holds, as terrazo's "
            "JSON summary (also written to a file when one is given).</p>")
    PARAMETERS = [
        File("INPUT", label="Tile store (.tzs), index (.tzi) or raster"),
        Common("MEMORY", "EXTRA"),
        Output("OUTPUT", "Summary (JSON)", file_filter="JSON files (*.json)", optional=True, positional=False),
    ]

    def finish(self, results, summary):
        if results["OUTPUT"]:
            with open(results["OUTPUT"], "w") as f:
                f.write(summary + "\n")


class Generate(TerrazoAlgorithm):
    COMMAND = "gen"
    NAME = "gen"
    TITLE = "Generate terrain"
    HELP = ("<p>Deterministic fractal terrain of any size (valleys, rivers, pits, optional nodata holes), "
            "streamed tile by tile: test data for every other algorithm. The same options give the same cells.</p>")
    PARAMETERS = [
        Number("WIDTH", "width", "Width (cells)", integer=True, default=1024, optional=False, limits=(1,)),
        Number("HEIGHT", "height", "Height (cells)", integer=True, default=1024, optional=False, limits=(1,)),
        Number("SEED", "seed", "Seed", integer=True, default=1, optional=False, limits=(0,)),
        Choice("TYPE", "type", "Cell type", CELL_TYPES),
        Number("RELIEF", "relief", "Relief, lowest valley to highest peak (empty: 1000 m; 250 for Byte)",
               limits=(0.0,)),
        Number("NODATA_HOLES", "nodata-holes", "Nodata holes (fraction of the cells)", default=0.0, optional=False,
               limits=(0.0, 0.99), omit=0),
        Switch("RIVERS", "no-rivers", "Carve river valleys", default=True, when=False),
        Switch("PITS", "no-pits", "Pits (closed depressions)", default=True, when=False),
        Number("CELL_SIZE", "cell-size", "Cell size (empty: 30)", limits=(0.0,)),
        Custom("crs_flags", lambda: QgsProcessingParameterCrs("CRS", "CRS (empty: EPSG:3857)", None, True)),
        Common("MEMORY", "EXTRA"),
        Output("OUTPUT", "Terrain"),
    ]

    def crs_flags(self, parameters, context):
        if not self.has(parameters, "CRS"):
            return []
        crs = self.parameterAsCrs(parameters, "CRS", context)
        return [("crs", crs.authid() or crs.toWkt())] if crs.isValid() else []


ALGORITHMS = [CostDistance, LeastCostPath, MinimumSpanningTree, FillDepressions, FlowDirection, FlowAccumulation, Watershed, Clump, Corridor, OdMatrix, Network, BoundaryIndex,
              Render, Import, Export, Info, Generate]
