"""terrazo's commands as QGIS Processing algorithms (docs/qgis.md "Algorithms").

Each algorithm turns its QGIS parameters into the terrazo command's flags and files and hands them to
backend.run, which runs the terrazo Python package or the terrazo program: the same parser, the same
run, the program's outputs bit for bit. Nothing here computes terrain: points are only transformed
into the raster's CRS (QgsCoordinateTransform) and given to terrazo as map coordinates
(--map-coords), which terrazo maps to cells.
"""

import json

from qgis.core import (QgsCoordinateTransform, QgsProcessing, QgsProcessingAlgorithm, QgsProcessingException,
                       QgsProcessingOutputString, QgsProcessingParameterBand, QgsProcessingParameterBoolean, QgsProcessingParameterDefinition,
                       QgsProcessingParameterEnum, QgsProcessingParameterFeatureSource,
                       QgsProcessingParameterFile, QgsProcessingParameterFileDestination, QgsProcessingParameterNumber,
                       QgsProcessingParameterPoint, QgsProcessingParameterRasterDestination,
                       QgsProcessingParameterRasterLayer, QgsProcessingParameterString,
                       QgsProcessingParameterVectorDestination, QgsWkbTypes)

from . import backend

DEVICES = ["auto", "cpu", "cuda"]
CONNECTIVITIES = ["8", "4"]


class TerrazoAlgorithm(QgsProcessingAlgorithm):
    """What every terrazo algorithm shares: memory budget, device, extra flags, the run itself."""

    COMMAND = None  # the terrazo command
    NAME = None  # the algorithm id under terrazo: (qgis_process run terrazo:NAME)
    TITLE = None
    HELP = ""

    def createInstance(self):  # noqa: N802 (QGIS's names)
        return type(self)()

    def name(self):
        return self.NAME

    def displayName(self):  # noqa: N802
        return self.TITLE

    def group(self):
        return "terrazo"

    def groupId(self):  # noqa: N802
        return "terrazo"

    def shortHelpString(self):  # noqa: N802
        return self.HELP + ("<p>Runs <code>terrazo %s</code> (docs/qgis.md): the terrazo Python package when it is "
                            "importable, else the terrazo program. Outputs are the program's bit for bit.</p>"
                            % self.COMMAND)

    # --- parameters shared by the algorithms --------------------------------------------------

    def add_memory(self, default_mib=1024):
        self.addParameter(QgsProcessingParameterNumber(
            "MEMORY", "Memory budget (MiB): terrazo's peak memory stays within it, whatever the raster's size",
            QgsProcessingParameterNumber.Integer, default_mib, False, 16))

    def add_device(self):
        self.addParameter(QgsProcessingParameterEnum(
            "DEVICE", "Device (auto: the GPU when there is one and the build has CUDA)", DEVICES, False, 0))

    def add_connectivity(self):
        self.addParameter(QgsProcessingParameterEnum("CONNECTIVITY", "Neighbours per cell", CONNECTIVITIES,
                                                     False, 0))

    def add_extra(self):
        extra = QgsProcessingParameterString(
            "EXTRA", "Other terrazo flags, as on the command line (e.g. --tile=512 --threads=4)", "", False, True)
        extra.setFlags(extra.flags() | QgsProcessingParameterDefinition.FlagAdvanced)
        self.addParameter(extra)

    def common_flags(self, parameters, context, device=True):
        flags = [("memory", "%dM" % self.parameterAsInt(parameters, "MEMORY", context))]
        if device:
            flags.append(("device", DEVICES[self.parameterAsEnum(parameters, "DEVICE", context)]))
        return flags

    def extra_flags(self, parameters, context):
        """EXTRA's words as flags: --name=value or --name (a bare word is refused: files are parameters)."""
        flags = []
        for word in self.parameterAsString(parameters, "EXTRA", context).split():
            if not word.startswith("--") or len(word) < 3:
                raise QgsProcessingException("Other terrazo flags: '%s' is not a --flag" % word)
            name, equals, value = word[2:].partition("=")
            flags.append((name, value) if equals else (name, True))
        return flags

    def raster_path(self, parameters, name, context):
        layer = self.parameterAsRasterLayer(parameters, name, context)
        if layer is None:
            raise QgsProcessingException("%s: no raster layer" % name)
        if layer.providerType() != "gdal":
            raise QgsProcessingException("%s: terrazo reads files through GDAL; '%s' is a %s layer (save it as a "
                                         "GeoTIFF first)" % (name, layer.name(), layer.providerType()))
        return layer, layer.source()

    def points(self, parameters, layer_name, point_name, context, crs):
        """Map coordinates in `crs` of the features of the point layer `layer_name` (in its order,
        multipoints point by point) and then of the clicked point `point_name`."""
        points = []
        source = self.parameterAsSource(parameters, layer_name, context)
        if source is not None:
            transform = QgsCoordinateTransform(source.sourceCrs(), crs, context.transformContext())
            for feature in source.getFeatures():
                geometry = feature.geometry()
                if geometry.isNull() or geometry.isEmpty():
                    continue
                if QgsWkbTypes.geometryType(geometry.wkbType()) != QgsWkbTypes.PointGeometry:
                    raise QgsProcessingException("%s: feature %d is not a point" % (layer_name, feature.id()))
                geometry.transform(transform)
                for vertex in geometry.vertices():
                    points.append((vertex.x(), vertex.y()))
        if point_name is not None and parameters.get(point_name) not in (None, ""):
            point = self.parameterAsPoint(parameters, point_name, context, crs)
            points.append((point.x(), point.y()))
        return points

    def band_flags(self, parameters, context):
        """--band N for a raster of several bands (terrazo requires it then); none for one band."""
        layer = self.parameterAsRasterLayer(parameters, "INPUT", context)
        if layer is not None and layer.bandCount() > 1:
            return [("band", self.parameterAsInt(parameters, "BAND", context))]
        return []

    def output_path(self, parameters, name, context):
        """The file of an output destination, '' when an optional one is not asked for."""
        path = self.parameterAsOutputLayer(parameters, name, context)
        return path or ""

    def run_terrazo(self, positionals, flags, parameters, context, feedback):
        summary = backend.run(self.COMMAND, positionals, flags + self.extra_flags(parameters, context), feedback)
        text = json.dumps(summary, sort_keys=True)
        feedback.pushInfo("terrazo %s summary: %s" % (self.COMMAND, text))
        return text


