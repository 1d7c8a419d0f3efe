// tools/bench/gpu_bench/gpu_bench.cpp: phase-1 throughput of the CUDA block solvers against their CPU
// twins (docs/benchmarks.md, "GPU block solvers"). Kernels only: no GDAL or Boost.
//
//   terrazo_gpu_bench [--cells N] [--mst-sizes 64,128,...|none] [--sssp-sizes 64,128,...|none]
//                     [--repeats R] [--threads N] [--placements] [--sssp-variants] [--quick] [--cpu-only]
// --placements: every scratch placement (shared where it fits, at most 48 KiB, global) for both
// solvers; --sssp-variants: every placement times both sweep methods for SSSP only.
//
// Input: deterministic generated terrain (fractal value noise, 0.1 m steps, ~0..2000 m), cut into
// t x t tiles (t+2 with the halo for SSSP), at least --cells cells and 256 tiles per size.
// MST: weight max, scale 10, 8-connected; SSSP: weight friction, scale 10, one source per tile plus
// finite distances on the west halo column (a first solve reaching the whole tile).
// GPU: CudaMstBatchSolver / CudaSsspBatchSolver; kernel times from CUDA events (median of --repeats
// after one warm-up), and the end-to-end time of streaming all tiles through both slots (copies to
// pinned memory, transfers, kernels, summary collection) measured by the wall clock.
// CPU: the twins (block_mst_cpu + block_reduce_cpu, block_sssp_cpu) on --threads std::threads.
// Every GPU output is compared with the CPU output, bit for bit; the table says "yes" or the count
// of tiles that differ (and the program exits 1).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/common/timer.h"
#include "kernels/mst/block_mst_batch.h"
#include "kernels/sssp/block_sssp_batch.h"
#include "kernels/mst/block_mst.h"
#include "kernels/mst/block_reduce.h"
#include "kernels/sssp/block_sssp.h"
#include "kernels/common/cuda_device.h"

namespace terrazo {
namespace {

struct Options {
  std::uint64_t cells = 1ull << 26;
  std::uint64_t min_tiles = 256;
  std::vector<std::uint32_t> mst_sizes{64, 128, 256, 512, 1024};
  std::vector<std::uint32_t> sssp_sizes{32, 64, 128, 256, 512};
  int repeats = 5;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  bool placements = false;
  bool sssp_variants = false;
  bool cpu_only = false;
};

[[noreturn]] void usage(const std::string& message) {
  std::fprintf(stderr,
               "terrazo_gpu_bench: %s\nusage: terrazo_gpu_bench [--cells N] [--mst-sizes 64,128|none] "
               "[--sssp-sizes 64,128|none] [--repeats R] [--threads N] [--placements] [--sssp-variants] [--quick] "
               "[--cpu-only]\n",
               message.c_str());
  std::exit(2);
}

std::vector<std::uint32_t> parse_sizes(const std::string& text) {
  std::vector<std::uint32_t> sizes;
  if (text == "none") return sizes;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    char* end = nullptr;
    const unsigned long value = std::strtoul(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || value == 0 || value > 16384) usage("bad tile size '" + item + "'");
    sizes.push_back(static_cast<std::uint32_t>(value));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return sizes;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--cells") o.cells = std::strtoull(value().c_str(), nullptr, 10);
    else if (arg == "--mst-sizes") o.mst_sizes = parse_sizes(value());
    else if (arg == "--sssp-sizes") o.sssp_sizes = parse_sizes(value());
    else if (arg == "--repeats") o.repeats = std::max(1, std::atoi(value().c_str()));
    else if (arg == "--threads") o.threads = static_cast<unsigned>(std::max(1, std::atoi(value().c_str())));
    else if (arg == "--placements") o.placements = true;
    else if (arg == "--sssp-variants") o.sssp_variants = true;
    else if (arg == "--cpu-only") o.cpu_only = true;
    else if (arg == "--quick") {
      o.cells = 1ull << 22;
      o.min_tiles = 16;
      o.repeats = 3;
    } else usage("unknown argument '" + arg + "'");
  }
  if (o.cells == 0) usage("--cells must be positive");
  return o;
}

// ---- terrain ---------------------------------------------------------------------------------

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

double lattice(std::int64_t x, std::int64_t y, int octave) {
  const std::uint64_t h = mix(static_cast<std::uint64_t>(x) * 0x632be59bd9b4e019ull ^ mix(static_cast<std::uint64_t>(y) + 977ull * octave));
  return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);
}

