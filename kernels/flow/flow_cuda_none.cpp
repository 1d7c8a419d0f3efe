// kernels/flow/flow_cuda_none.cpp: the CUDA entry points of the flow kernels in a build without CUDA:
// they link, and every call says why it cannot run (refuse_without_cuda, kernels/common/cuda_device.h).
#if !defined(TERRAZO_WITH_CUDA)
#include "kernels/common/cuda_device.h"
#include "kernels/flow/resident_fill.h"

namespace terrazo {

std::unique_ptr<ResidentFillSolver> make_resident_fill_cuda(const ResidentFillOptions&) {
  refuse_without_cuda("the resident fill solver");
}

}  // namespace terrazo
#endif
