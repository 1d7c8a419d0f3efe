// io/gdal/gdal_raster.cpp: RasterReader over GDAL (one band), the reader dispatch, the GeoTIFF writer and
// the GDAL block-cache limit (io/gdal/gdal_raster.h).
#include "io/gdal/gdal_raster.h"

#include <cpl_conv.h>
#include <cpl_string.h>
#include <gdal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <limits>
#include <map>
#include <mutex>
#include <thread>
#include <optional>
#include <vector>

#include "kernels/common/error.h"
#include "io/gdal/ascii_grid.h"
#include "io/gdal/gdal_cell_types.h"
#include "io/store/atomic_output.h"
#include "io/store/cell_values.h"
#include "io/gdal/gdal_session.h"
#include "io/gdal/geotiff_header.h"
#include "io/gdal/plain_geotiff_reader.h"
#include "io/gdal/srtm_hgt_reader.h"
#include "io/store/tile_store.h"
#include "io/gdal/tile_store_reader.h"
#include "io/gdal/tiff_block_writer.h"

namespace terrazo {

namespace {

std::string window_text(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h) {
  return std::to_string(w) + "x" + std::to_string(h) + " at (" + std::to_string(x0) + ", " + std::to_string(y0) + ")";
}

void check_window(const std::string& path, std::uint64_t width, std::uint64_t height, std::uint64_t x0,
                  std::uint64_t y0, std::uint32_t w, std::uint32_t h) {
  if (w == 0 || h == 0 || x0 + w > width || y0 + h > height || w > INT_MAX || h > INT_MAX ||
      static_cast<std::uint64_t>(w) * h > (std::uint64_t{1} << 40))
    throw Error("window " + window_text(x0, y0, w, h) + " is outside the " + std::to_string(width) + " x " +
                std::to_string(height) + " cells of '" + path + "'");
}

// `band` (0: none chosen) against the `bands` of `path` (RasterReader::open).
void check_band(const std::string& path, std::uint32_t band, std::uint32_t bands, const std::string& how_to_choose) {
  const std::string range = bands == 1 ? "1 band" : std::to_string(bands) + " bands (1 to " + std::to_string(bands) + ")";
  if (band == 0 && bands > 1)
    throw UsageError("'" + path + "' has " + range + "; " + how_to_choose);
  if (band > bands)
    throw UsageError("band " + std::to_string(band) + " of '" + path + "' does not exist: it has " + range);
}

class GdalRasterReader : public RasterReader {
 public:
  GdalRasterReader(const std::string& path, std::uint32_t band, const std::string& how_to_choose, bool crs = true)
      : path_(path), rule_(CellType::Float32, false, 0.0) {
    ensure_gdal();
    reset_gdal_error();
    // GDAL's warnings while opening are errors here (io/gdal/gdal_session.h GdalErrorTrap).
    GdalErrorTrap trap;
    dataset_ = GDALOpenEx(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR, nullptr, nullptr, nullptr);
    if (!dataset_) throw gdal_failure("cannot open '" + path + "' as a raster");
    try {
      const int bands = GDALGetRasterCount(dataset_);
      if (bands < 1) throw Error("'" + path + "' has no raster band");
      check_band(path, band, static_cast<std::uint32_t>(bands), how_to_choose);
      band_number_ = band == 0 ? 1 : band;
      band_ = GDALGetRasterBand(dataset_, static_cast<int>(band_number_));
      const GDALDataType gdal_type = GDALGetRasterDataType(band_);
      const char* pixel_type = GDALGetMetadataItem(band_, "PIXELTYPE", "IMAGE_STRUCTURE");
      if (!cell_type_of(gdal_type, &info_.type) || (pixel_type && EQUAL(pixel_type, "SIGNEDBYTE")))
        throw Error("'" + path + "' has cells of type " +
                    (pixel_type && EQUAL(pixel_type, "SIGNEDBYTE") ? std::string("Int8") : GDALGetDataTypeName(gdal_type)) +
                    ", which terrazo does not read; convert it with `gdal_translate -ot Float32`");
      info_.width = static_cast<std::uint64_t>(GDALGetRasterXSize(dataset_));
      info_.height = static_cast<std::uint64_t>(GDALGetRasterYSize(dataset_));
      int has_nodata = 0;
      const double nodata = GDALGetRasterNoDataValue(band_, &has_nodata);
      info_.has_nodata = has_nodata != 0;
      info_.nodata = info_.has_nodata ? nodata : 0.0;
      double gt[6];
      reset_gdal_error();
      info_.has_geotransform = GDALGetGeoTransform(dataset_, gt) == CE_None;
      if (info_.has_geotransform) std::copy(gt, gt + 6, info_.geotransform.begin());
      const char* wkt = crs ? GDALGetProjectionRef(dataset_) : nullptr;
      info_.crs_wkt = wkt ? wkt : "";
      format_ = GDALGetDriverShortName(GDALGetDatasetDriver(dataset_));
      rule_ = NodataRule(info_);
      trap.check("cannot open '" + path + "' as a raster");
      reset_gdal_error();
    } catch (...) {
      GDALClose(dataset_);
      throw;
    }
  }

