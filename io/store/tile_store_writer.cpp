// io/store/tile_store_writer.cpp: TileStoreWriter of io/store/tile_store.h (the layout: io/store/tile_store.cpp).
#include "io/store/tile_store.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>

#include "kernels/common/error.h"
#include "io/store/atomic_output.h"
#include "io/store/cell_values.h"
#include "io/store/posix_file.h"

#include "io/store/tile_store_format.h"

namespace terrazo {

using namespace tzs_format;

// ---- writer --------------------------------------------------------------------------------

struct TileStoreWriter::Impl {
  std::string path;
  std::optional<AtomicOutput> output;  // declared before `file`: the file closes before the partial is removed
  PosixFile file;
  RasterInfo info;
  TileGrid grid;
  Layout layout;
  NodataRule rule{CellType::Float32, false, 0.0};
  unsigned char padding[8] = {};
  std::mutex mutex;  // guards everything below
  MemoryBudget::Reservation index_reservation;
  std::vector<IndexEntry> index;
  std::vector<std::uint8_t> written;
  std::uint64_t present = 0;
  CellStats stats;
  bool rewritten = false, explicit_stats = false, finished = false;
  std::atomic<std::uint64_t> bytes_written{0};
};

std::uint64_t TileStoreWriter::index_bytes(const TileGrid& grid) {
  return grid.tile_count() * (sizeof(IndexEntry) + sizeof(std::uint8_t));  // index + written flags
}

TileStoreWriter::TileStoreWriter(const std::string& path, const RasterInfo& info, std::uint32_t tile,
                                 MemoryBudget* budget)
    : impl_(std::make_unique<Impl>()) {
  Impl& w = *impl_;
  check_tile_size(tile);
  if (info.width == 0 || info.height == 0)
    throw UsageError("cannot write a tile store of " + std::to_string(info.width) + " x " +
                     std::to_string(info.height) + " cells: both sizes must be at least 1");
  if (!valid_cell_type(static_cast<std::uint32_t>(info.type))) throw UsageError("unknown cell type for a tile store");
  if (info.crs_wkt.size() > kMaxCrsBytes) throw Error("CRS description longer than 1 MiB; cannot store it");
  if (info.crs_wkt.find('\0') != std::string::npos) throw Error("CRS description holds NUL bytes; cannot store it");
  if ((info.width + tile - 1) / tile > 0xFFFFFFFFull || (info.height + tile - 1) / tile > 0xFFFFFFFFull)
    throw UsageError("raster of " + std::to_string(info.width) + " x " + std::to_string(info.height) +
                     " cells needs more than 2^32 tiles per row or column; use a larger --tile");
  w.path = path;
  w.info = info;
  w.info.has_stats = false;
  w.grid = TileGrid{info.width, info.height, tile};
  w.layout = compute_layout(w.grid, info.type, info.crs_wkt.size());
  if (w.layout.overflow) throw Error("raster too large: its tile store would exceed 2^63 bytes");
  w.rule = NodataRule(info);
  const double pad = w.rule.padding_value();
  doubles_to_cells(&pad, 1, w.rule, w.padding);
  if (budget) w.index_reservation = budget->reserve(index_bytes(w.grid), ("tile index of '" + path + "'").c_str());
  w.index.resize(w.layout.tile_count);
  w.written.assign(w.layout.tile_count, 0);
  w.output.emplace(path);
  w.file = PosixFile(w.output->partial(), PosixFile::Mode::CreateReadWrite);
  // The full size up front: slots of absent tiles stay sparse holes.
  w.file.truncate(w.layout.file_size);
}

TileStoreWriter::~TileStoreWriter() {
  if (!impl_ || impl_->finished) return;
  try {
    impl_->file.close();
  } catch (const Error&) {
    // The partial file is removed below either way.
  }
  if (impl_->output) impl_->output->discard();
}

const TileGrid& TileStoreWriter::grid() const { return impl_->grid; }
std::uint64_t TileStoreWriter::bytes_written() const { return impl_->bytes_written.load(); }

std::uint64_t TileStoreWriter::present_tiles() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->present;
}

