// engine/sssp/source_groups.cpp: per-group scratch results and their cell-by-cell merge
// (engine/sssp/source_groups.h).
#include "engine/sssp/source_groups.h"

#include <cstring>

#include "kernels/common/error.h"
#include "kernels/sssp/backlink.h"

namespace terrazo {

namespace {

std::uint64_t bytes_per_cell(bool sources, bool backlinks) { return 8 + (sources ? 4 : 0) + (backlinks ? 1 : 0); }

}  // namespace

SsspGroupScratch::SsspGroupScratch(const std::string& path, const TileGrid& grid, bool sources, bool backlinks,
                                   MemoryBudget& budget)
    : grid_(grid), sources_(sources), backlinks_(backlinks) {
  const std::uint64_t cells = static_cast<std::uint64_t>(grid.tile) * grid.tile;
  slot_bytes_ = (cells * bytes_per_cell(sources, backlinks) + 4095) / 4096 * 4096;
  bitmap_ = budget.reserve(grid.tile_count() / 8 + 64, "sssp source group tile bitmap");
  tile_ = budget.reserve(cells * bytes_per_cell(sources, backlinks), "sssp source group tile");
  written_.assign(grid.tile_count(), false);
  buffer_.resize(cells * bytes_per_cell(sources, backlinks));
  file_ = PosixFile(path, PosixFile::Mode::CreateReadWrite);
}

void SsspGroupScratch::finish_writing() {
  std::vector<char>().swap(buffer_);
  tile_ = MemoryBudget::Reservation();
}

void SsspGroupScratch::write_tile(const SsspTileResult& r) {
  if (!r.reached) return;
  if (sources_ && !r.source) throw Error("sssp source group: a pass without source ids");
  if (backlinks_ && !r.backlink) throw Error("sssp source group: a pass without backlinks");
  const std::size_t n = static_cast<std::size_t>(r.width) * r.height;
  char* p = buffer_.data();
  for (std::uint32_t y = 0; y < r.height; ++y)
    std::memcpy(p + 8 * static_cast<std::size_t>(y) * r.width, r.dist + static_cast<std::size_t>(y) * r.stride,
                8 * static_cast<std::size_t>(r.width));
  p += 8 * n;
  if (sources_) {
    for (std::uint32_t y = 0; y < r.height; ++y)
      std::memcpy(p + 4 * static_cast<std::size_t>(y) * r.width, r.source + static_cast<std::size_t>(y) * r.stride,
                  4 * static_cast<std::size_t>(r.width));
    p += 4 * n;
  }
  if (backlinks_) {
    for (std::uint32_t y = 0; y < r.height; ++y)
      std::memcpy(p + static_cast<std::size_t>(y) * r.width, r.backlink + static_cast<std::size_t>(y) * r.stride, r.width);
    p += n;
  }
  const std::uint64_t tile = static_cast<std::uint64_t>(r.ty) * grid_.tiles_x() + r.tx;
  const auto bytes = static_cast<std::uint64_t>(p - buffer_.data());
  file_.write_all(buffer_.data(), bytes, tile * slot_bytes_);
  written_[tile] = true;
  ++tiles_written_;
  bytes_written_ += bytes;
}

void SsspGroupScratch::read_tile(std::uint64_t tile, std::uint32_t width, std::uint32_t height, PathLength* dist,
                                 std::uint32_t* source, std::uint8_t* backlink) {
  const std::uint64_t n = static_cast<std::uint64_t>(width) * height;
  std::uint64_t offset = tile * slot_bytes_;
  file_.read_exact(dist, 8 * n, offset);
  offset += 8 * n;
  if (sources_) {
    file_.read_exact(source, 4 * n, offset);
    offset += 4 * n;
  }
  if (backlinks_) file_.read_exact(backlink, n, offset);
  bytes_read_ += n * bytes_per_cell(sources_, backlinks_);
}

SourceGroupMergeStats merge_source_groups(std::vector<std::unique_ptr<SsspGroupScratch>>& groups, SsspResultSink& sink,
                                          MemoryBudget& budget, Progress& progress) {
  SourceGroupMergeStats stats;
  if (groups.empty()) return stats;
  const TileGrid grid = groups.front()->grid();
  const std::size_t cells = static_cast<std::size_t>(grid.tile) * grid.tile;
  auto reservation = budget.reserve(2 * cells * (8 + 4 + 1), "sssp source group merge tiles");
  std::vector<PathLength> dist(cells), group_dist(cells);
  std::vector<std::uint32_t> source(cells), group_source(cells);
  std::vector<std::uint8_t> backlink(cells), group_backlink(cells);
  sink.set_slots(1);
  const std::uint64_t tiles = grid.tile_count();
  for (std::uint32_t ty = 0; ty < grid.tiles_y(); ++ty) {
    for (std::uint32_t tx = 0; tx < grid.tiles_x(); ++tx) {
      const std::uint64_t tile = static_cast<std::uint64_t>(ty) * grid.tiles_x() + tx;
      const TileWindow window = grid.window(tx, ty);
      const std::size_t n = static_cast<std::size_t>(window.w) * window.h;
      std::fill(dist.begin(), dist.begin() + n, kUnreached);
      std::fill(source.begin(), source.begin() + n, 0u);
      std::fill(backlink.begin(), backlink.begin() + n, kNoBacklink);
      std::fill(group_source.begin(), group_source.begin() + n, 0u);
      std::fill(group_backlink.begin(), group_backlink.begin() + n, kNoBacklink);
      bool reached = false;
      for (auto& group : groups) {
        if (!group->has_tile(tile)) continue;
        group->read_tile(tile, window.w, window.h, group_dist.data(), group_source.data(), group_backlink.data());
        reached = true;
        for (std::size_t i = 0; i < n; ++i) {
          const PathLength d = group_dist[i];
          if (d < dist[i] || (d == dist[i] && d != kUnreached && group_source[i] < source[i])) {
            dist[i] = d;
            source[i] = group_source[i];
            backlink[i] = group_backlink[i];
          }
        }
      }
      for (std::size_t i = 0; i < n; ++i)
        if (dist[i] != kUnreached) {
          ++stats.reached_cells;
          if (dist[i] > stats.max_dist) stats.max_dist = dist[i];
        }
      SsspTileResult r = sssp_tile_result(grid, tx, ty, window.w);
      r.reached = reached;
      r.dist = dist.data();
      r.source = source.data();
      r.backlink = backlink.data();
      r.slot = 0;
      sink.prepare_tile(r);
      sink.write_tile(r);
      progress.update("sssp: merge", tile + 1, tiles);
    }
  }
  return stats;
}

}  // namespace terrazo
