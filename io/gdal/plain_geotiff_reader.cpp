// io/gdal/plain_geotiff_reader.cpp: open_plain_geotiff (io/gdal/plain_geotiff_reader.h).
#include "io/gdal/plain_geotiff_reader.h"

#include <sys/stat.h>
#include <tiffio.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/common/text_case.h"
#include "io/gdal/geotiff_header.h"
#include "io/gdal/tiff_messages.h"
#include "io/store/cell_values.h"

namespace terrazo {

namespace {

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// The side files GDAL would read for `path` (PAM, an external mask, world and TAB files): any of them
// sends the file to GDAL.
bool has_side_file(const std::string& path) {
  const auto dot = path.find_last_of('.');
  const std::string stem = path.substr(0, dot);
  for (const std::string& side : {path + ".aux.xml", stem + ".aux", path + ".msk", path + ".MSK", stem + ".tfw",
                                  stem + ".TFW", stem + ".tifw", stem + ".TIFW", stem + ".wld", stem + ".WLD",
                                  stem + ".tab", stem + ".TAB"})
    if (exists(side)) return true;
  return false;
}

// The whole of `text` as a number (GDAL's CPLAtofM on a clean number), or false.
bool parse_number(const char* text, double* value) {
  const char* end = text + std::strlen(text);
  if (text == end) return false;
  const auto [ptr, ec] = std::from_chars(text, end, *value);
  return ec == std::errc() && ptr == end;
}

bool cell_type_of(std::uint16_t bits, std::uint16_t format, CellType* type) {
  if (format == SAMPLEFORMAT_UINT) {
    if (bits == 8) *type = CellType::UInt8;
    else if (bits == 16) *type = CellType::UInt16;
    else if (bits == 32) *type = CellType::UInt32;
    else return false;
  } else if (format == SAMPLEFORMAT_INT) {
    if (bits == 16) *type = CellType::Int16;
    else if (bits == 32) *type = CellType::Int32;
    else return false;  // Int8 is not read (as GDAL's reader in terrazo refuses it)
  } else if (format == SAMPLEFORMAT_IEEEFP) {
    if (bits == 32) *type = CellType::Float32;
    else if (bits == 64) *type = CellType::Float64;
    else return false;
  } else {
    return false;
  }
  return true;
}

class PlainGeoTiffReader : public RasterReader {
 public:
  PlainGeoTiffReader(std::string path, TIFF* tif, std::unique_ptr<TiffMessages> messages, const RasterInfo& info,
                     std::uint32_t block)
      : path_(std::move(path)), tif_(tif), messages_(std::move(messages)), info_(info), rule_(info), block_(block) {
    cell_bytes_ = cell_type_size(info_.type);
    decoded_.resize(static_cast<std::size_t>(block_) * block_ * cell_bytes_);
    across_ = (info_.width + block_ - 1) / block_;
  }
  ~PlainGeoTiffReader() override { TIFFClose(tif_); }

  const RasterInfo& info() const override { return info_; }
  std::uint64_t bytes_read() const override { return bytes_read_; }
  std::string format() const override { return "GTiff"; }
  std::uint32_t square_block() const override { return block_; }
  std::uint64_t resident_bytes(std::uint32_t) const override { return decoded_.size(); }

  void read_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, double* out) override {
    // The window's cells as the file holds them, in the last bytes of `out` (w * h doubles), then
    // widened in place front to back (cells_to_doubles allows it).
    const std::uint64_t n = static_cast<std::uint64_t>(w) * h;
    auto* raw = reinterpret_cast<std::uint8_t*>(out) + n * (sizeof(double) - cell_bytes_);
    read_cells(x0, y0, w, h, raw, w);
    cells_to_doubles(raw, n, rule_, out);
  }

  bool read_window_cells(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, void* out,
                         std::uint64_t line_cells) override {
    if (line_cells < w)
      throw Error("internal error: rows of " + std::to_string(line_cells) + " cells for a window " + std::to_string(w) +
                  " wide of '" + path_ + "'");
    read_cells(x0, y0, w, h, static_cast<std::uint8_t*>(out), line_cells);
    return true;
  }