class CostDistance(TerrazoAlgorithm):
    COMMAND = "sssp"
    NAME = "costdistance"
    TITLE = "Cost distance (with backlink and allocation)"
    HELP = ("<p>Exact cumulative cost distance from one or more sources over the grid graph of a raster, out of "
            "core (docs/sssp.md). Sources: the points of a point layer (in its order: ids 1, 2, ...) and/or a "
            "clicked point; each lies in the cell under it. Backlink (direction to the predecessor, input of "
            "<i>Least-cost path</i>) and allocation (nearest source id) rasters are optional.</p>")
    WEIGHTS = ["friction", "absdiff", "max", "unit", "geometric"]
    DISTANCES = ["cells", "map", "geodesic"]
    COST_TYPES = ["Float64", "Float32"]

    def initAlgorithm(self, config=None):  # noqa: N802
        self.addParameter(QgsProcessingParameterRasterLayer("INPUT", "Cost (friction) or elevation raster"))
        self.addParameter(QgsProcessingParameterBand("BAND", "Band (of a raster of several bands)", 1, "INPUT", True))
        self.addParameter(QgsProcessingParameterFeatureSource(
            "SOURCES", "Source points", [QgsProcessing.TypeVectorPoint], None, True))
        self.addParameter(QgsProcessingParameterPoint("SOURCE_POINT", "Source point (clicked)", None, True))
        self.addParameter(QgsProcessingParameterEnum(
            "WEIGHT", "Edge weight (friction: mean of the two cells x step length)", self.WEIGHTS, False, 0))
        self.addParameter(QgsProcessingParameterEnum("DISTANCE", "Step length", self.DISTANCES, False, 0))
        self.add_connectivity()
        self.addParameter(QgsProcessingParameterNumber(
            "MAX_COST", "Maximum cost (empty: none)", QgsProcessingParameterNumber.Double, None, True, 0.0))
        self.addParameter(QgsProcessingParameterRasterLayer(
            "BARRIER", "Barrier raster (cells not 0 and not nodata cannot be entered)", None, True))
        self.add_memory()
        self.add_device()
        cost_type = QgsProcessingParameterEnum("COST_TYPE", "Cell type of the cost raster", self.COST_TYPES, False, 0)
        cost_type.setFlags(cost_type.flags() | QgsProcessingParameterDefinition.FlagAdvanced)
        self.addParameter(cost_type)
        self.add_extra()
        self.addParameter(QgsProcessingParameterRasterDestination("OUTPUT", "Cost distance"))
        self.addParameter(QgsProcessingParameterRasterDestination("BACKLINK", "Backlink", None, True, False))
        self.addParameter(QgsProcessingParameterRasterDestination("ALLOCATION", "Allocation", None, True, False))
        self.addOutput(QgsProcessingOutputString("SUMMARY", "terrazo's JSON summary"))

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        layer, input_path = self.raster_path(parameters, "INPUT", context)
        sources = self.points(parameters, "SOURCES", "SOURCE_POINT", context, layer.crs())
        if not sources:
            raise QgsProcessingException("no source: give a point layer (Source points) or a clicked Source point")
        output = self.output_path(parameters, "OUTPUT", context)
        backlink = self.output_path(parameters, "BACKLINK", context)
        allocation = self.output_path(parameters, "ALLOCATION", context)
        flags = [("source", point) for point in sources] + [("map-coords", True)]
        flags += self.band_flags(parameters, context)
        flags.append(("weight", self.WEIGHTS[self.parameterAsEnum(parameters, "WEIGHT", context)]))
        flags.append(("distance", self.DISTANCES[self.parameterAsEnum(parameters, "DISTANCE", context)]))
        flags.append(("connectivity", CONNECTIVITIES[self.parameterAsEnum(parameters, "CONNECTIVITY", context)]))
        if parameters.get("MAX_COST") not in (None, ""):
            flags.append(("max-cost", self.parameterAsDouble(parameters, "MAX_COST", context)))
        if parameters.get("BARRIER") not in (None, ""):
            flags.append(("barrier-raster", self.raster_path(parameters, "BARRIER", context)[1]))
        flags.append(("ot", self.COST_TYPES[self.parameterAsEnum(parameters, "COST_TYPE", context)]))
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
        self.add_memory()
        self.add_extra()
        self.addParameter(QgsProcessingParameterVectorDestination(
            "OUTPUT", "Least-cost paths", QgsProcessing.TypeVectorLine))
        self.addParameter(QgsProcessingParameterRasterDestination(
            "MASK", "Path cells (1 on a path, 0 elsewhere)", None, True, False))
        self.addOutput(QgsProcessingOutputString("SUMMARY", "terrazo's JSON summary"))

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
        flags += self.common_flags(parameters, context, device=False)
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
        self.addParameter(QgsProcessingParameterRasterLayer("INPUT", "Elevation raster"))
        self.addParameter(QgsProcessingParameterBand("BAND", "Band (of a raster of several bands)", 1, "INPUT", True))
        self.addParameter(QgsProcessingParameterEnum("WEIGHT", "Edge weight", self.WEIGHTS, False, 0))
        self.add_connectivity()
        self.add_memory()
        self.add_device()
        self.add_extra()
        self.addParameter(QgsProcessingParameterRasterDestination("OUTPUT", "Tree edges"))
        self.addParameter(QgsProcessingParameterFileDestination(
            "EDGE_LIST", "Edge list (binary records: u64 a, u64 b, u32 weight)", "Binary files (*.bin)", None, True,
            False))
        self.addOutput(QgsProcessingOutputString("SUMMARY", "terrazo's JSON summary"))

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        input_path = self.raster_path(parameters, "INPUT", context)[1]
        output = self.output_path(parameters, "OUTPUT", context)
        edge_list = self.parameterAsFileOutput(parameters, "EDGE_LIST", context)
        flags = self.band_flags(parameters, context) + [
                 ("weight", self.WEIGHTS[self.parameterAsEnum(parameters, "WEIGHT", context)]),
                 ("connectivity", CONNECTIVITIES[self.parameterAsEnum(parameters, "CONNECTIVITY", context)])]
        if edge_list:
            flags.append(("edge-list", edge_list))
        flags += self.common_flags(parameters, context)
        summary = self.run_terrazo([input_path, output], flags, parameters, context, feedback)
        return {"OUTPUT": output, "EDGE_LIST": edge_list or None, "SUMMARY": summary}


