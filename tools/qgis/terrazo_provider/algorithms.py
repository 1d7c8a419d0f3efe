"""terrazo's commands as QGIS Processing algorithms (docs/qgis.md "Algorithms").

Each algorithm turns its QGIS parameters into the terrazo command's flags and files and hands them to
backend.run, which runs the terrazo Python package or the terrazo program: the same parser, the same
run, the program's outputs bit for bit. Nothing here computes terrain: points are only transformed
into the raster's CRS (QgsCoordinateTransform) and given to terrazo as map coordinates
(--map-coords), which terrazo maps to cells.

Parameters that several algorithms share (INPUT, BAND, CONNECTIVITY, MAX_COST, MEMORY, DEVICE,
EXTRA, ...) are declared once, in algorithm_base.COMMON_PARAMETERS; an algorithm lists the ones it
takes by name and declares only its own.
"""

from qgis.core import (QgsProcessing, QgsProcessingException, QgsProcessingParameterBoolean,
                       QgsProcessingParameterCrs, QgsProcessingParameterEnum, QgsProcessingParameterField,
                       QgsProcessingParameterFeatureSource, QgsProcessingParameterFile,
                       QgsProcessingParameterFileDestination, QgsProcessingParameterPoint,
                       QgsProcessingParameterRasterDestination, QgsProcessingParameterRasterLayer,
                       QgsProcessingParameterString, QgsProcessingParameterVectorDestination,
                       QgsProcessingParameterVectorLayer)

from .algorithm_base import CONNECTIVITIES, CELL_TYPES, _Number, _advanced, TerrazoAlgorithm


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
    WEIGHTS = ["friction", "absdiff", "max", "unit", "geometric"]
    DISTANCES = ["cells", "map", "geodesic"]
    # Per-source settings (docs/sssp.md "Per-source settings"): numeric fields of the source layer.
    SOURCE_FIELDS = [("INITIAL_FIELD", "source-initial-field", "Initial cost field of the source points (null: Initial cost)"),
                     ("MAX_FIELD", "source-max-field", "Maximum cost field of the source points (null: none)"),
                     ("MULTIPLIER_FIELD", "source-multiplier-field",
                      "Cost multiplier field of the source points (null: Cost multiplier)")]
    COST_TYPES = ["Float64", "Float32"]

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add("INPUT", "BAND")
        self.addParameter(QgsProcessingParameterFeatureSource(
            "SOURCES", "Source points", [QgsProcessing.TypeVectorPoint], None, True))
        self.addParameter(QgsProcessingParameterPoint("SOURCE_POINT", "Source point (clicked)", None, True))
        self.addParameter(QgsProcessingParameterEnum(
            "WEIGHT", "Edge weight (friction: mean of the two cells x step length)", self.WEIGHTS, False, 0))
        self.addParameter(QgsProcessingParameterEnum("DISTANCE", "Step length", self.DISTANCES, False, 0))
        self.add("CONNECTIVITY", "MAX_COST")
        self.addParameter(QgsProcessingParameterRasterLayer(
            "BARRIER", "Barrier raster (cells not 0 and not nodata cannot be entered)", None, True))
        for name, _, description in self.SOURCE_FIELDS:
            self.addParameter(_advanced(QgsProcessingParameterField(
                name, description, None, "SOURCES", QgsProcessingParameterField.Numeric, False, True)))
        self.addParameter(_advanced(_Number("SOURCE_INITIAL", "Initial cost of every source without its own",
                                            _Number.Double, 0.0, True, 0.0)))
        self.addParameter(_advanced(_Number("SOURCE_MULTIPLIER", "Cost multiplier of every source without its own",
                                            _Number.Double, 1.0, True, 0.0)))
        self.add_skip_empty("source")
        self.add("MEMORY", "DEVICE")
        self.addParameter(_advanced(QgsProcessingParameterEnum("COST_TYPE", "Cell type of the cost raster",
                                                               self.COST_TYPES, False, 0)))
        self.add("EXTRA")
        self.addParameter(QgsProcessingParameterRasterDestination("OUTPUT", "Cost distance"))
        self.addParameter(QgsProcessingParameterRasterDestination("BACKLINK", "Backlink", None, True, False))
        self.addParameter(QgsProcessingParameterRasterDestination("ALLOCATION", "Allocation", None, True, False))
        self.add_summary()

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        layer, input_path = self.raster_path(parameters, "INPUT", context)
        skip_empty = self.parameterAsBoolean(parameters, "SKIP_EMPTY_FEATURES", context)
        sources = self.points(parameters, "SOURCES", "SOURCE_POINT", context, layer.crs(), skip_empty)
        if not sources:
            raise QgsProcessingException("no source: give a point layer (Source points) or a clicked Source point")
        output = self.output_path(parameters, "OUTPUT", context)
        backlink = self.output_path(parameters, "BACKLINK", context)
        allocation = self.output_path(parameters, "ALLOCATION", context)
        fields = [(flag, self.parameterAsString(parameters, name, context)) for name, flag, _ in self.SOURCE_FIELDS]
        fields = [(flag, field) for flag, field in fields if field]
        if fields or skip_empty:  # the points and their attributes as a GeoJSON file (WGS 84), in the same order
            path = self.points_file(parameters, "SOURCES", "SOURCE_POINT", [field for _, field in fields], context,
                                    skip_empty)
            flags = [("sources-file", path)] + fields + ([("skip-empty-features", True)] if skip_empty else [])
        else:
            flags = [("source", point) for point in sources] + [("map-coords", True)]
        if self.has(parameters, "SOURCE_INITIAL") and self.parameterAsDouble(parameters, "SOURCE_INITIAL", context) != 0:
            flags.append(("source-initial", self.parameterAsDouble(parameters, "SOURCE_INITIAL", context)))
        if (self.has(parameters, "SOURCE_MULTIPLIER") and
                self.parameterAsDouble(parameters, "SOURCE_MULTIPLIER", context) != 1):
            flags.append(("source-multiplier", self.parameterAsDouble(parameters, "SOURCE_MULTIPLIER", context)))
        flags.append(("weight", self.enum(parameters, "WEIGHT", self.WEIGHTS, context)))
        flags.append(("distance", self.enum(parameters, "DISTANCE", self.DISTANCES, context)))
        if self.has(parameters, "BARRIER"):
            flags.append(("barrier-raster", self.raster_path(parameters, "BARRIER", context)[1]))
        flags.append(("ot", self.enum(parameters, "COST_TYPE", self.COST_TYPES, context)))
        if backlink:
            flags.append(("backlink", backlink))
        if allocation:
            flags.append(("allocation", allocation))
        flags += self.common_flags(parameters, context)
        summary = self.run_terrazo([input_path, output], flags, parameters, context, feedback)
        return {"OUTPUT": output, "BACKLINK": backlink or None, "ALLOCATION": allocation or None, "SUMMARY": summary}