double value_noise(double x, double y, int octave) {
  const double fx = std::floor(x), fy = std::floor(y);
  const auto ix = static_cast<std::int64_t>(fx), iy = static_cast<std::int64_t>(fy);
  double u = x - fx, v = y - fy;
  u = u * u * (3.0 - 2.0 * u);
  v = v * v * (3.0 - 2.0 * v);
  const double a = lattice(ix, iy, octave), b = lattice(ix + 1, iy, octave);
  const double c = lattice(ix, iy + 1, octave), d = lattice(ix + 1, iy + 1, octave);
  return (a + (b - a) * u) + ((c + (d - c) * u) - (a + (b - a) * u)) * v;
}

// Elevation in metres at global cell (x, y), rounded to 0.1 m.
double terrain(std::int64_t x, std::int64_t y) {
  double h = 0.0, amplitude = 1000.0, period = 1024.0;
  for (int octave = 0; octave < 7; ++octave) {
    h += amplitude * value_noise(static_cast<double>(x) / period, static_cast<double>(y) / period, octave);
    amplitude *= 0.5;
    period *= 0.5;
  }
  return std::round(h * 10.0) / 10.0;
}

void parallel_for(std::uint64_t count, unsigned threads, const std::function<void(std::uint64_t)>& body) {
  std::atomic<std::uint64_t> next{0};
  std::vector<std::thread> pool;
  const unsigned n = static_cast<unsigned>(std::min<std::uint64_t>(threads, std::max<std::uint64_t>(1, count)));
  for (unsigned k = 0; k < n; ++k) {
    pool.emplace_back([&] {
      for (std::uint64_t i = next++; i < count; i = next++) body(i);
    });
  }
  for (std::thread& thread : pool) thread.join();
}

// `tiles` tiles of side t + 2*halo, laid out on a square grid of tiles.
std::vector<double> make_tiles(std::uint32_t t, std::uint32_t halo, std::uint64_t tiles, unsigned threads) {
  const std::uint64_t side = t + 2ull * halo;
  const std::uint64_t per_tile = side * side;
  const auto across = static_cast<std::uint64_t>(std::ceil(std::sqrt(static_cast<double>(tiles))));
  std::vector<double> values(tiles * per_tile);
  parallel_for(tiles, threads, [&](std::uint64_t i) {
    const std::int64_t x0 = static_cast<std::int64_t>((i % across) * t) - halo;
    const std::int64_t y0 = static_cast<std::int64_t>((i / across) * t) - halo;
    double* out = values.data() + i * per_tile;
    for (std::uint64_t y = 0; y < side; ++y)
      for (std::uint64_t x = 0; x < side; ++x)
        out[y * side + x] = terrain(x0 + static_cast<std::int64_t>(x), y0 + static_cast<std::int64_t>(y));
  });
  return values;
}

// ---- timing ----------------------------------------------------------------------------------

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

struct Row {
  std::string solver, placement, identical;
  std::uint32_t t = 0;
  std::uint64_t tiles = 0, cells = 0;
  double gpu_kernel_s = 0, gpu_e2e_s = 0, cpu_s = 0;
  double rounds_per_tile = 0;  // SSSP: relaxation rounds per tile (GPU)
};

std::vector<Row> g_rows;

double rate(std::uint64_t cells, double seconds) { return seconds > 0 ? static_cast<double>(cells) / seconds : 0.0; }

