// tests/mst_gpu_check.cpp: the MST phases (engine/mst_phases.h) with phase 1 on the GPU
// (CudaMstBatchSolver) against the in-memory Kruskal reference and against the CPU path, on the GPU
// machine, where GDAL is not installed; then CPU vs GPU phase times on one large synthetic raster
// (the shape of the thesis's table 3.8).
//
// Build here (GDAL-free: CMake target terrazo_mst_gpu_check, also in the GPU-only build), carry
// the binary, run it there:
//   cmake -S . -B .devbuild -G Ninja -DTERRAZO_GPU_ONLY=ON && ninja -C .devbuild terrazo_mst_gpu_check
//   terrazo_mst_gpu_check [--cells N] [--tile T] [--threads N] [--scratch DIR]
// Exit status 0 when every comparison holds; one line per check, then the timing table.
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

#include "core/memory_budget.h"
#include "engine/mst_phases.h"
#include "kernels/cuda_device.h"
#include "reference/mst_reference.h"

namespace terrazo {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A raster held in memory as floats (NaN = nodata), served as tiles.
class MemorySource : public MstTileSource {
 public:
  MemorySource(std::vector<float> values, std::uint64_t width, std::uint64_t height, std::uint32_t t)
      : values_(std::move(values)) {
    grid_.width = width;
    grid_.height = height;
    grid_.tile = t;
  }
  const TileGrid& grid() const override { return grid_; }
  bool tile_present(std::uint32_t, std::uint32_t) const override { return true; }
  void read_tile(std::uint32_t tx, std::uint32_t ty, double* out) const override {
    const std::uint32_t t = grid_.tile;
    for (std::uint32_t y = 0; y < t; ++y) {
      const std::uint64_t gy = static_cast<std::uint64_t>(ty) * t + y;
      for (std::uint32_t x = 0; x < t; ++x) {
        const std::uint64_t gx = static_cast<std::uint64_t>(tx) * t + x;
        out[static_cast<std::size_t>(y) * t + x] =
            gx < grid_.width && gy < grid_.height ? static_cast<double>(values_[gy * grid_.width + gx]) : kNaN;
      }
    }
  }
  std::uint64_t bytes_read() const override { return 0; }
  const std::vector<float>& values() const { return values_; }

 private:
  std::vector<float> values_;
  TileGrid grid_;
};

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
  MstPhaseResult result;
  std::vector<std::uint8_t> bits;
  double seconds = 0;
};

Run run(const MemorySource& source, const WeightParams& params, Connectivity connectivity, bool cuda, unsigned threads,
        const std::string& scratch, std::uint64_t memory) {
  MstPhaseOptions options;
  options.params = params;
  options.connectivity = connectivity;
  options.cuda = cuda;
  options.threads = threads;
  options.scratch_dir = scratch;
  MemoryBudget budget(memory);
  CaptureSink sink(source.grid().width, source.grid().height);
  const auto start = std::chrono::steady_clock::now();
  Run r;
  r.result = run_mst_phases(source, options, budget, Progress::silent(), &sink);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.bits = sink.bits();
  return r;
}

int failures = 0;
void check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++failures;
}

}  // namespace
}  // namespace terrazo

int main(int argc, char** argv) {
  using namespace terrazo;
  std::uint64_t cells = 1ull << 30;
  std::uint32_t tile = 256;
  unsigned threads = std::thread::hardware_concurrency();
  std::string scratch = "/tmp";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--cells") cells = std::strtoull(argv[i + 1], nullptr, 10);
    else if (flag == "--tile") tile = static_cast<std::uint32_t>(std::strtoul(argv[i + 1], nullptr, 10));
    else if (flag == "--threads") threads = static_cast<unsigned>(std::strtoul(argv[i + 1], nullptr, 10));
    else if (flag == "--scratch") scratch = argv[i + 1];
  }
  if (!cuda_device().available) {
    std::printf("no CUDA device: %s\n", cuda_device().reason.c_str());
    return 1;
  }
  std::printf("device: %s, %u CPU threads\n", cuda_device().name.c_str(), threads);

  // 1. Random rasters: GPU path = reference = CPU path, edge for edge.
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
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
    const MemorySource source(values, w, h, t);
    WeightParams params;
    params.model = static_cast<WeightModel>(rng() % 3);
    params.scale = 100;
    const Connectivity connectivity = rng() % 2 ? Connectivity::Eight : Connectivity::Four;
    std::vector<double> as_double(values.begin(), values.end());
    const auto ref = testing::reference_mst(as_double, w, h, params, connectivity);
    const Run gpu = run(source, params, connectivity, true, threads, scratch, 256ull << 20);
    const Run cpu = run(source, params, connectivity, false, threads, scratch, 256ull << 20);
    const std::string what = "seed " + std::to_string(seed) + ": " + std::to_string(w) + "x" + std::to_string(h) +
                             " t " + std::to_string(t) + " " + to_string(params.model) + " " + to_string(connectivity);
    check(gpu.bits == ref.bits && gpu.result.total_weight == ref.total_weight && gpu.result.edges == ref.edges,
          what + ": GPU path = reference");
    check(cpu.bits == gpu.bits, what + ": CPU path = GPU path");
  }

  // 2. One large synthetic raster: CPU vs GPU phase times (max, 8-connected, scale 10).
  const std::uint64_t side = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(cells)));
  const auto made = std::chrono::steady_clock::now();
  const MemorySource big(synthetic(side, side, threads), side, side, tile);
  std::printf("synthetic %llu x %llu made in %.1f s\n", static_cast<unsigned long long>(side),
              static_cast<unsigned long long>(side),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - made).count());
  WeightParams params;
  params.scale = 10;
  const Run gpu = run(big, params, Connectivity::Eight, true, threads, scratch, 8ull << 30);
  const Run cpu = run(big, params, Connectivity::Eight, false, threads, scratch, 8ull << 30);
  check(gpu.bits == cpu.bits && gpu.result.total_weight == cpu.result.total_weight, "large raster: CPU path = GPU path");
  std::printf("\n| path | cells | tile | block-local s | merge s | expansion s | total s | Mcells/s | GPU batch tiles | GPU kernel s |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Run* r : {&cpu, &gpu}) {
    const MstPhaseResult& p = r->result;
    std::printf("| %s | %llu | %u | %.2f | %.2f | %.2f | %.2f | %.1f | %llu | %.2f |\n", r == &cpu ? "CPU" : "GPU",
                static_cast<unsigned long long>(side * side), tile, p.block_local_seconds, p.merge_seconds,
                p.expansion_seconds, r->seconds, side * side / r->seconds / 1e6,
                static_cast<unsigned long long>(p.gpu_batch_tiles), p.gpu_kernel_ms / 1000);
  }
  std::printf("total weight %llu, edges %llu, components %llu, summary edges %llu, records %llu\n",
              static_cast<unsigned long long>(gpu.result.total_weight), static_cast<unsigned long long>(gpu.result.edges),
              static_cast<unsigned long long>(gpu.result.components),
              static_cast<unsigned long long>(gpu.result.summary_edges),
              static_cast<unsigned long long>(gpu.result.expansion_records));
  std::printf("%s: %d failures\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
