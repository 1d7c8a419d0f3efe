// tests/support/gpu_test_support.h: random tiles and simple oracles for the GPU block-solver tests,
// and what every GPU test starts with (TERRAZO_REQUIRE_GPU, the run's seed).
//
// The oracles are deliberately plain (sort + union-find, binary-heap Dijkstra) and independent of
// the CPU twins, so a test compares three implementations: CUDA, the CPU twin, and the oracle.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <queue>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/common/cuda_device.h"
#include "kernels/common/tile_geometry.h"
#include "kernels/common/worker_pool.h"
#include "kernels/sssp/block_sssp.h"
#include "kernels/sssp/block_sssp_batch.h"
#include "kernels/sssp/resident_sssp.h"

// Skips the test, saying why, where there is no CUDA device (or the build has no CUDA).
#define TERRAZO_REQUIRE_GPU()                                                          \
  do {                                                                                 \
    if (!cuda_device().available) GTEST_SKIP() << "no GPU: " << cuda_device().reason; \
  } while (0)

namespace terrazo::gpu_testing {

// The random seed of this run: $TERRAZO_TEST_SEED when set (to reproduce a failure), else fresh.
inline std::uint64_t run_seed() {
  static const std::uint64_t seed = [] {
    if (const char* text = std::getenv("TERRAZO_TEST_SEED")) return static_cast<std::uint64_t>(std::strtoull(text, nullptr, 10));
    std::random_device device;
    return (static_cast<std::uint64_t>(device()) << 32) ^ device();
  }();
  return seed;
}

enum class Pattern { Continuous, FewLevels, Flat, Terrain, Integers };

inline const char* pattern_name(Pattern p) {
  switch (p) {
    case Pattern::Continuous: return "continuous";
    case Pattern::FewLevels: return "few-levels";
    case Pattern::Flat: return "flat";
    case Pattern::Terrain: return "terrain";
    default: return "integers";
  }
}

struct TileSpec {
  std::uint32_t side = 16;       // cells per row of the generated array (t, or t + 2 with a halo)
  Pattern pattern = Pattern::Continuous;
  double nodata_fraction = 0.0;  // isolated NaN cells
  bool nodata_wall = false;      // a NaN row or column splitting the tile
  bool negative = false;         // values may be negative (max model: offset)
};

// Values of one side x side array following the spec.
inline std::vector<double> random_values(const TileSpec& spec, std::mt19937_64& rng) {
  const std::uint32_t n = spec.side;
  std::vector<double> values(static_cast<std::size_t>(n) * n);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double base = spec.negative ? -50.0 : 0.0;
  const double flat_value = std::floor(unit(rng) * 100.0) + base;
  const double fx = 0.02 + 0.2 * unit(rng), fy = 0.02 + 0.2 * unit(rng), phase = 6.0 * unit(rng);
  for (std::uint32_t y = 0; y < n; ++y) {
    for (std::uint32_t x = 0; x < n; ++x) {
      double v = 0.0;
      switch (spec.pattern) {
        case Pattern::Continuous: v = base + 100.0 * unit(rng); break;
        case Pattern::FewLevels: v = base + std::floor(unit(rng) * 4.0); break;
        case Pattern::Flat: v = flat_value; break;
        case Pattern::Terrain:
          v = base + 50.0 + 30.0 * std::sin(fx * x + phase) * std::cos(fy * y) + 5.0 * unit(rng);
          v = std::round(v * 4.0) / 4.0;  // quarter units: plenty of ties
          break;
        case Pattern::Integers: v = base + std::floor(unit(rng) * 1000.0); break;
      }
      values[static_cast<std::size_t>(y) * n + x] = v;
    }
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (spec.nodata_fraction > 0.0) {
    for (double& v : values)
      if (unit(rng) < spec.nodata_fraction) v = nan;
  }
  if (spec.nodata_wall && n >= 3) {
    const std::uint32_t at = 1 + static_cast<std::uint32_t>(unit(rng) * (n - 2));
    const bool row = unit(rng) < 0.5;
    for (std::uint32_t i = 0; i < n; ++i) values[row ? static_cast<std::size_t>(at) * n + i : static_cast<std::size_t>(i) * n + at] = nan;
  }
  return values;
}

inline TileSpec random_spec(std::uint32_t side, std::mt19937_64& rng) {
  TileSpec spec;
  spec.side = side;
  spec.pattern = static_cast<Pattern>(rng() % 5);
  const std::uint64_t holes = rng() % 4;
  spec.nodata_fraction = holes == 0 ? 0.0 : holes == 1 ? 0.02 : holes == 2 ? 0.2 : 0.0;
  spec.nodata_wall = rng() % 4 == 0;
  return spec;
}

inline WeightParams random_params(std::mt19937_64& rng, bool negative_values) {
  WeightParams p;
  p.model = static_cast<WeightModel>(rng() % 3);
  const double scales[] = {1.0, 4.0, 10.0, 1000.0};
  p.scale = scales[rng() % 4];
  if (p.model == WeightModel::Max && negative_values) p.offset = -50.0;
  return p;
}

// ---- oracles ---------------------------------------------------------------------------------

inline std::uint32_t find_root(std::vector<std::uint32_t>& parent, std::uint32_t v) {
  while (parent[v] != v) v = parent[v] = parent[parent[v]];
  return v;
}

// Kruskal over all tile edges sorted by tile_edge_key.
inline std::vector<std::uint8_t> kruskal_forest(const double* values, std::uint32_t t, const WeightParams& params,
                                                Connectivity connectivity, bool* overflow) {
  const std::size_t cells = static_cast<std::size_t>(t) * t;
  std::vector<std::uint64_t> keys;
  for (std::uint32_t l = 0; l < cells; ++l) {
    const int x = static_cast<int>(l % t), y = static_cast<int>(l / t);
    for (int dir = 0; dir < 4; ++dir) {
      if (!direction_used(dir, connectivity)) continue;
      const int nx = x + kDirDx[dir], ny = y + kDirDy[dir];
      if (nx < 0 || ny < 0 || nx >= static_cast<int>(t) || ny >= static_cast<int>(t)) continue;
      const Weight w = edge_weight(params, values[l], values[static_cast<std::size_t>(ny) * t + nx], is_diagonal(dir), overflow);
      if (w != kNoEdge) keys.push_back(tile_edge_key(w, tile_edge_id(l, dir)));
    }
  }
  std::sort(keys.begin(), keys.end());
  std::vector<std::uint32_t> parent(cells);
  std::iota(parent.begin(), parent.end(), 0u);
  std::vector<std::uint8_t> bits(cells, 0);
  for (const std::uint64_t key : keys) {
    const std::uint32_t id = static_cast<std::uint32_t>(key);
    const std::uint32_t l = tile_edge_owner(id);
    const int dir = tile_edge_direction(id);
    const std::uint32_t m = static_cast<std::uint32_t>(static_cast<int>(l) + kDirDy[dir] * static_cast<int>(t) + kDirDx[dir]);
    const std::uint32_t a = find_root(parent, l), b = find_root(parent, m);
    if (a == b) continue;
    parent[a] = b;
    bits[l] |= static_cast<std::uint8_t>(1u << dir);
  }
  return bits;
}

// Binary-heap Dijkstra on the (t+2)^2 halo grid, as the block_sssp.h contract states it.
inline std::vector<PathLength> dijkstra_tile(const double* values, std::uint32_t t, const WeightParams& params,
                                             Connectivity connectivity, PathLength max_cost,
                                             const std::vector<PathLength>& dist_in, bool* overflow) {
  const int s = static_cast<int>(t) + 2;
  std::vector<PathLength> dist = dist_in;
  auto interior_valid = [&](int x, int y) {
    return x >= 1 && y >= 1 && x <= static_cast<int>(t) && y <= static_cast<int>(t) &&
           !std::isnan(values[static_cast<std::size_t>(y) * s + x]);
  };
  using Entry = std::pair<PathLength, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  for (int i = 0; i < s * s; ++i)
    if (dist[i] != kUnreached && dist[i] <= max_cost) queue.push({dist[i], i});
  while (!queue.empty()) {
    const auto [d, u] = queue.top();
    queue.pop();
    if (d != dist[u]) continue;
    const int ux = u % s, uy = u / s;
    for (int dir = 0; dir < 8; ++dir) {
      if (!direction_used(dir, connectivity)) continue;
      const int vx = ux + kDirDx[dir], vy = uy + kDirDy[dir];
      if (!interior_valid(vx, vy)) continue;
      const int v = vy * s + vx;
      const Weight w = edge_weight(params, values[u], values[v], is_diagonal(dir), overflow);
      if (w == kNoEdge) continue;
      const PathLength candidate = d + w;
      if (candidate < d || candidate > max_cost || candidate >= dist[v]) continue;
      dist[v] = candidate;
      queue.push({candidate, v});
    }
  }
  return dist;
}

// Seeds and prior distances for one halo tile: a few interior sources (0), finite halo cells,
// some interior cells with stale upper bounds, the rest unreached.
inline std::vector<PathLength> random_seeds(std::uint32_t t, std::mt19937_64& rng, PathLength spread) {
  const std::uint32_t s = t + 2;
  std::vector<PathLength> dist(static_cast<std::size_t>(s) * s, kUnreached);
  std::uniform_int_distribution<PathLength> any(0, spread);
  const std::uint64_t kind = rng() % 4;  // 0: sources only, 1: halo only, 2: both, 3: plus stale bounds
  for (std::uint32_t y = 0; y < s; ++y) {
    for (std::uint32_t x = 0; x < s; ++x) {
      const bool halo = x == 0 || y == 0 || x == s - 1 || y == s - 1;
      PathLength& d = dist[static_cast<std::size_t>(y) * s + x];
      if (halo) {
        if (kind != 0 && rng() % 3 == 0) d = any(rng);
      } else {
        if (kind != 1 && rng() % (t * 4) == 0) d = 0;
        else if (kind == 3 && rng() % 5 == 0) d = any(rng) * 4;
      }
    }
  }
  if (kind == 0 && t >= 1) dist[static_cast<std::size_t>(1 + rng() % t) * s + 1 + rng() % t] = 0;
  return dist;
}

// The streamed solver's options for tiles of side t under `params` and `connectivity`, in batches
// of four tiles: the weight-model suites stream nine windows, so both slots and a short last batch
// are exercised.
inline SsspBatchOptions four_tile_batches(std::uint32_t t, const WeightParams& params, Connectivity connectivity) {
  SsspBatchOptions options;
  options.t = t;
  options.params = params;
  options.connectivity = connectivity;
  options.max_batch_tiles = 4;
  return options;
}

// Halo windows streamed through the two-slot CudaSsspBatchSolver made of `options` and `max_cost`,
// each checked bit for bit against block_sssp_cpu: distances, changed flags, the batch's changed
// count; neither reports an overflow, and every tile ends with a round that changes nothing.
// `windows`: (t+2)^2 values per tile; `dist_in`: their initial labels; `row0`: each window's row
// origin (StepLengths::row0) for a model with a row table, or empty where there is none.
inline void expect_streamed_sssp_matches_cpu(const SsspBatchOptions& options, PathLength max_cost,
                                             const std::vector<double>& windows, const std::vector<PathLength>& dist_in,
                                             const std::vector<std::int64_t>& row0 = {}) {
  const std::uint32_t t = options.t;
  const std::uint64_t grid = static_cast<std::uint64_t>(t + 2) * (t + 2), cells = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t count = dist_in.size() / grid;
  CudaSsspBatchSolver solver(options, max_cost);
  std::uint64_t next = 0, checked = 0;
  auto consume = [&](const CudaSsspBatchSolver::Batch& batch) {
    ASSERT_FALSE(batch.overflow);
    std::uint64_t changed_cells = 0;
    for (std::uint64_t i = 0; i < batch.tiles; ++i, ++checked) {
      std::vector<PathLength> cpu(dist_in.begin() + static_cast<std::ptrdiff_t>(checked * grid),
                                  dist_in.begin() + static_cast<std::ptrdiff_t>((checked + 1) * grid));
      std::vector<std::uint8_t> changed(cells);
      bool overflow = false;
      WeightParams p = options.params;
      if (!row0.empty()) p.steps.row0 = row0[checked];
      changed_cells += block_sssp_cpu(windows.data() + checked * grid, t, p, options.connectivity, max_cost, cpu.data(),
                                      changed.data(), &overflow);
      ASSERT_FALSE(overflow);
      ASSERT_EQ(0, std::memcmp(cpu.data(), batch.dist + i * grid, grid * sizeof(PathLength))) << "tile " << checked;
      ASSERT_EQ(0, std::memcmp(changed.data(), batch.changed + i * cells, cells)) << "tile " << checked;
    }
    EXPECT_EQ(batch.changed_cells, changed_cells);
    EXPECT_GE(batch.sweep_rounds, batch.tiles);
  };
  while (next < count) {
    if (solver.pending() == 2) consume(solver.wait());
    const std::uint64_t n = std::min<std::uint64_t>(solver.batch_tiles(), count - next);
    std::memcpy(solver.values(), windows.data() + next * grid, n * grid * sizeof(double));
    std::memcpy(solver.dist(), dist_in.data() + next * grid, n * grid * sizeof(PathLength));
    if (!row0.empty()) std::memcpy(solver.row0(), row0.data() + next, n * sizeof(std::int64_t));
    solver.submit(n);
    next += n;
  }
  while (solver.pending()) consume(solver.wait());
  EXPECT_EQ(checked, count);
}

// The distances of the resident exchange on `device` (2 threads) from `sources` (cell indices) over
// `values` (options.width x options.height); a test failure where it reports an overflow.
inline std::vector<PathLength> run_resident(Device device, const ResidentSsspOptions& options,
                                            const std::vector<double>& values, const std::vector<std::uint64_t>& sources) {
  WorkerPool pool(2);
  auto solver = make_resident_sssp_solver(device, options, pool);
  solver->write_values(0, 0, static_cast<std::uint32_t>(options.width), static_cast<std::uint32_t>(options.height),
                       values.data());
  for (std::uint64_t cell : sources) solver->set_source(cell % options.width, cell / options.width);
  const ResidentSsspStats stats = solver->solve([](std::uint64_t, std::uint64_t) {});
  EXPECT_FALSE(stats.overflow);
  std::vector<PathLength> dist(options.width * options.height);
  solver->read_distances(0, 0, static_cast<std::uint32_t>(options.width), static_cast<std::uint32_t>(options.height),
                         dist.data());
  return dist;
}

}  // namespace terrazo::gpu_testing