void print_row(const Row& r) {
  std::printf("%-12s %5u %7llu %11llu %-14s %10.2f %9.3f %10.2f %9.3f %10.1f %9.3f %8.1f %8.1f  %-9s %6.1f\n", r.solver.c_str(), r.t,
              static_cast<unsigned long long>(r.tiles), static_cast<unsigned long long>(r.cells), r.placement.c_str(),
              r.gpu_kernel_s * 1e3, rate(r.cells, r.gpu_kernel_s) / 1e9, r.gpu_e2e_s * 1e3, rate(r.cells, r.gpu_e2e_s) / 1e9,
              r.cpu_s * 1e3, rate(r.cells, r.cpu_s) / 1e9, r.cpu_s > 0 && r.gpu_kernel_s > 0 ? r.cpu_s / r.gpu_kernel_s : 0.0,
              r.cpu_s > 0 && r.gpu_e2e_s > 0 ? r.cpu_s / r.gpu_e2e_s : 0.0, r.identical.c_str(), r.rounds_per_tile);
  std::fflush(stdout);
}

void print_header() {
  std::printf("%-12s %5s %7s %11s %-14s %10s %9s %10s %9s %10s %9s %8s %8s  %-9s %6s\n", "solver", "t", "tiles", "cells",
              "variant", "gpu_ms", "gpu_Gc/s", "e2e_ms", "e2e_Gc/s", "cpu_ms", "cpu_Gc/s", "kern_x", "e2e_x",
              "identical", "rounds");
}

std::uint64_t tiles_for(const Options& o, std::uint32_t t) {
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  return std::max<std::uint64_t>(o.min_tiles, (o.cells + cells - 1) / cells);
}

// The options both solvers are benchmarked with: tiles of t, `limit` of shared memory per block (0:
// the device's), and 16 GiB of device memory, so that every tile fits in one batch.
template <class BatchOptions>
BatchOptions bench_batch_options(std::uint32_t t, const WeightParams& params, Connectivity connectivity,
                                 std::size_t limit) {
  BatchOptions options;
  options.t = t;
  options.params = params;
  options.connectivity = connectivity;
  options.shared_limit_bytes = limit;
  options.gpu_memory_bytes = 16ull << 30;
  return options;
}

const char* placement_name(std::size_t limit) {
  return limit == 0 ? "auto" : limit == 1 ? "global" : limit <= 48 * 1024 ? "smem48K" : "custom";
}

// ---- MST -------------------------------------------------------------------------------------

// The MST batch solver's kernel pass: every tile in as few batches as its memory holds, the first
// repeat after a warm-up checked against the CPU twins' forests and summaries.
struct MstKernelPass {
  std::uint64_t mismatches = 0;
  std::vector<double> mst_ms, kernel_ms;
};

MstKernelPass mst_kernel_pass(const Options& o, const MstBatchOptions& options, std::uint64_t tiles,
                              const std::vector<double>& values, const std::vector<std::uint8_t>& cpu_bits,
                              const std::vector<std::vector<TileSummaryEdge>>& cpu_summaries) {
  const std::uint64_t cells = static_cast<std::uint64_t>(options.t) * options.t;
  MstKernelPass pass;
  std::uint64_t& mismatches = pass.mismatches;
  std::vector<double>& mst_ms = pass.mst_ms;
  std::vector<double>& kernel_ms = pass.kernel_ms;
  CudaMstBatchSolver solver(options);
  const std::uint64_t per_batch = solver.batch_tiles();
  for (int rep = -1; rep < o.repeats; ++rep) {
    for (std::uint64_t first = 0; first < tiles; first += per_batch) {
      const std::uint64_t n = std::min(per_batch, tiles - first);
      if (solver.pending() == 2) solver.wait();
      std::memcpy(solver.input(), values.data() + first * cells, n * cells * sizeof(double));
      solver.submit(n);
      const CudaMstBatchSolver::Batch& batch = solver.wait();
      if (rep >= 0 && first == 0) {
        mst_ms.push_back(batch.mst_ms);
        kernel_ms.push_back(batch.kernel_ms);
      } else if (rep >= 0) {
        mst_ms.back() += batch.mst_ms;
        kernel_ms.back() += batch.kernel_ms;
      }
      if (rep == 0) {  // verify one full pass
        if (batch.overflow) throw Error("GPU block MST reported an overflow");
        for (std::uint64_t i = 0; i < n; ++i) {
          const std::uint64_t tile = first + i;
          bool same = std::memcmp(batch.forest_bits + i * cells, cpu_bits.data() + tile * cells, cells) == 0;
          const TileSummaryEdge* g = batch.summary(i);
          const auto& c = cpu_summaries[tile];
          same = same && batch.summary_count(i) == c.size();
          for (std::size_t e = 0; same && e < c.size(); ++e)
            same = g[e].a == c[e].a && g[e].b == c[e].b && g[e].key == c[e].key;
          if (!same) ++mismatches;
        }
      }
    }
  }
  return pass;
}