class LeastCostPath(TerrazoAlgorithm):
    COMMAND = "path"
    NAME = "leastcostpath"
    TITLE = "Least-cost path"
    HELP = ("<p>Least-cost paths from destination points back to their nearest source, traced through the "
            "backlink and cost rasters of one <i>Cost distance</i> run; one line per destination, vertices at cell "
            "centres, with its cost and length (docs/path.md).</p>")

    def initAlgorithm(self, config=None):  # noqa: N802
        self.addParameter(QgsProcessingParameterRasterLayer("BACKLINK", "Backlink raster (from Cost distance)"))
        self.addParameter(QgsProcessingParameterRasterLayer("COST", "Cost distance raster (of the same run)"))
        self.addParameter(QgsProcessingParameterFeatureSource(
            "DESTINATIONS", "Destination points", [QgsProcessing.TypeVectorPoint], None, True))
        self.addParameter(QgsProcessingParameterPoint("DESTINATION_POINT", "Destination point (clicked)", None, True))
        self.add("MEMORY", "EXTRA")
        self.addParameter(QgsProcessingParameterVectorDestination(
            "OUTPUT", "Least-cost paths", QgsProcessing.TypeVectorLine))
        self.addParameter(QgsProcessingParameterRasterDestination(
            "MASK", "Path cells (1 on a path, 0 elsewhere)", None, True, False))
        self.add_summary()

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        layer, backlink = self.raster_path(parameters, "BACKLINK", context)
        cost = self.raster_path(parameters, "COST", context)[1]
        dests = self.points(parameters, "DESTINATIONS", "DESTINATION_POINT", context, layer.crs())
        if not dests:
            raise QgsProcessingException("no destination: give a point layer (Destination points) or a clicked point")
        output = self.output_path(parameters, "OUTPUT", context)
        mask = self.output_path(parameters, "MASK", context)
        flags = [("backlink", backlink), ("cost", cost)] + [("dest", point) for point in dests]
        flags.append(("map-coords", True))
        if mask:
            flags.append(("mask", mask))
        flags += self.common_flags(parameters, context)
        summary = self.run_terrazo([output], flags, parameters, context, feedback)
        return {"OUTPUT": output, "MASK": mask or None, "SUMMARY": summary}


