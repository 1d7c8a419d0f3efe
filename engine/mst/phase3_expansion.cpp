// engine/mst/phase3_expansion.cpp: phase 3 of the MST pipeline (engine/mst/phase3_expansion.h).
#include "engine/mst/phase3_expansion.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/bits.h"
#include "core/error.h"
#include "engine/mst/merge_step.h"
#include "engine/mst/summary_file.h"
#include "store/atomic_output.h"
#include "store/sequential_file.h"

namespace terrazo {

ExpansionTotals run_expansion(const TileInput& source, const std::vector<std::uint64_t>& order,
                              const MstPhaseOptions& options, ExternalSorter& records, MemoryBudget& budget,
                              Progress& progress, MstWindowSink* sink) {
  const TileGrid& grid = source.grid();
  const std::uint32_t t = grid.tile;
  const std::uint64_t tile_cells = static_cast<std::uint64_t>(t) * t;
  const WeightParams& params = options.params;
  const std::uint32_t shift = expansion_record_shift(t);
  auto scratch_file = [&](const char* name) { return options.scratch_dir + "/" + name; };
  progress.update("mst: expansion", 0, order.size());
  ExpansionTotals totals;
  {
    auto tile_buffers = budget.reserve(tile_cells * (1 + (options.edge_list.empty() ? 0 : sizeof(double))) + tile_cells,
                                       "MST expansion tile");
    std::vector<std::uint8_t> tile_bits(tile_cells), window(tile_cells);
    std::vector<double> tile_values(options.edge_list.empty() ? 0 : tile_cells);
    SequentialReader bits_in(scratch_file("mst_forest.bits"), budget, kSummaryFileBufferBytes, "MST forest bits buffer");
    // Declared before the writer, so the writer closes before an unpublished partial is removed.
    std::unique_ptr<AtomicOutput> edge_list_output;
    std::unique_ptr<SequentialWriter> edge_list;
    if (!options.edge_list.empty()) {
      edge_list_output = std::make_unique<AtomicOutput>(options.edge_list);
      edge_list = std::make_unique<SequentialWriter>(edge_list_output->partial(), budget, kSummaryFileBufferBytes,
                                                     "MST edge list buffer");
    }
    SortRecord pending;
    bool has_pending = records.next(&pending);
    std::vector<SortRecord> tile_records;
    for (std::uint64_t z = 0; z < order.size(); ++z) {
      const auto tx = static_cast<std::uint32_t>(order[z] % grid.tiles_x());
      const auto ty = static_cast<std::uint32_t>(order[z] / grid.tiles_x());
      const std::uint64_t morton = morton_encode(tx, ty);
      tile_records.clear();
      while (has_pending && (pending.key >> shift) <= morton) {
        if ((pending.key >> shift) != morton) throw Error("internal error: an MST expansion record names an absent tile");
        tile_records.push_back(pending);
        has_pending = records.next(&pending);
      }
      const bool present = source.tile_present(tx, ty);
      if (present) {
        bits_in.read(tile_bits.data(), tile_cells);
      } else {
        if (!tile_records.empty()) throw Error("internal error: an MST expansion record names an absent tile");
        std::fill(tile_bits.begin(), tile_bits.end(), std::uint8_t{255});
      }
      for (int kind = 0; kind < 2; ++kind) {
        for (const SortRecord& r : tile_records) {
          if ((r.key & 1) != static_cast<std::uint64_t>(kind)) continue;
          const auto id = static_cast<std::uint32_t>((r.key & ((std::uint64_t{1} << shift) - 1)) >> 1);
          const std::uint8_t bit = static_cast<std::uint8_t>(1u << tile_edge_direction(id));
          std::uint8_t& cell = tile_bits[tile_edge_owner(id)];
          if (kind == 0) cell |= bit;
          else cell &= static_cast<std::uint8_t>(~bit);
        }
      }
      const std::uint64_t x0 = static_cast<std::uint64_t>(tx) * t, y0 = static_cast<std::uint64_t>(ty) * t;
      const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, grid.width - x0));
      const auto h = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, grid.height - y0));
      if (present && edge_list) source.read_tile(tx, ty, tile_values.data());
      for (std::uint32_t ly = 0; ly < h; ++ly) {
        for (std::uint32_t lx = 0; lx < w; ++lx) {
          const std::uint8_t cell = tile_bits[ly * t + lx];
          window[ly * w + lx] = cell;
          if (cell == 255) continue;
          totals.edges += static_cast<std::uint64_t>(popcount64(cell));
          if (!edge_list || cell == 0) continue;
          for (int dir = 0; dir < 4; ++dir) {
            if (!(cell & (1u << dir))) continue;
            const std::uint32_t l = ly * t + lx;
            const std::int64_t nlx = static_cast<std::int64_t>(lx) + kDirDx[dir], nly = ly + kDirDy[dir];
            Weight weight = 0;
            if (nlx >= 0 && nlx < t && nly < t) {
              bool overflow = false;
              weight = edge_weight(params, tile_values[l], tile_values[nly * t + nlx], is_diagonal(dir), &overflow);
            } else {
              const std::uint64_t wanted = static_cast<std::uint64_t>(tile_edge_id(l, dir)) << 1;
              for (const SortRecord& r : tile_records)
                if ((r.key & ((std::uint64_t{1} << shift) - 1)) == wanted) weight = static_cast<Weight>(r.value);
            }
            const std::uint64_t a = (y0 + ly) * grid.width + x0 + lx;
            const std::uint64_t b = (y0 + ly + kDirDy[dir]) * grid.width + x0 + lx + kDirDx[dir];
            unsigned char record[20];
            std::memcpy(record, &a, 8);
            std::memcpy(record + 8, &b, 8);
            std::memcpy(record + 16, &weight, 4);
            edge_list->write(record, sizeof record);
          }
        }
      }
      if (sink) sink->write_window(x0, y0, w, h, window.data());
      progress.update("mst: expansion", z + 1, order.size(), (z + 1) * tile_cells);
    }
    totals.bytes_read += bits_in.bytes_read();
    if (edge_list) {
      edge_list->finish();
      totals.bytes_written += edge_list->bytes_written();
      edge_list_output->publish();
    }
  }

  return totals;
}

}  // namespace terrazo
