"""The kinds of parameter a terrazo algorithm is composed of (docs/qgis.md "Algorithms"): each one
declares its QGIS parameter(s) and turns their values into the command's flags from the engine's flag
table (terrazo._native.flags, through backend.command_flag), so that an algorithm is a list of them.

  Common(name)           a parameter several algorithms share (algorithm_base.COMMON_PARAMETERS);
                         its flag is read by TerrazoAlgorithm.common_flags
  Choice(name, flag)     an enum of the flag's choices (the table's, else the fallback): --flag=CHOICE
  Number(name, flag)     an integer or a double: --flag=VALUE when given (and not `omit`)
  Switch(name, flag)     a boolean: --flag when it is `when`
  Raster(name, flag)     a raster layer: --flag=PATH when given (positional without a flag)
  File(name)             a file (a tile store, an index): positional
  Output(name, flag)     a destination: --flag=PATH when asked for (positional without a flag)
  Custom(method, ...)    parameters whose flags the algorithm's method computes (points, ranges)

Every kind has define(algorithm) (adds the parameter), flags(algorithm, parameters, context) and
value(algorithm, parameters, context) (the positional file or the output's path).
"""

from qgis.core import (QgsProcessingParameterBoolean, QgsProcessingParameterDefinition, QgsProcessingParameterEnum,
                       QgsProcessingParameterFile,
                       QgsProcessingParameterFileDestination, QgsProcessingParameterNumber,
                       QgsProcessingParameterRasterDestination, QgsProcessingParameterRasterLayer,
                       QgsProcessingParameterVectorDestination)

from . import backend

_Number = QgsProcessingParameterNumber


def advanced(parameter):
    parameter.setFlags(parameter.flags() | QgsProcessingParameterDefinition.FlagAdvanced)
    return parameter


def flag_choices(command, flag, fallback):
    """The choices of `command`'s flag `flag` in the engine's flag table, else `fallback` (the terrazo
    program alone: no table to read)."""
    declared = backend.command_flag(command, flag)
    return list(declared["choices"]) if declared and declared["choices"] else list(fallback)


class Kind:
    """A parameter of one algorithm: `name` in QGIS, `flag` (without dashes) on terrazo's command line."""

    positional = False

    def __init__(self, name, flag=None, label="", advanced=False):
        self.name, self.flag, self.label, self.advanced = name, flag, label, advanced

    def add(self, algorithm, parameter):
        algorithm.addParameter(advanced(parameter) if self.advanced else parameter)

    def flags(self, algorithm, parameters, context):
        if self.flag is None or not algorithm.has(parameters, self.name):
            return []
        return [(self.flag, self.value(algorithm, parameters, context))]

    def result(self, algorithm, parameters, context):
        return None


class Common(Kind):
    """Common parameters (COMMON_PARAMETERS); `overrides`: name=label, or MEMORY=(label, default MiB).
    INPUT is the first positional file."""

    def __init__(self, *names, **overrides):
        super().__init__(names[0])
        self.names, self.overrides = names, overrides
        self.positional = names[0] == "INPUT"

    def define(self, algorithm):
        algorithm.add(*self.names, **self.overrides)

    def flags(self, algorithm, parameters, context):
        return []  # TerrazoAlgorithm.common_flags, in its fixed order

    def value(self, algorithm, parameters, context):
        return algorithm.raster_path(parameters, self.name, context)[1]


class Choice(Kind):
    def __init__(self, name, flag, label, fallback, default=0, advanced=False, omit_default=False):
        super().__init__(name, flag, label, advanced)
        self.fallback, self.default, self.omit_default = fallback, default, omit_default

    def choices(self, algorithm):
        return flag_choices(algorithm.COMMAND, "--" + self.flag, self.fallback)

    def define(self, algorithm):
        self.add(algorithm, QgsProcessingParameterEnum(self.name, self.label, self.choices(algorithm), False,
                                                       self.default))

    def flags(self, algorithm, parameters, context):
        if self.omit_default and not algorithm.parameterAsEnum(parameters, self.name, context):
            return []
        return [(self.flag, self.value(algorithm, parameters, context))]

    def value(self, algorithm, parameters, context):
        return algorithm.enum(parameters, self.name, self.choices(algorithm), context)


