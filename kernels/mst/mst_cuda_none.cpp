// kernels/mst/mst_cuda_none.cpp: the CUDA entry points of the MST kernels in a build without CUDA: they link,
// and every call says why it cannot run (refuse_without_cuda, kernels/common/cuda_device.h).
#if !defined(TERRAZO_WITH_CUDA)
#include "kernels/common/cuda_device.h"
#include "kernels/mst/block_mst.h"
#include "kernels/mst/block_mst_batch.h"
#include "kernels/mst/block_reduce.h"
#include "kernels/mst/graph_msf.h"

namespace terrazo {

void block_mst_cuda(const double*, std::uint64_t, std::uint32_t, const WeightParams&, Connectivity, std::uint8_t*,
                    bool*) {
  refuse_without_cuda("block_mst_cuda");
}
void block_reduce_cuda(const std::uint8_t*, const double*, std::uint64_t, std::uint32_t, const WeightParams&,
                       Connectivity, std::vector<std::vector<TileSummaryEdge>>*) {
  refuse_without_cuda("block_reduce_cuda");
}
struct CudaMstBatchSolver::Impl {};
CudaMstBatchSolver::CudaMstBatchSolver(const MstBatchOptions&) { refuse_without_cuda("CudaMstBatchSolver"); }
CudaMstBatchSolver::~CudaMstBatchSolver() = default;
std::uint64_t CudaMstBatchSolver::batch_tiles() const { return 0; }
std::uint64_t CudaMstBatchSolver::device_bytes() const { return 0; }
std::uint64_t CudaMstBatchSolver::pinned_bytes() const { return 0; }
double* CudaMstBatchSolver::input() { refuse_without_cuda("CudaMstBatchSolver"); }
void CudaMstBatchSolver::submit(std::uint64_t) { refuse_without_cuda("CudaMstBatchSolver"); }
std::size_t CudaMstBatchSolver::pending() const { return 0; }
const CudaMstBatchSolver::Batch& CudaMstBatchSolver::wait() { refuse_without_cuda("CudaMstBatchSolver"); }
void graph_msf_cuda(const GraphEdge*, const std::uint8_t*, const GraphSpan*, std::uint64_t, std::uint8_t*,
                    GraphSummaryEdge*, std::uint32_t*) {
  refuse_without_cuda("graph_msf_cuda");
}
struct CudaGraphMsfBatchSolver::Impl {};
CudaGraphMsfBatchSolver::CudaGraphMsfBatchSolver(const GraphBatchOptions&) { refuse_without_cuda("CudaGraphMsfBatchSolver"); }
CudaGraphMsfBatchSolver::~CudaGraphMsfBatchSolver() = default;
std::uint64_t CudaGraphMsfBatchSolver::edge_capacity() const { return 0; }
std::uint64_t CudaGraphMsfBatchSolver::vertex_capacity() const { return 0; }
std::uint64_t CudaGraphMsfBatchSolver::graph_capacity() const { return 0; }
std::uint64_t CudaGraphMsfBatchSolver::device_bytes() const { return 0; }
std::uint64_t CudaGraphMsfBatchSolver::pinned_bytes() const { return 0; }
GraphEdge* CudaGraphMsfBatchSolver::edges() { refuse_without_cuda("CudaGraphMsfBatchSolver"); }
std::uint8_t* CudaGraphMsfBatchSolver::boundary() { refuse_without_cuda("CudaGraphMsfBatchSolver"); }
GraphSpan* CudaGraphMsfBatchSolver::graphs() { refuse_without_cuda("CudaGraphMsfBatchSolver"); }
void CudaGraphMsfBatchSolver::submit(std::uint64_t, std::uint64_t, std::uint64_t) {
  refuse_without_cuda("CudaGraphMsfBatchSolver");
}
std::size_t CudaGraphMsfBatchSolver::pending() const { return 0; }
const CudaGraphMsfBatchSolver::Batch& CudaGraphMsfBatchSolver::wait() { refuse_without_cuda("CudaGraphMsfBatchSolver"); }

}  // namespace terrazo
#endif
