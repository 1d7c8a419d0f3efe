// tools/bench/gpu_checks/mst_gpu_check.cpp: the MST phases (engine/mst/phases.h) with the GPU paths against the
// in-memory Kruskal reference and against the CPU paths, on the GPU machine, where GDAL is not
// installed: phase 1 on the GPU (CudaMstBatchSolver) and phase 2 on the GPU (the level-synchronous
// merge, engine/mst/phase2_merge_levels.h, --merge cuda); then the phase times of every path on one large
// synthetic raster (the shape of the thesis's table 3.8), CPU merge against GPU merge.
//
// Build here (GDAL-free: CMake target terrazo_mst_gpu_check, also in the GPU-only build), carry
// the binary, run it there:
//   cmake -S . -B .devbuild -G Ninja -DTERRAZO_GPU_ONLY=ON && ninja -C .devbuild terrazo_mst_gpu_check
//   terrazo_mst_gpu_check [--cells N] [--tile T] [--threads N] [--scratch DIR] [--seeds N]
// Exit status 0 when every comparison holds; one line per check, then the timing table.
// Paths (phase 1 + phase 2): "CPU" = CPU + post-order merge (--device cpu --merge cpu), "GPU p1" =
// GPU + post-order merge (--device cuda --merge cpu), "GPU" = GPU + GPU level merge (--device cuda,
// --merge auto = cuda), "CPU levels" = CPU + CPU level merge (--merge cpu-levels, the GPU merge's
// CPU twin). All must give the same edge raster and totals, bit for bit.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "kernels/common/memory_budget.h"
#include "engine/mst/phases.h"
#include "kernels/common/cuda_device.h"
#include "tests/support/memory_tile_input.h"
#include "tests/support/mst_reference.h"

namespace terrazo {
namespace {

// Collects the edge raster.
class CaptureSink : public MstWindowSink {
 public:
  CaptureSink(std::uint64_t width, std::uint64_t height) : width_(width), bits_(width * height, 0) {}
  void write_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                    const std::uint8_t* cells) override {
    for (std::uint32_t y = 0; y < h; ++y) std::memcpy(&bits_[(y0 + y) * width_ + x0], cells + y * w, w);
  }
  const std::vector<std::uint8_t>& bits() const { return bits_; }

