// kernels/common/block_batch.cu: the host helpers every streamed batch solver uses
// (kernels/common/block_solvers.cuh): the device check, the default budget, tiles per batch.
#include <algorithm>
#include <string>

#include "kernels/common/block_solvers.cuh"
#include "kernels/common/cuda_device.h"

namespace terrazo::cuda {

void require_cuda_device(const char* what) {
  if (!cuda_device().available) throw Error(std::string(what) + ": " + cuda_device().reason);
}

std::uint64_t batch_budget_bytes(std::uint64_t requested) {
  if (requested) return requested;
  std::size_t free_bytes = 0, total_bytes = 0;
  TERRAZO_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes / 4;
}

std::uint64_t batch_tiles_for_budget(std::uint64_t budget, std::uint64_t per_tile_both_slots, std::uint64_t max_tiles,
                                     const char* what) {
  const std::uint64_t fit = budget / per_tile_both_slots;
  if (fit == 0) {
    throw BudgetError(std::string(what) + ": --gpu-memory " + std::to_string(budget) + " bytes is too small for one tile (" +
                std::to_string(per_tile_both_slots) + " bytes with both slots); raise it or lower --tile");
  }
  return max_tiles ? std::min(fit, max_tiles) : fit;
}

}  // namespace terrazo::cuda