class MinimumSpanningTree(TerrazoAlgorithm):
    COMMAND = "mst"
    NAME = "mst"
    TITLE = "Minimum spanning forest"
    HELP = ("<p>Exact minimum spanning forest of the raster's grid graph, out of core (docs/mst.md). The edge "
            "raster holds, per cell, bit 0 E, 1 SE, 2 S, 3 SW for the tree edges to those neighbours; 255 at "
            "nodata cells.</p>")
    WEIGHTS = ["max", "absdiff", "friction"]

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add("INPUT", "BAND", INPUT="Elevation raster")
        self.addParameter(QgsProcessingParameterEnum("WEIGHT", "Edge weight", self.WEIGHTS, False, 0))
        self.add("CONNECTIVITY", "MEMORY", "DEVICE", "EXTRA")
        self.addParameter(QgsProcessingParameterRasterDestination("OUTPUT", "Tree edges"))
        self.addParameter(QgsProcessingParameterFileDestination(
            "EDGE_LIST", "Edge list (binary records: u64 a, u64 b, u32 weight)", "Binary files (*.bin)", None, True,
            False))
        self.add_summary()

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        input_path = self.raster_path(parameters, "INPUT", context)[1]
        output = self.output_path(parameters, "OUTPUT", context)
        edge_list = self.parameterAsFileOutput(parameters, "EDGE_LIST", context)
        flags = [("weight", self.enum(parameters, "WEIGHT", self.WEIGHTS, context))]
        if edge_list:
            flags.append(("edge-list", edge_list))
        flags += self.common_flags(parameters, context)
        summary = self.run_terrazo([input_path, output], flags, parameters, context, feedback)
        return {"OUTPUT": output, "EDGE_LIST": edge_list or None, "SUMMARY": summary}


class FillDepressions(TerrazoAlgorithm):
    COMMAND = "fill"
    NAME = "fill"
    TITLE = "Fill depressions"
    HELP = ("<p>Fills the depressions of an elevation raster, exactly and out of core: each cell is raised to "
            "the lowest level at which its water leaves the raster (Priority-Flood by tiles, docs/fill.md). "
            "Cells on no depression keep their value; the output has the input's cell type.</p>")
    OUTLETS = ["both", "edge", "nodata"]

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add("INPUT", "BAND", INPUT="Elevation raster")
        self.addParameter(QgsProcessingParameterEnum(
            "OUTLETS", "Where water leaves: the raster's edge, cells next to nodata, or both", self.OUTLETS, False, 0))
        self.add("CONNECTIVITY", "MEMORY", "EXTRA")
        self.addParameter(QgsProcessingParameterRasterDestination("OUTPUT", "Filled elevation"))
        self.add_summary()

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        input_path = self.raster_path(parameters, "INPUT", context)[1]
        output = self.output_path(parameters, "OUTPUT", context)
        flags = [("outlets", self.enum(parameters, "OUTLETS", self.OUTLETS, context))]
        flags += self.common_flags(parameters, context)
        summary = self.run_terrazo([input_path, output], flags, parameters, context, feedback)
        return {"OUTPUT": output, "SUMMARY": summary}


class FlowDirection(TerrazoAlgorithm):
    COMMAND = "flowdir"
    NAME = "flowdir"
    TITLE = "Flow direction (D8)"
    HELP = ("<p>D8 flow directions of a filled elevation raster, exactly and out of core (docs/flow.md): each "
            "cell flows to its steepest lower neighbour; flats drain towards their outlets and away from "
            "higher terrain (Barnes, Lehman and Mulla 2014). Byte codes as ESRI's: 1 E, 2 SE, 4 S, 8 SW, 16 W, "
            "32 NW, 64 N, 128 NE; 0 no flow (an outlet, or an undrained pit); 255 nodata. Fill the "
            "depressions first.</p>")
    OUTLETS = ["both", "edge", "nodata"]

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add("INPUT", "BAND", INPUT="Filled elevation raster")
        self.addParameter(QgsProcessingParameterEnum(
            "OUTLETS", "Where water leaves: the raster's edge, cells next to nodata, or both (as in the fill)",
            self.OUTLETS, False, 0))
        self.add("MEMORY", "EXTRA")
        self.addParameter(QgsProcessingParameterRasterDestination("OUTPUT", "Flow directions"))
        self.add_summary()

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        input_path = self.raster_path(parameters, "INPUT", context)[1]
        output = self.output_path(parameters, "OUTPUT", context)
        flags = [("outlets", self.enum(parameters, "OUTLETS", self.OUTLETS, context))]
        flags += self.common_flags(parameters, context)
        summary = self.run_terrazo([input_path, output], flags, parameters, context, feedback)
        return {"OUTPUT": output, "SUMMARY": summary}


class FlowAccumulation(TerrazoAlgorithm):
    COMMAND = "flowacc"
    NAME = "flowacc"
    TITLE = "Flow accumulation"
    HELP = ("<p>Flow accumulation of a D8 direction raster (ESRI codes 1..128, 0 no flow, 255 nodata, as "
            "<i>terrazo flowdir</i> writes them), exactly and out of core (Barnes 2017, docs/flow.md): each cell "
            "gets the number of cells whose flow passes through it, itself included, or with a weight raster the "
            "sum of their weights (Float64). A code pointing off the raster or at nodata ends the flow there; "
            "directions that loop are refused.</p>")

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add("INPUT", "BAND", INPUT="D8 flow directions")
        self.addParameter(QgsProcessingParameterRasterLayer(
            "WEIGHT", "Weight raster (empty: count cells; a nodata weight counts 0)", None, True))
        self.add("MEMORY", "EXTRA")
        self.addParameter(QgsProcessingParameterRasterDestination("OUTPUT", "Flow accumulation"))
        self.add_summary()

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        input_path = self.raster_path(parameters, "INPUT", context)[1]
        output = self.output_path(parameters, "OUTPUT", context)
        flags = []
        if self.has(parameters, "WEIGHT"):
            flags.append(("weight", self.raster_path(parameters, "WEIGHT", context)[1]))
        flags += self.common_flags(parameters, context)
        summary = self.run_terrazo([input_path, output], flags, parameters, context, feedback)
        return {"OUTPUT": output, "SUMMARY": summary}


