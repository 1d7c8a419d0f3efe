// python/native/raster_arrays.h: numpy arrays to and from rasters, for the in-memory functions
// (terrazo.cost_distance_array, clump_array, mst_array: terrazo/_arrays.py).
//
// The pipelines are out of core: they read rasters and tile stores, never arrays. The in-memory
// functions therefore write the array to an uncompressed GeoTIFF in a temporary directory, run the
// same command as the file functions, and read the outputs back (docs/python.md "In memory").
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <array>
#include <optional>
#include <string>

namespace terrazo::python {

// Writes `cells` (2-D, C order, float64; NaN = nodata) as a GeoTIFF of `cell_type` ("Byte",
// "Int16", "UInt16", "Int32", "UInt32", "Float32", "Float64") at `path`, uncompressed, with the
// nodata value (when given), geotransform (GDAL order, when given) and CRS (WKT or empty).
// A value the type cannot hold is a ValueError. Runs without the GIL.
void write_raster(const std::string& path, pybind11::array_t<double, pybind11::array::c_style> cells,
                  const std::string& cell_type, std::optional<double> nodata,
                  std::optional<std::array<double, 6>> geotransform, const std::string& crs_wkt);

// Reads band 1 of any raster terrazo reads as float64 (nodata cells NaN) with its description:
// {"type", "nodata" (None when none), "geotransform" (None when none), "crs" (WKT, "" when none)}.
pybind11::tuple read_raster(const std::string& path);

}  // namespace terrazo::python