// The MST solver end to end: batches of ~1/8 of the tiles streamed through both slots; the median
// seconds of up to 3 repeats after a warm-up.
double mst_streamed_seconds(const Options& o, const MstBatchOptions& options, std::uint64_t tiles,
                            const std::vector<double>& values) {
  const std::uint64_t cells = static_cast<std::uint64_t>(options.t) * options.t;
  MstBatchOptions streamed = options;
  streamed.max_batch_tiles = std::max<std::uint64_t>(1, tiles / 8);
  CudaMstBatchSolver solver(streamed);
  std::vector<double> runs;
  for (int rep = -1; rep < std::min(o.repeats, 3); ++rep) {
    const Stopwatch start;
    std::uint64_t summary_tiles = 0;
    auto consume = [&](const CudaMstBatchSolver::Batch& batch) {
      for (std::uint64_t i = 0; i < batch.tiles; ++i) summary_tiles += batch.summary_count(i) <= batch.summary_stride;
    };
    for (std::uint64_t first = 0; first < tiles; first += solver.batch_tiles()) {
      if (solver.pending() == 2) consume(solver.wait());
      const std::uint64_t n = std::min(solver.batch_tiles(), tiles - first);
      std::memcpy(solver.input(), values.data() + first * cells, n * cells * sizeof(double));
      solver.submit(n);
    }
    while (solver.pending()) consume(solver.wait());
    if (rep >= 0) runs.push_back(start.seconds());
    if (summary_tiles != tiles) throw Error("streamed MST lost tiles");
  }
  return median(runs);
}