class Watershed(TerrazoAlgorithm):
    COMMAND = "watershed"
    NAME = "watershed"
    TITLE = "Watershed (drainage basins)"
    HELP = ("<p>Drainage basins of a D8 direction raster (ESRI codes, as <i>terrazo flowdir</i> writes them), "
            "exactly and out of core (docs/flow.md): the cells whose flow ends at the same cell share a basin, "
            "labelled 1..K in raster order of each basin's first cell, 0 at nodata.</p>")

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add("INPUT", "BAND", INPUT="D8 flow directions")
        self.add("MEMORY", "EXTRA")
        self.addParameter(QgsProcessingParameterRasterDestination("OUTPUT", "Basins"))
        self.add_summary()

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        input_path = self.raster_path(parameters, "INPUT", context)[1]
        output = self.output_path(parameters, "OUTPUT", context)
        summary = self.run_terrazo([input_path, output], self.common_flags(parameters, context), parameters, context,
                                   feedback)
        return {"OUTPUT": output, "SUMMARY": summary}


class Clump(TerrazoAlgorithm):
    COMMAND = "clump"
    NAME = "clump"
    TITLE = "Clump (connected regions)"
    HELP = ("<p>Connected regions of equal value (or of valid cells, or of cells within a range), labelled 1..K "
            "in raster order, 0 at nodata, out of core (docs/clump.md). A floating-point raster needs "
            "<i>valid</i> or <i>range</i>.</p>")
    BY = ["value", "valid", "range"]

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add("INPUT", "BAND", INPUT="Raster")
        self.addParameter(QgsProcessingParameterEnum("BY", "What joins neighbours", self.BY, False, 0))
        self.addParameter(_Number("RANGE_LOW", "Range: lowest value (with by range)", _Number.Double, None, True))
        self.addParameter(_Number("RANGE_HIGH", "Range: highest value (with by range)", _Number.Double, None, True))
        self.add("CONNECTIVITY")
        self.addParameter(_Number("MIN_SIZE", "Merge regions of fewer cells into a neighbour (empty: keep all)",
                                  _Number.Integer, None, True, 1))
        self.add("MEMORY", "DEVICE", "EXTRA")
        self.addParameter(QgsProcessingParameterRasterDestination("OUTPUT", "Region labels"))
        self.addParameter(QgsProcessingParameterFileDestination(
            "STATS", "Region statistics", "CSV files (*.csv)", None, True, False))
        self.add_summary()

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        input_path = self.raster_path(parameters, "INPUT", context)[1]
        output = self.output_path(parameters, "OUTPUT", context)
        stats = self.parameterAsFileOutput(parameters, "STATS", context)
        by = self.enum(parameters, "BY", self.BY, context)
        if by == "range":
            if not (self.has(parameters, "RANGE_LOW") and self.has(parameters, "RANGE_HIGH")):
                raise QgsProcessingException("by range needs Range: lowest value and Range: highest value")
            by = "range:%r,%r" % (self.parameterAsDouble(parameters, "RANGE_LOW", context),
                                  self.parameterAsDouble(parameters, "RANGE_HIGH", context))
        flags = [("by", by)]
        if self.has(parameters, "MIN_SIZE"):
            flags.append(("min-size", self.parameterAsInt(parameters, "MIN_SIZE", context)))
        if stats:
            flags.append(("stats", stats))
        flags += self.common_flags(parameters, context)
        summary = self.run_terrazo([input_path, output], flags, parameters, context, feedback)
        return {"OUTPUT": output, "STATS": stats or None, "SUMMARY": summary}


