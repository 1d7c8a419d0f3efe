// kernels/sssp/sssp_cuda_none.cpp: the CUDA entry points of the SSSP kernels in a build without CUDA: they link,
// and every call says why it cannot run (refuse_without_cuda, kernels/common/cuda_device.h).
#if !defined(TERRAZO_WITH_CUDA)
#include "kernels/common/cuda_device.h"
#include "kernels/sssp/block_bfs.h"
#include "kernels/sssp/block_sssp.h"
#include "kernels/sssp/block_sssp_batch.h"
#include "kernels/sssp/resident_sssp.h"

namespace terrazo {

std::uint64_t block_sssp_cuda(const double*, std::uint64_t, std::uint32_t, const WeightParams&, Connectivity,
                              PathLength, PathLength*, std::uint8_t*, bool*) {
  refuse_without_cuda("block_sssp_cuda");
}
std::uint64_t block_bfs_cuda(const double*, std::uint64_t, std::uint32_t, const WeightParams&, Connectivity, PathLength,
                             PathLength*, std::uint8_t*) {
  refuse_without_cuda("block_bfs_cuda");
}
std::unique_ptr<ResidentSsspSolver> make_resident_sssp_cuda(const ResidentSsspOptions&) {
  refuse_without_cuda("the resident SSSP solver");
}
struct CudaSsspBatchSolver::Impl {};
CudaSsspBatchSolver::CudaSsspBatchSolver(const SsspBatchOptions&, PathLength) { refuse_without_cuda("CudaSsspBatchSolver"); }
CudaSsspBatchSolver::~CudaSsspBatchSolver() = default;
std::uint64_t CudaSsspBatchSolver::batch_tiles() const { return 0; }
std::uint64_t CudaSsspBatchSolver::device_bytes() const { return 0; }
std::uint64_t CudaSsspBatchSolver::pinned_bytes() const { return 0; }
double* CudaSsspBatchSolver::values() { refuse_without_cuda("CudaSsspBatchSolver"); }
PathLength* CudaSsspBatchSolver::dist() { refuse_without_cuda("CudaSsspBatchSolver"); }
std::int64_t* CudaSsspBatchSolver::row0() { refuse_without_cuda("CudaSsspBatchSolver"); }
void CudaSsspBatchSolver::submit(std::uint64_t) { refuse_without_cuda("CudaSsspBatchSolver"); }
std::size_t CudaSsspBatchSolver::pending() const { return 0; }
const CudaSsspBatchSolver::Batch& CudaSsspBatchSolver::wait() { refuse_without_cuda("CudaSsspBatchSolver"); }

}  // namespace terrazo
#endif