 private:
  std::uint64_t width_;
  std::vector<std::uint8_t> bits_;
};

// Hash-based value noise, 6 octaves, in [0, 2000) metres, with blob holes: terrain-like ties and
// nodata, cheap to make in parallel.
std::uint32_t hash(std::uint64_t x, std::uint64_t y, std::uint32_t seed) {
  std::uint64_t h = x * 0x9E3779B97F4A7C15ull ^ (y + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full ^ seed;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  return static_cast<std::uint32_t>(h);
}
double lattice(std::uint64_t x, std::uint64_t y, std::uint64_t period, std::uint32_t seed) {
  const std::uint64_t gx = x / period, gy = y / period;
  const double fx = static_cast<double>(x % period) / period, fy = static_cast<double>(y % period) / period;
  auto v = [&](std::uint64_t a, std::uint64_t b) { return hash(a, b, seed) / 4294967296.0; };
  const double top = v(gx, gy) * (1 - fx) + v(gx + 1, gy) * fx;
  const double bottom = v(gx, gy + 1) * (1 - fx) + v(gx + 1, gy + 1) * fx;
  return top * (1 - fy) + bottom * fy;
}
std::vector<float> synthetic(std::uint64_t width, std::uint64_t height, unsigned threads) {
  std::vector<float> values(width * height);
  std::vector<std::thread> workers;
  for (unsigned k = 0; k < threads; ++k) {
    workers.emplace_back([&, k] {
      for (std::uint64_t y = k; y < height; y += threads)
        for (std::uint64_t x = 0; x < width; ++x) {
          double h = 0, amplitude = 1000;
          for (std::uint64_t period = 1024; period >= 32; period /= 2, amplitude /= 2) h += amplitude * lattice(x, y, period, 7);
          const bool hole = lattice(x, y, 64, 11) > 0.93;
          values[y * width + x] = hole ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(std::round(h * 10) / 10);
        }
    });
  }
  for (auto& w : workers) w.join();
  return values;
}

struct Run {
  std::string path;
  MstPhaseResult result;
  std::vector<std::uint8_t> bits;
  double seconds = 0;
};

// What every run of one raster shares: its weights and neighbours, the threads and the scratch directory.
MstPhaseOptions raster_options(const WeightParams& params, Connectivity connectivity, unsigned threads,
                               const std::string& scratch) {
  MstPhaseOptions options;
  options.params = params;
  options.connectivity = connectivity;
  options.threads = threads;
  options.scratch_dir = scratch;
  return options;
}

// One whole run of the phases with `options`: phase 1 on the GPU when `cuda`, phase 2 as `merge` says;
// `merge_batch_edges` > 0 sets the level merge's slot (small: batches of one graph, graphs alone).
Run run(const MemoryTileInput<float>& source, MstPhaseOptions options, bool cuda, MstMergeMode merge,
        std::uint64_t memory, std::uint64_t merge_batch_edges = 0) {
  options.cuda = cuda;
  options.merge_mode = merge;
  options.merge_batch_edges = merge_batch_edges;
  MemoryBudget budget(memory);
  CaptureSink sink(source.grid().width, source.grid().height);
  const auto start = std::chrono::steady_clock::now();
  Run r;
  r.result = run_mst_phases(source, options, budget, Progress::silent(), &sink);
  r.path = std::string(cuda ? "GPU" : "CPU") + " + merge " + to_string(r.result.merge_mode);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.bits = sink.bits();
  return r;
}

int failures = 0;
void check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  std::fflush(stdout);
  if (!ok) ++failures;
}

// Bit for bit: the edge raster, and every total the phases report that does not depend on the path.
bool same_forest(const Run& a, const Run& b) {
  return a.bits == b.bits && a.result.total_weight == b.result.total_weight && a.result.edges == b.result.edges &&
         a.result.vertices == b.result.vertices && a.result.components == b.result.components &&
         a.result.summary_edges == b.result.summary_edges && a.result.expansion_records == b.result.expansion_records &&
         a.result.merge_levels == b.result.merge_levels;
}

// 1. One random raster (seed `seed`): every path = reference, edge for edge; the level merges also
//    with slots of 1 and 64 edges (batches of one graph, graphs solved alone) or under a small budget.
void check_random_raster(std::uint64_t seed, unsigned threads, const std::string& scratch) {
  std::mt19937_64 rng(seed);
  const std::uint64_t w = 1 + rng() % 300, h = 1 + rng() % 300;
  const std::uint32_t t = std::uint32_t{16} << (rng() % 4);
  const int flavour = static_cast<int>(rng() % 3);
  std::vector<float> values(w * h);
  std::uniform_real_distribution<double> u(0, 1);
  for (float& v : values) {
    v = flavour == 0 ? static_cast<float>(u(rng) * 1000) : flavour == 1 ? static_cast<float>(std::floor(u(rng) * 3)) : 5.0f;
    if (u(rng) < 0.15) v = std::numeric_limits<float>::quiet_NaN();
  }
  if (seed % 4 == 0) {  // whole tiles of nodata: absent tiles
    for (std::uint64_t ty = 0; ty * t < h; ++ty)
      for (std::uint64_t tx = 0; tx * t < w; ++tx)
        if (rng() % 3 == 0)
          for (std::uint64_t y = ty * t; y < std::min<std::uint64_t>(h, (ty + 1) * t); ++y)
            for (std::uint64_t x = tx * t; x < std::min<std::uint64_t>(w, (tx + 1) * t); ++x)
              values[y * w + x] = std::numeric_limits<float>::quiet_NaN();
  }
  const MemoryTileInput<float> source(values, w, h, t, MemoryTileInput<float>::Absent::Never);
  WeightParams params;
  params.model = static_cast<WeightModel>(rng() % 3);
  params.scale = 100;
  const Connectivity connectivity = rng() % 2 ? Connectivity::Eight : Connectivity::Four;
  std::vector<double> as_double(values.begin(), values.end());
  const auto ref = testing::reference_mst(as_double, w, h, params, connectivity);
  const std::uint64_t memory = 256ull << 20;
  const std::uint64_t slot = seed % 3 == 0 ? 1 : seed % 3 == 1 ? 64 : 0;
  // A small budget: phase 1's solver scratch and two tile batches (mst_phases.cpp) plus 3 MiB for
  // the file buffers, the record sorter and ~100-edge merge slots.
  const std::uint64_t cells_per_tile = std::uint64_t{t} * t;
  const std::uint64_t small = (3ull << 20) + threads * 80 * cells_per_tile + 2 * (9 * cells_per_tile + 512 * t);
  const MstPhaseOptions options = raster_options(params, connectivity, threads, scratch);
  const Run gpu = run(source, options, true, MstMergeMode::Auto, memory);
  const Run gpu_p1 = run(source, options, true, MstMergeMode::CpuPostOrder, memory);
  const Run cpu = run(source, options, false, MstMergeMode::CpuPostOrder, memory);
  const Run cuda_small = run(source, options, false, MstMergeMode::CudaLevels, slot ? memory : small, slot);
  const Run cpu_small = run(source, options, false, MstMergeMode::CpuLevels, slot ? memory : small, slot);
  const std::string what = "seed " + std::to_string(seed) + ": " + std::to_string(w) + "x" + std::to_string(h) +
                           " t " + std::to_string(t) + " " + to_string(params.model) + " " + to_string(connectivity);
  check(gpu.result.merge_mode == MstMergeMode::CudaLevels, what + ": --merge auto with phase 1 on the GPU is cuda");
  check(gpu.bits == ref.bits && gpu.result.total_weight == ref.total_weight && gpu.result.edges == ref.edges,
        what + ": GPU + GPU merge = reference");
  check(same_forest(gpu_p1, gpu), what + ": GPU + CPU merge = GPU + GPU merge");
  check(same_forest(cpu, gpu), what + ": CPU + CPU merge = GPU + GPU merge");
  const std::string slot_text =
      slot ? "slot " + std::to_string(slot) + " edges" : "budget " + std::to_string(small >> 10) + " KiB";
  check(same_forest(cuda_small, gpu), what + ": CPU + GPU merge, " + slot_text + " (" +
                                          std::to_string(cuda_small.result.merge_batches) + " batches, " +
                                          std::to_string(cuda_small.result.merge_oversized_graphs) +
                                          " alone) = GPU + GPU merge");
  // With the same slot the two level merges form the same batches (the budget sizes their slots
  // differently).
  check(same_forest(cpu_small, gpu) &&
            (!slot || (cpu_small.result.merge_batches == cuda_small.result.merge_batches &&
                       cpu_small.result.merge_oversized_graphs == cuda_small.result.merge_oversized_graphs)),
        what + ": CPU + CPU level merge, " + slot_text + " = GPU + GPU merge");
}

// 2. One large synthetic raster (about `cells` cells): every path = the CPU's; returns the runs,
//    CPU first.
std::vector<Run> run_large_raster(std::uint64_t side, std::uint32_t tile, unsigned threads, const std::string& scratch) {
  const auto made = std::chrono::steady_clock::now();
  const std::vector<float> big_values = synthetic(side, side, threads);
  const MemoryTileInput<float> big(big_values, side, side, tile, MemoryTileInput<float>::Absent::Never);
  std::printf("synthetic %llu x %llu made in %.1f s\n", static_cast<unsigned long long>(side),
              static_cast<unsigned long long>(side),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - made).count());
  WeightParams params;
  params.scale = 10;
  const std::uint64_t memory = 8ull << 30;
  std::vector<Run> runs;
  const MstPhaseOptions options = raster_options(params, Connectivity::Eight, threads, scratch);
  runs.push_back(run(big, options, false, MstMergeMode::CpuPostOrder, memory));
  runs.push_back(run(big, options, true, MstMergeMode::CpuPostOrder, memory));
  runs.push_back(run(big, options, true, MstMergeMode::CudaLevels, memory));
  runs.push_back(run(big, options, false, MstMergeMode::CpuLevels, memory));
  for (std::size_t i = 1; i < runs.size(); ++i)
    check(same_forest(runs[i], runs[0]), "large raster: " + runs[i].path + " = " + runs[0].path);
  return runs;
}