  ~GdalRasterReader() override {
    if (dataset_) GDALClose(dataset_);
  }

  const RasterInfo& info() const override { return info_; }
  std::uint64_t bytes_read() const override { return bytes_read_; }
  std::string format() const override { return format_; }
  std::uint32_t band_count() const override { return static_cast<std::uint32_t>(GDALGetRasterCount(dataset_)); }
  std::uint32_t band() const override { return band_number_; }

  void read_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, double* out) override {
    check_window(path_, info_.width, info_.height, x0, y0, w, h);
    reset_gdal_error();
    GdalErrorTrap trap;  // a warning while reading (a truncated strip, a bad tile) is an error
    const CPLErr err = GDALRasterIO(band_, GF_Read, static_cast<int>(x0), static_cast<int>(y0), static_cast<int>(w),
                                    static_cast<int>(h), out, static_cast<int>(w), static_cast<int>(h), GDT_Float64, 0, 0);
    if (err != CE_None) throw gdal_failure("cannot read window " + window_text(x0, y0, w, h) + " of '" + path_ + "'");
    trap.check("cannot read window " + window_text(x0, y0, w, h) + " of '" + path_ + "'");
    const std::uint64_t n = static_cast<std::uint64_t>(w) * h;
    for (std::uint64_t i = 0; i < n; ++i)
      if (rule_.is_nodata(out[i])) out[i] = std::numeric_limits<double>::quiet_NaN();
    bytes_read_ += n * cell_type_size(info_.type);
  }

  bool read_window_cells(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, void* out,
                         std::uint64_t line_cells) override {
    check_window(path_, info_.width, info_.height, x0, y0, w, h);
    const std::uint64_t size = cell_type_size(info_.type);
    if (line_cells < w || line_cells * size > static_cast<std::uint64_t>(INT_MAX))
      throw Error("internal error: a window's rows of " + std::to_string(line_cells) + " cells for " +
                  window_text(x0, y0, w, h) + " of '" + path_ + "'");
    reset_gdal_error();
    GdalErrorTrap trap;  // as read_window
    const CPLErr err = GDALRasterIO(band_, GF_Read, static_cast<int>(x0), static_cast<int>(y0), static_cast<int>(w),
                                    static_cast<int>(h), out, static_cast<int>(w), static_cast<int>(h),
                                    gdal_type_of(info_.type), static_cast<int>(size), static_cast<int>(line_cells * size));
    if (err != CE_None) throw gdal_failure("cannot read window " + window_text(x0, y0, w, h) + " of '" + path_ + "'");
    trap.check("cannot read window " + window_text(x0, y0, w, h) + " of '" + path_ + "'");
    bytes_read_ += static_cast<std::uint64_t>(w) * h * size;
    return true;
  }

  std::uint32_t square_block() const override {
    int bx = 0, by = 0;
    GDALGetBlockSize(band_, &bx, &by);
    return bx > 0 && bx == by ? static_cast<std::uint32_t>(bx) : 0;
  }

