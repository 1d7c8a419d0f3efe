// kernels/flow/flow_cuda_none.cpp: the CUDA entry points of the flow kernels in a build without CUDA:
// they link, and every call says why it cannot run (refuse_without_cuda, kernels/common/cuda_device.h).
#if !defined(TERRAZO_WITH_CUDA)
#include "kernels/common/cuda_device.h"
#include "kernels/flow/resident_fill.h"
#include "kernels/flow/resident_flowacc.h"
#include "kernels/flow/resident_flowdir.h"
#include "kernels/flow/resident_watershed.h"

namespace terrazo {

std::unique_ptr<ResidentFillSolver> make_resident_fill_cuda(const ResidentFillOptions&) {
  refuse_without_cuda("the resident fill solver");
}
std::unique_ptr<ResidentFlowAcc> make_resident_flowacc_cuda(const ResidentFlowAccOptions&) {
  refuse_without_cuda("the resident flow accumulation");
}
std::unique_ptr<ResidentFlowdir> make_resident_flowdir_cuda(const ResidentFlowdirOptions&) {
  refuse_without_cuda("the resident flow directions");
}
std::unique_ptr<ResidentWatershed> make_resident_watershed_cuda(const ResidentWatershedOptions&) {
  refuse_without_cuda("the resident watershed labelling");
}

}  // namespace terrazo
#endif
