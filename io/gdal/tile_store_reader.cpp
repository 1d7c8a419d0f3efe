#include "io/gdal/tile_store_reader.h"

#include <algorithm>
#include <vector>

#include "kernels/common/error.h"

namespace terrazo {

namespace {

class TileStoreReader : public RasterReader {
 public:
  TileStoreReader(const std::string& path, MemoryBudget* budget) : path_(path), store_(TileStore::open(path, budget)) {
    info_ = store_->info();
    info_.has_stats = false;
  }

  const RasterInfo& info() const override { return info_; }
  std::uint64_t bytes_read() const override { return store_->bytes_read(); }
  std::uint64_t resident_bytes(std::uint32_t) const override {
    return static_cast<std::uint64_t>(store_->tile()) * store_->tile() * sizeof(double);
  }
  std::string format() const override { return "terrazo tile store"; }
  std::uint32_t store_tile() const override { return store_->tile(); }

  void read_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, double* out) override {
    if (x0 + w > info_.width || y0 + h > info_.height || w == 0 || h == 0)
      throw Error("window " + std::to_string(w) + "x" + std::to_string(h) + " at (" + std::to_string(x0) + ", " +
                  std::to_string(y0) + ") is outside the " + std::to_string(info_.width) + " x " +
                  std::to_string(info_.height) + " cells of '" + path_ + "'");
    const std::uint64_t t = store_->tile();
    tile_.resize(t * t);
    for (std::uint64_t ty = y0 / t; ty <= (y0 + h - 1) / t; ++ty)
      for (std::uint64_t tx = x0 / t; tx <= (x0 + w - 1) / t; ++tx) {
        store_->read_tile(static_cast<std::uint32_t>(tx), static_cast<std::uint32_t>(ty), tile_.data());
        const std::uint64_t cx0 = std::max(x0, tx * t), cx1 = std::min(x0 + w, (tx + 1) * t);
        const std::uint64_t cy0 = std::max(y0, ty * t), cy1 = std::min(y0 + h, (ty + 1) * t);
        for (std::uint64_t y = cy0; y < cy1; ++y)
          std::copy(tile_.begin() + static_cast<std::ptrdiff_t>((y - ty * t) * t + (cx0 - tx * t)),
                    tile_.begin() + static_cast<std::ptrdiff_t>((y - ty * t) * t + (cx1 - tx * t)),
                    out + (y - y0) * w + (cx0 - x0));
      }
  }

 private:
  std::string path_;
  std::unique_ptr<TileStore> store_;
  RasterInfo info_;
  std::vector<double> tile_;
};

}  // namespace

std::unique_ptr<RasterReader> open_tile_store_reader(const std::string& path, MemoryBudget* budget) {
  return std::make_unique<TileStoreReader>(path, budget);
}

}  // namespace terrazo