 private:
  std::string path_;
  GDALDatasetH dataset_ = nullptr;
  GDALRasterBandH band_ = nullptr;
  std::uint32_t band_number_ = 1;
  RasterInfo info_;
  NodataRule rule_;
  std::string format_;
  std::uint64_t bytes_read_ = 0;
};

// The readers that leave GDAL unloaded (docs/architecture.md "GDAL loaded on demand"): an SRTM tile
// or a plain tiled GeoTIFF, band `band` of one; nullptr for GDAL's rasters.
std::unique_ptr<RasterReader> open_without_gdal(const std::string& path, std::uint32_t band,
                                                const std::string& how_to_choose) {
  std::unique_ptr<RasterReader> reader = open_srtm_hgt(path);
  if (!reader) reader = open_plain_geotiff(path);
  if (reader) check_band(path, band, 1, how_to_choose);
  return reader;
}

bool ends_with_gz(const std::string& path) {
  return path.size() > 3 && (path.compare(path.size() - 3, 3, ".gz") == 0 || path.compare(path.size() - 3, 3, ".GZ") == 0);
}

bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

std::unique_ptr<RasterReader> RasterReader::open(const std::string& path, std::uint32_t band,
                                                 const std::string& how_to_choose, MemoryBudget* budget) {
  bool gzip = false;
  if (TileStore::looks_like_tile_store(path) || is_ascii_grid(path, &gzip)) {
    check_band(path, band, 1, how_to_choose);
    if (TileStore::looks_like_tile_store(path)) return open_tile_store_reader(path, budget);
    return open_ascii_grid(path, gzip);
  }
  if (ends_with_gz(path) && file_exists(path))
    return std::make_unique<GdalRasterReader>("/vsigzip/" + path, band, how_to_choose);
  if (auto reader = open_without_gdal(path, band, how_to_choose)) return reader;
  return std::make_unique<GdalRasterReader>(path, band, how_to_choose);
}

std::unique_ptr<RasterReader> RasterReader::open_without_crs(const std::string& path, std::uint32_t band,
                                                             const std::string& how_to_choose, MemoryBudget* budget,
                                                             bool* crs_left_out) {
  bool gzip = false;
  *crs_left_out = false;
  if (TileStore::looks_like_tile_store(path) || is_ascii_grid(path, &gzip) || (ends_with_gz(path) && file_exists(path)))
    return open(path, band, how_to_choose, budget);
  if (auto reader = open_without_gdal(path, band, how_to_choose)) return reader;  // its CRS costs nothing
  auto reader = std::make_unique<GdalRasterReader>(path, band, how_to_choose, false);
  *crs_left_out = true;
  return reader;
}

std::string RasterReader::read_crs_wkt(const std::string& path, std::uint32_t band) {
  return open(path, band)->info().crs_wkt;
}

std::unique_ptr<RasterReader> RasterReader::open_cells(const std::string& path, std::uint32_t band) {
  bool gzip = false;
  if (TileStore::looks_like_tile_store(path) || is_ascii_grid(path, &gzip) || (ends_with_gz(path) && file_exists(path)))
    return open(path, band);
  if (auto reader = open_without_gdal(path, band, kExtractBand)) return reader;
  return std::make_unique<GdalRasterReader>(path, band, kExtractBand, false);
}

// ---- GeoTiffWriter -----------------------------------------------------------------------------

struct GeoTiffWriter::Impl {
  std::string path, partial;
  std::optional<AtomicOutput> owned;  // the output when the writer publishes it (constructed from a path)
  AtomicOutput* output = nullptr;     // partial: output->partial(); owned, or the caller's (an OutputSet's)
  GDALDatasetH dataset = nullptr;
  GDALRasterBandH band = nullptr;
  std::uint64_t width = 0, height = 0;
  CellType type = CellType::Float32;
  NodataRule rule{CellType::Float32, false, 0.0};
  std::uint32_t block = 256;
  std::vector<double> scratch;  // one block-aligned piece of a window, NaN replaced: <= block^2 cells
  bool finished = false;
  std::uint64_t bytes = 0;

  bool integer = false;
  double lowest = 0.0, highest = 0.0;  // range of the type (highest: FLT_MAX for Float32)

  // The block writer (io/gdal/tiff_block_writer.h) when the codec allows it; null: GDAL's RasterIO.
  std::unique_ptr<TiffBlockWriter> blocks;
  TiffBlockFormat format;
  struct PendingBlock {
    std::vector<std::uint8_t> cells;  // one block: doubles (NaN where not yet written), or the file's bytes
    bool doubles = true;
    std::uint64_t filled = 0;         // cells written so far (windows do not overlap)
  };
  std::map<std::uint64_t, PendingBlock> pending;  // blocks some window has touched but not completed
  std::vector<std::uint8_t> fill_block;           // a block of the fill value, of the file's type

