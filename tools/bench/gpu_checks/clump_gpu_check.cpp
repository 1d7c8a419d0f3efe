// tools/bench/gpu_checks/clump_gpu_check.cpp: the whole clump pipeline (engine/clump/phases.h) with the
// CUDA tile labeller (--device cuda) against the CPU pipeline and a flood-fill oracle, on the GPU
// machine, where GDAL is not installed: rasters held in memory (random categorical fields with
// holes, checkerboards, spirals and snakes that cross every tile many times, all one region, all
// nodata), tile edges 16..512, 4/8 connectivity, --by value|valid|range; then CPU vs CUDA timed on
// one larger raster (labels compared bit for bit there too).
//
// Build here (GDAL-free: CMake target terrazo_clump_gpu_check, also in the GPU-only build), carry
// the binary, run it there:
//   cmake -S . -B .devbuild -G Ninja -DTERRAZO_GPU_ONLY=ON && ninja -C .devbuild terrazo_clump_gpu_check
//   terrazo_clump_gpu_check [RANDOM_CASES=120] [SIDE=8192] [THREADS=16]
// Exit status 0 when every comparison holds; prints one line per failed check and the timings.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "kernels/common/error.h"
#include "engine/clump/phases.h"
#include "kernels/common/cuda_device.h"
#include "tests/support/clump_memory_sink.h"
#include "tests/support/clump_reference.h"
#include "tests/support/memory_tile_input.h"