void bench_mst(const Options& o, std::uint32_t t) {
  const std::uint64_t tiles = tiles_for(o, t);
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  WeightParams params;
  params.model = WeightModel::Max;
  params.scale = 10.0;
  const Connectivity connectivity = Connectivity::Eight;
  const std::vector<double> values = make_tiles(t, 0, tiles, o.threads);

  // CPU twins: block MST, then reduce, over all tiles on the thread pool.
  std::vector<std::uint8_t> cpu_bits(tiles * cells);
  std::vector<std::vector<TileSummaryEdge>> cpu_summaries(tiles);
  std::atomic<bool> cpu_overflow{false};
  std::vector<double> cpu_mst_s, cpu_reduce_s;
  const int cpu_repeats = std::max(1, std::min(o.repeats, 3));
  for (int rep = 0; rep < cpu_repeats; ++rep) {
    Stopwatch start;
    parallel_for(tiles, o.threads, [&](std::uint64_t i) {
      bool overflow = false;
      block_mst_cpu(values.data() + i * cells, t, params, connectivity, cpu_bits.data() + i * cells, &overflow);
      if (overflow) cpu_overflow = true;
    });
    cpu_mst_s.push_back(start.seconds());
    start.restart();
    parallel_for(tiles, o.threads, [&](std::uint64_t i) {
      block_reduce_cpu(cpu_bits.data() + i * cells, values.data() + i * cells, t, params, connectivity, &cpu_summaries[i]);
    });
    cpu_reduce_s.push_back(start.seconds());
  }
  if (cpu_overflow) throw Error("benchmark terrain overflowed the weights");
  Row mst_row, both_row;
  mst_row.solver = "mst";
  both_row.solver = "mst+reduce";
  for (Row* r : {&mst_row, &both_row}) {
    r->t = t;
    r->tiles = tiles;
    r->cells = tiles * cells;
  }
  mst_row.cpu_s = median(cpu_mst_s);
  std::vector<double> cpu_both;
  for (std::size_t k = 0; k < cpu_mst_s.size(); ++k) cpu_both.push_back(cpu_mst_s[k] + cpu_reduce_s[k]);
  both_row.cpu_s = median(cpu_both);
  if (o.cpu_only) {
    mst_row.placement = both_row.placement = "-";
    mst_row.identical = both_row.identical = "-";
    print_row(mst_row);
    print_row(both_row);
    g_rows.push_back(mst_row);
    g_rows.push_back(both_row);
    return;
  }

  std::vector<std::size_t> limits{0};
  if (o.placements) limits = {0, 48 * 1024, 1};
  for (const std::size_t limit : limits) {
    MstBatchOptions options = bench_batch_options<MstBatchOptions>(t, params, connectivity, limit);
    options.reduce = true;
    // (a) Kernel throughput: every tile in one batch, timed by events.
    const MstKernelPass pass = mst_kernel_pass(o, options, tiles, values, cpu_bits, cpu_summaries);
    // (b) End to end: batches of ~1/8 of the tiles streamed through both slots.
    const double e2e_s = mst_streamed_seconds(o, options, tiles, values);
    const std::string identical = pass.mismatches == 0 ? "yes" : std::to_string(pass.mismatches) + " tiles differ";
    mst_row.placement = both_row.placement = placement_name(limit);
    mst_row.identical = both_row.identical = identical;
    mst_row.gpu_kernel_s = median(pass.mst_ms) / 1e3;
    both_row.gpu_kernel_s = median(pass.kernel_ms) / 1e3;
    mst_row.gpu_e2e_s = 0.0;
    both_row.gpu_e2e_s = e2e_s;
    print_row(mst_row);
    print_row(both_row);
    g_rows.push_back(mst_row);
    g_rows.push_back(both_row);
  }
}

// ---- SSSP ------------------------------------------------------------------------------------

std::vector<PathLength> make_seeds(std::uint32_t t, std::uint64_t tiles) {
  const std::uint64_t side = t + 2ull;
  std::vector<PathLength> dist(tiles * side * side, kUnreached);
  for (std::uint64_t i = 0; i < tiles; ++i) {
    PathLength* d = dist.data() + i * side * side;
    const std::uint64_t h = mix(i);
    d[(1 + h % t) * side + 1 + (h >> 20) % t] = 0;  // one source
    for (std::uint64_t y = 1; y <= t; ++y) d[y * side] = 50000 + mix(h + y) % 20000;  // west halo
  }
  return dist;
}

// The SSSP batch solver's kernel pass: every tile in as few batches as its memory holds, the first
// repeat after a warm-up checked against the CPU's distances and changed flags.
struct SsspKernelPass {
  std::vector<double> kernel_ms;
  std::uint64_t mismatches = 0, gpu_total = 0, rounds = 0;
};

