// python/native/raster_arrays.cpp: write_raster, read_raster (raster_arrays.h), over gdal/gdal_raster.h.
#include "python/native/raster_arrays.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "core/error.h"
#include "core/memory_budget.h"
#include "gdal/gdal_raster.h"
#include "store/raster_info.h"

namespace py = pybind11;

namespace terrazo::python {
namespace {

CellType cell_type_named(const std::string& name) {
  for (CellType type : {CellType::UInt8, CellType::Int16, CellType::UInt16, CellType::Int32, CellType::UInt32,
                        CellType::Float32, CellType::Float64})
    if (name == to_string(type)) return type;
  throw py::value_error("unknown cell type '" + name + "': expected Byte, Int16, UInt16, Int32, UInt32, Float32 or Float64");
}

constexpr std::uint32_t kBlock = 256;           // GeoTIFF block edge of the temporary inputs
constexpr std::uint64_t kGdalCache = 64ull << 20;  // GDAL's block cache while writing or reading

}  // namespace

void write_raster(const std::string& path, py::array_t<double, py::array::c_style> cells, const std::string& cell_type,
                  std::optional<double> nodata, std::optional<std::array<double, 6>> geotransform,
                  const std::string& crs_wkt) {
  if (cells.ndim() != 2) throw py::value_error("expected a 2-D array, got " + std::to_string(cells.ndim()) + " dimensions");
  const std::uint64_t height = static_cast<std::uint64_t>(cells.shape(0));
  const std::uint64_t width = static_cast<std::uint64_t>(cells.shape(1));
  if (width == 0 || height == 0) throw py::value_error("expected a non-empty array, got shape (" +
                                                       std::to_string(height) + ", " + std::to_string(width) + ")");
  const CellType type = cell_type_named(cell_type);
  RasterInfo georef;
  georef.width = width;
  georef.height = height;
  georef.type = type;
  if (geotransform) {
    georef.has_geotransform = true;
    georef.geotransform = *geotransform;
  }
  georef.crs_wkt = crs_wkt;
  GeoTiffOptions options;
  options.creation = {"COMPRESS=NONE"};
  const double* data = cells.data();
  try {
    py::gil_scoped_release release;
    MemoryBudget budget(kGdalCache);
    GdalCacheLimit cache(budget, kGdalCache);
    GeoTiffWriter writer(path, width, height, type, georef, nodata.has_value(), nodata.value_or(0.0), kBlock, options);
    for (std::uint64_t y = 0; y < height; y += kBlock) {
      const auto rows = static_cast<std::uint32_t>(std::min<std::uint64_t>(kBlock, height - y));
      for (std::uint64_t x = 0; x < width; x += kBlock) {
        const auto cols = static_cast<std::uint32_t>(std::min<std::uint64_t>(kBlock, width - x));
        // One block at a time (gdal_raster.h: each block in one call), copied out of the array's rows.
        std::unique_ptr<double[]> block(new double[static_cast<std::size_t>(rows) * cols]);
        for (std::uint32_t r = 0; r < rows; ++r)
          std::copy_n(data + (y + r) * width + x, cols, block.get() + static_cast<std::size_t>(r) * cols);
        writer.write_window(x, y, cols, rows, block.get());
      }
    }
    writer.finish();
  } catch (const UsageError& e) {
    throw py::value_error(e.what());
  } catch (const IoError& e) {
    PyErr_SetString(PyExc_OSError, e.what());
    throw py::error_already_set();
  } catch (const Error& e) {
    // A value the cell type cannot hold, a NaN in an integer raster without nodata: bad input.
    throw py::value_error(e.what());
  }
}

py::tuple read_raster(const std::string& path) {
  std::unique_ptr<RasterReader> reader;
  RasterInfo info;
  try {
    py::gil_scoped_release release;
    reader = RasterReader::open(path);
    info = reader->info();
  } catch (const IoError& e) {
    PyErr_SetString(PyExc_OSError, e.what());
    throw py::error_already_set();
  } catch (const Error& e) {
    throw std::runtime_error(e.what());
  }
  py::array_t<double> cells({static_cast<py::ssize_t>(info.height), static_cast<py::ssize_t>(info.width)});
  double* out = cells.mutable_data();
  try {
    py::gil_scoped_release release;
    MemoryBudget budget(kGdalCache);
    GdalCacheLimit cache(budget, kGdalCache);
    for (std::uint64_t y = 0; y < info.height; y += kBlock) {
      const auto rows = static_cast<std::uint32_t>(std::min<std::uint64_t>(kBlock, info.height - y));
      reader->read_window(0, y, static_cast<std::uint32_t>(info.width), rows, out + y * info.width);
    }
  } catch (const Error& e) {
    throw std::runtime_error(e.what());
  }
  py::dict description;
  description["type"] = to_string(info.type);
  description["nodata"] = info.has_nodata ? py::object(py::float_(info.nodata)) : py::object(py::none());
  description["geotransform"] = info.has_geotransform ? py::object(py::tuple(py::cast(info.geotransform))) : py::object(py::none());
  description["crs"] = info.crs_wkt;
  return py::make_tuple(cells, description);
}

}  // namespace terrazo::python