// The timing table of the large raster's runs and the GPU run's totals.
void print_timing_table(const std::vector<Run>& runs, std::uint64_t side, std::uint32_t tile) {
  std::printf("\n| path | cells | tile | block-local s | merge s | expansion s | total s | Mcells/s | GPU batch tiles | "
              "GPU kernel s | merge batches | slot edges | merge graphs | alone | GPU merge kernel s |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Run& r : runs) {
    const MstPhaseResult& p = r.result;
    using ull = unsigned long long;
    std::printf("| %s | %llu | %u | %.2f | %.2f | %.2f | %.2f | %.1f | %llu | %.2f | %llu | %llu | %llu | %llu | %.3f |\n",
                r.path.c_str(), static_cast<ull>(side * side), tile, p.block_local_seconds, p.merge_seconds,
                p.expansion_seconds, r.seconds, side * side / r.seconds / 1e6, static_cast<ull>(p.gpu_batch_tiles),
                p.gpu_kernel_ms / 1000, static_cast<ull>(p.merge_batches), static_cast<ull>(p.merge_batch_edges),
                static_cast<ull>(p.merge_graphs), static_cast<ull>(p.merge_oversized_graphs),
                p.gpu_merge_kernel_ms / 1000);
  }
  const MstPhaseResult& g = runs[2].result;
  using ull = unsigned long long;
  std::printf("total weight %llu, edges %llu, components %llu, summary edges %llu, records %llu, merge levels %u; "
              "scratch bytes read %llu (GPU + CPU merge) vs %llu (GPU + GPU merge)\n",
              static_cast<ull>(g.total_weight), static_cast<ull>(g.edges), static_cast<ull>(g.components),
              static_cast<ull>(g.summary_edges), static_cast<ull>(g.expansion_records), g.merge_levels,
              static_cast<ull>(runs[1].result.bytes_read), static_cast<ull>(g.bytes_read));
}

}  // namespace
}  // namespace terrazo