class Number(Kind):
    """`integer` or a double; `limits`: (minimum) or (minimum, maximum); `omit`: a value given as no flag."""

    def __init__(self, name, flag, label, integer=False, default=None, optional=True, limits=(), omit=None,
                 advanced=False):
        super().__init__(name, flag, label, advanced)
        self.integer, self.default, self.optional, self.limits, self.omit = integer, default, optional, limits, omit

    def define(self, algorithm):
        kind = _Number.Integer if self.integer else _Number.Double
        self.add(algorithm, _Number(self.name, self.label, kind, self.default, self.optional, *self.limits))

    def flags(self, algorithm, parameters, context):
        if self.optional and not algorithm.has(parameters, self.name):
            return []
        value = self.value(algorithm, parameters, context)
        return [] if self.omit is not None and value == self.omit else [(self.flag, value)]

    def value(self, algorithm, parameters, context):
        read = algorithm.parameterAsInt if self.integer else algorithm.parameterAsDouble
        return read(parameters, self.name, context)


class Switch(Kind):
    """A boolean whose flag is given when it is `when` (False: a --no-X flag)."""

    def __init__(self, name, flag, label, default=False, when=True):
        super().__init__(name, flag, label)
        self.default, self.when = default, when

    def define(self, algorithm):
        self.add(algorithm, QgsProcessingParameterBoolean(self.name, self.label, self.default))

    def flags(self, algorithm, parameters, context):
        given = algorithm.parameterAsBoolean(parameters, self.name, context)
        return [(self.flag, True)] if given == self.when else []


class Raster(Kind):
    def __init__(self, name, flag, label, optional=False):
        super().__init__(name, flag, label)
        self.optional = optional
        self.positional = flag is None

    def define(self, algorithm):
        self.add(algorithm, QgsProcessingParameterRasterLayer(self.name, self.label, None, self.optional))

    def value(self, algorithm, parameters, context):
        return algorithm.raster_path(parameters, self.name, context)[1]


class File(Kind):
    positional = True

    def define(self, algorithm):
        self.add(algorithm, QgsProcessingParameterFile(self.name, self.label, QgsProcessingParameterFile.File))

    def value(self, algorithm, parameters, context):
        return algorithm.parameterAsFile(parameters, self.name, context)


class Output(Kind):
    """A destination: raster (the default), vector (`vector`: its QgsProcessing type) or file (`file_filter`).
    Positional without a flag; an optional one with a flag only when asked for."""

    def __init__(self, name, label, flag=None, file_filter=None, vector=None, optional=False, positional=None):
        super().__init__(name, flag, label)
        self.file_filter, self.vector, self.optional = file_filter, vector, optional
        self.positional = flag is None if positional is None else positional

    def define(self, algorithm):
        extra = (None, True, False) if self.optional else ()
        if self.file_filter is not None:
            parameter = QgsProcessingParameterFileDestination(self.name, self.label, self.file_filter, *extra)
        elif self.vector is not None:
            parameter = QgsProcessingParameterVectorDestination(self.name, self.label, self.vector, *extra)
        else:
            parameter = QgsProcessingParameterRasterDestination(self.name, self.label, *extra)
        self.add(algorithm, parameter)

    def value(self, algorithm, parameters, context):
        if self.file_filter is not None:
            return algorithm.parameterAsFileOutput(parameters, self.name, context)
        return algorithm.output_path(parameters, self.name, context)

    def flags(self, algorithm, parameters, context):
        path = self.flag and self.value(algorithm, parameters, context)
        return [(self.flag, path)] if path else []

    def result(self, algorithm, parameters, context):
        path = self.value(algorithm, parameters, context)
        return path if self.positional and not self.optional else (path or None)


class Custom(Kind):
    """Parameters `makers` (functions returning a fresh definition) whose flags the algorithm's method
    `method` returns (the algorithm's special cases: points, ranges, modes)."""

    def __init__(self, method, *makers):
        super().__init__(None)
        self.method, self.makers = method, makers

    def define(self, algorithm):
        for make in self.makers:
            algorithm.addParameter(make())

    def flags(self, algorithm, parameters, context):
        return getattr(algorithm, self.method)(parameters, context) if self.method else []
