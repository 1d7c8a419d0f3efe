// kernels/flow/resident_watershed_cpu.cpp: the CPU twin of the resident watershed labelling
// (kernels/flow/resident_watershed.h): the steps of resident_watershed_steps.h over chunks of
// kBasinChunk cells on a worker pool, the pointers jumped in place concurrently as on the GPU; and
// make_resident_watershed.
#include <algorithm>
#include <atomic>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/flow/resident_watershed.h"
#include "kernels/flow/resident_watershed_steps.h"
#include "kernels/flow/resident_window.h"

namespace terrazo {
namespace {

class ResidentWatershedCpu final : public ResidentWatershed {
 public:
  ResidentWatershedCpu(const ResidentWatershedOptions& options, WorkerPool& pool)
      : options_(options), pool_(pool), code_(options.width * options.height, kD8Nodata), outlet_(code_.size()),
        first_(code_.size()), label_(code_.size()) {
    raster_.width = options.width;
    raster_.height = options.height;
    raster_.code = code_.data();
    raster_.outlet = outlet_.data();
    raster_.first = first_.data();
    raster_.label = label_.data();
  }

  Device device() const override { return Device::Cpu; }

  void write_codes(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint32_t pitch,
                   const double* values) override {
    check_window(x0, y0, w, h);
    resident_code_window(values, pitch, w, h, code_.data() + y0 * options_.width + x0, options_.width);
  }

  ResidentWatershedStats label() override {
    ResidentWatershedStats stats;
    std::vector<ResidentBasinCount> counts(chunks());
    for_chunks([&](std::uint64_t chunk, std::uint64_t i) { counts[chunk].add(resident_basin_start(raster_, i)); });
    for (const ResidentBasinCount& c : counts) {
      stats.valid_cells += c.valid;
      stats.bad_codes += c.bad;
    }
    const std::uint64_t most = resident_jump_rounds(raster_.cells());
    for (bool changed = true; changed && stats.rounds < most; ++stats.rounds) {
      std::atomic<bool> any{false};
      for_chunks([&](std::uint64_t, std::uint64_t i) {
        if (resident_jump(raster_, i)) any.store(true, std::memory_order_relaxed);
      });
      changed = any;
    }
    std::vector<std::uint64_t> per_chunk(chunks(), 0);
    for_chunks([&](std::uint64_t chunk, std::uint64_t i) { per_chunk[chunk] += resident_basin_looped(raster_, i); });
    for (const std::uint64_t n : per_chunk) stats.looped += n;
    if (stats.looped || stats.bad_codes) return stats;
    for_chunks([&](std::uint64_t, std::uint64_t i) { resident_lower_first(raster_, i); });
    stats.basins = rank_firsts();
    if (!stats.exact()) return stats;
    for_chunks([&](std::uint64_t, std::uint64_t i) { resident_take_label(raster_, i); });
    return stats;
  }

  void read_labels(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint32_t pitch,
                   std::uint32_t* out) override {
    check_window(x0, y0, w, h);
    for (std::uint32_t y = 0; y < h; ++y)
      for (std::uint32_t x = 0; x < w; ++x) out[std::size_t{y} * pitch + x] = label_[(y0 + y) * options_.width + x0 + x];
  }

 private:
  void check_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h) const {
    resident_check_window("resident watershed", options_.width, options_.height, options_.tile, x0, y0, w, h);
  }

  std::uint64_t chunks() const { return (raster_.cells() + kBasinChunk - 1) / kBasinChunk; }

  // body(chunk, i) for every cell i, a chunk of kBasinChunk cells per pool iteration.
  template <class Body>
  void for_chunks(Body&& body) {
    const std::uint64_t cells = raster_.cells();
    pool_.run(chunks(), [&](std::uint64_t chunk) {
      const std::uint64_t end = std::min(cells, (chunk + 1) * kBasinChunk);
      for (std::uint64_t i = chunk * kBasinChunk; i < end; ++i) body(chunk, i);
    });
  }

  // Step 5: the first cells counted per chunk, the counts' prefix, each first cell's label (its rank
  // in raster order, from 1); K.
  std::uint64_t rank_firsts() {
    std::vector<std::uint64_t> offset(chunks(), 0);
    for_chunks([&](std::uint64_t chunk, std::uint64_t i) { offset[chunk] += resident_is_first(raster_, i); });
    std::uint64_t total = 0;
    for (std::uint64_t& o : offset) {
      const std::uint64_t n = o;
      o = total;
      total += n;
    }
    if (total > 0xffffffffull) return total;
    for_chunks([&](std::uint64_t chunk, std::uint64_t i) {
      if (resident_is_first(raster_, i)) label_[i] = static_cast<std::uint32_t>(++offset[chunk]);
    });
    return total;
  }

  ResidentWatershedOptions options_;
  WorkerPool& pool_;
  std::vector<std::uint8_t> code_;
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
