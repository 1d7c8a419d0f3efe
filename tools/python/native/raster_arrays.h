// tools/python/native/raster_arrays.h: numpy arrays to and from rasters, for the in-memory functions
// (terrazo.cost_distance_array, clump_array, mst_array: terrazo/_arrays.py).
//
// The pipelines are out of core: they read rasters and tile stores, never arrays. The in-memory
// functions hand the input array over in place (a VRT over a GDAL MEM band on the array's memory,
// written by terrazo/_arrays.py), run the same command as the file functions, and read the outputs
// back with read_array (docs/python.md "In memory"). write_raster writes an array as a GeoTIFF (the
// tests and benchmarks use it): block by block (256 x 256) from the array's own memory, any strides.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <array>
#include <optional>
#include <string>

namespace terrazo::python {

// Writes `cells` (2-D; dtype bool, int8..int64, uint8..uint64, float32 or float64; any strides;
// NaN = nodata) as a GeoTIFF of `cell_type` ("Byte", "Int16", "UInt16", "Int32", "UInt32",
// "Float32", "Float64") at `path`, uncompressed, with the nodata value (when given), geotransform
// (GDAL order, when given) and CRS (WKT or empty). A value the type cannot hold is a ValueError
// (the caller converts int64 arrays whose values do not fit). Runs without the GIL.
void write_raster(const std::string& path, const pybind11::array& cells, const std::string& cell_type,
                  std::optional<double> nodata, std::optional<std::array<double, 6>> geotransform,
                  const std::string& crs_wkt);

// Reads band 1 of any raster terrazo reads into a new array of `dtype` ("float64", "float32",
// "uint8", "uint32"): nodata cells NaN in float arrays, `none` in integer ones. Returns (cells,
// description): {"type", "nodata" (None when none), "geotransform" (None when none), "crs" (WKT,
// "" when none)}. Runs without the GIL.
pybind11::tuple read_raster(const std::string& path, const std::string& dtype, double none);

// The same as read_raster, for a GDAL raster of the very type `dtype` names (a terrazo output, as
// the in-memory functions read them back): GDAL reads the cells straight into the new array, strip
// by strip (GDALRasterIO into its rows, no intermediate buffer), then nodata cells become NaN or
// `none` in place. Any other raster goes to read_raster. Runs without the GIL.
pybind11::tuple read_array(const std::string& path, const std::string& dtype, double none);

}  // namespace terrazo::python
