// kernels/flow/resident_codes_cpu.h: what the CPU twins of the resident flow accumulation and
// watershed labelling (kernels/flow/resident_flowacc_cpu.cpp, resident_watershed_cpu.cpp) share: the
// whole raster's code bytes in RAM, written in checked t x t windows, and the per-cell steps run over
// chunks of cells on a worker pool.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/common/batch_solver.h"  // Device
#include "kernels/common/worker_pool.h"
#include "kernels/flow/d8_codes.h"
#include "kernels/flow/resident_flowacc_steps.h"  // ResidentCodeRaster
#include "kernels/flow/resident_window.h"

namespace terrazo {

class ResidentCodesCpu {
 public:
  static constexpr Device kDevice = Device::Cpu;

  // `what` names the solver in errors; windows are at most tile x tile; `chunk` cells per pool iteration.
  ResidentCodesCpu(const char* what, std::uint64_t width, std::uint64_t height, std::uint32_t tile, WorkerPool& pool,
                   std::uint64_t chunk)
      : windows_{what, width, height, tile}, chunk_(chunk), pool_(pool), code_(width * height, kD8Nodata) {}

  // A window of raster values as code bytes (resident_flowacc.h's write_codes).
  void write_code_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint32_t pitch,
                         const double* values) {
    check_window(x0, y0, w, h);
    resident_code_window(values, pitch, w, h, code_.data() + y0 * windows_.width + x0, windows_.width);
  }

  void check_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h) const {
    windows_.check(x0, y0, w, h);
  }

  std::uint64_t cells() const { return code_.size(); }
  std::uint64_t chunks() const { return (cells() + chunk_ - 1) / chunk_; }

  // body(chunk, i) for every cell i, a chunk of cells per pool iteration.
  template <class Body>
  void for_chunks(Body&& body) {
    const std::uint64_t n = cells();
    pool_.run(chunks(), [&](std::uint64_t chunk) {
      const std::uint64_t end = std::min(n, (chunk + 1) * chunk_);
      for (std::uint64_t i = chunk * chunk_; i < end; ++i) body(chunk, i);
    });
  }

  // The codes as the steps see them (resident_flowacc_steps.h).
  ResidentCodeRaster raster() { return ResidentCodeRaster{windows_.width, windows_.height, code_.data()}; }

 private:
  ResidentWindows windows_;
  std::uint64_t chunk_;
  WorkerPool& pool_;
  std::vector<std::uint8_t> code_;
};

}  // namespace terrazo
