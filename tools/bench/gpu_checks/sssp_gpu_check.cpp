// tools/bench/gpu_checks/sssp_gpu_check.cpp: the SSSP exchange with the CUDA batch solver (--device cuda) against the
// Dijkstra reference and against the CPU exchange, on the GPU machine, where GDAL is not installed:
// it drives engine/sssp/exchange.h and engine/sssp/output.h on rasters held in memory, like
// test_sssp_pipeline's SsspCore tests, and times CPU vs CUDA on one larger raster.
//
// Build here (GDAL-free: CMake target terrazo_sssp_gpu_check, also in the GPU-only build), carry
// the binary, run it there:
//   cmake -S . -B .devbuild -G Ninja -DTERRAZO_GPU_ONLY=ON && ninja -C .devbuild terrazo_sssp_gpu_check
//   terrazo_sssp_gpu_check [RANDOM_CASES=60] [SIDE=4096] [UNIT_SIDE=SIDE]
// UNIT_SIDE: the --weight unit comparison (frontier BFS against the generic block solvers, CPU and
// CUDA, streamed and resident: check_unit_large); 0 skips it.
// Exit status 0 when every comparison holds; prints one line per check and the timings.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "engine/sssp/distance_store.h"
#include "engine/sssp/exchange.h"
#include "engine/sssp/resident_exchange.h"
#include "engine/sssp/output.h"
#include "kernels/common/cuda_device.h"
#include "tests/support/exchange_sources.h"
#include "tests/support/memory_tile_input.h"
#include "tests/support/sssp_reference.h"

