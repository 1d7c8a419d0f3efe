// engine/sssp/output.cpp: final labels -> per-tile results (engine/sssp/output.h).
#include "engine/sssp/output.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "kernels/sssp/backlink.h"

namespace terrazo {

std::uint64_t sssp_output_tile_bytes(std::uint32_t t, bool labelled, bool backlinks) {
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t halo = static_cast<std::uint64_t>(t + 2) * (t + 2);
  const std::uint64_t ring_cells = 4ull * t + 4;  // DistanceStore::ring_cells()
  return cells * (8 + 8 + 1) + (labelled ? cells * 8 : 0) + (backlinks ? halo * 24 : 0) + ring_cells * sizeof(RingCell);
}

SsspOutputStats write_sssp_results(const TileInput& input, SsspLabelSource& store, const SsspExchangeOptions& options,
                                   bool backlinks, SsspResultSink& sink, MemoryBudget& budget, Progress& progress,
                                   bool release_tiles) {
  if (backlinks && !options.track_hops) throw Error("internal: backlinks need hop labels");
  const TileGrid& grid = store.grid();
  const std::uint32_t t = grid.tile, s = t + 2;
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t halo = static_cast<std::uint64_t>(s) * s;
  const bool labelled = store.labelled();
  (void)halo;
  const MemoryBudget::Reservation reservation =
      budget.reserve(sssp_output_tile_bytes(t, labelled, backlinks), "sssp output tile");

  std::vector<PathLength> dist(cells);
  std::vector<std::uint32_t> source, hops;
  if (labelled) {
    source.resize(cells);
    hops.resize(cells);
  }
  std::vector<std::uint8_t> back;
  std::vector<double> tile_values, halo_values;
  std::vector<PathLength> halo_dist;
  std::vector<std::uint32_t> halo_source, halo_hops;
  std::vector<RingCell> ring;
  if (backlinks) {
    back.resize(cells);
    tile_values.resize(cells);
    halo_values.resize(halo);
    halo_dist.resize(halo);
    halo_source.resize(halo);
    halo_hops.resize(halo);
    ring.resize(store.ring_cells());
  }

  SsspOutputStats stats;
  const std::uint64_t store_read_before = store.bytes_read(), input_read_before = input.bytes_read();
  const std::string phase = "sssp: write";
  const std::uint64_t tiles = grid.tile_count();
  progress.update(phase, 0, tiles);
  for (std::uint32_t ty = 0; ty < grid.tiles_y(); ++ty) {
    for (std::uint32_t tx = 0; tx < grid.tiles_x(); ++tx) {
      const std::uint64_t tile = static_cast<std::uint64_t>(ty) * grid.tiles_x() + tx;
      SsspTileResult result;
      result.tx = tx;
      result.ty = ty;
      result.x0 = static_cast<std::uint64_t>(tx) * t;
      result.y0 = static_cast<std::uint64_t>(ty) * t;
      result.width = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, grid.width - result.x0));
      result.height = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, grid.height - result.y0));
      result.stride = t;
      result.reached = store.interior_present(tile);
      store.read_interior(tile, dist.data(), labelled ? source.data() : nullptr, labelled ? hops.data() : nullptr);
      for (std::uint32_t y = 0; y < result.height; ++y)
        for (std::uint32_t x = 0; x < result.width; ++x) {
          const PathLength d = dist[static_cast<std::size_t>(y) * t + x];
          if (d == kUnreached) continue;
          ++stats.reached_cells;
          stats.max_dist = std::max(stats.max_dist, d);
        }
      result.dist = dist.data();
      if (options.track_source) result.source = source.data();
      if (backlinks) {
        std::fill(back.begin(), back.end(), kNoBacklink);
        if (result.reached) {
          input.read_tile(tx, ty, tile_values.data());
          std::fill(halo_dist.begin(), halo_dist.end(), kUnreached);
          for (std::uint32_t y = 0; y < t; ++y) {
            const std::size_t row = static_cast<std::size_t>(y + 1) * s + 1, in = static_cast<std::size_t>(y) * t;
            std::memcpy(&halo_values[row], &tile_values[in], t * sizeof(double));
            std::memcpy(&halo_dist[row], &dist[in], t * sizeof(PathLength));
            std::memcpy(&halo_source[row], &source[in], t * 4);
            std::memcpy(&halo_hops[row], &hops[in], t * 4);
          }
          store.read_ring(tile, 0, store.ring_cells(), ring.data());
          for (std::uint32_t r = 0; r < store.ring_cells(); ++r) {
            std::uint32_t hx, hy;
            ring_cell(t, r, &hx, &hy);
            const std::size_t i = static_cast<std::size_t>(hy) * s + hx;
            halo_dist[i] = ring[r].dist;
            halo_values[i] = ring[r].dist == kUnreached ? std::numeric_limits<double>::quiet_NaN() : ring[r].value;
            halo_source[i] = ring[r].source;
            halo_hops[i] = ring[r].hops;
          }
          bool overflow = false;
          WeightParams tile_params = options.params;
          tile_params.steps.row0 = static_cast<std::int64_t>(ty) * t - 1;
          const std::uint64_t missing =
              backlinks_cpu(halo_values.data(), t, tile_params, options.connectivity, halo_dist.data(),
                            halo_source.data(), halo_hops.data(), back.data(), &overflow);
          if (missing != 0)
            throw Error("internal: " + std::to_string(missing) + " reached cells of tile (" + std::to_string(tx) +
                        ", " + std::to_string(ty) + ") have no predecessor in the final labels");
        }
        result.backlink = back.data();
      }
      sink.write_tile(result);
      if (release_tiles) store.release(tile);
      progress.update(phase, tile + 1, tiles, (tile + 1) * cells);
    }
  }
  stats.bytes_read = (store.bytes_read() - store_read_before) + (input.bytes_read() - input_read_before);
  return stats;
}

}  // namespace terrazo