int main(int argc, char** argv) {
  using namespace terrazo;
  std::uint64_t cells = 1ull << 30;
  std::uint32_t tile = 256;
  unsigned threads = std::thread::hardware_concurrency();
  std::string scratch = "/tmp";
  std::uint64_t seeds = 60;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--cells") cells = std::strtoull(argv[i + 1], nullptr, 10);
    else if (flag == "--tile") tile = static_cast<std::uint32_t>(std::strtoul(argv[i + 1], nullptr, 10));
    else if (flag == "--threads") threads = static_cast<unsigned>(std::strtoul(argv[i + 1], nullptr, 10));
    else if (flag == "--scratch") scratch = argv[i + 1];
    else if (flag == "--seeds") seeds = std::strtoull(argv[i + 1], nullptr, 10);
    else {
      std::printf("unknown flag %s (flags: --cells N --tile T --threads N --scratch DIR --seeds N)\n", argv[i]);
      return 2;
    }
  }
  if (!cuda_device().available) {
    std::printf("no CUDA device: %s\n", cuda_device().reason.c_str());
    return 1;
  }
  std::printf("device: %s, %u CPU threads\n", cuda_device().name.c_str(), threads);

  // 1. Random rasters: every path = reference, edge for edge.
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) check_random_raster(seed, threads, scratch);
  // 2. One large synthetic raster: phase times of every path (max, 8-connected, scale 10).
  const std::uint64_t side = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(cells)));
  print_timing_table(run_large_raster(side, tile, threads, scratch), side, tile);
  std::printf("%s: %d failures\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