class Clump(TerrazoAlgorithm):
    COMMAND = "clump"
    NAME = "clump"
    TITLE = "Clump (connected regions)"
    HELP = ("<p>Connected regions of equal value (or of valid cells, or of cells within a range), labelled 1..K "
            "in raster order, 0 at nodata, out of core (docs/clump.md). A floating-point raster needs "
            "<i>valid</i> or <i>range</i>.</p>")
    BY = ["value", "valid", "range"]

    def initAlgorithm(self, config=None):  # noqa: N802
        self.addParameter(QgsProcessingParameterRasterLayer("INPUT", "Raster"))
        self.addParameter(QgsProcessingParameterBand("BAND", "Band (of a raster of several bands)", 1, "INPUT", True))
        self.addParameter(QgsProcessingParameterEnum("BY", "What joins neighbours", self.BY, False, 0))
        self.addParameter(QgsProcessingParameterNumber("RANGE_LOW", "Range: lowest value (with by range)",
                                                       QgsProcessingParameterNumber.Double, None, True))
        self.addParameter(QgsProcessingParameterNumber("RANGE_HIGH", "Range: highest value (with by range)",
                                                       QgsProcessingParameterNumber.Double, None, True))
        self.add_connectivity()
        self.addParameter(QgsProcessingParameterNumber(
            "MIN_SIZE", "Merge regions of fewer cells into a neighbour (empty: keep all)",
            QgsProcessingParameterNumber.Integer, None, True, 1))
        self.add_memory()
        self.add_device()
        self.add_extra()
        self.addParameter(QgsProcessingParameterRasterDestination("OUTPUT", "Region labels"))
        self.addParameter(QgsProcessingParameterFileDestination(
            "STATS", "Region statistics", "CSV files (*.csv)", None, True, False))
        self.addOutput(QgsProcessingOutputString("SUMMARY", "terrazo's JSON summary"))

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        input_path = self.raster_path(parameters, "INPUT", context)[1]
        output = self.output_path(parameters, "OUTPUT", context)
        stats = self.parameterAsFileOutput(parameters, "STATS", context)
        by = self.BY[self.parameterAsEnum(parameters, "BY", context)]
        if by == "range":
            if parameters.get("RANGE_LOW") in (None, "") or parameters.get("RANGE_HIGH") in (None, ""):
                raise QgsProcessingException("by range needs Range: lowest value and Range: highest value")
            by = "range:%r,%r" % (self.parameterAsDouble(parameters, "RANGE_LOW", context),
                                  self.parameterAsDouble(parameters, "RANGE_HIGH", context))
        flags = self.band_flags(parameters, context) + [("by", by),
                 ("connectivity", CONNECTIVITIES[self.parameterAsEnum(parameters, "CONNECTIVITY", context)])]
        if parameters.get("MIN_SIZE") not in (None, ""):
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
        self.addParameter(QgsProcessingParameterNumber("VALUE", "Threshold or percent", QgsProcessingParameterNumber.Double,
                                                       5.0, True, 0.0))
        self.add_memory()
        self.add_extra()
        self.addParameter(QgsProcessingParameterRasterDestination("OUTPUT", "Corridor"))
        self.addOutput(QgsProcessingOutputString("SUMMARY", "terrazo's JSON summary"))

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        cost_a = self.raster_path(parameters, "COST_A", context)[1]
        cost_b = self.raster_path(parameters, "COST_B", context)[1]
        output = self.output_path(parameters, "OUTPUT", context)
        keep = self.parameterAsEnum(parameters, "KEEP", context)
        flags = []
        if keep:
            if parameters.get("VALUE") in (None, ""):
                raise QgsProcessingException("Cells kept by threshold or percent needs Threshold or percent")
            flags.append(("threshold" if keep == 1 else "percent", self.parameterAsDouble(parameters, "VALUE", context)))
        flags += self.common_flags(parameters, context, device=False)
        summary = self.run_terrazo([cost_a, cost_b, output], flags, parameters, context, feedback)
        return {"OUTPUT": output, "SUMMARY": summary}