SsspKernelPass sssp_kernel_pass(const Options& o, const SsspBatchOptions& options, std::uint64_t tiles,
                                const std::vector<double>& values, const std::vector<PathLength>& seeds,
                                const std::vector<PathLength>& cpu_dist, const std::vector<std::uint8_t>& cpu_changed) {
  const std::uint64_t side = options.t + 2ull, grid = side * side, cells = static_cast<std::uint64_t>(options.t) * options.t;
  SsspKernelPass pass;
  std::vector<double>& kernel_ms = pass.kernel_ms;
  std::uint64_t& mismatches = pass.mismatches;
  std::uint64_t& gpu_total = pass.gpu_total;
  std::uint64_t& rounds = pass.rounds;
  CudaSsspBatchSolver solver(options, kUnreached);
  const std::uint64_t per_batch = solver.batch_tiles();
  for (int rep = -1; rep < o.repeats; ++rep) {
    for (std::uint64_t first = 0; first < tiles; first += per_batch) {
      const std::uint64_t n = std::min(per_batch, tiles - first);
      std::memcpy(solver.values(), values.data() + first * grid, n * grid * sizeof(double));
      std::memcpy(solver.dist(), seeds.data() + first * grid, n * grid * sizeof(PathLength));
      solver.submit(n);
      const CudaSsspBatchSolver::Batch& batch = solver.wait();
      if (rep >= 0 && first == 0) kernel_ms.push_back(batch.kernel_ms);
      else if (rep >= 0) kernel_ms.back() += batch.kernel_ms;
      if (rep == 0) {
        gpu_total += batch.changed_cells;
        rounds += batch.sweep_rounds;
        for (std::uint64_t i = 0; i < n; ++i) {
          const std::uint64_t tile = first + i;
          const bool same =
              std::memcmp(batch.dist + i * grid, cpu_dist.data() + tile * grid, grid * sizeof(PathLength)) == 0 &&
              std::memcmp(batch.changed + i * cells, cpu_changed.data() + tile * cells, cells) == 0;
          if (!same) ++mismatches;
        }
      }
    }
  }
  return pass;
}

// The SSSP solver end to end: batches of ~1/8 of the tiles streamed through both slots; the median
// seconds of up to 3 repeats after a warm-up.
double sssp_streamed_seconds(const Options& o, const SsspBatchOptions& options, std::uint64_t tiles,
                             const std::vector<double>& values, const std::vector<PathLength>& seeds) {
  const std::uint64_t side = options.t + 2ull, grid = side * side;
  SsspBatchOptions streamed = options;
  streamed.max_batch_tiles = std::max<std::uint64_t>(1, tiles / 8);
  CudaSsspBatchSolver solver(streamed, kUnreached);
  std::vector<double> runs;
  for (int rep = -1; rep < std::min(o.repeats, 3); ++rep) {
    const Stopwatch start;
    for (std::uint64_t first = 0; first < tiles; first += solver.batch_tiles()) {
      if (solver.pending() == 2) solver.wait();
      const std::uint64_t n = std::min(solver.batch_tiles(), tiles - first);
      std::memcpy(solver.values(), values.data() + first * grid, n * grid * sizeof(double));
      std::memcpy(solver.dist(), seeds.data() + first * grid, n * grid * sizeof(PathLength));
      solver.submit(n);
    }
    while (solver.pending()) solver.wait();
    if (rep >= 0) runs.push_back(start.seconds());
  }
  return median(runs);
}