void TileStoreWriter::write_tile_raw(std::uint32_t tx, std::uint32_t ty, const void* cells) {
  Impl& w = *impl_;
  if (w.finished) throw Error("tile written to '" + w.path + "' after finish()");
  if (tx >= w.grid.tiles_x() || ty >= w.grid.tiles_y())
    throw Error("tile (" + std::to_string(tx) + ", " + std::to_string(ty) + ") is outside the " +
                std::to_string(w.grid.tiles_x()) + " x " + std::to_string(w.grid.tiles_y()) + " tiles of '" + w.path + "'");
  const std::uint32_t t = w.grid.tile;
  const std::uint32_t size = cell_type_size(w.info.type);
  const std::uint64_t valid_cols = std::min<std::uint64_t>(t, w.info.width - static_cast<std::uint64_t>(tx) * t);
  const std::uint64_t valid_rows = std::min<std::uint64_t>(t, w.info.height - static_cast<std::uint64_t>(ty) * t);
  const CellStats stats = scan_cells(cells, valid_rows, valid_cols, t, w.rule);
  const std::uint64_t i = static_cast<std::uint64_t>(ty) * w.grid.tiles_x() + tx;
  const std::uint64_t slot = w.layout.data_offset + w.grid.z_rank(tx, ty) * w.layout.tile_bytes;

  IndexEntry entry;
  if (stats.valid > 0) {
    const void* bytes = cells;
    std::vector<unsigned char> padded;
    if (valid_cols < t || valid_rows < t) {
      padded.resize(w.layout.tile_bytes);
      copy_with_padding(cells, t, valid_cols, valid_rows, size, w.padding, padded.data());
      bytes = padded.data();
    }
    w.file.write_all(bytes, w.layout.tile_bytes, slot);
    w.bytes_written += w.layout.tile_bytes;
    entry.offset = slot;
    entry.crc = crc32_of(bytes, w.layout.tile_bytes);
  }

  std::lock_guard<std::mutex> lock(w.mutex);
  if (w.index[i].offset != 0) --w.present;
  if (entry.offset == 0 && w.index[i].offset != 0) w.file.punch_hole(slot, w.layout.tile_bytes);
  w.index[i] = entry;
  if (entry.offset != 0) ++w.present;
  if (w.written[i]) w.rewritten = true;
  w.written[i] = 1;
  w.stats.merge(stats);
}

void TileStoreWriter::write_tile(std::uint32_t tx, std::uint32_t ty, const double* cells) {
  Impl& w = *impl_;
  if (tx >= w.grid.tiles_x() || ty >= w.grid.tiles_y()) {
    write_tile_raw(tx, ty, nullptr);  // reports the bad coordinates
    return;
  }
  const std::uint32_t t = w.grid.tile;
  const std::uint32_t size = cell_type_size(w.info.type);
  const std::uint64_t valid_cols = std::min<std::uint64_t>(t, w.info.width - static_cast<std::uint64_t>(tx) * t);
  const std::uint64_t valid_rows = std::min<std::uint64_t>(t, w.info.height - static_cast<std::uint64_t>(ty) * t);
  std::vector<unsigned char> raw(w.layout.tile_bytes);
  for (std::uint64_t r = 0; r < t; ++r) {
    unsigned char* row = raw.data() + r * t * size;
    std::uint64_t c = 0;
    if (r < valid_rows) {
      doubles_to_cells(cells + r * t, valid_cols, w.rule, row);
      c = valid_cols;
    }
    for (; c < t; ++c) std::memcpy(row + c * size, w.padding, size);
  }
  write_tile_raw(tx, ty, raw.data());
}

void TileStoreWriter::set_stats(double min, double max, std::uint64_t valid_cells) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->explicit_stats = true;
  impl_->info.min = min;
  impl_->info.max = max;
  impl_->info.valid_cells = valid_cells;
}

void TileStoreWriter::finish() {
  Impl& w = *impl_;
  std::lock_guard<std::mutex> lock(w.mutex);
  if (w.finished) return;
  if (w.explicit_stats) {
    w.info.has_stats = true;
  } else if (!w.rewritten) {
    w.info.has_stats = true;
    w.info.valid_cells = w.stats.valid;
    w.info.min = w.stats.valid ? w.stats.min : 0.0;
    w.info.max = w.stats.valid ? w.stats.max : 0.0;
  }
  const std::vector<unsigned char> header = encode_header(w.info, w.grid, w.layout, w.present);
  const std::vector<unsigned char> index = encode_index(w.index);
  w.file.write_all(header.data(), header.size(), 0);
  w.file.write_all(index.data(), index.size(), w.layout.index_offset);
  w.bytes_written += header.size() + index.size();
  w.file.sync_data();
  w.file.close();
  w.output->publish();
  w.finished = true;
}

}  // namespace terrazo
