// kernels/index/index_cuda_none.cpp: the CUDA entry points of the index kernels (tile_boundary_matrix.h,
// min_plus.h) in a build without CUDA: they link, and every call says why it cannot run.
#if !defined(TERRAZO_WITH_CUDA)
#include "kernels/common/cuda_device.h"
#include "kernels/index/gprime_rounds.h"
#include "kernels/index/min_plus.h"
#include "kernels/index/tile_boundary_matrix.h"

namespace terrazo {
std::uint64_t tile_boundary_cuda_bytes(std::uint32_t, std::uint32_t, std::uint64_t) { refuse_without_cuda("tile_boundary_cuda_bytes"); }
double tile_boundary_matrix_cuda(const double*, std::uint64_t, std::uint32_t, std::uint32_t, const WeightParams&,
                                 Connectivity, PathLength*, bool*) {
  refuse_without_cuda("tile_boundary_matrix_cuda");
}
double tile_boundary_matrix_cuda_to_device(const double*, std::uint64_t, std::uint32_t, std::uint32_t, const WeightParams&,
                                           Connectivity, PathLength*, bool*) {
  refuse_without_cuda("tile_boundary_matrix_cuda_to_device");
}
struct TileBoundaryCuda::State {};
TileBoundaryCuda::TileBoundaryCuda(std::uint32_t, std::uint32_t, std::uint64_t, PinnedHost) { refuse_without_cuda("TileBoundaryCuda"); }
double* TileBoundaryCuda::host_values() { refuse_without_cuda("TileBoundaryCuda"); }
PathLength* TileBoundaryCuda::host_matrices() { refuse_without_cuda("TileBoundaryCuda"); }
TileBoundaryCuda::~TileBoundaryCuda() = default;
double TileBoundaryCuda::build(const double*, std::uint64_t, const WeightParams&, Connectivity, PathLength*, bool, bool*) {
  refuse_without_cuda("TileBoundaryCuda");
}
double min_plus_product_cuda(const PathLength*, std::uint64_t, std::uint32_t, const PathLength*, std::uint32_t,
                             PathLength*) {
  refuse_without_cuda("min_plus_product_cuda");
}

struct MinPlusCuda::State {};
MinPlusCuda::MinPlusCuda(std::uint32_t, std::uint64_t) { refuse_without_cuda("MinPlusCuda"); }
MinPlusCuda::~MinPlusCuda() = default;
std::uint64_t MinPlusCuda::free_device_bytes() { refuse_without_cuda("MinPlusCuda"); }
void MinPlusCuda::upload(std::uint64_t, const PathLength*) { refuse_without_cuda("MinPlusCuda"); }
double MinPlusCuda::gather(const std::uint32_t*, std::uint64_t, const PathLength*, PathLength*) { refuse_without_cuda("MinPlusCuda"); }

struct GPrimeRoundsCuda::State {};
GPrimeRoundsCuda::GPrimeRoundsCuda(std::uint32_t, std::uint64_t, std::uint64_t) { refuse_without_cuda("GPrimeRoundsCuda"); }
void GPrimeRoundsCuda::upload_edges(const GPrimeInEdge*, const std::int64_t*) { refuse_without_cuda("GPrimeRoundsCuda"); }
GPrimeRoundsCuda::~GPrimeRoundsCuda() = default;
void GPrimeRoundsCuda::upload_matrix(std::uint64_t, const PathLength*) { refuse_without_cuda("GPrimeRoundsCuda"); }
void GPrimeRoundsCuda::begin_staging(unsigned, std::uint64_t) { refuse_without_cuda("GPrimeRoundsCuda"); }
PathLength* GPrimeRoundsCuda::staging(unsigned) { refuse_without_cuda("GPrimeRoundsCuda"); }
void GPrimeRoundsCuda::wait_staging(unsigned) const { refuse_without_cuda("GPrimeRoundsCuda"); }
void GPrimeRoundsCuda::upload_staged(unsigned, std::uint64_t, std::uint64_t) { refuse_without_cuda("GPrimeRoundsCuda"); }
void GPrimeRoundsCuda::finish_staging() { refuse_without_cuda("GPrimeRoundsCuda"); }
void GPrimeRoundsCuda::reset(std::uint64_t) { refuse_without_cuda("GPrimeRoundsCuda"); }
void GPrimeRoundsCuda::seed(std::uint64_t, const PathLength*) { refuse_without_cuda("GPrimeRoundsCuda"); }
std::uint64_t GPrimeRoundsCuda::run(PathLength, PathLength, std::vector<std::uint64_t>*) { refuse_without_cuda("GPrimeRoundsCuda"); }
void GPrimeRoundsCuda::download(std::uint64_t, PathLength*) const { refuse_without_cuda("GPrimeRoundsCuda"); }
PathLength* GPrimeRoundsCuda::device_matrices(std::uint64_t) { refuse_without_cuda("GPrimeRoundsCuda"); }
void GPrimeRoundsCuda::download_matrix(std::uint64_t, PathLength*) const { refuse_without_cuda("GPrimeRoundsCuda"); }

}  // namespace terrazo
#endif