  // The (bx, by) block of the file, NaN (doubles) or the fill value (bytes) until windows cover it.
  PendingBlock& pending_block(std::uint64_t bx, std::uint64_t by, bool doubles) {
    const std::uint64_t key = by * blocks->blocks_across() + bx;
    const std::uint64_t cells = static_cast<std::uint64_t>(block) * block;
    auto found = pending.find(key);
    if (found != pending.end()) {
      PendingBlock& p = found->second;
      if (p.doubles != doubles) {
        // A raster written through both entry points (doubles, and Byte or UInt32 cells): the block
        // changes representation.
        std::vector<std::uint8_t> other = blocks->take_buffer(doubles ? cells * 8 : fill_block.size());
        if (doubles) {
          for (std::uint64_t i = 0; i < cells; ++i) reinterpret_cast<double*>(other.data())[i] = typed_cell(p.cells.data(), i);
        } else {
          convert(reinterpret_cast<const double*>(p.cells.data()), other.data(), blocks->blocks_across(),
                  blocks->blocks_down());  // unwritten cells (NaN) become the fill value
        }
        p.cells = std::move(other);
        p.doubles = doubles;
      }
      return p;
    }
    PendingBlock& p = pending[key];
    p.doubles = doubles;
    p.cells = blocks->take_buffer(doubles ? cells * 8 : fill_block.size());
    if (doubles) std::fill_n(reinterpret_cast<double*>(p.cells.data()), cells, std::numeric_limits<double>::quiet_NaN());
    else std::memcpy(p.cells.data(), fill_block.data(), fill_block.size());
    return p;
  }
  // A window of cells already of the file's type (Byte, UInt32; `gdal_type`), written as they are:
  // into the blocks it covers, else through GDAL.
  void write_native_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, const void* cells,
                           GDALDataType gdal_type) {
    if (blocks) {
      copy_window(x0, y0, w, h, static_cast<const std::uint8_t*>(cells), false);
      return;
    }
    reset_gdal_error();
    const CPLErr err = GDALRasterIO(band, GF_Write, static_cast<int>(x0), static_cast<int>(y0), static_cast<int>(w),
                                    static_cast<int>(h), const_cast<void*>(cells), static_cast<int>(w),
                                    static_cast<int>(h), gdal_type, 0, 0);
    if (err != CE_None) throw gdal_failure("cannot write window " + window_text(x0, y0, w, h) + " of '" + path + "'");
  }
  // A window copied into the blocks it covers: doubles (converted later, on the encoder threads) or
  // cells already of the file's type (Byte, UInt32: written as they are).
  void copy_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, const std::uint8_t* cells,
                   bool doubles) {
    const std::uint64_t b = block, size = doubles ? sizeof(double) : cell_type_size(type);
    for (std::uint64_t py = y0; py < y0 + h; py = (py / b + 1) * b) {
      const std::uint64_t rows = std::min((py / b + 1) * b, y0 + h) - py;
      for (std::uint64_t px = x0; px < x0 + w; px = (px / b + 1) * b) {
        const std::uint64_t cols = std::min((px / b + 1) * b, x0 + w) - px;
        const std::uint64_t bx = px / b, by = py / b;
        PendingBlock& pending = pending_block(bx, by, doubles);
        for (std::uint64_t r = 0; r < rows; ++r)
          std::memcpy(pending.cells.data() + ((py - by * b + r) * b + (px - bx * b)) * size,
                      cells + ((py - y0 + r) * w + (px - x0)) * size, cols * size);
        block_written(bx, by, rows * cols);
      }
    }
  }
  // Counts `cells` more cells of block (bx, by) and submits it once every cell inside the raster is written.
  void block_written(std::uint64_t bx, std::uint64_t by, std::uint64_t cells) {
    const auto key = by * blocks->blocks_across() + bx;
    PendingBlock& p = pending.at(key);
    p.filled += cells;
    const std::uint64_t inside = std::min<std::uint64_t>(block, width - bx * block) *
                                 std::min<std::uint64_t>(block, height - by * block);
    if (p.filled < inside) return;
    std::vector<std::uint8_t> done = std::move(p.cells);
    const bool doubles = p.doubles;
    pending.erase(key);
    blocks->submit(bx, by, std::move(done), doubles);
  }
  // Cell i of a block of the file's type, as a double (integer types only take this path: Byte, UInt32).
  double typed_cell(const std::uint8_t* cells, std::uint64_t i) const {
    return type == CellType::UInt32 ? reinterpret_cast<const std::uint32_t*>(cells)[i] : cells[i];
  }
  // A block of doubles -> the file's type, on the block writer's threads: NaN becomes the fill value,
  // integers are rounded, a value the type cannot hold inside the raster is an Error (padding cells
  // beyond the edge are NaN and become the fill value).
  template <typename T>
  void convert_block(const double* in, T* out, std::uint64_t bx, std::uint64_t by) const {
    const std::uint64_t b = block;
    const auto fill = static_cast<T>(rule.can_store_nodata() ? rule.fill_value() : 0.0);
    for (std::uint64_t r = 0; r < b; ++r) {
      for (std::uint64_t c = 0; c < b; ++c) {
        const double value = in[r * b + c];
        T& cell = out[r * b + c];
        if (std::isnan(value)) {
          const bool inside = bx * b + c < width && by * b + r < height;
          if (inside && !rule.can_store_nodata())
            throw Error("cell (" + std::to_string(bx * b + c) + ", " + std::to_string(by * b + r) + ") of '" + path +
                        "' is nodata but its " + to_string(type) + " band has no nodata value to store");
          cell = fill;
        } else if (integer) {
          const double rounded = std::nearbyint(value);
          if (!(rounded >= lowest && rounded <= highest)) out_of_range(value);
          cell = static_cast<T>(rounded);
        } else {
          if (std::fabs(value) > highest && std::isfinite(value)) out_of_range(value);
          cell = static_cast<T>(value);
        }
      }
    }
  }
  void convert(const double* in, std::uint8_t* out, std::uint64_t bx, std::uint64_t by) const {
    switch (type) {
      case CellType::UInt8: convert_block(in, out, bx, by); break;
      case CellType::Int16: convert_block(in, reinterpret_cast<std::int16_t*>(out), bx, by); break;
      case CellType::UInt16: convert_block(in, reinterpret_cast<std::uint16_t*>(out), bx, by); break;
      case CellType::Int32: convert_block(in, reinterpret_cast<std::int32_t*>(out), bx, by); break;
      case CellType::UInt32: convert_block(in, reinterpret_cast<std::uint32_t*>(out), bx, by); break;
      case CellType::Float32: convert_block(in, reinterpret_cast<float*>(out), bx, by); break;
      case CellType::Float64: convert_block(in, reinterpret_cast<double*>(out), bx, by); break;
    }
  }

  [[noreturn]] void out_of_range(double value) const {
    throw Error("value " + std::to_string(value) + " does not fit the " + to_string(type) + " cells of '" + path + "'");
  }

  void close_dataset() {
    if (!dataset) return;
    reset_gdal_error();
    GDALClose(dataset);
    dataset = nullptr;
    if (gdal_failed()) throw gdal_failure("cannot finish writing '" + partial + "'");
  }
};

