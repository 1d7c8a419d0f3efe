// tools/python/native/raster_arrays.cpp: write_raster, read_raster (raster_arrays.h), over io/gdal/gdal_raster.h.
#include "tools/python/native/raster_arrays.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <string>
#include <vector>

#include <gdal.h>

#include "kernels/common/error.h"
#include "kernels/common/memory_budget.h"
#include "io/gdal/gdal_cell_types.h"
#include "io/gdal/gdal_raster.h"
#include "io/gdal/gdal_session.h"
#include "io/store/cell_values.h"
#include "io/store/raster_info.h"

namespace py = pybind11;

namespace terrazo::python {
namespace {

CellType cell_type_named(const std::string& name) {
  for (CellType type : {CellType::UInt8, CellType::Int16, CellType::UInt16, CellType::Int32, CellType::UInt32,
                        CellType::Float32, CellType::Float64})
    if (name == to_string(type)) return type;
  throw py::value_error("unknown cell type '" + name + "': expected Byte, Int16, UInt16, Int32, UInt32, Float32 or Float64");
}

constexpr std::uint32_t kBlock = 256;              // GeoTIFF block edge of the temporary rasters
constexpr std::uint64_t kGdalCache = 64ull << 20;  // GDAL's block cache while writing or reading

// terrazo's errors as the Python exceptions of docs/python.md "Errors"; with the GIL held.
[[noreturn]] void raise_error(const Error& e) {
  if (dynamic_cast<const IoError*>(&e)) {
    PyErr_SetString(PyExc_OSError, e.what());
    throw py::error_already_set();
  }
  // A value the cell type cannot hold, a NaN in an integer raster without nodata, a bad option.
  throw py::value_error(e.what());
}

// Every block of the array, row of blocks by row of blocks, as doubles through `block`.
template <class T>
void write_cells(GeoTiffWriter& writer, const py::array& cells) {
  const auto view = cells.unchecked<T, 2>();  // the array's own memory and strides
  const std::uint64_t height = static_cast<std::uint64_t>(cells.shape(0));
  const std::uint64_t width = static_cast<std::uint64_t>(cells.shape(1));
  std::vector<double> block(static_cast<std::size_t>(kBlock) * kBlock);
  for (std::uint64_t y = 0; y < height; y += kBlock) {
    const auto rows = static_cast<std::uint32_t>(std::min<std::uint64_t>(kBlock, height - y));
    for (std::uint64_t x = 0; x < width; x += kBlock) {
      const auto cols = static_cast<std::uint32_t>(std::min<std::uint64_t>(kBlock, width - x));
      for (std::uint32_t r = 0; r < rows; ++r)
        for (std::uint32_t c = 0; c < cols; ++c)
          block[static_cast<std::size_t>(r) * cols + c] =
              static_cast<double>(view(static_cast<py::ssize_t>(y + r), static_cast<py::ssize_t>(x + c)));
      writer.write_window(x, y, cols, rows, block.data());
    }
  }
}

using Writer = void (*)(GeoTiffWriter&, const py::array&);

Writer writer_for(const py::dtype& dtype) {
  const char kind = dtype.kind();
  const auto size = dtype.itemsize();
  if (kind == 'b') return write_cells<std::uint8_t>;  // numpy bools are bytes of 0 and 1
  if (kind == 'i' && size == 1) return write_cells<std::int8_t>;
  if (kind == 'i' && size == 2) return write_cells<std::int16_t>;
  if (kind == 'i' && size == 4) return write_cells<std::int32_t>;
  if (kind == 'i' && size == 8) return write_cells<std::int64_t>;
  if (kind == 'u' && size == 1) return write_cells<std::uint8_t>;
  if (kind == 'u' && size == 2) return write_cells<std::uint16_t>;
  if (kind == 'u' && size == 4) return write_cells<std::uint32_t>;
  if (kind == 'u' && size == 8) return write_cells<std::uint64_t>;
  if (kind == 'f' && size == 4) return write_cells<float>;
  if (kind == 'f' && size == 8) return write_cells<double>;
  throw py::type_error("cells of dtype " + py::cast<std::string>(py::str(static_cast<const py::handle&>(dtype))) +
                       " cannot be written: expected bool, integer, float32 or float64");
}

// Rows [y, y + rows) of the output array from doubles: NaN stays NaN in float arrays and becomes
// `none` in integer ones.
template <class T>
void store_rows(py::array& out, std::uint64_t y, std::uint32_t rows, const std::vector<double>& strip, double none) {
  auto view = out.mutable_unchecked<T, 2>();
  const auto width = static_cast<std::uint64_t>(out.shape(1));
  for (std::uint32_t r = 0; r < rows; ++r)
    for (std::uint64_t x = 0; x < width; ++x) {
      const double v = strip[r * width + x];
      view(static_cast<py::ssize_t>(y + r), static_cast<py::ssize_t>(x)) = static_cast<T>(std::isnan(v) ? none : v);
    }
}

// The numpy dtype name of a cell type: the array read_array returns holds the raster's own cells.
const char* dtype_of(CellType type) {
  switch (type) {
    case CellType::UInt8: return "uint8";
    case CellType::Int16: return "int16";
    case CellType::UInt16: return "uint16";
    case CellType::Int32: return "int32";
    case CellType::UInt32: return "uint32";
    case CellType::Float32: return "float32";
    case CellType::Float64: return "float64";
  }
  return "float64";
}

// Nodata cells of `n` cells of T at `cells` (NodataRule: NaN, or equal to the nodata value as the
// type holds it) become NaN in float arrays and `none` in integer ones; in place.
template <class T>
void mark_nodata(T* cells, std::size_t n, const NodataRule& rule, double none) {
  const T replacement = std::is_floating_point<T>::value ? static_cast<T>(std::numeric_limits<double>::quiet_NaN())
                                                         : static_cast<T>(none);
  for (std::size_t k = 0; k < n; ++k)
    if (rule.is_nodata(static_cast<double>(cells[k]))) cells[k] = replacement;
}

void mark_nodata(CellType type, void* cells, std::size_t n, const NodataRule& rule, double none) {
  switch (type) {
    case CellType::UInt8: return mark_nodata(static_cast<std::uint8_t*>(cells), n, rule, none);
    case CellType::Int16: return mark_nodata(static_cast<std::int16_t*>(cells), n, rule, none);
    case CellType::UInt16: return mark_nodata(static_cast<std::uint16_t*>(cells), n, rule, none);
    case CellType::Int32: return mark_nodata(static_cast<std::int32_t*>(cells), n, rule, none);
    case CellType::UInt32: return mark_nodata(static_cast<std::uint32_t*>(cells), n, rule, none);
    case CellType::Float32: return mark_nodata(static_cast<float*>(cells), n, rule, none);
    case CellType::Float64: return mark_nodata(static_cast<double*>(cells), n, rule, none);
  }
}

py::dict describe(const RasterInfo& info) {
  py::dict description;
  description["type"] = to_string(info.type);
  description["nodata"] = info.has_nodata ? py::object(py::float_(info.nodata)) : py::object(py::none());
  description["geotransform"] =
      info.has_geotransform ? py::object(py::tuple(py::cast(info.geotransform))) : py::object(py::none());
  description["crs"] = info.crs_wkt;
  return description;
}

}  // namespace

void write_raster(const std::string& path, const py::array& cells, const std::string& cell_type,
                  std::optional<double> nodata, std::optional<std::array<double, 6>> geotransform,
                  const std::string& crs_wkt) {
  if (cells.ndim() != 2) throw py::value_error("expected a 2-D array, got " + std::to_string(cells.ndim()) + " dimensions");
  const std::uint64_t height = static_cast<std::uint64_t>(cells.shape(0));
  const std::uint64_t width = static_cast<std::uint64_t>(cells.shape(1));
  if (width == 0 || height == 0)
    throw py::value_error("expected a non-empty array, got shape (" + std::to_string(height) + ", " +
                          std::to_string(width) + ")");
  const CellType type = cell_type_named(cell_type);
  const Writer write = writer_for(cells.dtype());
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
  try {
    py::gil_scoped_release release;  // `cells` keeps the array alive; nothing else touches Python
    MemoryBudget budget(kGdalCache);
    GdalCacheLimit cache(budget, kGdalCache);
    GeoTiffWriter writer(path, width, height, type, georef, nodata.has_value(), nodata.value_or(0.0), kBlock, options);
    write(writer, cells);
    writer.finish();
  } catch (const Error& e) {
    raise_error(e);
  }
}

py::tuple read_raster(const std::string& path, const std::string& dtype, double none) {
  using Store = void (*)(py::array&, std::uint64_t, std::uint32_t, const std::vector<double>&, double);
  Store store = nullptr;
  if (dtype == "float64") store = store_rows<double>;
  else if (dtype == "float32") store = store_rows<float>;
  else if (dtype == "uint8") store = store_rows<std::uint8_t>;
  else if (dtype == "uint32") store = store_rows<std::uint32_t>;
  else throw py::value_error("read_raster: dtype '" + dtype + "' is not float64, float32, uint8 or uint32");
  std::unique_ptr<RasterReader> reader;
  RasterInfo info;
  try {
    py::gil_scoped_release release;
    reader = RasterReader::open(path);
    info = reader->info();
  } catch (const Error& e) {
    raise_error(e);
  }
  py::array out(py::dtype(dtype), {static_cast<py::ssize_t>(info.height), static_cast<py::ssize_t>(info.width)});
  try {
    py::gil_scoped_release release;  // `out` is ours alone until returned
    MemoryBudget budget(kGdalCache);
    GdalCacheLimit cache(budget, kGdalCache);
    const auto strip_rows = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(kBlock, (8ull << 20) / (8 * info.width + 1))));
    std::vector<double> strip(static_cast<std::size_t>(strip_rows) * info.width);
    for (std::uint64_t y = 0; y < info.height; y += strip_rows) {
      const auto rows = static_cast<std::uint32_t>(std::min<std::uint64_t>(strip_rows, info.height - y));
      reader->read_window(0, y, static_cast<std::uint32_t>(info.width), rows, strip.data());
      store(out, y, rows, strip, none);
    }
  } catch (const Error& e) {
    raise_error(e);
  }
  return py::make_tuple(out, describe(info));
}

