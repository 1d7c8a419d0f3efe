// engine/sssp/distance_store.cpp: fixed tile slots in one sparse file (engine/sssp/distance_store.h).
#include "engine/sssp/distance_store.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "kernels/common/error.h"

namespace terrazo {

DistanceStore::DistanceStore(const std::string& path, const TileGrid& grid, bool labelled, MemoryBudget& budget,
                             std::uint32_t halo)
    : path_(path), grid_(grid), labelled_(labelled), halo_(halo) {
  const std::uint64_t t = grid.tile;
  cells_ = t * t;
  ring_offset_ = cells_ * (labelled ? 16 : 8);
  const std::uint64_t raw = ring_offset_ + static_cast<std::uint64_t>(ring_cell_count(t, halo)) * sizeof(RingCell);
  slot_bytes_ = (raw + 4095) / 4096 * 4096;
  const std::uint64_t tiles = grid.tile_count();
  reservation_ = budget.reserve(tiles / 4 + 64 + cells_ * 8, "distance store index and buffer");
  interior_present_.assign(tiles, false);
  ring_present_.assign(tiles, false);
  scratch_.resize(cells_);
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd_ < 0) throw IoError("cannot create the distance store '" + path + "': " + std::strerror(errno));
}

DistanceStore::~DistanceStore() {
  if (fd_ >= 0) ::close(fd_);
  ::unlink(path_.c_str());
}

std::uint64_t DistanceStore::bytes_on_disk() const {
  return interior_count_ * ring_offset_ + ring_count_ * (slot_bytes_ - ring_offset_);
}

void DistanceStore::pread_all(void* buffer, std::uint64_t bytes, std::uint64_t offset) {
  auto* p = static_cast<char*>(buffer);
  while (bytes > 0) {
    const ssize_t n = ::pread(fd_, p, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw IoError("cannot read the distance store '" + path_ + "': " + std::strerror(errno));
    if (n == 0) {  // beyond the end of the sparse file: never written, zeros
      std::memset(p, 0, bytes);
      return;
    }
    p += n;
    bytes -= static_cast<std::uint64_t>(n);
    offset += static_cast<std::uint64_t>(n);
    bytes_read_ += static_cast<std::uint64_t>(n);
  }
}

void DistanceStore::pwrite_all(const void* buffer, std::uint64_t bytes, std::uint64_t offset) {
  const auto* p = static_cast<const char*>(buffer);
  while (bytes > 0) {
    const ssize_t n = ::pwrite(fd_, p, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw IoError("cannot write the distance store '" + path_ + "': " + std::strerror(errno) +
                  " (is the scratch disk full? choose another with --tmpdir)");
    p += n;
    bytes -= static_cast<std::uint64_t>(n);
    offset += static_cast<std::uint64_t>(n);
    bytes_written_ += static_cast<std::uint64_t>(n);
  }
}

void DistanceStore::read_interior(std::uint64_t tile, PathLength* dist, std::uint32_t* source, std::uint32_t* hops) {
  if (!interior_present_[tile]) {
    for (std::uint64_t i = 0; i < cells_; ++i) dist[i] = kUnreached;
    if (labelled_) {
      if (source) std::memset(source, 0, cells_ * 4);
      if (hops) std::memset(hops, 0, cells_ * 4);
    }
    return;
  }
  const std::uint64_t base = slot_offset(tile);
  pread_all(dist, cells_ * 8, base);
  for (std::uint64_t i = 0; i < cells_; ++i) dist[i] = ~dist[i];
  if (labelled_) {
    if (source) pread_all(source, cells_ * 4, base + cells_ * 8);
    if (hops) pread_all(hops, cells_ * 4, base + cells_ * 12);
  }
}

void DistanceStore::write_interior(std::uint64_t tile, const PathLength* dist, const std::uint32_t* source,
                                   const std::uint32_t* hops) {
  const std::uint64_t base = slot_offset(tile);
  for (std::uint64_t i = 0; i < cells_; ++i) scratch_[i] = ~dist[i];
  pwrite_all(scratch_.data(), cells_ * 8, base);
  if (labelled_) {
    pwrite_all(source, cells_ * 4, base + cells_ * 8);
    pwrite_all(hops, cells_ * 4, base + cells_ * 12);
  }
  if (!interior_present_[tile]) {
    interior_present_[tile] = true;
    ++interior_count_;
  }
}

void DistanceStore::read_ring(std::uint64_t tile, std::uint32_t first, std::uint32_t count, RingCell* out) {
  if (!ring_present_[tile]) {
    for (std::uint32_t i = 0; i < count; ++i) out[i] = RingCell{};
    return;
  }
  pread_all(out, static_cast<std::uint64_t>(count) * sizeof(RingCell),
            slot_offset(tile) + ring_offset_ + static_cast<std::uint64_t>(first) * sizeof(RingCell));
  for (std::uint32_t i = 0; i < count; ++i) out[i].dist = ~out[i].dist;
}

void DistanceStore::write_ring(std::uint64_t tile, std::uint32_t first, std::uint32_t count, const RingCell* in) {
  RingCell encoded[64];
  std::uint64_t offset = slot_offset(tile) + ring_offset_ + static_cast<std::uint64_t>(first) * sizeof(RingCell);
  for (std::uint32_t done = 0; done < count;) {
    const std::uint32_t n = count - done < 64 ? count - done : 64;
    for (std::uint32_t i = 0; i < n; ++i) {
      encoded[i] = in[done + i];
      encoded[i].dist = ~encoded[i].dist;
    }
    pwrite_all(encoded, static_cast<std::uint64_t>(n) * sizeof(RingCell), offset);
    offset += static_cast<std::uint64_t>(n) * sizeof(RingCell);
    done += n;
  }
  if (!ring_present_[tile]) {
    ring_present_[tile] = true;
    ++ring_count_;
  }
}

void DistanceStore::release(std::uint64_t tile) {
  if (!interior_present_[tile] && !ring_present_[tile]) return;
  if (interior_present_[tile]) {
    interior_present_[tile] = false;
    --interior_count_;
  }
  if (ring_present_[tile]) {
    ring_present_[tile] = false;
    --ring_count_;
  }
  // Best effort: the presence bits above already make the slot read as unreached.
  (void)::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(slot_offset(tile)),
                    static_cast<off_t>(slot_bytes_));
}

}  // namespace terrazo