class SitesAlgorithm(TerrazoAlgorithm):
    """od-matrix and network: K sites over a cost raster, with or without a boundary-graph index."""

    WEIGHTS = ["friction", "absdiff", "max"]

    def add_sites_parameters(self):
        self.addParameter(QgsProcessingParameterRasterLayer("INPUT", "Cost (friction) or elevation raster"))
        self.addParameter(QgsProcessingParameterFeatureSource(
            "SITES", "Sites (ids 1, 2, ... in feature order)", [QgsProcessing.TypeVectorPoint]))
        self.addParameter(QgsProcessingParameterFile(
            "INDEX", "Boundary-graph index of INPUT (terrazo index; empty: none)", QgsProcessingParameterFile.File,
            "tzi", None, True))
        self.addParameter(QgsProcessingParameterEnum("WEIGHT", "Edge weight", self.WEIGHTS, False, 0))
        self.add_connectivity()

    def sites_flags(self, parameters, context):
        layer, input_path = self.raster_path(parameters, "INPUT", context)
        sites = self.points(parameters, "SITES", None, context, layer.crs())
        if len(sites) < 2:
            raise QgsProcessingException("Sites: %d point(s); at least 2 are needed" % len(sites))
        flags = [("site", point) for point in sites] + [("map-coords", True)]
        index = self.parameterAsFile(parameters, "INDEX", context)
        if index:
            flags.append(("index", index))
        flags.append(("weight", self.WEIGHTS[self.parameterAsEnum(parameters, "WEIGHT", context)]))
        flags.append(("connectivity", CONNECTIVITIES[self.parameterAsEnum(parameters, "CONNECTIVITY", context)]))
        return input_path, flags