 private:
  void read_cells(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint8_t* out,
                  std::uint64_t line_cells) {
    if (w == 0 || h == 0 || x0 + w > info_.width || y0 + h > info_.height)
      throw Error("window " + std::to_string(w) + "x" + std::to_string(h) + " at (" + std::to_string(x0) + ", " +
                  std::to_string(y0) + ") is outside the " + std::to_string(info_.width) + " x " +
                  std::to_string(info_.height) + " cells of '" + path_ + "'");
    const std::uint64_t b = block_;
    for (std::uint64_t by = y0 / b; by * b < y0 + h; ++by) {
      for (std::uint64_t bx = x0 / b; bx * b < x0 + w; ++bx) {
        decode(bx, by);
        const std::uint64_t cx0 = std::max(x0, bx * b), cx1 = std::min(x0 + w, (bx + 1) * b);
        const std::uint64_t cy0 = std::max(y0, by * b), cy1 = std::min(y0 + h, (by + 1) * b);
        for (std::uint64_t y = cy0; y < cy1; ++y)
          std::memcpy(out + ((y - y0) * line_cells + (cx0 - x0)) * cell_bytes_,
                      decoded_.data() + ((y - by * b) * b + (cx0 - bx * b)) * cell_bytes_, (cx1 - cx0) * cell_bytes_);
      }
    }
    bytes_read_ += static_cast<std::uint64_t>(w) * h * cell_bytes_;
  }

  // Block (bx, by) into decoded_ (kept: the next window often needs it again).
  void decode(std::uint64_t bx, std::uint64_t by) {
    const std::uint64_t index = by * across_ + bx;
    if (index == decoded_index_) return;
    decoded_index_ = ~std::uint64_t{0};
    messages_->clear();
    const tmsize_t got = TIFFReadEncodedTile(tif_, static_cast<std::uint32_t>(index), decoded_.data(),
                                             static_cast<tmsize_t>(decoded_.size()));
    if (got != static_cast<tmsize_t>(decoded_.size()) || messages_->count > 0)
      throw Error("cannot read block (" + std::to_string(bx) + ", " + std::to_string(by) + ") of '" + path_ + "': " +
                  (messages_->count ? messages_->first : std::string("libtiff decoded a short block")));
    decoded_index_ = index;
  }

  std::string path_;
  TIFF* tif_;
  std::unique_ptr<TiffMessages> messages_;
  RasterInfo info_;
  NodataRule rule_;
  std::uint32_t block_;
  std::uint64_t cell_bytes_ = 1, across_ = 0;
  std::vector<std::uint8_t> decoded_;
  std::uint64_t decoded_index_ = ~std::uint64_t{0};
  std::uint64_t bytes_read_ = 0;
};

// The layout part of plain_info: one tiled directory of square tiles, one grey sample of a cell
// type terrazo reads, a configured codec, no extra samples, colour map or GDAL metadata, every block
// stored. Fills the size, the type and *block.
bool plain_layout(TIFF* tif, RasterInfo* info, std::uint32_t* block) {
  if (TIFFNumberOfDirectories(tif) != 1 || !TIFFIsTiled(tif)) return false;
  const TiffTileLayout layout = read_tile_layout(tif);
  std::uint16_t samples = 1, planar = PLANARCONFIG_CONTIG, format = SAMPLEFORMAT_UINT, photometric = 0;
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
  TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
  if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric) || photometric != PHOTOMETRIC_MINISBLACK) return false;
  if (layout.width == 0 || layout.height == 0 || layout.tile_width == 0 || layout.tile_width != layout.tile_height ||
      samples != 1 || planar != PLANARCONFIG_CONTIG || !TIFFIsCODECConfigured(layout.compression) ||
      !cell_type_of(layout.bits, format, &info->type))
    return false;
  std::uint16_t extra_count = 0;
  std::uint16_t* extra = nullptr;
  void* anything = nullptr;
  std::uint16_t count = 0;
  if (TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra) && extra_count > 0) return false;
  if (TIFFGetField(tif, TIFFTAG_COLORMAP, &anything, &anything, &anything)) return false;
  if (TIFFGetField(tif, kGdalMetadata, &anything) || TIFFGetField(tif, kModelTransformation, &count, &anything))
    return false;
  // Every block stored (GDAL fills sparse blocks itself; libtiff would refuse them).
  std::uint64_t* byte_counts = nullptr;
  if (!TIFFGetField(tif, TIFFTAG_TILEBYTECOUNTS, &byte_counts) || !byte_counts) return false;
  const std::uint32_t blocks = TIFFNumberOfTiles(tif);
  for (std::uint32_t i = 0; i < blocks; ++i)
    if (byte_counts[i] == 0) return false;
  info->width = layout.width;
  info->height = layout.height;
  *block = layout.tile_width;
  return true;
}