class Corridor(TerrazoAlgorithm):
    COMMAND = "corridor"
    NAME = "corridor"
    TITLE = "Least-cost corridor"
    HELP = ("<p>The least-cost corridor between two sources: the sum of their two cost-distance rasters (two "
            "<i>Cost distance</i> runs over the same raster, one from each source), kept where it is within a "
            "threshold or within a percentage of the least-cost path's cost (docs/corridor.md).</p>")
    MODES = ["all cells", "threshold (cost units)", "percent above the least cost"]

    def initAlgorithm(self, config=None):  # noqa: N802
        self.addParameter(QgsProcessingParameterRasterLayer("COST_A", "Cost distance from source A"))
        self.addParameter(QgsProcessingParameterRasterLayer("COST_B", "Cost distance from source B"))
        self.addParameter(QgsProcessingParameterEnum("KEEP", "Cells kept", self.MODES, False, 2))
        self.addParameter(_Number("VALUE", "Threshold or percent", _Number.Double, 5.0, True, 0.0))
        self.add("MEMORY", "EXTRA")
        self.addParameter(QgsProcessingParameterRasterDestination("OUTPUT", "Corridor"))
        self.add_summary()

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        cost_a = self.raster_path(parameters, "COST_A", context)[1]
        cost_b = self.raster_path(parameters, "COST_B", context)[1]
        output = self.output_path(parameters, "OUTPUT", context)
        keep = self.parameterAsEnum(parameters, "KEEP", context)
        flags = []
        if keep:
            if not self.has(parameters, "VALUE"):
                raise QgsProcessingException("Cells kept by threshold or percent needs Threshold or percent")
            flags.append(("threshold" if keep == 1 else "percent", self.parameterAsDouble(parameters, "VALUE", context)))
        flags += self.common_flags(parameters, context)
        summary = self.run_terrazo([cost_a, cost_b, output], flags, parameters, context, feedback)
        return {"OUTPUT": output, "SUMMARY": summary}


class SitesAlgorithm(TerrazoAlgorithm):
    """od-matrix and network: K sites over a cost raster, with or without a boundary-graph index."""

    WEIGHTS = ["friction", "absdiff", "max"]

    def add_sites_parameters(self):
        self.add("INPUT")
        self.addParameter(QgsProcessingParameterFeatureSource(
            "SITES", "Sites (ids 1, 2, ... in feature order; or Regions below)", [QgsProcessing.TypeVectorPoint], None,
            True))
        self.addParameter(QgsProcessingParameterRasterLayer(
            "REGIONS", "Regions instead of sites: a raster of zone ids on INPUT's grid (positive integers; 0 and "
            "nodata: none), e.g. habitat patches", None, True))
        self.addParameter(QgsProcessingParameterFile(
            "INDEX", "Boundary-graph index of INPUT (terrazo index; empty: none)", QgsProcessingParameterFile.File,
            "tzi", None, True))
        self.addParameter(QgsProcessingParameterBoolean(
            "SKIP_FINGERPRINT_CHECK", "With an index: do not check that it was built from INPUT's cells "
            "(--skip-fingerprint-check)", False))
        self.addParameter(QgsProcessingParameterEnum("WEIGHT", "Edge weight", self.WEIGHTS, False, 0))
        self.add("CONNECTIVITY")
        self.add_skip_empty("site")

    def sites_flags(self, parameters, context):
        layer, input_path = self.raster_path(parameters, "INPUT", context)
        if self.has(parameters, "REGIONS"):
            # Region sites (docs/index.md "Region sites"): the zones raster as it is, ids its values.
            if self.has(parameters, "SITES"):
                raise QgsProcessingException("Sites and Regions: give one of them, not both")
            flags = [("sites-raster", self.raster_path(parameters, "REGIONS", context)[1])]
        else:
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
        flags.append(("weight", self.enum(parameters, "WEIGHT", self.WEIGHTS, context)))
        return input_path, flags


class OdMatrix(SitesAlgorithm):
    COMMAND = "od-matrix"
    NAME = "odmatrix"
    TITLE = "Cost-distance matrix between sites"
    HELP = ("<p>The exact cost-distance matrix between K sites (the numbers <i>Cost distance</i> gives at the "
            "sites), as a CSV table: from_id, to_id, cost, or K x K with <i>wide</i> (docs/index.md).</p>")

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add_sites_parameters()
        self.add("MAX_COST")
        self.addParameter(QgsProcessingParameterBoolean("WIDE", "Wide table (K x K)", False))
        self.add("MEMORY", "EXTRA")
        self.addParameter(QgsProcessingParameterFileDestination("OUTPUT", "Cost matrix", "CSV files (*.csv)"))
        self.add_summary()

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        input_path, flags = self.sites_flags(parameters, context)
        output = self.parameterAsFileOutput(parameters, "OUTPUT", context)
        if self.parameterAsBoolean(parameters, "WIDE", context):
            flags.append(("wide", True))
        flags += self.common_flags(parameters, context)
        summary = self.run_terrazo([input_path, output], flags, parameters, context, feedback)
        return {"OUTPUT": output, "SUMMARY": summary}


