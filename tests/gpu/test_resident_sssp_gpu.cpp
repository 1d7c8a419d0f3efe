// tests/gpu/test_resident_sssp_gpu.cpp: the CUDA resident SSSP solver (kernels/sssp/resident_sssp.cu)
// against its CPU twin, bit for bit, and against the plain Dijkstra oracle of gpu_test_support.h
// on fresh random rasters (the seed is printed; TERRAZO_TEST_SEED reproduces a run). Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/worker_pool.h"
#include "kernels/common/cuda_device.h"
#include "kernels/sssp/block_sssp.h"
#include "kernels/sssp/resident_sssp.h"
#include "kernels/sssp/resident_sssp_steps.h"
#include "tests/support/gpu_test_support.h"

namespace terrazo {
namespace {

std::vector<PathLength> run_solver(Device device, const ResidentSsspOptions& options, const std::vector<double>& values,
                                   const std::vector<std::uint64_t>& sources, ResidentSsspStats* stats) {
  WorkerPool pool(2);
  auto solver = make_resident_sssp_solver(device, options, pool);
  const std::uint64_t w = options.width, h = options.height;
  // Windows of up to 100 x 37 cells, as the engine sends store tiles.
  std::vector<double> window;
  for (std::uint64_t y0 = 0; y0 < h; y0 += 37)
    for (std::uint64_t x0 = 0; x0 < w; x0 += 100) {
      const auto ww = static_cast<std::uint32_t>(std::min<std::uint64_t>(100, w - x0));
      const auto wh = static_cast<std::uint32_t>(std::min<std::uint64_t>(37, h - y0));
      window.resize(static_cast<std::size_t>(ww) * wh);
      for (std::uint32_t y = 0; y < wh; ++y)
        for (std::uint32_t x = 0; x < ww; ++x) window[static_cast<std::size_t>(y) * ww + x] = values[(y0 + y) * w + x0 + x];
      solver->write_values(x0, y0, ww, wh, window.data());
    }
  for (std::uint64_t cell : sources) solver->set_source(cell % w, cell / w);
  *stats = solver->solve([](std::uint64_t, std::uint64_t) {});
  std::vector<PathLength> dist(w * h);
  solver->read_distances(0, 0, static_cast<std::uint32_t>(w), static_cast<std::uint32_t>(h), dist.data());
  return dist;
}

// 1 to `most` random valid source cells of a side x side raster.
std::vector<std::uint64_t> random_sources(const std::vector<double>& values, std::uint32_t side, int most,
                                          std::mt19937_64& rng) {
  std::vector<std::uint64_t> sources;
  for (int s = 0, n = 1 + static_cast<int>(rng() % most); s < n; ++s) {
    const std::uint64_t cell = rng() % (static_cast<std::uint64_t>(side) * side);
    if (values[cell] == values[cell]) sources.push_back(cell);
  }
  return sources;
}

// One case: the CUDA solver against its CPU twin bit for bit (overflow included), then both against
// `oracle(window, seeds)`, which solves the raster as one tile inside a nodata halo of `halo` cells
// (`window`, (side + 2 halo)^2 cells, the sources' entries of `seeds` 0, the others kUnreached) and
// returns that window's distances. The GPU's rounds are added to `rounds`; nothing is compared
// with the oracle when the CPU twin overflowed.
template <class Oracle>
void expect_matches_cpu_twin_and_oracle(const ResidentSsspOptions& o, const std::vector<double>& values,
                                        const std::vector<std::uint64_t>& sources, std::uint32_t halo,
                                        const std::string& what, Oracle oracle, std::uint64_t* rounds) {
  const auto side = static_cast<std::uint32_t>(o.width);
  ResidentSsspStats gpu_stats, cpu_stats;
  const auto gpu = run_solver(Device::Cuda, o, values, sources, &gpu_stats);
  const auto cpu = run_solver(Device::Cpu, o, values, sources, &cpu_stats);
  ASSERT_EQ(gpu_stats.overflow, cpu_stats.overflow) << what;
  if (cpu_stats.overflow) return;
  const std::uint32_t s = side + 2 * halo;
  std::vector<double> window(static_cast<std::size_t>(s) * s, std::numeric_limits<double>::quiet_NaN());
  std::vector<PathLength> seeds(window.size(), kUnreached);
  for (std::uint32_t y = 0; y < side; ++y)
    for (std::uint32_t x = 0; x < side; ++x)
      window[(y + halo) * s + x + halo] = values[static_cast<std::size_t>(y) * side + x];
  for (std::uint64_t cell : sources) seeds[(cell / side + halo) * s + cell % side + halo] = 0;
  const std::vector<PathLength> want = oracle(window, std::move(seeds));
  ASSERT_EQ(want.size(), window.size()) << what;
  for (std::uint64_t i = 0; i < gpu.size(); ++i) {
    ASSERT_EQ(gpu[i], cpu[i]) << what << " cell " << i % side << "," << i / side;
    ASSERT_EQ(gpu[i], want[(i / side + halo) * s + i % side + halo]) << what << " cell " << i % side << "," << i / side;
  }
  *rounds += gpu_stats.rounds;
}

// The random cases' rounds: batches of 3 or 4096 tiles, rounds of 2 or 2048, a max cost in one case
// of four and, in one of two, 2..8 device slots (paged on the GPU when the raster has more tiles).
void random_rounds(ResidentSsspOptions& o, std::mt19937_64& rng) {
  o.batch_tiles = rng() % 2 ? 3 : 4096;
  o.round_tiles = rng() % 2 ? 2 : 2048;
  if (rng() % 4 == 0) o.max_cost = rng() % 100000;
  if (rng() % 2 == 0) o.device_slots = 2 + rng() % 7;
}

std::string case_name(std::uint64_t seed, const char* kind, int k, std::uint32_t side, const ResidentSsspOptions& o,
                      const gpu_testing::TileSpec& spec) {
  return "seed " + std::to_string(seed) + " " + kind + std::to_string(k) + ": side " + std::to_string(side) + " g " +
         std::to_string(o.g) + " " + gpu_testing::pattern_name(spec.pattern) + " " + to_string(o.params.model);
}

TEST(GpuResidentSssp, RandomRastersMatchCpuTwinAndOracle) {
  TERRAZO_REQUIRE_GPU();
  const std::uint64_t seed = gpu_testing::run_seed();
  std::mt19937_64 rng(seed);
  const std::uint32_t sides[] = {1, 7, 33, 64, 100, 257, 512};
  const std::uint32_t gs[] = {8, 16, 32, 64, 128};
  std::uint64_t total_rounds = 0;
  for (int k = 0; k < 60; ++k) {
    const std::uint32_t side = sides[rng() % 7];
    gpu_testing::TileSpec spec = gpu_testing::random_spec(side, rng);
    spec.negative = rng() % 4 == 0;
    const std::vector<double> values = gpu_testing::random_values(spec, rng);
    ResidentSsspOptions o;
    o.width = side;
    o.height = side;
    o.g = gs[rng() % 5];
    o.params = gpu_testing::random_params(rng, spec.negative);
    if (o.params.model == WeightModel::Friction && spec.negative) o.params.model = WeightModel::AbsDiff;
    o.connectivity = rng() % 3 == 0 ? Connectivity::Four : Connectivity::Eight;
    random_rounds(o, rng);
    const std::vector<std::uint64_t> sources = random_sources(values, side, 3, rng);
    const std::string what = case_name(seed, "case ", k, side, o, spec) + " slots " + std::to_string(o.device_slots);
    // The oracle: the raster as one tile whose halo is nodata.
    expect_matches_cpu_twin_and_oracle(
        o, values, sources, 1, what,
        [&](const std::vector<double>& window, std::vector<PathLength> seeds) {
          bool overflow = false;
          return gpu_testing::dijkstra_tile(window.data(), side, o.params, o.connectivity, o.max_cost, seeds, &overflow);
        },
        &total_rounds);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(total_rounds, 60u);
}

// Knight's moves (--connectivity 16): the CUDA rounds ((g+4)^2 windows, the knight block kernel,
// activations from the two-cell border band) against the CPU twin bit for bit, and against the CPU
// knight block solver run on the whole raster as one tile (checked against the 16-neighbour oracle
// in tests/test_knight.cpp), on fresh random rasters: tiles of 2..128 cells, nodata holes and walls,
// several sources, max cost, cell and map step lengths.
TEST(GpuResidentSssp, KnightRandomRastersMatchCpuTwinAndOracle) {
  TERRAZO_REQUIRE_GPU();
  const std::uint64_t seed = gpu_testing::run_seed();
  std::mt19937_64 rng(seed ^ 0x16ull);
  const std::uint32_t sides[] = {1, 5, 33, 64, 100, 257, 400};
  const std::uint32_t gs[] = {2, 3, 8, 16, 64, 128};
  std::uint64_t total_rounds = 0;
  for (int k = 0; k < 50; ++k) {
    const std::uint32_t side = sides[rng() % 7];
    gpu_testing::TileSpec spec = gpu_testing::random_spec(side, rng);
    const std::vector<double> values = gpu_testing::random_values(spec, rng);
    ResidentSsspOptions o;
    o.width = side;
    o.height = side;
    o.g = gs[rng() % 6];
    o.connectivity = Connectivity::Sixteen;
    o.params = gpu_testing::random_params(rng, false);
    o.params.model = k % 3 == 0 ? WeightModel::Friction : k % 3 == 1 ? WeightModel::Geometric : WeightModel::Unit;
    if (k % 4 == 3) {  // --distance map on 30 x 20 cells
      o.params.steps.ew = 30;
      o.params.steps.ns = 20;
      o.params.steps.diag = std::sqrt(1300.0);
      o.params.steps.min_length = 20;
      o.params.steps.max_length = std::sqrt(1300.0);
    }
    random_rounds(o, rng);
    const std::vector<std::uint64_t> sources = random_sources(values, side, 4, rng);
    const std::string what = case_name(seed, "knight case ", k, side, o, spec) + " slots " + std::to_string(o.device_slots);
    // The oracle: the raster as one tile whose two-cell halo is nodata.
    expect_matches_cpu_twin_and_oracle(
        o, values, sources, 2, what,
        [&](const std::vector<double>& window, std::vector<PathLength> dist) {
          std::vector<std::uint8_t> changed(static_cast<std::size_t>(side) * side);
          bool overflow = false;
          block_sssp_cpu(window.data(), side, o.params, Connectivity::Sixteen, o.max_cost, dist.data(), changed.data(),
                         &overflow);
          EXPECT_FALSE(overflow) << what;
          return dist;
        },
        &total_rounds);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(total_rounds, 50u);
}

// The paged solver (a few device slots for thousands of tiles, so nearly every group pages) against
// the solver with every tile on the device and the CPU twin, bit for bit, with the paging counted.
TEST(GpuResidentSssp, PagedMatchesResidentAndCpuTwin) {
  TERRAZO_REQUIRE_GPU();
  const std::uint64_t seed = gpu_testing::run_seed();
  std::mt19937_64 rng(seed ^ 0x9a9edull);
  int paged_cases = 0;
  for (int k = 0; k < 6; ++k) {
    const std::uint32_t side = 600 + static_cast<std::uint32_t>(rng() % 300);
    gpu_testing::TileSpec spec = gpu_testing::random_spec(side, rng);
    const std::vector<double> values = gpu_testing::random_values(spec, rng);
    ResidentSsspOptions o;
    o.width = side;
    o.height = side + 17;
    o.g = k % 2 ? 16 : 32;
    o.params = gpu_testing::random_params(rng, false);
    o.connectivity = k % 3 == 2 ? Connectivity::Sixteen : Connectivity::Eight;
    o.round_tiles = 64;
    std::vector<double> tall(values);
    tall.resize(static_cast<std::size_t>(side) * (side + 17), 1.0);
    const std::vector<std::uint64_t> sources = random_sources(values, side, 5, rng);
    const std::string what = "seed " + std::to_string(seed) + " paged case " + std::to_string(k) + " side " +
                             std::to_string(side) + " g " + std::to_string(o.g);
    ResidentSsspStats resident_stats, paged_stats, cpu_stats;
    const auto resident = run_solver(Device::Cuda, o, tall, sources, &resident_stats);
    o.device_slots = 40 + rng() % 100;
    const auto paged = run_solver(Device::Cuda, o, tall, sources, &paged_stats);
    const auto cpu = run_solver(Device::Cpu, o, tall, sources, &cpu_stats);
    ASSERT_EQ(paged_stats.overflow, cpu_stats.overflow) << what;
    ASSERT_EQ(resident, cpu) << what;
    ASSERT_EQ(paged, cpu) << what;
    EXPECT_EQ(resident_stats.pages_in, 0u) << what;
    // Tiles are paged only when the search reaches more tiles than there are slots (the random
    // sources may all fall on nodata, or in a small region that nodata closes).
    if (cpu_stats.tiles_solved > o.device_slots) {
      ++paged_cases;
      EXPECT_GT(paged_stats.pages_in, o.device_slots) << what;
      EXPECT_GT(paged_stats.pages_out, 0u) << what;
    }
  }
  EXPECT_GE(paged_cases, 3) << "seed " << seed << ": too few cases reached more tiles than the slots";
}

// The round-at-a-time interface a distributed exchange drives (smallest_key, solve_round and the
// shared cells: engine/sssp/resident_ranks.cpp): the raster cut into a top and a bottom window that
// overlap by 2 halo rows, each on its own solver (CUDA or the CPU twin), the rounds agreed and the
// shared rows traded as two ranks do; the rows each owns must be the whole-raster CPU twin's, bit
// for bit, whatever the devices.
std::vector<PathLength> solve_split(Device top_device, Device bottom_device, const ResidentSsspOptions& whole,
                                    const std::vector<double>& values, const std::vector<std::uint64_t>& sources,
                                    std::uint64_t cut) {
  WorkerPool pool(2);
  const std::uint64_t w = whole.width, h = whole.height, halo = halo_width(whole.connectivity);
  const std::uint64_t top_rows = cut + halo, bottom_y0 = cut - halo;
  ResidentSsspOptions top = whole, bottom = whole;
  top.height = top_rows;
  bottom.height = h - bottom_y0;
  auto top_solver = make_resident_sssp_solver(top_device, top, pool);
  auto bottom_solver = make_resident_sssp_solver(bottom_device, bottom, pool);
  top_solver->write_values(0, 0, static_cast<std::uint32_t>(w), static_cast<std::uint32_t>(top_rows), values.data());
  bottom_solver->write_values(0, 0, static_cast<std::uint32_t>(w), static_cast<std::uint32_t>(bottom.height),
                              values.data() + bottom_y0 * w);
  for (std::uint64_t cell : sources) {
    if (cell / w < cut) top_solver->set_source(cell % w, cell / w);
    else bottom_solver->set_source(cell % w, cell / w - bottom_y0);
  }
  std::vector<std::uint64_t> top_cells, bottom_cells;  // rows cut - halo .. cut + halo - 1, in each window
  for (std::uint64_t y = bottom_y0; y < top_rows; ++y)
    for (std::uint64_t x = 0; x < w; ++x) {
      top_cells.push_back(y * w + x);
      bottom_cells.push_back((y - bottom_y0) * w + x);
    }
  top_solver->set_exchange_cells(top_cells);
  bottom_solver->set_exchange_cells(bottom_cells);
  std::vector<PathLength> from_top(top_cells.size()), from_bottom(top_cells.size());
  NearFarSchedule schedule;
  schedule.target = 2 * whole.round_tiles;
  ResidentSsspStats top_stats, bottom_stats;
  for (;;) {
    top_solver->read_cells(from_top.data());
    bottom_solver->read_cells(from_bottom.data());
    top_solver->lower_cells(from_bottom.data());
    bottom_solver->lower_cells(from_top.data());
    const PathLength least = std::min(top_solver->smallest_key(), bottom_solver->smallest_key());
    if (least == kUnreached) break;
    const PathLength threshold = schedule.threshold(least);
    schedule.adapt(top_solver->solve_round(threshold, top_stats) + bottom_solver->solve_round(threshold, bottom_stats));
  }
  std::vector<PathLength> dist(w * h);
  top_solver->read_distances(0, 0, static_cast<std::uint32_t>(w), static_cast<std::uint32_t>(cut), dist.data());
  bottom_solver->read_distances(0, halo, static_cast<std::uint32_t>(w), static_cast<std::uint32_t>(h - cut),
                                dist.data() + cut * w);
  return dist;
}

TEST(GpuResidentSssp, RoundsWithSharedCellsMatchCpuTwinOnTheWholeRaster) {
  TERRAZO_REQUIRE_GPU();
  const std::uint64_t seed = gpu_testing::run_seed();
  std::mt19937_64 rng(seed ^ 0x5a1dull);
  const std::uint32_t sides[] = {9, 40, 100, 257, 400};
  for (int k = 0; k < 30; ++k) {
    const std::uint32_t side = sides[rng() % 5];
    gpu_testing::TileSpec spec = gpu_testing::random_spec(side, rng);
    const std::vector<double> values = gpu_testing::random_values(spec, rng);
    ResidentSsspOptions o;
    o.width = side;
    o.height = side;
    o.g = 8u << (rng() % 4);
    o.params = gpu_testing::random_params(rng, false);
    // Uniform step lengths: solve_split counts both windows' rows alike (no per-row table to offset).
    ASSERT_EQ(o.params.steps.rows, nullptr);
    const int c = static_cast<int>(rng() % 3);
    o.connectivity = c == 0 ? Connectivity::Four : c == 1 ? Connectivity::Eight : Connectivity::Sixteen;
    if (o.connectivity == Connectivity::Sixteen && o.params.model != WeightModel::Friction) o.params.model = WeightModel::Geometric;
    o.round_tiles = rng() % 2 ? 2 : 256;
    if (rng() % 4 == 0) o.max_cost = rng() % 100000;
    const std::vector<std::uint64_t> sources = random_sources(values, side, 3, rng);
    const std::uint64_t halo = halo_width(o.connectivity);
    const std::uint64_t cut = halo + rng() % (side - 2 * halo + 1);  // both windows hold at least the halo
    const std::string what = case_name(seed, "split case ", k, side, o, spec) + " cut " + std::to_string(cut);
    ResidentSsspStats stats;
    const auto whole = run_solver(Device::Cpu, o, values, sources, &stats);
    if (stats.overflow) continue;
    ASSERT_EQ(solve_split(Device::Cuda, Device::Cuda, o, values, sources, cut), whole) << what << " cuda/cuda";
    ASSERT_EQ(solve_split(Device::Cpu, Device::Cuda, o, values, sources, cut), whole) << what << " cpu/cuda";
    ASSERT_EQ(solve_split(Device::Cpu, Device::Cpu, o, values, sources, cut), whole) << what << " cpu/cpu";
  }
}

}  // namespace
}  // namespace terrazo