namespace {

void check_geotiff_shape(std::uint64_t width, std::uint64_t height, std::uint32_t block) {
  if (width == 0 || height == 0 || width > INT_MAX || height > INT_MAX)
    throw UsageError("cannot write a GeoTIFF of " + std::to_string(width) + " x " + std::to_string(height) +
                     " cells: each side must be 1 to " + std::to_string(INT_MAX));
  if (block < 16 || block % 16 != 0)
    throw UsageError("GeoTIFF block size " + std::to_string(block) + " must be a multiple of 16");
}

}  // namespace

GeoTiffWriter::GeoTiffWriter(const std::string& path, std::uint64_t width, std::uint64_t height, CellType type,
                             const RasterInfo& georef, bool has_nodata, double nodata, std::uint32_t block,
                             const GeoTiffOptions& options)
    : impl_(std::make_unique<Impl>()) {
  check_geotiff_shape(width, height, block);
  // GDAL keeps what GeoTIFF tags cannot hold in a side file; it travels with the raster.
  impl_->owned.emplace(path, geotiff_sidecar_suffixes());
  impl_->output = &*impl_->owned;
  start(*impl_, width, height, type, georef, has_nodata, nodata, block, options);
}

GeoTiffWriter::GeoTiffWriter(AtomicOutput& output, std::uint64_t width, std::uint64_t height, CellType type,
                             const RasterInfo& georef, bool has_nodata, double nodata, std::uint32_t block,
                             const GeoTiffOptions& options)
    : impl_(std::make_unique<Impl>()) {
  check_geotiff_shape(width, height, block);
  impl_->output = &output;
  start(*impl_, width, height, type, georef, has_nodata, nodata, block, options);
}