class OdMatrix(SitesAlgorithm):
    COMMAND = "od-matrix"
    NAME = "odmatrix"
    TITLE = "Cost-distance matrix between sites"
    HELP = ("<p>The exact cost-distance matrix between K sites (the numbers <i>Cost distance</i> gives at the "
            "sites), as a CSV table: from_id, to_id, cost, or K x K with <i>wide</i> (docs/index.md).</p>")

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add_sites_parameters()
        self.addParameter(QgsProcessingParameterNumber(
            "MAX_COST", "Maximum cost (empty: none)", QgsProcessingParameterNumber.Double, None, True, 0.0))
        self.addParameter(QgsProcessingParameterBoolean("WIDE", "Wide table (K x K)", False))
        self.add_memory()
        self.add_extra()
        self.addParameter(QgsProcessingParameterFileDestination("OUTPUT", "Cost matrix", "CSV files (*.csv)"))
        self.addOutput(QgsProcessingOutputString("SUMMARY", "terrazo's JSON summary"))

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        input_path, flags = self.sites_flags(parameters, context)
        output = self.parameterAsFileOutput(parameters, "OUTPUT", context)
        if parameters.get("MAX_COST") not in (None, ""):
            flags.append(("max-cost", self.parameterAsDouble(parameters, "MAX_COST", context)))
        if self.parameterAsBoolean(parameters, "WIDE", context):
            flags.append(("wide", True))
        flags += self.common_flags(parameters, context, device=False)
        summary = self.run_terrazo([input_path, output], flags, parameters, context, feedback)
        return {"OUTPUT": output, "SUMMARY": summary}


class Network(SitesAlgorithm):
    COMMAND = "network"
    NAME = "network"
    TITLE = "Least-cost network between sites"
    HELP = ("<p>The least-cost network connecting K sites: the minimum spanning tree of their exact cost "
            "matrix, each tree edge traced as a least-cost path; one line per edge with from_id, to_id, cost, "
            "length (docs/index.md).</p>")

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add_sites_parameters()
        self.add_memory()
        self.add_extra()
        self.addParameter(QgsProcessingParameterVectorDestination("OUTPUT", "Network", QgsProcessing.TypeVectorLine))
        self.addOutput(QgsProcessingOutputString("SUMMARY", "terrazo's JSON summary"))

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        input_path, flags = self.sites_flags(parameters, context)
        output = self.output_path(parameters, "OUTPUT", context)
        flags += self.common_flags(parameters, context, device=False)
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
        self.addParameter(QgsProcessingParameterRasterLayer("INPUT", "Cost (friction) or elevation raster"))
        self.addParameter(QgsProcessingParameterEnum("WEIGHT", "Edge weight", self.WEIGHTS, False, 0))
        self.add_connectivity()
        self.add_memory()
        self.add_device()
        self.add_extra()
        self.addParameter(QgsProcessingParameterFileDestination("OUTPUT", "Index", "terrazo index (*.tzi)"))
        self.addOutput(QgsProcessingOutputString("SUMMARY", "terrazo's JSON summary"))

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        input_path = self.raster_path(parameters, "INPUT", context)[1]
        output = self.parameterAsFileOutput(parameters, "OUTPUT", context)
        flags = [("weight", self.WEIGHTS[self.parameterAsEnum(parameters, "WEIGHT", context)]),
                 ("connectivity", CONNECTIVITIES[self.parameterAsEnum(parameters, "CONNECTIVITY", context)])]
        flags += self.common_flags(parameters, context)
        summary = self.run_terrazo([input_path, output], flags, parameters, context, feedback)
        return {"OUTPUT": output, "SUMMARY": summary}


ALGORITHMS = [CostDistance, LeastCostPath, MinimumSpanningTree, Clump, Corridor, OdMatrix, Network, BoundaryIndex]
