// tests/support/memory_tile_input.h: a raster held in a vector (row-major, NaN = nodata) seen as the
// pipelines' TileInput (engine/tile_inputs/tile_input.h), cut into t x t tiles whose cells past the raster's
// edge read as NaN. For the tests and the GPU checks: header only and GDAL-free.
//
// Given the vector as an lvalue, the input reads it where it is (the caller keeps it alive); given
// an rvalue (a temporary, std::move), it owns it. A tile with no valid cell is absent (tile_present
// false, as in a tile store) unless `absent` says Never. bytes_read counts t^2 doubles per read_tile
// (atomic: the pipelines read from several threads). info(type) is the RasterInfo a reader reports
// for such a raster: its size, the type and the statistics of its valid (not NaN) cells.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "engine/tile_inputs/tile_input.h"
#include "io/store/raster_info.h"

namespace terrazo {

template <class T = double>
class MemoryTileInput : public TileInput {
 public:
  enum class Absent { WhenNoValidCell, Never };
  MemoryTileInput(const std::vector<T>& values, std::uint64_t width, std::uint64_t height, std::uint32_t t,
                  Absent absent = Absent::WhenNoValidCell)
      : values_(values), absent_(absent) {
    grid_.width = width;
    grid_.height = height;
    grid_.tile = t;
  }
  MemoryTileInput(std::vector<T>&& values, std::uint64_t width, std::uint64_t height, std::uint32_t t,
                  Absent absent = Absent::WhenNoValidCell)
      : owned_(std::move(values)), values_(owned_), absent_(absent) {
    grid_.width = width;
    grid_.height = height;
    grid_.tile = t;
  }
  const TileGrid& grid() const override { return grid_; }
  bool tile_present(std::uint32_t tx, std::uint32_t ty) const override {
    if (absent_ == Absent::Never) return true;
    for (std::uint32_t y = 0; y < grid_.tile; ++y)
      for (std::uint32_t x = 0; x < grid_.tile; ++x) {
        const double v = at(std::uint64_t{tx} * grid_.tile + x, std::uint64_t{ty} * grid_.tile + y);
        if (v == v) return true;
      }
    return false;
  }
  void read_tile(std::uint32_t tx, std::uint32_t ty, double* out) const override {
    reads_.fetch_add(1, std::memory_order_relaxed);
    for (std::uint32_t y = 0; y < grid_.tile; ++y)
      for (std::uint32_t x = 0; x < grid_.tile; ++x)
        out[std::size_t{y} * grid_.tile + x] = at(std::uint64_t{tx} * grid_.tile + x, std::uint64_t{ty} * grid_.tile + y);
  }
  std::uint64_t bytes_read() const override { return reads() * grid_.tile * grid_.tile * 8; }
  std::uint64_t reads() const { return reads_.load(std::memory_order_relaxed); }
  const std::vector<T>& values() const { return values_; }
  RasterInfo info(CellType type) const {
    RasterInfo info;
    info.width = grid_.width;
    info.height = grid_.height;
    info.type = type;
    for (const T& value : values_) {
      const double v = static_cast<double>(value);
      if (v != v) continue;
      info.min = info.valid_cells == 0 ? v : std::min(info.min, v);
      info.max = info.valid_cells == 0 ? v : std::max(info.max, v);
      ++info.valid_cells;
    }
    info.has_stats = info.valid_cells > 0;
    return info;
  }

 private:
  double at(std::uint64_t x, std::uint64_t y) const {
    return x < grid_.width && y < grid_.height ? static_cast<double>(values_[y * grid_.width + x])
                                               : std::numeric_limits<double>::quiet_NaN();
  }
  std::vector<T> owned_;  // the values when the input owns them, else empty
  const std::vector<T>& values_;
  Absent absent_;
  TileGrid grid_;
  mutable std::atomic<std::uint64_t> reads_{0};
};

}  // namespace terrazo
