"""In memory: numpy arrays (or xarray DataArrays) in, numpy arrays (or DataArrays) out
(docs/python.md "In memory").

The pipelines are out of core and read rasters by name, not arrays. So each function here hands the
array to the engine as a raster without copying it: a tiny VRT file (a few hundred bytes, in a
temporary directory) whose one band is a GDAL MEM dataset over the array's own memory
(``MEM:::DATAPOINTER=...`` with the array's strides), carrying the nodata value, geotransform and
CRS. The engine reads the cells through GDAL straight from the array, as it would read a GeoTIFF
(the cell type is kept: the weight scale rule depends on it, docs/weights.md). Arrays whose dtype
has no raster type (int8, float16, int64, big-endian) or whose layout GDAL cannot address (negative
or zero strides, unaligned) are converted first: one copy, of the input only. Then the same command
as the file functions runs (terrazo._commands: the CLI's parser and run function); its outputs are
uncompressed GeoTIFFs in the temporary directory, read by GDAL straight into new numpy arrays of
their own type (_native.read_array), and the directory is removed. Results are the CLI's bit for bit.
"""

import os
import tempfile
from xml.sax.saxutils import escape

import numpy as np

from . import _commands, _native

__all__ = ["cost_distance_array", "mst_array", "clump_array"]

# numpy dtype -> terrazo cell type (GDAL's type name); others are converted (_cell_type) or refused.
_CELL_TYPES = {
    np.dtype(np.uint8): "Byte", np.dtype(np.int16): "Int16", np.dtype(np.uint16): "UInt16",
    np.dtype(np.int32): "Int32", np.dtype(np.uint32): "UInt32", np.dtype(np.float32): "Float32",
    np.dtype(np.float64): "Float64",
}
_DTYPES = {name: dtype for dtype, name in _CELL_TYPES.items()}
_RANGES = {"Byte": (0, 255), "Int16": (-32768, 32767), "UInt16": (0, 65535), "Int32": (-2**31, 2**31 - 1),
           "UInt32": (0, 2**32 - 1)}


def _cell_type(values, name):
    """The terrazo cell type of an array's dtype: bool as Byte, int8 as Int16, float16 as Float32,
    int64/uint64 as Int32/UInt32 when every value fits; anything else is a TypeError."""
    dtype = values.dtype.newbyteorder("=") if values.dtype.byteorder not in "=|" else values.dtype
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


def _addressable(values, dtype):
    """Whether GDAL's MEM driver can read `values` in place as cells of `dtype`: the same native
    type, aligned, and positive strides (any order: C, Fortran, slices, transposes)."""
    return (values.dtype == dtype and values.flags.aligned and all(s > 0 for s in values.strides))


def _as_cells(values, cell_type):
    """`values` as an array GDAL reads in place as `cell_type`: itself (bool as a uint8 view), or
    one converted copy when its dtype or layout does not allow that. Returns (cells, copied)."""
    dtype = _DTYPES[cell_type]
    if values.dtype == np.bool_:
        values = values.view(np.uint8)  # numpy bools are bytes of 0 and 1
    if _addressable(values, dtype):
        return values, False
    return np.ascontiguousarray(values, dtype=dtype), True


