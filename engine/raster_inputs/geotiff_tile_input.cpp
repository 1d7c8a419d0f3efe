// engine/raster_inputs/geotiff_tile_input.cpp: GeoTiffTileInput (engine/raster_inputs/geotiff_tile_input.h).
#include "engine/raster_inputs/geotiff_tile_input.h"

#include <algorithm>
#include <limits>

#include "kernels/common/error.h"
#include "io/store/cell_values.h"

namespace terrazo {

std::unique_ptr<GeoTiffTileInput> GeoTiffTileInput::open_if_tiled(const std::string& path, std::uint32_t t) {
  std::unique_ptr<RasterReader> reader = RasterReader::open(path, 1);  // band 1: a file of several bands is refused by the import, with its message
  return open_if_tiled(reader, path, t);
}

std::unique_ptr<GeoTiffTileInput> GeoTiffTileInput::open_if_tiled(std::unique_ptr<RasterReader>& reader,
                                                                  const std::string& path, std::uint32_t t) {
  if (!reader || reader->format() != "GTiff" || reader->band_count() != 1 || reader->band() != 1) return nullptr;
  const std::uint32_t block = reader->square_block();
  if (block == 0 || t % block != 0) return nullptr;
  return std::unique_ptr<GeoTiffTileInput>(new GeoTiffTileInput(path, std::move(reader), t));
}

GeoTiffTileInput::GeoTiffTileInput(std::string path, std::unique_ptr<RasterReader> first, std::uint32_t t)
    : path_(std::move(path)), info_(first->info()), first_(std::move(first)) {
  grid_.width = info_.width;
  grid_.height = info_.height;
  grid_.tile = t;
}

RasterReader& GeoTiffTileInput::reader() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::unique_ptr<RasterReader>& r = readers_[std::this_thread::get_id()];
  if (!r) r = first_ ? std::move(first_) : RasterReader::open_cells(path_, 1);  // info_ has the CRS
  return *r;
}

void GeoTiffTileInput::read_tile(std::uint32_t tx, std::uint32_t ty, double* out) const {
  const std::uint32_t t = grid_.tile;
  const std::uint64_t x0 = static_cast<std::uint64_t>(tx) * t, y0 = static_cast<std::uint64_t>(ty) * t;
  const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, grid_.width - x0));
  const auto h = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, grid_.height - y0));
  reader().read_window(x0, y0, w, h, out);
  // Spread the w-wide rows to the tile's stride t, last row first (in place), and pad with NaN.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (w < t) {
    for (std::uint32_t y = h; y-- > 0;) {
      std::copy_backward(out + static_cast<std::uint64_t>(y) * w, out + static_cast<std::uint64_t>(y) * w + w,
                         out + static_cast<std::uint64_t>(y) * t + w);
      std::fill(out + static_cast<std::uint64_t>(y) * t + w, out + static_cast<std::uint64_t>(y + 1) * t, nan);
    }
  }
  std::fill(out + static_cast<std::uint64_t>(h) * t, out + static_cast<std::uint64_t>(t) * t, nan);
}

void GeoTiffTileInput::read_tile_cells(std::uint32_t tx, std::uint32_t ty, void* out) const {
  const std::uint32_t t = grid_.tile;
  const std::uint64_t x0 = static_cast<std::uint64_t>(tx) * t, y0 = static_cast<std::uint64_t>(ty) * t;
  const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, grid_.width - x0));
  const auto h = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, grid_.height - y0));
  if (!reader().read_window_cells(x0, y0, w, h, out, t))
    throw Error("internal error: '" + path_ + "' cannot be read in its own cell type");
}

void GeoTiffTileInput::scan(double* tile, Progress& progress) {
  CellStats stats;
  std::vector<unsigned char> present(grid_.tile_count(), 0);
  progress.update("import", 0, grid_.tiles_y());
  for (std::uint32_t ty = 0; ty < grid_.tiles_y(); ++ty) {
    for (std::uint32_t tx = 0; tx < grid_.tiles_x(); ++tx) {
      read_tile(tx, ty, tile);
      const TileWindow w = grid_.window(tx, ty);
      const CellStats s = scan_doubles(tile, w.h, w.w, grid_.tile);
      stats.merge(s);
      present[static_cast<std::uint64_t>(ty) * grid_.tiles_x() + tx] = s.valid > 0;
    }
    progress.update("import", ty + 1ull, grid_.tiles_y());
  }
  present_ = std::move(present);
  info_.has_stats = stats.valid > 0;
  info_.min = stats.valid ? stats.min : 0.0;
  info_.max = stats.valid ? stats.max : 0.0;
  info_.valid_cells = stats.valid;
}

std::uint64_t GeoTiffTileInput::bytes_read() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::uint64_t bytes = first_ ? first_->bytes_read() : 0;
  for (const auto& [id, r] : readers_) bytes += r->bytes_read();
  return bytes;
}

}  // namespace terrazo