void GeoTiffWriter::start(Impl& w, std::uint64_t width, std::uint64_t height, CellType type, const RasterInfo& georef,
                          bool has_nodata, double nodata, std::uint32_t block, const GeoTiffOptions& options) {
  const std::string& path = w.output->path();
  w.path = path;
  w.partial = w.output->partial();
  w.width = width;
  w.height = height;
  w.type = type;
  w.block = block;
  w.rule = NodataRule(type, has_nodata, nodata);
  w.integer = cell_type_is_integer(type);
  switch (type) {
    case CellType::UInt8: w.lowest = 0; w.highest = 255; break;
    case CellType::Int16: w.lowest = -32768; w.highest = 32767; break;
    case CellType::UInt16: w.lowest = 0; w.highest = 65535; break;
    case CellType::Int32: w.lowest = INT_MIN; w.highest = INT_MAX; break;
    case CellType::UInt32: w.lowest = 0; w.highest = 4294967295.0; break;
    case CellType::Float32: w.highest = FLT_MAX; break;
    case CellType::Float64: w.highest = std::numeric_limits<double>::infinity(); break;
  }

  const auto creation_options = geotiff_creation_options(type, block, options, path);
  const char* encoder = std::getenv("TERRAZO_GEOTIFF_ENCODER");
  const bool block_writer = !options.gdal_encoder && !(encoder && std::string(encoder) == "gdal") &&
                            block_writer_format(type, block, creation_options, &w.format);
  unsigned threads = options.threads;
  for (const auto& [key, value] : creation_options)
    if (key == "NUM_THREADS") threads = value == "ALL_CPUS" ? 0 : static_cast<unsigned>(std::atoi(value.c_str()));
  // The block writer appends every block itself; the header comes from libtiff here where it can
  // (io/gdal/geotiff_header.h: GDAL stays unloaded), else from GDAL (SPARSE_OK: no block written).
  try {
    const bool native_header = block_writer && !options.gdal_header &&
                               write_geotiff_header(w.partial, width, height, w.format, georef, has_nodata, nodata,
                                                    creation_options);
    if (!native_header) create_with_gdal(w, georef, has_nodata, nodata, creation_options, block_writer);
    if (block_writer) {
      if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
      w.blocks = std::make_unique<TiffBlockWriter>(w.partial, w.format, threads, 2 * threads + 2);
      Impl* impl = &w;
      w.blocks->set_converter([impl](const double* in, std::uint8_t* out, std::uint64_t bx, std::uint64_t by) {
        impl->convert(in, out, bx, by);
      });
      w.fill_block.assign(w.format.block_bytes(), 0);
      const std::vector<double> nodata_block(static_cast<std::uint64_t>(block) * block,
                                             std::numeric_limits<double>::quiet_NaN());
      w.convert(nodata_block.data(), w.fill_block.data(), w.blocks->blocks_across(), w.blocks->blocks_down());  // all padding
    }
  } catch (...) {
    w.blocks.reset();
    if (w.dataset) GDALClose(w.dataset);
    w.dataset = nullptr;
    if (w.owned) w.owned->discard();
    throw;
  }
}

// GDAL's GTiff driver creates the file: the block writer's header (closed at once, no block written),
// or the dataset GDAL's RasterIO path writes through.
void GeoTiffWriter::create_with_gdal(Impl& w, const RasterInfo& georef, bool has_nodata, double nodata,
                                     const std::vector<std::pair<std::string, std::string>>& creation_options,
                                     bool block_writer) {
  ensure_gdal();
  GDALDriverH driver = GDALGetDriverByName("GTiff");
  if (!driver) throw Error("GDAL was built without its GTiff driver");
  CPLStringList creation;
  for (const auto& [key, value] : creation_options) creation.SetNameValue(key.c_str(), value.c_str());
  if (block_writer) creation.SetNameValue("SPARSE_OK", "TRUE");
  reset_gdal_error();
  w.dataset = GDALCreate(driver, w.partial.c_str(), static_cast<int>(w.width), static_cast<int>(w.height), 1,
                         gdal_type_of(w.type), creation.List());
  if (!w.dataset) throw gdal_failure("cannot create '" + w.partial + "'");
  const std::string& path = w.path;
  w.band = GDALGetRasterBand(w.dataset, 1);
  reset_gdal_error();
  if (georef.has_geotransform) {
    double gt[6];
    std::copy(georef.geotransform.begin(), georef.geotransform.end(), gt);
    if (GDALSetGeoTransform(w.dataset, gt) != CE_None) throw gdal_failure("cannot set the geotransform of '" + path + "'");
  }
  if (!georef.crs_wkt.empty() && GDALSetProjection(w.dataset, georef.crs_wkt.c_str()) != CE_None)
    throw gdal_failure("cannot set the CRS of '" + path + "'");
  if (has_nodata && GDALSetRasterNoDataValue(w.band, nodata) != CE_None)
    throw gdal_failure("cannot set the nodata value of '" + path + "'");
  // The block writer's header is written: GDAL closes it (an empty block table); the blocks follow.
  if (block_writer) w.close_dataset();
}