def _write_vrt(path, cells, cell_type, nodata=None, geotransform=None, crs=""):
    """A VRT file at `path` whose band 1 is `cells` in place (GDAL's MEM driver over the array's
    memory, with its strides), with the nodata value, geotransform and CRS. The array must stay
    alive (and unchanged) while the raster is read."""
    height, width = cells.shape
    pointer = cells.__array_interface__["data"][0]
    source = ("MEM:::DATAPOINTER=0x%x,PIXELS=%d,LINES=%d,BANDS=1,DATATYPE=%s,PIXELOFFSET=%d,LINEOFFSET=%d" %
              (pointer, width, height, cell_type, cells.strides[1], cells.strides[0]))
    lines = ['<VRTDataset rasterXSize="%d" rasterYSize="%d">' % (width, height)]
    if crs:
        lines.append("  <SRS>%s</SRS>" % escape(crs))
    if geotransform is not None:
        lines.append("  <GeoTransform>%s</GeoTransform>" % ", ".join(repr(float(v)) for v in geotransform))
    lines.append('  <VRTRasterBand dataType="%s" band="1">' % cell_type)
    if nodata is not None:
        lines.append("    <NoDataValue>%r</NoDataValue>" % float(nodata))
    lines += ["    <SimpleSource>",
              '      <SourceFilename relativeToVRT="0">%s</SourceFilename>' % escape(source),
              "      <SourceBand>1</SourceBand>",
              '      <SourceProperties RasterXSize="%d" RasterYSize="%d" DataType="%s" BlockXSize="%d" '
              'BlockYSize="1"/>' % (width, height, cell_type, width),
              "    </SimpleSource>", "  </VRTRasterBand>", "</VRTDataset>"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


class _Grid:
    """What an input array brings: its cells (the array itself where GDAL can read it in place, NaN =
    nodata), cell type, nodata, georeferencing, and the DataArray to copy coordinates from (None for
    plain arrays). `copied` says whether the cells had to be converted (one copy)."""

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
        self.cells, self.copied = _as_cells(values, self.cell_type)
        if nodata is not None:
            nodata = float(nodata)
            if np.isnan(nodata):
                nodata = None  # NaN is nodata anyway
        self.nodata = nodata

    def write(self, path):
        """The raster over the array: a VRT file at `path` (no copy of the cells)."""
        _write_vrt(path, self.cells, self.cell_type, self.nodata, self.geotransform, self.crs)


def _is_data_array(value):
    return type(value).__name__ == "DataArray" and hasattr(value, "dims") and hasattr(value, "coords")


def _read(path, dtype, none_value):
    """A terrazo output as a new array of dtype, read by GDAL straight into it: nodata cells NaN
    (float) or none_value (integers)."""
    cells, _ = _native.read_array(path, np.dtype(dtype).name, float(none_value))
    return cells


def _wrap(grid, array, name, attrs=None):
    if grid.template is None:
        return array
    from . import _xarray
    return _xarray.like(grid.template, array, name, attrs or {})


class _ArrayNames:
    """Within it, the CLI's messages name the caller's arrays instead of their temporary files:
    "INPUT '/tmp/terrazo-array-x/friction.vrt' has no valid cell" reads "INPUT '<friction array>' ..."."""

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


def _raster_to_raster(command, values, nodata, what, output, flags, **keywords):
    """`command` (INPUT OUTPUT) on the array `values`, called `what` in messages, with `keywords` and
    the other `flags`; its output read back as output = (dtype, value at nodata, name), wrapped like
    `values`."""
    dtype, none_value, name = output
    grid = _Grid(values, nodata, what)
    options = dict(_TEMP_OUTPUT, **flags)
    with _scratch(options) as tmp:
        input_path = os.path.join(tmp, what + ".vrt")
        output_path = os.path.join(tmp, "output.tif")
        grid.write(input_path)
        with _ArrayNames(**{input_path: what + " array"}):
            command(input_path, output_path, **keywords, **options)
        return _wrap(grid, _read(output_path, dtype, none_value), name)


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
        input_path = os.path.join(tmp, "friction.vrt")
        grid.write(input_path)
        source_options = {}
        if (isinstance(sources, np.ndarray) or _is_data_array(sources)) and np.shape(sources) == grid.shape:
            mask = np.asarray(sources.values if _is_data_array(sources) else sources)
            if mask.dtype.kind not in "biu":
                raise TypeError("sources: a mask array holds integer or bool ids, got %s" % mask.dtype)
            if mask.size and (mask.min() < 0 or mask.max() > 2**32 - 1):
                raise ValueError("sources: mask ids must be 0 (no source) or 1 .. 2^32 - 1")
            mask_path = os.path.join(tmp, "sources.vrt")
            mask_cells = _as_cells(mask, "UInt32")[0]  # referenced until the run ends: GDAL reads it in place
            _write_vrt(mask_path, mask_cells, "UInt32", None, grid.geotransform, grid.crs)
            source_options["source_raster"] = mask_path
        else:
            source_options["sources"] = sources
        paths = {"cost": os.path.join(tmp, "cost.tif")}
        if backlink:
            paths["backlink"] = os.path.join(tmp, "backlink.tif")
        if allocation:
            paths["allocation"] = os.path.join(tmp, "allocation.tif")
        with _ArrayNames(**{input_path: "friction array", os.path.join(tmp, "sources.vrt"): "sources mask"}):
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
    return _raster_to_raster(_commands.mst, elevation, nodata, "elevation", (np.uint8, 255, "mst_edges"), flags,
                             weight=weight, scale=scale, connectivity=connectivity, memory=memory, device=device,
                             progress=progress)


def clump_array(values, *, nodata=None, by=None, connectivity=None, memory=None, progress=None, **flags):
    """Connected regions of an array, the CLI's labels bit for bit.

    values: as friction in cost_distance_array. by: "value" (default for integer arrays), "valid"
    or "range:LO,HI". Returns uint32 labels 1..K in row-major order of each region's first cell,
    0 at nodata (and cells outside the range).

    >>> labels = terrazo.clump_array(landcover, by="value")
    """
    return _raster_to_raster(_commands.clump, values, nodata, "values", (np.uint32, 0, "labels"), flags, by=by,
                             connectivity=connectivity, memory=memory, progress=progress)