class Network(SitesAlgorithm):
    COMMAND = "network"
    NAME = "network"
    TITLE = "Least-cost network between sites"
    HELP = ("<p>The least-cost network connecting K sites: the minimum spanning tree of their exact cost "
            "matrix, each tree edge traced as a least-cost path; one line per edge with from_id, to_id, cost, "
            "length (docs/index.md). Sites are points, or regions (a raster of zone ids, e.g. habitat patches): "
            "then the cost between two regions is the least over their cells' pairs, each line runs between the "
            "regions' nearest cells, and from_id, to_id are the zone ids.</p>")

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add_sites_parameters()
        self.add("MEMORY", "EXTRA")
        self.addParameter(QgsProcessingParameterVectorDestination("OUTPUT", "Network", QgsProcessing.TypeVectorLine))
        self.add_summary()

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        input_path, flags = self.sites_flags(parameters, context)
        output = self.output_path(parameters, "OUTPUT", context)
        flags += self.common_flags(parameters, context)
        summary = self.run_terrazo([input_path, output], flags, parameters, context, feedback)
        return {"OUTPUT": output, "SUMMARY": summary}


class BoundaryIndex(TerrazoAlgorithm):
    COMMAND = "index"
    NAME = "index"
    TITLE = "Boundary-graph index (for many-site queries)"
    HELP = ("<p>Builds the boundary-graph index of a cost raster, once per terrain and weight model; "
            "<i>Cost-distance matrix</i> and <i>Least-cost network</i> answer many-site queries fast with it "
            "(docs/index.md). About 32 bytes per cell.</p>")
    WEIGHTS = ["friction", "absdiff", "max"]

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add("INPUT")
        self.addParameter(QgsProcessingParameterEnum("WEIGHT", "Edge weight", self.WEIGHTS, False, 0))
        self.add("CONNECTIVITY", "MEMORY", "DEVICE", "EXTRA")
        self.addParameter(QgsProcessingParameterFileDestination("OUTPUT", "Index", "terrazo index (*.tzi)"))
        self.add_summary()

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        input_path = self.raster_path(parameters, "INPUT", context)[1]
        output = self.parameterAsFileOutput(parameters, "OUTPUT", context)
        flags = [("weight", self.enum(parameters, "WEIGHT", self.WEIGHTS, context))]
        flags += self.common_flags(parameters, context)
        summary = self.run_terrazo([input_path, output], flags, parameters, context, feedback)
        return {"OUTPUT": output, "SUMMARY": summary}


class Render(TerrazoAlgorithm):
    COMMAND = "render"
    NAME = "render"
    TITLE = "Quick-look picture (PNG)"
    HELP = ("<p>A PNG of any terrazo input or output: a DEM under its hillshade, a cost surface in viridis with "
            "contour lines, backlink directions, allocation zones or clump labels, MST edges; least-cost paths "
            "and source points drawn on top; a legend and a scale bar under the map. Read at the picture's "
            "size, so it works on rasters larger than memory (docs/render.md).</p>")
    KINDS = ["auto", "dem", "cost", "backlink", "labels", "edges"]
    COLOUR_MAPS = ["viridis", "magma"]

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add("INPUT", "BAND", INPUT="Raster (a DEM or any terrazo output)")
        self.addParameter(QgsProcessingParameterEnum("KIND", "What the raster is", self.KINDS, False, 0))
        self.addParameter(_Number("WIDTH", "Picture width (pixels)", _Number.Integer, 1024, False, 1, 16384))
        self.addParameter(QgsProcessingParameterRasterLayer(
            "TERRAIN", "Terrain (a DEM of the raster's size: its hillshade underneath)", None, True))
        self.addParameter(QgsProcessingParameterVectorLayer(
            "PATHS", "Paths (a line layer in the raster's CRS, e.g. from Least-cost path)",
            [QgsProcessing.TypeVectorLine], None, True))
        self.addParameter(QgsProcessingParameterFeatureSource(
            "SOURCES", "Source points (markers)", [QgsProcessing.TypeVectorPoint], None, True))
        self.addParameter(QgsProcessingParameterPoint("SOURCE_POINT", "Source point (clicked)", None, True))
        self.addParameter(_Number("CONTOURS", "Contour levels (empty: 10 for cost, none otherwise)", _Number.Integer,
                                  None, True, 0, 1000))
        self.addParameter(_Number("RANGE_MIN", "Colour range: lowest value (empty: the raster's)", _Number.Double,
                                  None, True))
        self.addParameter(_Number("RANGE_MAX", "Colour range: highest value (empty: the raster's)", _Number.Double,
                                  None, True))
        self.addParameter(QgsProcessingParameterEnum("COLOUR_MAP", "Colour map (cost)", self.COLOUR_MAPS, False, 0))
        self.addParameter(QgsProcessingParameterBoolean("LEGEND", "Legend and scale bar", True))
        self.add("MEMORY", "EXTRA")
        self.addParameter(QgsProcessingParameterFileDestination("OUTPUT", "Picture", "PNG files (*.png)"))
        self.add_summary()

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        layer, input_path = self.raster_path(parameters, "INPUT", context)
        output = self.parameterAsFileOutput(parameters, "OUTPUT", context)
        flags = [("kind", self.enum(parameters, "KIND", self.KINDS, context)),
                 ("width", self.parameterAsInt(parameters, "WIDTH", context))]
        if self.has(parameters, "TERRAIN"):
            flags.append(("terrain", self.raster_path(parameters, "TERRAIN", context)[1]))
        if self.has(parameters, "PATHS"):
            paths = self.parameterAsVectorLayer(parameters, "PATHS", context)
            if paths is None or paths.providerType() != "ogr":
                raise QgsProcessingException("PATHS: terrazo reads line files through OGR; save the layer as GeoJSON")
            flags.append(("paths", paths.source().split("|")[0]))
        sources = self.points(parameters, "SOURCES", "SOURCE_POINT", context, layer.crs())
        if sources:
            flags += [("source", point) for point in sources] + [("map-coords", True)]
        if self.has(parameters, "CONTOURS"):
            flags.append(("contours", self.parameterAsInt(parameters, "CONTOURS", context)))
        if self.has(parameters, "RANGE_MIN") != self.has(parameters, "RANGE_MAX"):
            raise QgsProcessingException("Colour range: give both the lowest and the highest value, or neither")
        if self.has(parameters, "RANGE_MIN"):
            flags.append(("range", (self.parameterAsDouble(parameters, "RANGE_MIN", context),
                                    self.parameterAsDouble(parameters, "RANGE_MAX", context))))
        if self.parameterAsEnum(parameters, "COLOUR_MAP", context):
            flags.append(("colour-map", self.enum(parameters, "COLOUR_MAP", self.COLOUR_MAPS, context)))
        if not self.parameterAsBoolean(parameters, "LEGEND", context):
            flags.append(("no-legend", True))
        flags += self.common_flags(parameters, context)
        summary = self.run_terrazo([input_path, output], flags, parameters, context, feedback)
        return {"OUTPUT": output, "SUMMARY": summary}


