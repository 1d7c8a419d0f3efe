"""In memory: numpy arrays (or xarray DataArrays) in, numpy arrays (or DataArrays) out
(docs/python.md "In memory").

The pipelines are out of core and read rasters, not arrays. So each function here writes the array
to an uncompressed GeoTIFF in a temporary directory (its cell type kept: the weight scale rule
depends on it, docs/weights.md), runs the same command as the file functions (terrazo._commands,
the CLI's parser and run function), reads the outputs back and removes the directory. Results are
the CLI's bit for bit; the cost of the round trip is stated in docs/python.md.
"""

import os
import tempfile

import numpy as np

from . import _commands, _native

__all__ = ["cost_distance_array", "mst_array", "clump_array"]

# numpy dtype -> terrazo cell type; others are converted (_cell_type) or refused.
_CELL_TYPES = {
    np.dtype(np.uint8): "Byte", np.dtype(np.int16): "Int16", np.dtype(np.uint16): "UInt16",
    np.dtype(np.int32): "Int32", np.dtype(np.uint32): "UInt32", np.dtype(np.float32): "Float32",
    np.dtype(np.float64): "Float64",
}
_RANGES = {"Byte": (0, 255), "Int16": (-32768, 32767), "UInt16": (0, 65535), "Int32": (-2**31, 2**31 - 1),
           "UInt32": (0, 2**32 - 1)}


def _cell_type(values, name):
    """The terrazo cell type of an array's dtype: bool as Byte, int8 as Int16, float16 as Float32,
    int64/uint64 as Int32/UInt32 when every value fits; anything else is a TypeError."""
    dtype = values.dtype
    if dtype in _CELL_TYPES:
        return _CELL_TYPES[dtype]
    if dtype == np.bool_:
        return "Byte"
    if dtype == np.int8:
        return "Int16"
    if dtype == np.float16:
        return "Float32"
    if dtype.kind in "iu":
        target = "UInt32" if dtype.kind == "u" or (values.size and values.min() >= 0) else "Int32"
        low, high = _RANGES[target]
        if values.size and (values.min() < low or values.max() > high):
            raise ValueError("%s: %s values from %d to %d do not fit a 32-bit raster; convert the array to "
                             "float64 (exact up to 2^53) or to a 32-bit type" %
                             (name, dtype, values.min(), values.max()))
        return target
    raise TypeError("%s: arrays of %s are not rasters terrazo reads; give bool, integer or floating-point cells"
                    % (name, dtype))


class _Grid:
    """What an input array brings: its cells (the array itself, NaN = nodata), cell type, nodata,
    georeferencing, and the DataArray to copy coordinates from (None for plain arrays)."""

    def __init__(self, data, nodata, name):
        self.template = None
        self.geotransform = None
        self.crs = ""
        if _is_data_array(data):
            from . import _xarray
            self.template = data
            self.geotransform, self.crs = _xarray.georeference(data)
            data = data.values
        if isinstance(data, np.ma.MaskedArray):
            data = data.astype(np.float64).filled(np.nan)
        values = np.asarray(data)
        if values.ndim != 2:
            raise ValueError("%s: expected a 2-D array (rows, columns), got shape %s" % (name, values.shape))
        if values.size == 0:
            raise ValueError("%s: expected a non-empty array, got shape %s" % (name, values.shape))
        self.cell_type = _cell_type(values, name)
        self.shape = values.shape
        # No copy: the GeoTIFF is written block by block from the array's own memory, whatever its
        # strides (_native.write_raster). Only dtypes C++ has no type for are converted first.
        if values.dtype == np.float16:
            values = values.astype(np.float32)
        elif not values.dtype.isnative:
            values = values.astype(values.dtype.newbyteorder("="))
        self.cells = values
        if nodata is not None:
            nodata = float(nodata)
            if np.isnan(nodata):
                nodata = None  # NaN is nodata anyway
        self.nodata = nodata

    def write(self, path):
        _native.write_raster(path, self.cells, self.cell_type, self.nodata, self.geotransform, self.crs)


def _is_data_array(value):
    return type(value).__name__ == "DataArray" and hasattr(value, "dims") and hasattr(value, "coords")


def _read(path, dtype, none_value):
    """A terrazo output as a new array of dtype: nodata cells NaN (float) or none_value (integers)."""
    cells, _ = _native.read_raster(path, np.dtype(dtype).name, float(none_value))
    return cells


def _wrap(grid, array, name, attrs=None):
    if grid.template is None:
        return array
    from . import _xarray
    return _xarray.like(grid.template, array, name, attrs or {})


class _ArrayNames:
    """Within it, the CLI's messages name the caller's arrays instead of their temporary files:
    "INPUT '/tmp/terrazo-array-x/friction.tif' has no valid cell" reads "INPUT '<friction array>' ..."."""

    def __init__(self, **names):
        self.names = names  # temporary path -> what the caller passed

    def __enter__(self):
        return self

    def __exit__(self, kind, error, trace):
        if not isinstance(error, (ValueError, OSError, MemoryError, RuntimeError)) or not error.args:
            return False
        text = str(error)
        for path, name in self.names.items():
            text = text.replace(path, "<%s>" % name)
        if text == str(error):
            return False
        raise type(error)(text) from None


def _scratch(options):
    return tempfile.TemporaryDirectory(prefix="terrazo-array-", dir=options.get("tmpdir"))


_TEMP_OUTPUT = {"co": {"COMPRESS": "NONE"}}  # temporary outputs: no compression, same cells (co= overrides)


