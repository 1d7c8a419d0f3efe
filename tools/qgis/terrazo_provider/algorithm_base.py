"""The base of terrazo's QGIS Processing algorithms (docs/qgis.md "Algorithms"): the parameters several
algorithms share, declared once (COMMON_PARAMETERS), and TerrazoAlgorithm, which turns them into the
command's flags, reads point layers and clicked points into the raster's CRS, and runs the command
through backend.run (the terrazo Python package or the terrazo program).
"""

import json

from qgis.core import (QgsCoordinateReferenceSystem, QgsCoordinateTransform, QgsProcessingAlgorithm,
                       QgsProcessingException, QgsProcessingOutputString, QgsProcessingParameterBand,
                       QgsProcessingParameterBoolean,
                       QgsProcessingParameterEnum, QgsProcessingUtils, QgsProcessingParameterNumber,
                       QgsProcessingParameterRasterLayer, QgsProcessingParameterString, QgsWkbTypes)

from . import backend
from .parameters import Output, advanced as _advanced, flag_choices



def _shared(name, fallback_choices=None, fallback_help=""):
    """(choices, help) of the shared flag `name` from the engine's flag table (backend.shared_flag), or
    the fallbacks when only the terrazo program is installed."""
    flag = backend.shared_flag(name)
    if flag is None:
        return fallback_choices, fallback_help
    return list(flag["choices"]) or fallback_choices, flag["help"]


DEVICES, _DEVICE_HELP = _shared("--device", ["auto", "cpu", "cuda"],
                                "where the work runs (auto: the GPU when there is one and the build has CUDA)")
CONNECTIVITIES, _CONNECTIVITY_HELP = _shared("--connectivity", ["8", "4"], "neighbours per cell")
_, _BAND_HELP = _shared("--band", None, "read band N (1 = first) of an INPUT of several bands")
CELL_TYPES = ["Float32", "Float64", "Byte", "Int16", "UInt16", "Int32", "UInt32"]

_Number = QgsProcessingParameterNumber


# The parameters several algorithms share: name -> a function making a fresh definition (QGIS takes
# ownership of each one added). TerrazoAlgorithm.add(name) adds one; its flag is read back by
# TerrazoAlgorithm.common_flags (MEMORY, DEVICE, CONNECTIVITY, MAX_COST, BAND) and extra_flags (EXTRA).
COMMON_PARAMETERS = {
    "INPUT": lambda: QgsProcessingParameterRasterLayer("INPUT", "Cost (friction) or elevation raster"),
    "BAND": lambda: QgsProcessingParameterBand("BAND", "Band: " + _BAND_HELP, 1, "INPUT", True),
    "CONNECTIVITY": lambda: QgsProcessingParameterEnum("CONNECTIVITY", _CONNECTIVITY_HELP.capitalize(),
                                                       CONNECTIVITIES, False, 0),
    "MAX_COST": lambda: _Number("MAX_COST", "Maximum cost (empty: none)", _Number.Double, None, True, 0.0),
    "MEMORY": lambda: _Number(
        "MEMORY", "Memory budget (MiB): terrazo's peak memory stays within it, whatever the raster's size",
        _Number.Integer, 1024, False, 16),
    "DEVICE": lambda: QgsProcessingParameterEnum(
        "DEVICE", "Device: " + _DEVICE_HELP, DEVICES, False, 0),
    "EXTRA": lambda: _advanced(QgsProcessingParameterString(
        "EXTRA", "Other terrazo flags, as on the command line (e.g. --tile=512 --threads=4)", "", False, True)),
}