class Import(TerrazoAlgorithm):
    COMMAND = "import"
    NAME = "import"
    TITLE = "Import into a tile store (.tzs)"
    HELP = ("<p>Any GDAL raster into a terrazo tile store, one streaming pass (docs/tile_store_format.md). Every terrazo "
            "algorithm reads stores as well as rasters; a store read many times is faster than a compressed "
            "GeoTIFF. <i>Export</i> turns it back into a GeoTIFF.</p>")

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add("INPUT", "BAND", INPUT="Raster")
        self.addParameter(_Number("TILE", "Tile edge (power of two, 16..4096; empty: 256)", _Number.Integer, None,
                                  True, 16, 4096))
        self.add("MEMORY", "EXTRA")
        self.addParameter(QgsProcessingParameterFileDestination("OUTPUT", "Tile store", "terrazo tile store (*.tzs)"))
        self.add_summary()

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        input_path = self.raster_path(parameters, "INPUT", context)[1]
        output = self.parameterAsFileOutput(parameters, "OUTPUT", context)
        flags = []
        if self.has(parameters, "TILE"):
            flags.append(("tile", self.parameterAsInt(parameters, "TILE", context)))
        flags += self.common_flags(parameters, context)
        summary = self.run_terrazo([input_path, output], flags, parameters, context, feedback)
        return {"OUTPUT": output, "SUMMARY": summary}


class Export(TerrazoAlgorithm):
    COMMAND = "export"
    NAME = "export"
    TITLE = "Export to GeoTIFF"
    HELP = ("<p>A terrazo tile store (or any raster) to a tiled, compressed GeoTIFF that QGIS and every GIS "
            "open. Creation options as GDAL's -co, e.g. <code>COMPRESS=DEFLATE</code>.</p>")

    def initAlgorithm(self, config=None):  # noqa: N802
        self.addParameter(QgsProcessingParameterFile("INPUT", "Tile store (.tzs) or raster",
                                                     QgsProcessingParameterFile.File))
        self.addParameter(_Number("BLOCK", "GeoTIFF block edge (multiple of 16; empty: 256)", _Number.Integer, None,
                                  True, 16, 4096))
        self.addParameter(QgsProcessingParameterString(
            "CREATION_OPTIONS", "GeoTIFF creation options (KEY=VALUE, separated by spaces)", "", False, True))
        self.add("MEMORY", "EXTRA")
        self.addParameter(QgsProcessingParameterRasterDestination("OUTPUT", "GeoTIFF"))
        self.add_summary()

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        input_path = self.parameterAsFile(parameters, "INPUT", context)
        output = self.output_path(parameters, "OUTPUT", context)
        flags = []
        if self.has(parameters, "BLOCK"):
            flags.append(("block", self.parameterAsInt(parameters, "BLOCK", context)))
        flags += [("co", option) for option in self.parameterAsString(parameters, "CREATION_OPTIONS", context).split()]
        flags += self.common_flags(parameters, context)
        summary = self.run_terrazo([input_path, output], flags, parameters, context, feedback)
        return {"OUTPUT": output, "SUMMARY": summary}


