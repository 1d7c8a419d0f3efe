// The CUDA block solvers in a build without CUDA (kernels/mst/block_mst.h, block_reduce.h,
// block_sssp.h, block_mst_batch.h, block_sssp_batch.h, graph_msf.h): they link, and every call says why it cannot run.
#if !defined(TERRAZO_WITH_CUDA)
#include <string>

#include "kernels/common/error.h"
#include "kernels/mst/block_mst.h"
#include "kernels/mst/block_mst_batch.h"
#include "kernels/mst/block_reduce.h"
#include "kernels/sssp/block_bfs.h"
#include "kernels/sssp/block_sssp.h"
#include "kernels/sssp/block_sssp_batch.h"
#include "kernels/mst/graph_msf.h"
#include "kernels/sssp/resident_sssp.h"

namespace terrazo {
namespace {

[[noreturn]] void no_cuda(const char* what) {
  throw Error(std::string(what) +
              ": this terrazo was built without CUDA (nvcc was not found at configure time); use --device cpu");
}

}  // namespace

void block_mst_cuda(const double*, std::uint64_t, std::uint32_t, const WeightParams&, Connectivity, std::uint8_t*,
                    bool*) {
  no_cuda("block_mst_cuda");
}

void block_reduce_cuda(const std::uint8_t*, const double*, std::uint64_t, std::uint32_t, const WeightParams&,
                       Connectivity, std::vector<std::vector<TileSummaryEdge>>*) {
  no_cuda("block_reduce_cuda");
}

std::uint64_t block_sssp_cuda(const double*, std::uint64_t, std::uint32_t, const WeightParams&, Connectivity,
                              PathLength, PathLength*, std::uint8_t*, bool*) {
  no_cuda("block_sssp_cuda");
}

std::uint64_t block_bfs_cuda(const double*, std::uint64_t, std::uint32_t, const WeightParams&, Connectivity, PathLength,
                             PathLength*, std::uint8_t*) {
  no_cuda("block_bfs_cuda");
}

std::unique_ptr<ResidentSsspSolver> make_resident_sssp_cuda(const ResidentSsspOptions&) {
  no_cuda("the resident SSSP solver");
}

struct CudaMstBatchSolver::Impl {};
CudaMstBatchSolver::CudaMstBatchSolver(const MstBatchOptions&) { no_cuda("CudaMstBatchSolver"); }
CudaMstBatchSolver::~CudaMstBatchSolver() = default;
std::uint64_t CudaMstBatchSolver::batch_tiles() const { return 0; }
std::uint64_t CudaMstBatchSolver::device_bytes() const { return 0; }
std::uint64_t CudaMstBatchSolver::pinned_bytes() const { return 0; }
double* CudaMstBatchSolver::input() { no_cuda("CudaMstBatchSolver"); }
void CudaMstBatchSolver::submit(std::uint64_t) { no_cuda("CudaMstBatchSolver"); }
std::size_t CudaMstBatchSolver::pending() const { return 0; }
const CudaMstBatchSolver::Batch& CudaMstBatchSolver::wait() { no_cuda("CudaMstBatchSolver"); }

struct CudaSsspBatchSolver::Impl {};
CudaSsspBatchSolver::CudaSsspBatchSolver(const SsspBatchOptions&, PathLength) { no_cuda("CudaSsspBatchSolver"); }
CudaSsspBatchSolver::~CudaSsspBatchSolver() = default;
std::uint64_t CudaSsspBatchSolver::batch_tiles() const { return 0; }
std::uint64_t CudaSsspBatchSolver::device_bytes() const { return 0; }
std::uint64_t CudaSsspBatchSolver::pinned_bytes() const { return 0; }
double* CudaSsspBatchSolver::values() { no_cuda("CudaSsspBatchSolver"); }
PathLength* CudaSsspBatchSolver::dist() { no_cuda("CudaSsspBatchSolver"); }
std::int64_t* CudaSsspBatchSolver::row0() { no_cuda("CudaSsspBatchSolver"); }
void CudaSsspBatchSolver::submit(std::uint64_t) { no_cuda("CudaSsspBatchSolver"); }
std::size_t CudaSsspBatchSolver::pending() const { return 0; }
const CudaSsspBatchSolver::Batch& CudaSsspBatchSolver::wait() { no_cuda("CudaSsspBatchSolver"); }

void graph_msf_cuda(const GraphEdge*, const std::uint8_t*, const GraphSpan*, std::uint64_t, std::uint8_t*,
                    GraphSummaryEdge*, std::uint32_t*) {
  no_cuda("graph_msf_cuda");
}

struct CudaGraphMsfBatchSolver::Impl {};
CudaGraphMsfBatchSolver::CudaGraphMsfBatchSolver(const GraphBatchOptions&) { no_cuda("CudaGraphMsfBatchSolver"); }
CudaGraphMsfBatchSolver::~CudaGraphMsfBatchSolver() = default;
std::uint64_t CudaGraphMsfBatchSolver::edge_capacity() const { return 0; }
std::uint64_t CudaGraphMsfBatchSolver::vertex_capacity() const { return 0; }
std::uint64_t CudaGraphMsfBatchSolver::graph_capacity() const { return 0; }
std::uint64_t CudaGraphMsfBatchSolver::device_bytes() const { return 0; }
std::uint64_t CudaGraphMsfBatchSolver::pinned_bytes() const { return 0; }
GraphEdge* CudaGraphMsfBatchSolver::edges() { no_cuda("CudaGraphMsfBatchSolver"); }
std::uint8_t* CudaGraphMsfBatchSolver::boundary() { no_cuda("CudaGraphMsfBatchSolver"); }
GraphSpan* CudaGraphMsfBatchSolver::graphs() { no_cuda("CudaGraphMsfBatchSolver"); }
void CudaGraphMsfBatchSolver::submit(std::uint64_t, std::uint64_t, std::uint64_t) {
  no_cuda("CudaGraphMsfBatchSolver");
}
std::size_t CudaGraphMsfBatchSolver::pending() const { return 0; }
const CudaGraphMsfBatchSolver::Batch& CudaGraphMsfBatchSolver::wait() { no_cuda("CudaGraphMsfBatchSolver"); }

}  // namespace terrazo
#endif
