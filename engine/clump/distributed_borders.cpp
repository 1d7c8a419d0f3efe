// engine/clump/distributed_borders.cpp: share_clump_borders (engine/clump/distributed_borders.h).
#include "engine/clump/distributed_borders.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/common/error.h"

namespace terrazo {
namespace {

constexpr std::uint64_t kChunkBytes = 4ull << 20;

// The table's regions of this rank's tiles, moved from their places after phase 1 (this rank's
// tiles only, contiguous) to their places among every rank's (`offset`: the global tile offsets).
// Places only grow, so the move runs from the last tile down, in place.
void spread_own_regions(const std::vector<std::uint64_t>& offset, BorderTable& table) {
  const std::uint64_t tiles = offset.size() - 1;
  for (std::uint64_t tile = tiles; tile-- > 0;) {
    const std::uint64_t from = table.tile_offset[tile], n = table.tile_offset[tile + 1] - from, to = offset[tile];
    if (n == 0 || from == to) continue;
    std::memmove(&table.first[to], &table.first[from], n * sizeof(std::uint64_t));
    std::memmove(&table.starts_before[to], &table.starts_before[from], n * sizeof(std::uint32_t));
    std::memmove(&table.cells[to], &table.cells[from], n * sizeof(std::uint64_t));
  }
}

// The region counts of every tile (+1 when present, 0 when absent), summed over the ranks.
std::vector<std::uint64_t> shared_tile_counts(Communicator& comm, const TileGrid& grid, const BorderRecords& records,
                                              const BorderTable& table) {
  std::vector<std::uint64_t> counts(grid.tile_count(), 0);
  for (std::uint64_t tile = 0; tile < counts.size(); ++tile)
    if (records.present(tile)) counts[tile] = 1 + table.tile_offset[tile + 1] - table.tile_offset[tile];
  comm.all_reduce(counts.data(), counts.size(), ReduceOp::Sum);
  return counts;
}

// Rank `from`'s present tiles, each: index (8), record, regions (BorderRegion each), packed from
// `*next` until the chunk is full.
std::vector<std::uint8_t> pack_chunk(const std::vector<std::uint64_t>& counts, const TileOwnership& ownership, int from,
                                     const BorderRecords& records, const BorderTable& table, std::uint64_t* next) {
  std::vector<std::uint8_t> chunk;
  for (; *next < counts.size(); ++*next) {
    const std::uint64_t tile = *next;
    if (counts[tile] == 0 || ownership.owner(tile) != from) continue;
    const std::uint64_t regions = counts[tile] - 1;
    const std::uint64_t bytes = 8 + records.record_bytes() + regions * sizeof(BorderRegion);
    if (!chunk.empty() && chunk.size() + bytes > kChunkBytes) break;
    const std::size_t at = chunk.size();
    chunk.resize(at + bytes);
    std::memcpy(&chunk[at], &tile, 8);
    records.read_record(tile, &chunk[at + 8]);
    auto* region = &chunk[at + 8 + records.record_bytes()];
    for (std::uint64_t j = table.tile_offset[tile]; j < table.tile_offset[tile + 1]; ++j) {
      const BorderRegion r{table.first[j], table.cells[j], table.starts_before[j], 0};
      std::memcpy(region, &r, sizeof r);
      region += sizeof r;
    }
  }
  return chunk;
}

// Another rank's chunk into this rank's records and table.
void unpack_chunk(const std::vector<std::uint8_t>& chunk, const std::vector<std::uint64_t>& counts,
                  BorderRecords& records, BorderTable& table) {
  std::vector<std::uint64_t> record_words(records.record_bytes() / 8);
  for (std::size_t at = 0; at < chunk.size();) {
    std::uint64_t tile;
    std::memcpy(&tile, &chunk[at], 8);
    if (tile >= counts.size() || counts[tile] == 0) throw Error("clump: internal error: a border record of an unknown tile");
    std::memcpy(record_words.data(), &chunk[at + 8], records.record_bytes());
    records.write_run(tile, 1, reinterpret_cast<const std::uint8_t*>(record_words.data()));
    at += 8 + records.record_bytes();
    for (std::uint64_t j = table.tile_offset[tile]; j < table.tile_offset[tile + 1]; ++j) {
      BorderRegion r;
      std::memcpy(&r, &chunk[at], sizeof r);
      table.first[j] = r.first, table.cells[j] = r.cells, table.starts_before[j] = r.starts_before;
      at += sizeof r;
    }
  }
}

}  // namespace

ClumpShareTotals share_clump_borders(Communicator& comm, const TileOwnership& ownership, const TileGrid& grid,
                                     BorderRecords& records, BorderTable& table, ClumpTileTotals& totals,
                                     MemoryBudget& budget) {
  ClumpShareTotals share;
  if (table.external())
    throw BudgetError("clump on " + std::to_string(comm.size()) + " ranks: this rank's border regions did not fit --memory; "
                      "a distributed clump keeps every border region in memory on every rank (36 bytes each): raise --memory");
  const std::vector<std::uint64_t> counts = shared_tile_counts(comm, grid, records, table);
  std::vector<std::uint64_t> offset(counts.size() + 1, 0);
  for (std::uint64_t tile = 0; tile < counts.size(); ++tile) offset[tile + 1] = offset[tile] + (counts[tile] ? counts[tile] - 1 : 0);
  const std::uint64_t total = offset.back();
  if (total > table.size() && !table.try_grow(total - table.size()))
    throw BudgetError("clump on " + std::to_string(comm.size()) + " ranks: the " + std::to_string(total) +
                      " border regions of all tiles (36 bytes each) do not fit --memory on each rank; raise --memory");
  table.first.resize(total), table.starts_before.resize(total), table.cells.resize(total);
  spread_own_regions(offset, table);
  table.tile_offset = offset;

  MemoryBudget::Reservation chunk_bytes =
      budget.reserve(kChunkBytes + 8 + records.record_bytes() + 4 * grid.tile * sizeof(BorderRegion),
                     "clump border exchange chunk (distributed)");
  for (int from = 0; from < comm.size(); ++from) {
    std::uint64_t next = 0;
    for (;;) {
      std::vector<std::uint8_t> chunk;
      if (comm.rank() == from) chunk = pack_chunk(counts, ownership, from, records, table, &next);
      comm.broadcast(chunk, from);
      if (chunk.empty()) break;
      if (comm.rank() == from) {
        share.bytes_sent += chunk.size();
      } else {
        unpack_chunk(chunk, counts, records, table);
        share.bytes_received += chunk.size();
      }
    }
  }
  std::uint64_t sums[2] = {totals.interior_regions, totals.cells_labelled};
  comm.all_reduce(sums, 2, ReduceOp::Sum);
  totals.interior_regions = sums[0], totals.cells_labelled = sums[1];
  totals.interior_largest = comm.all_reduce(totals.interior_largest, ReduceOp::Max);
  return share;
}

}  // namespace terrazo