class Info(TerrazoAlgorithm):
    COMMAND = "info"
    NAME = "info"
    TITLE = "Information (size, type, nodata, min/max)"
    HELP = ("<p>Size, cell type, tiles, nodata, valid cells, min and max (read from every cell), geotransform "
            "and CRS of a tile store or any raster, or what a boundary-graph index (.tzi) holds, as terrazo's "
            "JSON summary (also written to a file when one is given).</p>")

    def initAlgorithm(self, config=None):  # noqa: N802
        self.addParameter(QgsProcessingParameterFile("INPUT", "Tile store (.tzs), index (.tzi) or raster",
                                                     QgsProcessingParameterFile.File))
        self.add("MEMORY", "EXTRA")
        self.addParameter(QgsProcessingParameterFileDestination("OUTPUT", "Summary (JSON)", "JSON files (*.json)",
                                                                None, True, False))
        self.add_summary()

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        input_path = self.parameterAsFile(parameters, "INPUT", context)
        output = self.parameterAsFileOutput(parameters, "OUTPUT", context)
        summary = self.run_terrazo([input_path], self.common_flags(parameters, context), parameters, context, feedback)
        if output:
            with open(output, "w") as f:
                f.write(summary + "\n")
        return {"OUTPUT": output or None, "SUMMARY": summary}


class Generate(TerrazoAlgorithm):
    COMMAND = "gen"
    NAME = "gen"
    TITLE = "Generate terrain"
    HELP = ("<p>Deterministic fractal terrain of any size (valleys, rivers, pits, optional nodata holes), "
            "streamed tile by tile: test data for every other algorithm. The same options give the same cells.</p>")

    def initAlgorithm(self, config=None):  # noqa: N802
        self.addParameter(_Number("WIDTH", "Width (cells)", _Number.Integer, 1024, False, 1))
        self.addParameter(_Number("HEIGHT", "Height (cells)", _Number.Integer, 1024, False, 1))
        self.addParameter(_Number("SEED", "Seed", _Number.Integer, 1, False, 0))
        self.addParameter(QgsProcessingParameterEnum("TYPE", "Cell type", CELL_TYPES, False, 0))
        self.addParameter(_Number("RELIEF", "Relief, lowest valley to highest peak (empty: 1000 m; 250 for Byte)",
                                  _Number.Double, None, True, 0.0))
        self.addParameter(_Number("NODATA_HOLES", "Nodata holes (fraction of the cells)", _Number.Double, 0.0, False,
                                  0.0, 0.99))
        self.addParameter(QgsProcessingParameterBoolean("RIVERS", "Carve river valleys", True))
        self.addParameter(QgsProcessingParameterBoolean("PITS", "Pits (closed depressions)", True))
        self.addParameter(_Number("CELL_SIZE", "Cell size (empty: 30)", _Number.Double, None, True, 0.0))
        self.addParameter(QgsProcessingParameterCrs("CRS", "CRS (empty: EPSG:3857)", None, True))
        self.add("MEMORY", "EXTRA")
        self.addParameter(QgsProcessingParameterRasterDestination("OUTPUT", "Terrain"))
        self.add_summary()

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        output = self.output_path(parameters, "OUTPUT", context)
        flags = [("width", self.parameterAsInt(parameters, "WIDTH", context)),
                 ("height", self.parameterAsInt(parameters, "HEIGHT", context)),
                 ("seed", self.parameterAsInt(parameters, "SEED", context)),
                 ("type", self.enum(parameters, "TYPE", CELL_TYPES, context))]
        if self.has(parameters, "RELIEF"):
            flags.append(("relief", self.parameterAsDouble(parameters, "RELIEF", context)))
        holes = self.parameterAsDouble(parameters, "NODATA_HOLES", context)
        if holes:
            flags.append(("nodata-holes", holes))
        if not self.parameterAsBoolean(parameters, "RIVERS", context):
            flags.append(("no-rivers", True))
        if not self.parameterAsBoolean(parameters, "PITS", context):
            flags.append(("no-pits", True))
        if self.has(parameters, "CELL_SIZE"):
            flags.append(("cell-size", self.parameterAsDouble(parameters, "CELL_SIZE", context)))
        if self.has(parameters, "CRS"):
            crs = self.parameterAsCrs(parameters, "CRS", context)
            if crs.isValid():
                flags.append(("crs", crs.authid() or crs.toWkt()))
        flags += self.common_flags(parameters, context)
        summary = self.run_terrazo([output], flags, parameters, context, feedback)
        return {"OUTPUT": output, "SUMMARY": summary}


ALGORITHMS = [CostDistance, LeastCostPath, MinimumSpanningTree, FillDepressions, FlowDirection, FlowAccumulation, Watershed, Clump, Corridor, OdMatrix, Network, BoundaryIndex,
              Render, Import, Export, Info, Generate]