GeoTiffWriter::~GeoTiffWriter() {
  if (!impl_ || impl_->finished) return;
  impl_->blocks.reset();
  if (impl_->dataset) {
    GDALClose(impl_->dataset);
    impl_->dataset = nullptr;
  }
  if (impl_->owned) impl_->owned->discard();  // the caller's output goes with its OutputSet
}

void GeoTiffWriter::write_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                                 const double* cells) {
  Impl& s = *impl_;
  if (!s.dataset && !s.blocks) throw Error("window written to '" + s.path + "' after finish()");
  check_window(s.path, s.width, s.height, x0, y0, w, h);
  // Convert and write one block-aligned piece at a time (the window's intersection with each
  // block), through a scratch buffer of one block: NaN becomes the nodata value and every value is
  // checked against the type's range (GDAL would clamp silently). Each piece reaches GDAL in one
  // call, so a block the window covers is complete when GDAL's cache evicts it and is compressed
  // and written once (writing a block in slices would let a small cache flush it half-filled and
  // then re-read, re-compress and append it again).
  const std::uint64_t b = s.block;
  if (s.blocks) {
    // The block writer converts on its threads: here the window's rows are only copied into blocks.
    s.copy_window(x0, y0, w, h, reinterpret_cast<const std::uint8_t*>(cells), true);
    return;
  }
  s.scratch.resize(std::min<std::uint64_t>(b, w) * std::min<std::uint64_t>(b, h));
  for (std::uint64_t py = y0; py < y0 + h; py = (py / b + 1) * b) {
    const std::uint64_t rows = std::min((py / b + 1) * b, y0 + h) - py;
    for (std::uint64_t px = x0; px < x0 + w; px = (px / b + 1) * b) {
      const std::uint64_t cols = std::min((px / b + 1) * b, x0 + w) - px;
      for (std::uint64_t r = 0; r < rows; ++r) {
        const double* src = cells + (py - y0 + r) * w + (px - x0);
        double* dst = s.scratch.data() + r * cols;
        for (std::uint64_t c = 0; c < cols; ++c) {
          double value = src[c];
          if (std::isnan(value)) {
            if (!s.rule.can_store_nodata())
              throw Error("cell (" + std::to_string(px + c) + ", " + std::to_string(py + r) + ") of '" + s.path +
                          "' is nodata but its " + to_string(s.type) + " band has no nodata value to store");
            value = s.rule.fill_value();
          } else if (s.integer) {
            value = std::nearbyint(value);
            if (!(value >= s.lowest && value <= s.highest)) s.out_of_range(src[c]);
          } else if (std::fabs(value) > s.highest && std::isfinite(value)) {
            s.out_of_range(src[c]);
          }
          dst[c] = value;
        }
      }
      reset_gdal_error();
      const CPLErr err = GDALRasterIO(s.band, GF_Write, static_cast<int>(px), static_cast<int>(py), static_cast<int>(cols),
                                      static_cast<int>(rows), s.scratch.data(), static_cast<int>(cols),
                                      static_cast<int>(rows), GDT_Float64, 0, 0);
      if (err != CE_None)
        throw gdal_failure("cannot write window " +
                           window_text(px, py, static_cast<std::uint32_t>(cols), static_cast<std::uint32_t>(rows)) +
                           " of '" + s.path + "'");
    }
  }
}

