// kernels/flow/resident_watershed_cpu.cpp: the CPU twin of the resident watershed labelling
// (kernels/flow/resident_watershed.h): the steps of resident_watershed_steps.h over chunks of
// kBasinChunk cells on a worker pool, the pointers jumped in place concurrently as on the GPU; and
// make_resident_watershed.
#include <atomic>
#include <vector>

#include "kernels/flow/resident_code_solver.h"
#include "kernels/flow/resident_codes_cpu.h"
#include "kernels/flow/resident_watershed.h"
#include "kernels/flow/resident_watershed_steps.h"

namespace terrazo {
namespace {

class ResidentWatershedCpu final : public ResidentCodeSolver<ResidentWatershed, ResidentCodesCpu> {
 public:
  ResidentWatershedCpu(const ResidentWatershedOptions& options, WorkerPool& pool)
      : ResidentCodeSolver("resident watershed", options.width, options.height, options.tile, pool, kBasinChunk),
        options_(options), outlet_(codes_.cells()), first_(codes_.cells()), label_(codes_.cells()),
        raster_{codes_.raster(), outlet_.data(), first_.data(), label_.data()} {}

  ResidentWatershedStats label() override {
    ResidentWatershedStats stats;
    std::vector<ResidentBasinCount> counts(codes_.chunks());
    codes_.for_chunks([&](std::uint64_t chunk, std::uint64_t i) { counts[chunk].add(resident_basin_start(raster_, i)); });
    for (const ResidentBasinCount& c : counts) {
      stats.valid_cells += c.valid;
      stats.bad_codes += c.bad;
    }
    const std::uint64_t most = resident_jump_rounds(raster_.cells());
    for (bool changed = true; changed && stats.rounds < most; ++stats.rounds) {
      std::atomic<bool> any{false};
      codes_.for_chunks([&](std::uint64_t, std::uint64_t i) {
        if (resident_jump(raster_, i)) any.store(true, std::memory_order_relaxed);
      });
      changed = any;
    }
    std::vector<std::uint64_t> per_chunk(codes_.chunks(), 0);
    codes_.for_chunks([&](std::uint64_t chunk, std::uint64_t i) { per_chunk[chunk] += resident_basin_looped(raster_, i); });
    for (const std::uint64_t n : per_chunk) stats.looped += n;
    if (stats.looped || stats.bad_codes) return stats;
    codes_.for_chunks([&](std::uint64_t, std::uint64_t i) { resident_lower_first(raster_, i); });
    stats.basins = rank_firsts();
    if (!stats.exact()) return stats;
    codes_.for_chunks([&](std::uint64_t, std::uint64_t i) { resident_take_label(raster_, i); });
    return stats;
  }

  void read_labels(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint32_t pitch,
                   std::uint32_t* out) override {
    codes_.check_window(x0, y0, w, h);
    for (std::uint32_t y = 0; y < h; ++y)
      for (std::uint32_t x = 0; x < w; ++x) out[std::size_t{y} * pitch + x] = label_[(y0 + y) * options_.width + x0 + x];
  }

 private:
  // Step 5: the first cells counted per chunk, the counts' prefix, each first cell's label (its rank
  // in raster order, from 1); K.
  std::uint64_t rank_firsts() {
    std::vector<std::uint64_t> offset(codes_.chunks(), 0);
    codes_.for_chunks([&](std::uint64_t chunk, std::uint64_t i) { offset[chunk] += resident_is_first(raster_, i); });
    std::uint64_t total = 0;
    for (std::uint64_t& o : offset) {
      const std::uint64_t n = o;
      o = total;
      total += n;
    }
    if (total > 0xffffffffull) return total;
    codes_.for_chunks([&](std::uint64_t chunk, std::uint64_t i) {
      if (resident_is_first(raster_, i)) label_[i] = static_cast<std::uint32_t>(++offset[chunk]);
    });
    return total;
  }

  ResidentWatershedOptions options_;
  std::vector<std::uint64_t> outlet_, first_;
  std::vector<std::uint32_t> label_;
  ResidentBasinRaster raster_;
};

}  // namespace

std::uint64_t resident_watershed_bytes(const ResidentWatershedOptions& options) {
  const std::uint64_t cells = options.width * options.height;
  return cells * 21 + (cells / kBasinChunk + 1) * 4 + std::uint64_t{options.tile} * options.tile * 4;
}

std::uint64_t resident_watershed_cuda_host_bytes(const ResidentWatershedOptions& options) {
  return (options.width * options.height / kBasinChunk + 1) * 4 + std::uint64_t{options.tile} * options.tile * 5;
}

std::unique_ptr<ResidentWatershed> make_resident_watershed(Device device, const ResidentWatershedOptions& options,
                                                           WorkerPool& pool) {
  if (device == Device::Cuda) return make_resident_watershed_cuda(options);
  return std::make_unique<ResidentWatershedCpu>(options, pool);
}

}  // namespace terrazo