def cost_distance_array(friction, sources, *, nodata=None, weight=None, scale=None, connectivity=None,
                        max_cost=None, backlink=True, allocation=False, cost_type="Float64", memory=None,
                        device=None,
                        progress=None, **flags):
    """Cost distance over an array, the CLI's cost distance bit for bit.

    friction: 2-D numpy array (bool, int8..uint32, int64 values that fit 32 bits, float16/32/64;
    any strides) or an xarray DataArray (coordinates and CRS kept). NaN and Inf cells, and cells
    equal to ``nodata``, are nodata. sources: [(x, y), ...] cells (column, row; with
    ``map_coords=True`` map coordinates of a georeferenced DataArray), or an integer/bool mask array
    of friction's shape (non-zero cells are sources, their value the id). weight, scale,
    connectivity, max_cost and every other flag of ``terrazo sssp --help`` as in cost_distance.

    Returns (cost, backlink), or (cost, backlink, allocation) with allocation=True; with
    backlink=False the backlink is None (and a GPU may take the resident exchange, which computes
    distances only: docs/sssp.md "Resident exchange"):
    cost float64 (float32 with cost_type="Float32"), NaN where unreached or nodata; backlink uint8,
    0 E, 1 SE, 2 S, 3 SW, 4 W, 5 NW, 6 N, 7 NE, 255 at sources, nodata and unreached cells;
    allocation uint32, the nearest source's id, 0 where unreached. DataArrays in, DataArrays out.

    >>> cost, back = terrazo.cost_distance_array(friction, [(10, 20)])
    """
    grid = _Grid(friction, nodata, "friction")
    options = dict(_TEMP_OUTPUT, **flags)
    with _scratch(options) as tmp:
        input_path = os.path.join(tmp, "friction.tif")
        grid.write(input_path)
        source_options = {}
        if (isinstance(sources, np.ndarray) or _is_data_array(sources)) and np.shape(sources) == grid.shape:
            mask = np.asarray(sources.values if _is_data_array(sources) else sources)
            if mask.dtype.kind not in "biu":
                raise TypeError("sources: a mask array holds integer or bool ids, got %s" % mask.dtype)
            if mask.size and (mask.min() < 0 or mask.max() > 2**32 - 1):
                raise ValueError("sources: mask ids must be 0 (no source) or 1 .. 2^32 - 1")
            mask_path = os.path.join(tmp, "sources.tif")
            _native.write_raster(mask_path, mask, "UInt32", None, grid.geotransform, grid.crs)
            source_options["source_raster"] = mask_path
        else:
            source_options["sources"] = sources
        paths = {"cost": os.path.join(tmp, "cost.tif")}
        if backlink:
            paths["backlink"] = os.path.join(tmp, "backlink.tif")
        if allocation:
            paths["allocation"] = os.path.join(tmp, "allocation.tif")
        with _ArrayNames(**{input_path: "friction array", os.path.join(tmp, "sources.tif"): "sources mask"}):
            _commands.cost_distance(input_path, paths["cost"], backlink=paths.get("backlink"),
                                    allocation=paths.get("allocation"), weight=weight, scale=scale,
                                    connectivity=connectivity, max_cost=max_cost, memory=memory, device=device,
                                    progress=progress, ot=cost_type if cost_type != "Float64" else None,
                                    **source_options, **options)
        float_type = np.float32 if cost_type == "Float32" else np.float64
        result = [_wrap(grid, _read(paths["cost"], float_type, np.nan), "cost"),
                  _wrap(grid, _read(paths["backlink"], np.uint8, 255), "backlink") if backlink else None]
        if allocation:
            result.append(_wrap(grid, _read(paths["allocation"], np.uint32, 0), "allocation"))
    return tuple(result)


def mst_array(elevation, *, nodata=None, weight=None, scale=None, connectivity=None, memory=None, device=None,
              progress=None, **flags):
    """Minimum spanning forest of an array's grid graph, the CLI's bit for bit.

    elevation: as friction in cost_distance_array. Returns the uint8 edge array of ``terrazo mst``:
    bit 0 E (x+1, y), bit 1 SE, bit 2 S, bit 3 SW of each cell's tree edges; 255 at nodata cells.
    Other flags of ``terrazo mst --help`` as keywords.

    >>> edges = terrazo.mst_array(dem)
    """
    grid = _Grid(elevation, nodata, "elevation")
    options = dict(_TEMP_OUTPUT, **flags)
    with _scratch(options) as tmp:
        input_path = os.path.join(tmp, "elevation.tif")
        output_path = os.path.join(tmp, "edges.tif")
        grid.write(input_path)
        with _ArrayNames(**{input_path: "elevation array"}):
            _commands.mst(input_path, output_path, weight=weight, scale=scale, connectivity=connectivity,
                          memory=memory, device=device, progress=progress, **options)
        return _wrap(grid, _read(output_path, np.uint8, 255), "mst_edges")


def clump_array(values, *, nodata=None, by=None, connectivity=None, memory=None, progress=None, **flags):
    """Connected regions of an array, the CLI's labels bit for bit.

    values: as friction in cost_distance_array. by: "value" (default for integer arrays), "valid"
    or "range:LO,HI". Returns uint32 labels 1..K in row-major order of each region's first cell,
    0 at nodata (and cells outside the range).

    >>> labels = terrazo.clump_array(landcover, by="value")
    """
    grid = _Grid(values, nodata, "values")
    options = dict(_TEMP_OUTPUT, **flags)
    with _scratch(options) as tmp:
        input_path = os.path.join(tmp, "values.tif")
        output_path = os.path.join(tmp, "labels.tif")
        grid.write(input_path)
        with _ArrayNames(**{input_path: "values array"}):
            _commands.clump(input_path, output_path, by=by, connectivity=connectivity, memory=memory,
                            progress=progress, **options)
        return _wrap(grid, _read(output_path, np.uint32, 0), "labels")
