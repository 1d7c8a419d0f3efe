// kernels/flow/resident_flowacc_cpu.cpp: the CPU twin of the resident flow accumulation
// (kernels/flow/resident_flowacc.h): the steps of resident_flowacc_steps.h over chunks of cells on a
// worker pool, the walks of step 3 concurrent with atomics as on the GPU; and make_resident_flowacc.
#include <atomic>
#include <vector>

#include "kernels/flow/resident_code_solver.h"
#include "kernels/flow/resident_codes_cpu.h"
#include "kernels/flow/resident_flowacc.h"
#include "kernels/flow/resident_flowacc_steps.h"

namespace terrazo {
namespace {

constexpr std::uint64_t kChunkCells = 1ull << 16;

class ResidentFlowAccCpu final : public ResidentCodeSolver<ResidentFlowAcc, ResidentCodesCpu> {
 public:
  ResidentFlowAccCpu(const ResidentFlowAccOptions& options, WorkerPool& pool)
      : ResidentCodeSolver("resident flowacc", options.width, options.height, options.tile, pool, kChunkCells),
        options_(options), in_degree_(codes_.cells(), 0), sum_(codes_.cells(), 0),
        raster_{codes_.raster(), in_degree_.data(), sum_.data()} {}

  void write_weights(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint32_t pitch,
                     const double* weights) override {
    codes_.check_window(x0, y0, w, h);
    for (std::uint32_t y = 0; y < h; ++y)
      for (std::uint32_t x = 0; x < w; ++x)
        bad_weights_ += !resident_set_weight(raster_, (y0 + y) * options_.width + x0 + x,
                                             weights[std::size_t{y} * pitch + x], options_.scale);
  }

  ResidentFlowAccStats accumulate() override {
    ResidentFlowAccStats stats;
    const ResidentCellCount counts = count_cells();
    stats.valid_cells = counts.valid;
    stats.outlets = counts.outlets;
    stats.bad_codes = counts.bad;
    stats.bad_weights = bad_weights_;
    codes_.for_chunks([&](std::uint64_t, std::uint64_t i) { resident_prepare_cell(raster_, i, options_.weighted); });
    std::atomic<bool> overflow{false};
    codes_.for_chunks([&](std::uint64_t, std::uint64_t i) {
      if (resident_is_source(raster_, i) && resident_walk(raster_, i)) overflow = true;
    });
    stats.overflow = overflow;
    finish(stats);
    return stats;
  }

  void read_values(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint32_t pitch,
                   double* out) override {
    codes_.check_window(x0, y0, w, h);
    for (std::uint32_t y = 0; y < h; ++y)
      for (std::uint32_t x = 0; x < w; ++x)
        out[std::size_t{y} * pitch + x] = resident_value(raster_, (y0 + y) * options_.width + x0 + x, options_.scale);
  }

 private:
  // Step 1, its counts summed per chunk.
  ResidentCellCount count_cells() {
    std::vector<ResidentCellCount> counts(codes_.chunks());
    codes_.for_chunks([&](std::uint64_t chunk, std::uint64_t i) { counts[chunk].add(resident_count_cell(raster_, i)); });
    ResidentCellCount total;
    for (const ResidentCellCount& c : counts) total.add(c);
    return total;
  }

  // Step 4: the cells on loops and the largest sum.
  void finish(ResidentFlowAccStats& stats) {
    bool any = false;
    for (std::uint64_t i = 0; i < raster_.cells(); ++i) {
      stats.looped += resident_looped(raster_, i);
      if (!resident_walkable(raster_.code[i])) continue;
      const auto v = static_cast<std::int64_t>(sum_[i]);
      if (!any || v > stats.largest) stats.largest = v;
      any = true;
    }
  }

  ResidentFlowAccOptions options_;
  std::vector<std::uint32_t> in_degree_;
  std::vector<unsigned long long> sum_;
  ResidentFlowRaster raster_;
  std::uint64_t bad_weights_ = 0;
};

}  // namespace

std::uint64_t resident_flowacc_bytes(const ResidentFlowAccOptions& options) {
  return options.width * options.height * 13 + std::uint64_t{options.tile} * options.tile * 8;
}

std::uint64_t resident_flowacc_cuda_host_bytes(const ResidentFlowAccOptions& options) {
  return std::uint64_t{options.tile} * options.tile * 9;
}

std::unique_ptr<ResidentFlowAcc> make_resident_flowacc(Device device, const ResidentFlowAccOptions& options,
                                                       WorkerPool& pool) {
  if (device == Device::Cuda) return make_resident_flowacc_cuda(options);
  return std::make_unique<ResidentFlowAccCpu>(options, pool);
}

}  // namespace terrazo
