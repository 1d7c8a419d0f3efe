// kernels/flow/resident_code_solver.h: what the resident solvers that follow a D8 code raster
// downstream (the flow accumulation, kernels/flow/resident_flowacc.h; the watershed labelling,
// kernels/flow/resident_watershed.h) are on either device: their code raster, `Codes`
// (ResidentCodesCpu of kernels/flow/resident_codes_cpu.h for the CPU twins, ResidentCodesCuda of
// kernels/flow/resident_cuda.cuh for the CUDA solvers), and their interface's device() and
// write_codes, a window of raster values written into it.
#pragma once
#include <cstdint>
#include <utility>

#include "kernels/common/batch_solver.h"  // Device

namespace terrazo {

template <class Solver, class Codes>
class ResidentCodeSolver : public Solver {
 public:
  // The code raster made of `codes_args` (the arguments of Codes' constructor).
  template <class... CodesArgs>
  explicit ResidentCodeSolver(CodesArgs&&... codes_args) : codes_(std::forward<CodesArgs>(codes_args)...) {}

  Device device() const final { return Codes::kDevice; }

  void write_codes(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint32_t pitch,
                   const double* values) final {
    codes_.write_code_window(x0, y0, w, h, pitch, values);
  }

 protected:
  Codes codes_;
};

}  // namespace terrazo
