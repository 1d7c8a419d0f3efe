// kernels/clump/label_tile_cuda_none.cpp: the CUDA clump labeller (kernels/clump/label_tile_solver.h)
// in a build without CUDA: it links, and every call says why it cannot run.
#if !defined(TERRAZO_WITH_CUDA)
#include "kernels/common/cuda_device.h"
#include "kernels/clump/label_tile_solver.h"

namespace terrazo {
void label_tiles_cuda(const double*, std::uint64_t, std::uint32_t, Connectivity, std::uint32_t*, std::uint32_t*) {
  refuse_without_cuda("label_tiles_cuda");
}
void label_tiles_cuda(const void*, ClumpKeyCode, std::uint64_t, std::uint32_t, Connectivity, std::uint32_t*,
                      std::uint32_t*, std::uint32_t*) {
  refuse_without_cuda("label_tiles_cuda");
}

struct CudaClumpBatchSolver::Impl {};
CudaClumpBatchSolver::CudaClumpBatchSolver(std::uint32_t, Connectivity, ClumpKeyCode, std::uint64_t, std::uint64_t) {
  refuse_without_cuda("CudaClumpBatchSolver");
}
CudaClumpBatchSolver::~CudaClumpBatchSolver() = default;
std::uint64_t CudaClumpBatchSolver::batch_tiles() const { return 0; }
ClumpKeyCode CudaClumpBatchSolver::key_code() const { return ClumpKeyCode::Float64; }
std::uint64_t CudaClumpBatchSolver::pinned_bytes() const { return 0; }
std::uint64_t CudaClumpBatchSolver::device_bytes() const { return 0; }
void* CudaClumpBatchSolver::keys() { refuse_without_cuda("CudaClumpBatchSolver"); }
void CudaClumpBatchSolver::submit(std::uint64_t, bool) { refuse_without_cuda("CudaClumpBatchSolver"); }
std::size_t CudaClumpBatchSolver::pending() const { return 0; }
const CudaClumpBatchSolver::Batch& CudaClumpBatchSolver::wait() { refuse_without_cuda("CudaClumpBatchSolver"); }

}  // namespace terrazo
#endif