void bench_sssp(const Options& o, std::uint32_t t) {
  const std::uint64_t tiles = tiles_for(o, t);
  const std::uint64_t side = t + 2ull, grid = side * side, cells = static_cast<std::uint64_t>(t) * t;
  WeightParams params;
  params.model = WeightModel::Friction;
  params.scale = 10.0;
  const Connectivity connectivity = Connectivity::Eight;
  const std::vector<double> values = make_tiles(t, 1, tiles, o.threads);
  const std::vector<PathLength> seeds = make_seeds(t, tiles);

  std::vector<PathLength> cpu_dist;
  std::vector<std::uint8_t> cpu_changed(tiles * cells);
  std::vector<double> cpu_runs;
  std::atomic<std::uint64_t> cpu_total{0};
  for (int rep = 0; rep < std::max(1, std::min(o.repeats, 3)); ++rep) {
    cpu_dist = seeds;
    cpu_total = 0;
    const Stopwatch start;
    parallel_for(tiles, o.threads, [&](std::uint64_t i) {
      bool overflow = false;
      cpu_total += block_sssp_cpu(values.data() + i * grid, t, params, connectivity, kUnreached,
                                  cpu_dist.data() + i * grid, cpu_changed.data() + i * cells, &overflow);
    });
    cpu_runs.push_back(start.seconds());
  }
  Row row;
  row.solver = "sssp";
  row.t = t;
  row.tiles = tiles;
  row.cells = tiles * cells;
  row.cpu_s = median(cpu_runs);
  if (o.cpu_only) {
    row.placement = row.identical = "-";
    print_row(row);
    g_rows.push_back(row);
    return;
  }
  std::vector<std::pair<std::size_t, SsspSweep>> variants{{0, SsspSweep::Auto}};
  if (o.placements) variants = {{0, SsspSweep::Auto}, {48 * 1024, SsspSweep::Auto}, {1, SsspSweep::Auto}};
  if (o.sssp_variants) {
    variants.clear();
    for (const SsspSweep sweep : {SsspSweep::ThreadPerLine, SsspSweep::WarpScan})
      for (const std::size_t limit : {std::size_t{0}, std::size_t{48 * 1024}, std::size_t{1}}) variants.push_back({limit, sweep});
  }
  for (const auto& [limit, sweep] : variants) {
    SsspBatchOptions options = bench_batch_options<SsspBatchOptions>(t, params, connectivity, limit);
    options.sweep = sweep;
    const SsspKernelPass pass = sssp_kernel_pass(o, options, tiles, values, seeds, cpu_dist, cpu_changed);
    const std::vector<double>& kernel_ms = pass.kernel_ms;
    const std::uint64_t mismatches = pass.mismatches, gpu_total = pass.gpu_total, rounds = pass.rounds;
    const double e2e_s = sssp_streamed_seconds(o, options, tiles, values, seeds);
    row.placement = std::string(placement_name(limit)) +
                    (sweep == SsspSweep::Auto ? "" : sweep == SsspSweep::WarpScan ? "/warp" : "/thread");
    row.rounds_per_tile = static_cast<double>(rounds) / static_cast<double>(tiles);
    row.identical = mismatches == 0 && gpu_total == cpu_total ? "yes" : std::to_string(mismatches) + " tiles differ";
    row.gpu_kernel_s = median(kernel_ms) / 1e3;
    row.gpu_e2e_s = e2e_s;
    print_row(row);
    g_rows.push_back(row);
  }
}

int run(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const CudaDeviceInfo& device = cuda_device();
  if (!device.available && !o.cpu_only) {
    std::printf("terrazo_gpu_bench: no GPU (%s); nothing to measure (use --cpu-only for the CPU twins)\n",
                device.reason.c_str());
    return 0;
  }
  std::printf("terrazo_gpu_bench: device %s (%d SMs, %.1f GiB); CPU twins on %u threads\n",
              device.available ? device.name.c_str() : "none", device.multiprocessors,
              static_cast<double>(device.global_memory) / (1ull << 30), o.threads);
  std::printf("gpu_ms: kernel time (CUDA events, median of %d after warm-up, data on the device); e2e_ms: host tiles "
              "-> pinned -> GPU -> host, both slots streaming (wall clock); cpu_ms: CPU twin on all threads; "
              "kern_x / e2e_x: cpu_ms over gpu_ms / e2e_ms\n",
              o.repeats);
  print_header();
  for (const std::uint32_t t : o.mst_sizes) bench_mst(o, t);
  for (const std::uint32_t t : o.sssp_sizes) bench_sssp(o, t);
  std::printf("\nsummary (all rows):\n");
  print_header();
  bool all_identical = true;
  for (const Row& r : g_rows) {
    print_row(r);
    if (r.identical != "yes" && r.identical != "-") all_identical = false;
  }
  if (!all_identical) {
    std::printf("MISMATCH: GPU and CPU outputs differ\n");
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace terrazo

int main(int argc, char** argv) {
  try {
    return terrazo::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "terrazo_gpu_bench: %s\n", e.what());
    return 1;
  }
}
