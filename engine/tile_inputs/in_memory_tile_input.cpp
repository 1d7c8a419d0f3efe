// engine/tile_inputs/in_memory_tile_input.cpp: InMemoryTileInput (engine/tile_inputs/in_memory_tile_input.h).
#include "engine/tile_inputs/in_memory_tile_input.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <new>

#include "kernels/common/error.h"
#include "kernels/common/huge_buffer.h"

namespace terrazo {

std::uint64_t InMemoryTileInput::bytes_for(const RasterInfo& info, std::uint32_t tile) {
  const TileGrid grid{info.width, info.height, tile};
  return grid.tile_count() * tile * tile * cell_type_size(info.type);
}

InMemoryTileInput::InMemoryTileInput(const RasterInfo& info, std::uint32_t tile, MemoryBudget& budget)
    : info_(info), grid_{info.width, info.height, tile}, rule_(info) {
  info_.has_stats = false;
  info_.min = info_.max = 0.0;
  info_.valid_cells = 0;
  tile_bytes_ = static_cast<std::uint64_t>(tile) * tile * cell_type_size(info.type);
  const std::uint64_t cell_bytes = bytes_for(info, tile);
  const std::uint64_t extra = grid_.tile_count() + static_cast<std::uint64_t>(tile) * tile * sizeof(double);
  reservation_ = budget.reserve(cell_bytes + extra, "input tiles in memory");
  // Pages are touched by put_tile only.
  mapping_.bytes = std::max<std::uint64_t>(cell_bytes, 1);
  // On a 2 MiB boundary, advised for huge pages (kernels/common/huge_buffer.h): an unaligned mapping of a few
  // MiB holds no whole huge page and faults in 4 KiB pages.
  try {
    std::size_t mapped = 0;
    mapping_.address = huge_allocate(mapping_.bytes, &mapped);
    mapping_.bytes = mapped;
  } catch (const std::bad_alloc&) {
    mapping_.address = nullptr;
    throw Error("input tiles in memory: cannot map " + MemoryBudget::format_size(mapping_.bytes) + ": " +
                std::strerror(errno));
  }
  cells_ = static_cast<unsigned char*>(mapping_.address);
  present_.assign(grid_.tile_count(), 0);
}

InMemoryTileInput::Mapping::~Mapping() {
  if (address) huge_free(address, bytes);
}

// A present tile's statistics into the raster's (tiles are put from several threads).
void InMemoryTileInput::merge_stats(const CellStats& tile) {
  std::lock_guard<std::mutex> lock(stats_mutex_);
  stats_.merge(tile);
  info_.has_stats = true;
  info_.min = stats_.min;
  info_.max = stats_.max;
  info_.valid_cells = stats_.valid;
}

void InMemoryTileInput::put_tile(std::uint32_t tx, std::uint32_t ty, const double* cells) {
  const std::uint32_t t = grid_.tile;
  const TileWindow w = grid_.window(tx, ty);
  const CellStats tile = scan_doubles(cells, w.h, w.w, t);
  const std::uint64_t index = static_cast<std::uint64_t>(ty) * grid_.tiles_x() + tx;
  if (tile.valid == 0) {  // absent, as in a store
    present_[index] = 0;
    return;
  }
  merge_stats(tile);
  // Padding cells hold the store's padding value (TileStoreWriter::write_tile), read back as NaN.
  const std::uint64_t n = static_cast<std::uint64_t>(t) * t;
  const double* source = cells;
  thread_local HugeBuffer<double> padded;  // edge tiles only; every cell written below
  if (w.w < t || w.h < t) {
    padded.allocate(n);
    const double pad = rule_.padding_value();
    for (std::uint64_t r = 0; r < t; ++r)
      for (std::uint64_t c = 0; c < t; ++c)
        padded[r * t + c] = (r < w.h && c < w.w) ? cells[r * t + c] : pad;
    source = padded.data();
  }
  doubles_to_cells(source, n, rule_, cells_ + index * tile_bytes_);
  present_[index] = 1;
}

void InMemoryTileInput::put_tile_cells(std::uint32_t tx, std::uint32_t ty, const std::function<void(void* cells)>& read) {
  if (!cell_type_is_integer(info_.type))
    throw Error(std::string("internal error: put_tile_cells on a ") + to_string(info_.type) + " raster");
  const std::uint32_t t = grid_.tile;
  const TileWindow w = grid_.window(tx, ty);
  const std::uint64_t index = static_cast<std::uint64_t>(ty) * grid_.tiles_x() + tx;
  unsigned char* tile = cells_ + index * tile_bytes_;
  read(tile);
  const CellStats stats = scan_cells(tile, w.h, w.w, t, rule_);
  if (stats.valid == 0) {  // absent, as in a store (its cells are never read)
    present_[index] = 0;
    return;
  }
  merge_stats(stats);
  if (w.w < t || w.h < t) {
    // The padding value as put_tile stores it.
    const std::uint64_t size = cell_type_size(info_.type);
    unsigned char pad[8];
    const double value = rule_.padding_value();
    doubles_to_cells(&value, 1, rule_, pad);
    for (std::uint64_t r = 0; r < t; ++r)
      for (std::uint64_t c = r < w.h ? w.w : 0; c < t; ++c) std::memcpy(tile + (r * t + c) * size, pad, size);
  }
  present_[index] = 1;
}

bool InMemoryTileInput::tile_present(std::uint32_t tx, std::uint32_t ty) const {
  if (tx >= grid_.tiles_x() || ty >= grid_.tiles_y()) return false;
  return present_[static_cast<std::uint64_t>(ty) * grid_.tiles_x() + tx] != 0;
}

void InMemoryTileInput::read_tile(std::uint32_t tx, std::uint32_t ty, double* out) const {
  const std::uint32_t t = grid_.tile;
  const std::uint64_t n = static_cast<std::uint64_t>(t) * t;
  if (tx >= grid_.tiles_x() || ty >= grid_.tiles_y())
    throw Error("tile (" + std::to_string(tx) + ", " + std::to_string(ty) + ") is outside the " +
                std::to_string(grid_.tiles_x()) + " x " + std::to_string(grid_.tiles_y()) + " tiles of the input");
  if (!tile_present(tx, ty)) {
    std::fill(out, out + n, std::numeric_limits<double>::quiet_NaN());
    return;
  }
  const std::uint64_t index = static_cast<std::uint64_t>(ty) * grid_.tiles_x() + tx;
  cells_to_doubles(cells_ + index * tile_bytes_, n, rule_, out);
  const TileWindow w = grid_.window(tx, ty);
  if (w.w == t && w.h == t) return;
  for (std::uint64_t r = 0; r < t; ++r)
    for (std::uint64_t c = (r < w.h ? w.w : 0); c < t; ++c) out[r * t + c] = std::numeric_limits<double>::quiet_NaN();
}

}  // namespace terrazo
