// engine/clump/region_stats.cpp: RegionStatsCollector (engine/clump/region_stats.h).
#include "engine/clump/region_stats.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "kernels/common/error.h"

namespace terrazo {
namespace {

std::uint64_t bits_of(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, 8);
  return b;
}

double double_of(std::uint64_t b) {
  double v;
  std::memcpy(&v, &b, 8);
  return v;
}

}  // namespace

RegionStatsCollector::RegionStatsCollector(const std::string& path, std::uint64_t border_regions, MemoryBudget& budget,
                                           std::uint64_t buffer_bytes)
    : reservation_(budget.reserve(24 * border_regions, "clump border region stats")),
      c0_(border_regions, std::numeric_limits<std::uint32_t>::max()),
      r0_(border_regions, std::numeric_limits<std::uint32_t>::max()),
      c1_(border_regions, 0),
      r1_(border_regions, 0),
      value_(border_regions, 0.0),
      sorter_(path, budget,
              buffer_bytes ? buffer_bytes
                           : std::max<std::uint64_t>(ExternalSorter::kMinimumBufferBytes,
                                                     std::min<std::uint64_t>(budget.available() / 4, 64ull << 20))) {}

void RegionStatsCollector::push(const ClumpRegionStats& s) {
  const std::uint64_t key = s.label << 2;
  sorter_.push({key, s.cells});
  sorter_.push({key | 1, bits_of(s.value)});
  sorter_.push({key | 2, s.col_min << 32 | s.row_min});
  sorter_.push({key | 3, s.col_max << 32 | s.row_max});
}

void RegionStatsCollector::push_interior(const ClumpRegionStats& s) { push(s); }

void RegionStatsCollector::add_border(std::uint64_t root, std::uint32_t c0, std::uint32_t r0, std::uint32_t c1,
                                      std::uint32_t r1, double value) {
  c0_[root] = std::min(c0_[root], c0);
  r0_[root] = std::min(r0_[root], r0);
  c1_[root] = std::max(c1_[root], c1);
  r1_[root] = std::max(r1_[root], r1);
  value_[root] = value;
}

void RegionStatsCollector::combine_border_stats(Communicator& comm, const BorderTable& table,
                                                const TileOwnership& ownership, std::uint64_t tiles) {
  const std::uint64_t n = c0_.size();
  std::vector<std::uint64_t> words(n);
  auto combine = [&](std::vector<std::uint32_t>& field, ReduceOp op) {
    for (std::uint64_t j = 0; j < n; ++j) words[j] = field[j];
    comm.all_reduce(words.data(), n, op);
    for (std::uint64_t j = 0; j < n; ++j) field[j] = static_cast<std::uint32_t>(words[j]);
  };
  combine(c0_, ReduceOp::Min), combine(r0_, ReduceOp::Min), combine(c1_, ReduceOp::Max), combine(r1_, ReduceOp::Max);
  // The value: the last border region's in tile order (ranks that do not own it give 0 bits).
  std::fill(words.begin(), words.end(), 0);
  for (std::uint64_t tile = 0; tile < tiles; ++tile)
    for (std::uint64_t j = table.tile_offset[tile]; j < table.tile_offset[tile + 1]; ++j)
      words[table.parent[j] & ~BorderTable::kOwner] = tile;
  for (std::uint64_t j = 0; j < n; ++j) {
    if ((table.parent[j] & ~BorderTable::kOwner) != j) {
      words[j] = 0;
      continue;
    }
    words[j] = ownership.owner(words[j]) == comm.rank() ? bits_of(value_[j]) : 0;
  }
  comm.all_reduce(words.data(), n, ReduceOp::Sum);
  for (std::uint64_t j = 0; j < n; ++j) value_[j] = double_of(words[j]);
}

void RegionStatsCollector::finish(const BorderTable& table, ClumpStatsSink& sink, bool push_roots) {
  // External mode: phase 3 pushed the roots as they retired (engine/clump/phase3_relabel.h).
  for (std::uint64_t j = 0; j < (table.external() || !push_roots ? 0 : table.size()); ++j) {
    if ((table.parent[j] & ~BorderTable::kOwner) != j) continue;  // not a root
    ClumpRegionStats s;
    s.label = table.root[j];
    s.cells = table.cells[j];
    s.value = value_[j];
    s.col_min = c0_[j], s.row_min = r0_[j], s.col_max = c1_[j], s.row_max = r1_[j];
    push(s);
  }
  sorter_.finish();
  SortRecord f[4];
  while (sorter_.next(&f[0])) {
    for (int k = 1; k < 4; ++k)
      if (!sorter_.next(&f[k]) || f[k].key != (f[0].key | static_cast<std::uint64_t>(k)))
        throw Error("clump: internal error: the region statistics of label " + std::to_string(f[0].key >> 2) +
                    " are incomplete");
    ClumpRegionStats s;
    s.label = f[0].key >> 2;
    s.cells = f[0].value;
    s.value = double_of(f[1].value);
    s.col_min = f[2].value >> 32, s.row_min = f[2].value & 0xFFFFFFFFu;
    s.col_max = f[3].value >> 32, s.row_max = f[3].value & 0xFFFFFFFFu;
    sink.region(s);
  }
}

}  // namespace terrazo