void GeoTiffWriter::write_window_u8(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                                    const std::uint8_t* cells) {
  Impl& s = *impl_;
  if (!s.dataset && !s.blocks) throw Error("window written to '" + s.path + "' after finish()");
  check_window(s.path, s.width, s.height, x0, y0, w, h);
  if (s.blocks && s.type != CellType::UInt8)
    throw Error(std::string("internal error: bytes written to the ") + to_string(s.type) + " raster '" + s.path + "'");
  s.write_native_window(x0, y0, w, h, cells, GDT_Byte);
}

void GeoTiffWriter::write_window_u32(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                                     const std::uint32_t* cells) {
  Impl& s = *impl_;
  if (!s.dataset && !s.blocks) throw Error("window written to '" + s.path + "' after finish()");
  if (s.type != CellType::UInt32) throw Error("internal error: UInt32 window written to the " + std::string(to_string(s.type)) + " band of '" + s.path + "'");
  check_window(s.path, s.width, s.height, x0, y0, w, h);
  s.write_native_window(x0, y0, w, h, cells, GDT_UInt32);
}

bool GeoTiffWriter::takes_blocks() const { return impl_->blocks != nullptr; }

std::vector<std::uint8_t> GeoTiffWriter::take_block() {
  Impl& s = *impl_;
  if (!s.blocks) throw Error("internal error: block buffer asked of '" + s.path + "', which has no block writer");
  return s.blocks->take_buffer(s.fill_block.size());
}

void GeoTiffWriter::write_block(std::uint64_t bx, std::uint64_t by, std::vector<std::uint8_t> cells) {
  Impl& s = *impl_;
  if (!s.blocks) throw Error("internal error: block written to '" + s.path + "', which has no block writer or is finished");
  if (cells.size() != s.fill_block.size() || s.pending.count(by * s.blocks->blocks_across() + bx))
    throw Error("internal error: block (" + std::to_string(bx) + ", " + std::to_string(by) + ") of '" + s.path +
                "' is the wrong size or was partly written through windows");
  s.blocks->submit(bx, by, std::move(cells), false);
}

const TiffBlockFormat* GeoTiffWriter::block_format() const { return impl_->blocks ? &impl_->format : nullptr; }

void GeoTiffWriter::write_encoded_block(std::uint64_t bx, std::uint64_t by, std::vector<std::uint8_t> encoded) {
  Impl& s = *impl_;
  if (!s.blocks || s.pending.count(by * s.blocks->blocks_across() + bx))
    throw Error("internal error: encoded block (" + std::to_string(bx) + ", " + std::to_string(by) + ") of '" + s.path +
                "' without a block writer or partly written through windows");
  s.blocks->submit_encoded(bx, by, std::move(encoded));
}

void GeoTiffWriter::finish() {
  Impl& s = *impl_;
  if (s.finished) return;
  if (s.blocks) {
    // Blocks no window completed keep the fill value where nothing was written.
    for (auto& [key, block] : s.pending) {
      std::vector<std::uint8_t> cells = std::move(block.cells);
      s.blocks->submit(key % s.blocks->blocks_across(), key / s.blocks->blocks_across(), std::move(cells), block.doubles);
    }
    s.pending.clear();
    s.blocks->finish(s.fill_block);
    if (std::getenv("TERRAZO_GEOTIFF_TRACE"))
      std::fprintf(stderr, "terrazo: %s: block writer waited %.3f s for its %u encoders, which worked %.3f s\n",
                   s.path.c_str(), s.blocks->seconds_waiting(), s.blocks->encoder_threads(), s.blocks->seconds_encoding());
    s.blocks.reset();
  }
  s.close_dataset();
  // The size of the file closed (renaming keeps it): the partial file's, published or not.
  struct stat st;
  s.bytes = ::stat(s.partial.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  if (s.owned) s.owned->publish();
  s.finished = true;
}

std::uint64_t GeoTiffWriter::bytes_written() const { return impl_->bytes; }

// ---- GdalCacheLimit ------------------------------------------------------------------------------

GdalCacheLimit::GdalCacheLimit(MemoryBudget& budget, std::uint64_t bytes)
    : reservation_(budget.reserve(bytes, "GDAL block cache")) {
  push_gdal_cache_limit(bytes);  // handed to GDAL when (and if) it is loaded
}

// Back to the limit before this one (objects live and die in nested scopes).
GdalCacheLimit::~GdalCacheLimit() { pop_gdal_cache_limit(); }

}  // namespace terrazo