class TerrazoAlgorithm(QgsProcessingAlgorithm):
    """What every terrazo algorithm shares: the common parameters, points, paths, the run itself.

    A subclass names its command and lists its parameters in PARAMETERS (kinds of parameters.py, in
    the order QGIS shows them): initAlgorithm declares them and the SUMMARY output every algorithm has;
    processAlgorithm runs the command with the positional files (the positional kinds, in order) and
    the flags of every parameter, and returns each output's path and the summary."""

    CONNECTIVITIES = CONNECTIVITIES  # the CONNECTIVITY choices without the package; cost distance adds 16

    COMMAND = None  # the terrazo command
    NAME = None  # the algorithm id under terrazo: (qgis_process run terrazo:NAME)
    TITLE = None
    HELP = ""
    PARAMETERS = []

    def initAlgorithm(self, config=None):  # noqa: N802 (QGIS's names)
        for parameter in self.PARAMETERS:
            parameter.define(self)
        self.add_summary()

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        positionals = [p.value(self, parameters, context) for p in self.PARAMETERS if p.positional]
        flags = [flag for p in self.PARAMETERS for flag in p.flags(self, parameters, context)]
        flags += self.common_flags(parameters, context)
        summary = self.run_terrazo(positionals, flags, parameters, context, feedback)
        results = {p.name: p.result(self, parameters, context) for p in self.PARAMETERS if isinstance(p, Output)}
        results["SUMMARY"] = summary
        self.finish(results, summary)
        return results

    def finish(self, results, summary):
        """After the run: an algorithm's own use of the summary (Info writes it to a file)."""

    def connectivities(self):
        return flag_choices(self.COMMAND, "--connectivity", self.CONNECTIVITIES)

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

    # --- declaring parameters -------------------------------------------------------------------

    def add(self, *names, **overrides):
        """Adds the common parameters `names`; overrides: name=label replaces a label, or
        MEMORY=(label, default MiB)."""
        for name in names:
            parameter = COMMON_PARAMETERS[name]()
            if name == "CONNECTIVITY":
                parameter.setOptions(self.connectivities())
            override = overrides.get(name)
            if isinstance(override, tuple):
                parameter.setDescription(override[0])
                parameter.setDefaultValue(override[1])
            elif override:
                parameter.setDescription(override)
            self.addParameter(parameter)

    def add_summary(self):
        self.addOutput(QgsProcessingOutputString("SUMMARY", "terrazo's JSON summary"))

    # --- reading parameters ---------------------------------------------------------------------

    def has(self, parameters, name):
        return parameters.get(name) not in (None, "")

    def enum(self, parameters, name, choices, context):
        return choices[self.parameterAsEnum(parameters, name, context)]

    def common_flags(self, parameters, context):
        """The flags of the common parameters this algorithm declared, in a fixed order."""
        declared = {p.name() for p in self.parameterDefinitions()}
        flags = []
        if "BAND" in declared:
            flags += self.band_flags(parameters, context)
        if "CONNECTIVITY" in declared:
            flags.append(("connectivity", self.enum(parameters, "CONNECTIVITY", self.connectivities(), context)))
        if "MAX_COST" in declared and self.has(parameters, "MAX_COST"):
            flags.append(("max-cost", self.parameterAsDouble(parameters, "MAX_COST", context)))
        if "MEMORY" in declared:
            flags.append(("memory", "%dM" % self.parameterAsInt(parameters, "MEMORY", context)))
        if "DEVICE" in declared:
            flags.append(("device", self.enum(parameters, "DEVICE", DEVICES, context)))
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

    def features(self, parameters, layer_name, crs, context, empty):
        """(feature, its points in `crs`) of the point layer `layer_name`, in its order (multipoints point
        by point). A feature without geometry is refused (`empty` "refuse": skipping it would shift the
        later ids), left out ("skip") or given with None ("keep"); a feature not a point is refused."""
        source = self.parameterAsSource(parameters, layer_name, context)
        if source is None:
            return
        transform = QgsCoordinateTransform(source.sourceCrs(), crs, context.transformContext())
        for feature in source.getFeatures():
            geometry = feature.geometry()
            if geometry.isNull() or geometry.isEmpty():
                if empty == "refuse":
                    raise QgsProcessingException(
                        "%s: feature %d has no geometry (null or empty); every feature must be a point, so that "
                        "the ids follow the features (or check Skip features without geometry)" %
                        (layer_name, feature.id()))
                if empty == "keep":
                    yield feature, None
                continue
            if QgsWkbTypes.geometryType(geometry.wkbType()) != QgsWkbTypes.PointGeometry:
                raise QgsProcessingException("%s: feature %d is not a point" % (layer_name, feature.id()))
            geometry.transform(transform)
            yield feature, [(vertex.x(), vertex.y()) for vertex in geometry.vertices()]

    def points(self, parameters, layer_name, point_name, context, crs, skip_empty=False):
        """Map coordinates in `crs` of the features of the point layer `layer_name` (features()) and then
        of the clicked point `point_name`; with `skip_empty` a feature without geometry is skipped (the
        caller keeps the ids: points_file)."""
        empty = "skip" if skip_empty else "refuse"
        points = [xy for _, xys in self.features(parameters, layer_name, crs, context, empty) for xy in xys]
        if point_name is not None and self.has(parameters, point_name):
            point = self.parameterAsPoint(parameters, point_name, context, crs)
            points.append((point.x(), point.y()))
        return points

    def points_file(self, parameters, layer_name, point_name, attributes, context, keep_empty=False):
        """A GeoJSON file (WGS 84) of the point layer `layer_name`'s points with their `attributes`
        (null stays null), then the clicked point `point_name` without any: terrazo's --sources-file
        or --sites-file, ids in the same order. With `keep_empty`, a feature without geometry is
        written with a null geometry (for --skip-empty-features, which leaves its id unused); else it
        is refused."""
        wgs84 = QgsCoordinateReferenceSystem("EPSG:4326")
        features = []
        for feature, xys in self.features(parameters, layer_name, wgs84, context, "keep" if keep_empty else "refuse"):
            properties = {}
            for name in attributes:
                value = feature[name]
                properties[name] = value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
            features += [(None, properties)] if xys is None else [(xy, properties) for xy in xys]
        if point_name is not None and self.has(parameters, point_name):
            point = self.parameterAsPoint(parameters, point_name, context, wgs84)
            features.append(((point.x(), point.y()), {}))
        path = QgsProcessingUtils.generateTempFilename("terrazo_points.geojson")
        with open(path, "w") as out:
            json.dump({"type": "FeatureCollection", "features": [
                {"type": "Feature", "properties": properties,
                 "geometry": None if xy is None else {"type": "Point", "coordinates": list(xy)}}
                for xy, properties in features]}, out)
        return path

    def add_skip_empty(self, what):
        self.addParameter(_advanced(QgsProcessingParameterBoolean(
            "SKIP_EMPTY_FEATURES", "Skip %s features without geometry (their ids stay unused; "
            "--skip-empty-features)" % what, False)))

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