py::tuple read_array(const std::string& path, const std::string& dtype, double none) {
  std::unique_ptr<RasterReader> reader;
  RasterInfo info;
  try {
    py::gil_scoped_release release;
    reader = RasterReader::open(path);  // checks the file as the engine does; the description
    info = reader->info();
  } catch (const Error& e) {
    raise_error(e);
  }
  // Not a GDAL raster of that very type (a tile store, an ASCII grid, another type): read_raster.
  if (dtype != dtype_of(info.type) || reader->store_tile() != 0 || reader->format().rfind("AAIGrid", 0) == 0)
    return read_raster(path, dtype, none);
  reader.reset();
  py::array out(py::dtype(dtype), {static_cast<py::ssize_t>(info.height), static_cast<py::ssize_t>(info.width)});
  try {
    py::gil_scoped_release release;  // `out` is ours alone until returned
    MemoryBudget budget(kGdalCache);
    GdalCacheLimit cache(budget, kGdalCache);
    ensure_gdal();
    reset_gdal_error();
    GdalErrorTrap trap;
    struct Dataset {
      GDALDatasetH h = nullptr;
      ~Dataset() {
        if (h) GDALClose(h);
      }
    } dataset;
    dataset.h = GDALOpenEx(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR, nullptr, nullptr,
                           nullptr);
    if (!dataset.h) throw gdal_failure("cannot open '" + path + "' as a raster");
    GDALRasterBandH band = GDALGetRasterBand(dataset.h, 1);
    const NodataRule rule(info);
    const std::size_t cell_bytes = static_cast<std::size_t>(out.itemsize());
    auto* cells = static_cast<std::uint8_t*>(out.mutable_data());
    // Strips of whole rows (at most kBlock rows): GDAL reads each straight into its rows of `out`.
    for (std::uint64_t y = 0; y < info.height; y += kBlock) {
      const auto rows = static_cast<int>(std::min<std::uint64_t>(kBlock, info.height - y));
      std::uint8_t* strip = cells + static_cast<std::size_t>(y) * info.width * cell_bytes;
      if (GDALRasterIO(band, GF_Read, 0, static_cast<int>(y), static_cast<int>(info.width), rows, strip,
                       static_cast<int>(info.width), rows, gdal_type_of(info.type), 0, 0) != CE_None)
        throw gdal_failure("cannot read rows " + std::to_string(y) + ".." + std::to_string(y + rows - 1) + " of '" +
                           path + "'");
      trap.check("cannot read '" + path + "'");
      mark_nodata(info.type, strip, static_cast<std::size_t>(rows) * info.width, rule, none);
    }
  } catch (const Error& e) {
    raise_error(e);
  }
  return py::make_tuple(out, describe(info));
}

}  // namespace terrazo::python