namespace terrazo {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();


class CaptureSink : public SsspResultSink {
 public:
  explicit CaptureSink(std::uint64_t width, std::uint64_t height) : width_(width), dist(width * height) {}
  void write_tile(const SsspTileResult& r) override {
    for (std::uint32_t y = 0; y < r.height; ++y)
      for (std::uint32_t x = 0; x < r.width; ++x)
        dist[(r.y0 + y) * width_ + r.x0 + x] = r.dist[static_cast<std::size_t>(y) * r.stride + x];
  }
  std::uint64_t width_;
  std::vector<PathLength> dist;
};

struct Run {
  std::vector<PathLength> dist;
  SsspExchangeStats stats;
  double seconds = 0;
};

// resident_g > 0: the resident exchange with that tile side (distances only), else the streamed one.
Run run_exchange(const std::vector<double>& values, std::uint64_t w, std::uint64_t h, std::uint32_t t,
                 SsspExchangeOptions options, const std::vector<std::pair<std::uint64_t, std::uint32_t>>& sources,
                 std::uint32_t resident_g = 0) {
  const std::string path = "/tmp/sssp_gpu_check." + std::to_string(::getpid()) + ".dist";
  MemoryBudget budget(8ull << 30);
  MemoryTileInput input(values, w, h, t, MemoryTileInput<>::Absent::Never);
  DistanceStore store(path, input.grid(), false, budget);
  Run run;
  const auto start = std::chrono::steady_clock::now();
  {
    std::unique_ptr<SsspExchangeRun> run_of;
    if (resident_g)
      run_of = std::make_unique<ResidentSsspExchange>(input, store, options, resident_g, 0, 0, budget, Progress::silent());
    else
      run_of = std::make_unique<SsspExchange>(input, store, options, budget);
    SsspExchangeRun& exchange = *run_of;
    testing::add_cell_sources(exchange, input.grid(), sources);
    exchange.run(Progress::silent());
    exchange.flush();
    run.stats = exchange.stats();
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CaptureSink sink(w, h);
  write_sssp_results(input, store, options, false, sink, budget, Progress::silent());
  run.dist = std::move(sink.dist);
  return run;
}

int check_random(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const std::uint64_t w = 17 + rng() % 300, h = 9 + rng() % 300;
  const std::uint32_t tiles[] = {16, 32, 64, 128};
  const std::uint32_t t = tiles[rng() % 4];
  std::vector<double> values(w * h);
  const double range = (rng() % 2) ? 4.0 : 1000.0;
  const bool integral = rng() % 2;
  for (auto& v : values) {
    v = unit(rng) * range;
    if (integral) v = std::floor(v);
    if (unit(rng) < 0.1) v = kNaN;
  }
  SsspExchangeOptions o;
  const int model = static_cast<int>(rng() % 4);  // 3: unit, through the frontier BFS block solver
  o.params.model = model == 0 ? WeightModel::Max : model == 1 ? WeightModel::AbsDiff : model == 2 ? WeightModel::Friction : WeightModel::Unit;
  o.params.scale = (rng() % 2) ? 1.0 : 1000.0;
  o.connectivity = (rng() % 3 == 0) ? Connectivity::Four : Connectivity::Eight;
  if (rng() % 4 == 0) o.max_cost = static_cast<PathLength>(unit(rng) * range * o.params.scale * 30);
  std::vector<std::pair<std::uint64_t, std::uint32_t>> sources;
  const int count = 1 + static_cast<int>(rng() % 4);
  for (int k = 0; k < count; ++k) {
    std::uint64_t c;
    do c = rng() % (w * h);
    while (values[c] != values[c]);
    sources.push_back({c, 0});
  }
  testing::SsspReferenceProblem ref = testing::reference_problem(w, h, values.data(), o.params, o.connectivity);
  ref.max_cost = o.max_cost;
  testing::set_reference_sources(ref, sources);
  testing::sssp_reference(ref);
  o.device = Device::Cuda;
  o.batch = 1 + static_cast<std::uint32_t>(rng() % 64);
  if (rng() % 2) o.cache_bytes = (o.batch + 2) * (static_cast<std::uint64_t>(t + 2) * (t + 2) * 16 + t * t + 128);
  const Run gpu = run_exchange(values, w, h, t, o, sources);
  const bool ok = gpu.dist == ref.dist;
  std::printf("%s random seed %llu: %llux%llu t=%u batch %u, %llu solves, %llu cache evictions\n", ok ? "ok  " : "FAIL",
              static_cast<unsigned long long>(seed), static_cast<unsigned long long>(w),
              static_cast<unsigned long long>(h), t, o.batch, static_cast<unsigned long long>(gpu.stats.solves),
              static_cast<unsigned long long>(gpu.stats.cache_evictions));
  return ok ? 0 : 1;
}

int check_large(std::uint64_t side, std::uint32_t t) {
  std::mt19937_64 rng(99);
  std::vector<double> values(side * side);
  // Smooth friction with some structure: sums of a few sine waves, plus noise.
  for (std::uint64_t y = 0; y < side; ++y)
    for (std::uint64_t x = 0; x < side; ++x)
      values[y * side + x] = 100 + 40 * std::sin(x * 0.003) * std::cos(y * 0.002) + static_cast<double>(rng() % 20);
  SsspExchangeOptions o;
  o.params.model = WeightModel::Friction;
  o.params.scale = 1e5;
  const std::vector<std::pair<std::uint64_t, std::uint32_t>> sources = {{(side / 2) * side + side / 3, 0}};
  o.device = Device::Cpu;
  o.threads = 16;
  o.batch = 16;
  const Run cpu = run_exchange(values, side, side, t, o, sources);
  o.device = Device::Cuda;
  o.threads = 1;
  o.batch = 64;
  const Run gpu = run_exchange(values, side, side, t, o, sources);
  const bool ok = cpu.dist == gpu.dist;
  std::printf("%s large %llux%llu t=%u: exchange CPU (16 threads) %.2f s, %llu solves; CUDA (batches of 64) %.2f s, "
              "%llu solves, %llu rounds\n",
              ok ? "ok  " : "FAIL", static_cast<unsigned long long>(side), static_cast<unsigned long long>(side), t,
              cpu.seconds, static_cast<unsigned long long>(cpu.stats.solves), gpu.seconds,
              static_cast<unsigned long long>(gpu.stats.solves), static_cast<unsigned long long>(gpu.stats.rounds));
  return ok ? 0 : 1;
}

// --weight unit (hop counts) on a side x side raster with nodata walls and holes: the frontier BFS
// block solver against the generic ones (sweeps on the GPU, Dijkstra on the CPU), streamed and
// resident exchange, all in this one process; every run must give the same distances.
int check_unit_large(std::uint64_t side, std::uint32_t t) {
  std::mt19937_64 rng(7);
  std::vector<double> values(side * side, 1.0);
  // Holes (10%) and long walls with gaps: BFS fronts that wind around barriers.
  for (double& v : values)
    if (rng() % 10 == 0) v = kNaN;
  for (std::uint64_t k = 0; k < side / 64; ++k) {
    const std::uint64_t y = rng() % side, x = rng() % side, len = side / 4 + rng() % (side / 2);
    const bool horizontal = k % 2;
    for (std::uint64_t i = 0; i < len; ++i) {
      const std::uint64_t xx = horizontal ? (x + i) % side : x, yy = horizontal ? y : (y + i) % side;
      if (i % 97 != 0) values[yy * side + xx] = kNaN;
    }
  }
  SsspExchangeOptions o;
  o.params.model = WeightModel::Unit;
  o.params.scale = 1.0;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> sources = {{(side / 2) * side + side / 3, 0}};
  values[sources[0].first] = 1.0;
  struct Variant {
    const char* name;
    Device device;
    bool bfs;
    std::uint32_t resident_g;
  };
  const Variant variants[] = {
      {"CPU 16 threads, streamed, BFS twin", Device::Cpu, true, 0},
      {"CPU 16 threads, streamed, Dijkstra", Device::Cpu, false, 0},
      {"CUDA streamed, frontier BFS", Device::Cuda, true, 0},
      {"CUDA streamed, sweeps", Device::Cuda, false, 0},
      {"CUDA resident g=64, frontier BFS", Device::Cuda, true, 64},
      {"CUDA resident g=64, sweeps", Device::Cuda, false, 64},
  };
  std::vector<PathLength> first;
  int failures = 0;
  for (const Variant& v : variants) {
    o.device = v.device;
    o.threads = v.device == Device::Cpu ? 16 : 1;
    o.batch = v.device == Device::Cpu ? 16 : 64;
    o.frontier_bfs = v.bfs;
    const Run run = run_exchange(values, side, side, t, o, sources, v.resident_g);
    if (first.empty()) first = run.dist;
    const bool ok = run.dist == first;
    failures += ok ? 0 : 1;
    std::printf("%s unit %llux%llu t=%u %-38s %.2f s, %llu solves, %llu rounds\n", ok ? "ok  " : "FAIL",
                static_cast<unsigned long long>(side), static_cast<unsigned long long>(side), t, v.name, run.seconds,
                static_cast<unsigned long long>(run.stats.solves), static_cast<unsigned long long>(run.stats.rounds));
    std::fflush(stdout);
  }
  return failures;
}

}  // namespace
}  // namespace terrazo

int main(int argc, char** argv) {
  using namespace terrazo;
  if (!cuda_device().available) {
    std::printf("no CUDA device: %s\n", cuda_device().reason.c_str());
    return 0;
  }
  std::printf("device: %s\n", cuda_device().name.c_str());
  const int randoms = argc > 1 ? std::atoi(argv[1]) : 60;
  const std::uint64_t side = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 4096;
  int failures = 0;
  for (int seed = 1; seed <= randoms; ++seed) failures += check_random(static_cast<std::uint64_t>(seed));
  failures += check_large(side, 256);
  const std::uint64_t unit_side = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : side;
  if (unit_side) failures += check_unit_large(unit_side, 256);
  std::printf("%s: %d failures\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