// The georeferencing part of plain_info: none, or one pixel scale and one tiepoint at raster
// (0, 0)... as GDAL reads it, with GeoKeys (when present) of a CRS of geotiff_crs_table().
bool plain_georeferencing(TIFF* tif, RasterInfo* info) {
  double* scale = nullptr;
  double* tiepoint = nullptr;
  std::uint16_t scale_count = 0, tiepoint_count = 0;  // libtiff passes TIFF_VARIABLE counts as 16 bits
  const bool has_scale = TIFFGetField(tif, kModelPixelScale, &scale_count, &scale);
  const bool has_tiepoint = TIFFGetField(tif, kModelTiepoint, &tiepoint_count, &tiepoint);
  if (has_scale != has_tiepoint) return false;
  if (has_scale) {
    if (scale_count != 3 || tiepoint_count != 6 || !(scale[0] > 0) || !(scale[1] > 0)) return false;
    info->has_geotransform = true;
    info->geotransform = {tiepoint[3] - tiepoint[0] * scale[0], scale[0], 0.0,
                          tiepoint[4] - tiepoint[1] * -scale[1], 0.0, -scale[1]};
  }
  std::uint16_t* keys = nullptr;
  double* doubles = nullptr;
  char* ascii = nullptr;
  std::uint16_t key_count = 0, double_count = 0;
  const bool has_keys = TIFFGetField(tif, kGeoKeyDirectory, &key_count, &keys);
  const bool has_doubles = TIFFGetField(tif, kGeoDoubleParams, &double_count, &doubles);
  const bool has_ascii = TIFFGetField(tif, kGeoAsciiParams, &ascii);
  if (has_keys) {
    if (!has_scale) return false;  // keys without a geotransform: GDAL's business
    const GeoTiffCrs* crs = nullptr;
    for (const GeoTiffCrs& k : geotiff_crs_table()) {
      const bool same_keys = key_count == k.keys.size() && std::equal(k.keys.begin(), k.keys.end(), keys);
      const bool same_doubles = k.doubles.empty() ? !has_doubles
                                                  : has_doubles && double_count == k.doubles.size() &&
                                                        std::equal(k.doubles.begin(), k.doubles.end(), doubles);
      const bool same_ascii = has_ascii && k.ascii == ascii;
      if (same_keys && same_doubles && same_ascii) crs = &k;
    }
    if (!crs) return false;
    info->crs_wkt = crs->wkt;
  } else if (has_doubles || has_ascii) {
    return false;
  }
  return true;
}

// The nodata part of plain_info: GDAL's nodata tag, when present, a number GDAL keeps as written.
bool plain_nodata(TIFF* tif, RasterInfo* info) {
  char* nodata = nullptr;
  if (TIFFGetField(tif, kGdalNodata, &nodata)) {
    if (!nodata || !parse_number(nodata, &info->nodata)) return false;
    // GDAL moves a Float32 band's nodata near the float's largest value onto it: its business.
    if (info->type == CellType::Float32 && std::fabs(info->nodata) > 3.4e38) return false;
    info->has_nodata = true;
  }
  return true;
}

// Fills `info` from the open file's tags when the file is plain (see the header), else false.
bool plain_info(TIFF* tif, RasterInfo* info, std::uint32_t* block) {
  return plain_layout(tif, info, block) && plain_georeferencing(tif, info) && plain_nodata(tif, info);
}

}  // namespace

std::unique_ptr<RasterReader> open_plain_geotiff(const std::string& path) {
  const std::string name = to_lower(path);
  const bool tif_name = (name.size() > 4 && name.compare(name.size() - 4, 4, ".tif") == 0) ||
                        (name.size() > 5 && name.compare(name.size() - 5, 5, ".tiff") == 0);
  if (!tif_name || !exists(path) || has_side_file(path)) return nullptr;
  register_geotiff_tags();
  auto messages = std::make_unique<TiffMessages>();
  // "m": read(), not a memory map (a truncated file is an error, not a signal).
  TIFF* tif = tiff_open(path, "rm", messages.get());
  if (!tif) return nullptr;  // GDAL says why
  RasterInfo info;
  std::uint32_t block = 0;
  if (messages->count > 0 || !plain_info(tif, &info, &block) || messages->count > 0) {
    TIFFClose(tif);
    return nullptr;
  }
  return std::make_unique<PlainGeoTiffReader>(path, tif, std::move(messages), info, block);
}

}  // namespace terrazo