namespace terrazo {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

using MemorySink = ClumpMemorySink;

struct Run {
  std::vector<std::uint32_t> labels;
  ClumpPhaseResult result;
  double seconds = 0;
};

Run run(const std::vector<double>& values, std::uint64_t w, std::uint64_t h, std::uint32_t t, ClumpPhaseOptions o,
        Device device, unsigned threads) {
  const std::string dir = "/tmp/clump_gpu_check." + std::to_string(::getpid()) + (device == Device::Cuda ? ".cuda" : ".cpu");
  if (std::system(("mkdir -p " + dir).c_str()) != 0) throw Error("cannot create " + dir);
  o.scratch_dir = dir;
  o.threads = threads;
  o.device = device;
  MemoryTileInput input(values, w, h, t);
  MemorySink sink(w, h);
  MemoryBudget budget(8ull << 30);
  Run r;
  const auto start = std::chrono::steady_clock::now();
  r.result = run_clump_phases(input, o, budget, Progress::silent(), &sink);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.labels = std::move(sink.labels);
  if (std::system(("rm -rf " + dir).c_str()) != 0) throw Error("cannot remove " + dir);
  return r;
}

std::vector<double> make_raster(std::mt19937_64& rng, std::uint64_t w, std::uint64_t h, int kind) {
  std::vector<double> v(w * h);
  std::uniform_real_distribution<double> u(0, 1);
  switch (kind % 6) {
    case 0: {  // random categorical field with holes
      const int distinct = 2 + static_cast<int>(rng() % 5);
      const double holes = u(rng) * 0.3;
      for (double& x : v) x = u(rng) < holes ? kNaN : static_cast<double>(rng() % distinct);
      break;
    }
    case 1:  // checkerboard
      for (std::uint64_t i = 0; i < w * h; ++i) v[i] = static_cast<double>((i % w + i / w) % 2);
      break;
    case 2:  // snake: rows joined alternately at the ends, one region crossing every tile
      v = testing::snake_corridor(w, h, 3.0);
      break;
    case 3:  // spiral wall
      v = testing::spiral_wall(w, h);
      break;
    case 4:  // one region, a few holes
      for (double& x : v) x = u(rng) < 0.02 ? kNaN : 7.0;
      break;
    default:  // all nodata
      std::fill(v.begin(), v.end(), kNaN);
      break;
  }
  return v;
}

// The narrowest key code the keys of `values` fit (kernels/clump/clump_key_code.h), or at random a
// wider one: the GPU runs on every code.
ClumpKeyCode some_key_code(const std::vector<double>& values, ClumpBy by, std::mt19937_64& rng) {
  bool u16 = true, f32 = true;
  if (by == ClumpBy::Value)
    for (double v : values) {
      if (v != v) continue;
      u16 = u16 && v >= 0 && v < 65535 && v == static_cast<double>(static_cast<std::uint16_t>(v));
      f32 = f32 && static_cast<double>(static_cast<float>(v)) == v;
    }
  const int pick = static_cast<int>(rng() % 3);
  if (u16 && pick == 0) return ClumpKeyCode::UInt16;
  if (f32 && pick <= 1) return ClumpKeyCode::UInt32;
  return ClumpKeyCode::Float64;
}

int check(int random_cases, std::uint64_t side, unsigned threads) {
  const std::uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  std::printf("clump_gpu_check: %s, seed %llu\n", cuda_device().name.c_str(), static_cast<unsigned long long>(seed));
  int failures = 0;
  const std::uint32_t tiles[] = {16, 32, 64, 128, 256, 512};
  for (int i = 0; i < random_cases; ++i) {
    const std::uint32_t t = tiles[rng() % 6];
    const std::uint64_t w = 1 + rng() % (5 * t), h = 1 + rng() % (5 * t);
    const int kind = static_cast<int>(rng() % 6);
    const std::vector<double> values = make_raster(rng, w, h, kind);
    ClumpPhaseOptions o;
    o.connectivity = rng() % 2 ? Connectivity::Eight : Connectivity::Four;
    const int by = static_cast<int>(rng() % 3);
    o.by = by == 0 ? ClumpBy::Value : by == 1 ? ClumpBy::Valid : ClumpBy::Range;
    o.range_lo = 0, o.range_hi = 1;
    const std::vector<std::uint32_t> expected = testing::clump_reference(values, w, h, o).labels;
    o.gpu_key_code = some_key_code(values, o.by, rng);
    const Run cpu = run(values, w, h, t, o, Device::Cpu, 4);
    const Run gpu = run(values, w, h, t, o, Device::Cuda, 4);
    const bool ok = cpu.labels == expected && gpu.labels == cpu.labels && gpu.result.regions == cpu.result.regions;
    if (!ok) {
      ++failures;
      std::printf("FAIL case %d: %llu x %llu, t %u, kind %d, by %s, %d-connectivity, %s keys: cpu %s oracle, gpu %s cpu\n", i,
                  static_cast<unsigned long long>(w), static_cast<unsigned long long>(h), t, kind, to_string(o.by),
                  static_cast<int>(o.connectivity), to_string(o.gpu_key_code), cpu.labels == expected ? "==" : "!=",
                  gpu.labels == cpu.labels ? "==" : "!=");
    }
  }
  std::printf("random cases: %d, failures: %d\n", random_cases, failures);
  if (side > 0) {
    std::vector<double> values(side * side);
    std::uniform_real_distribution<double> u(0, 1);
    for (double& x : values) x = u(rng) < 0.05 ? kNaN : static_cast<double>(rng() % 3);
    ClumpPhaseOptions o;
    o.gpu_key_code = clump_gpu_key_code(CellType::UInt8, o.by);  // values 0, 1, 2: a Byte raster's
    const Run cpu = run(values, side, side, 256, o, Device::Cpu, threads);
    const Run gpu = run(values, side, side, 256, o, Device::Cuda, threads);
    const bool same = cpu.labels == gpu.labels;
    if (!same) ++failures;
    std::printf("%llu x %llu random 3-value field, t 256, %u threads: cpu %.3f s (labels %.3f, merge %.3f, relabel %.3f), "
                "cuda %.3f s (labels %.3f, merge %.3f, relabel %.3f), %llu regions, labels %s\n",
                static_cast<unsigned long long>(side), static_cast<unsigned long long>(side), threads, cpu.seconds,
                cpu.result.tile_labels_seconds, cpu.result.merge_seconds, cpu.result.relabel_seconds, gpu.seconds,
                gpu.result.tile_labels_seconds, gpu.result.merge_seconds, gpu.result.relabel_seconds,
                static_cast<unsigned long long>(cpu.result.regions), same ? "identical" : "DIFFER");
    // Phase 3's profile (engine/clump/phases.h ClumpRelabelSeconds): tile solver (reads + labels),
    // numbering on the pool, the sink (here a copy into memory; the CLI's is the GeoTIFF writer).
    std::printf("relabel split: cpu solve %.3f number %.3f sink %.3f; cuda solve %.3f number %.3f sink %.3f\n",
                cpu.result.relabel.solve, cpu.result.relabel.number, cpu.result.relabel.write, gpu.result.relabel.solve,
                gpu.result.relabel.number, gpu.result.relabel.write);
    // The border table (docs/clump.md "Is the merge streamed?"): 36 bytes per border region.
    std::printf("border regions %llu (%.1f MB of border table, %.1f per tile of 256; bound 4t-4 = 1020), merged %llu\n",
                static_cast<unsigned long long>(cpu.result.border_regions), cpu.result.border_regions * 36.0 / 1e6,
                static_cast<double>(cpu.result.border_regions) / static_cast<double>(((side + 255) / 256) * ((side + 255) / 256)),
                static_cast<unsigned long long>(cpu.result.merged_border_regions));
  }
  std::printf("%s\n", failures ? "FAILED" : "OK");
  return failures ? 1 : 0;
}

}  // namespace
}  // namespace terrazo

int main(int argc, char** argv) {
  try {
    if (!terrazo::cuda_device().available) {
      std::printf("clump_gpu_check: no GPU: %s\n", terrazo::cuda_device().reason.c_str());
      return 1;
    }
    const int cases = argc > 1 ? std::atoi(argv[1]) : 120;
    const std::uint64_t side = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 8192;
    const unsigned threads = argc > 3 ? static_cast<unsigned>(std::atoi(argv[3])) : 16;
    return terrazo::check(cases, side, threads);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "clump_gpu_check: %s\n", e.what());
    return 1;
  }
}
