// The answer of a build without CUDA (kernels/common/cuda_device.h).
#include "kernels/common/cuda_device.h"

#if !defined(TERRAZO_WITH_CUDA)
namespace terrazo {

const CudaDeviceInfo& cuda_device() {
  static const CudaDeviceInfo info = [] {
    CudaDeviceInfo result;
    result.reason = "this terrazo was built without CUDA (nvcc was not found at configure time)";
    return result;
  }();
  return info;
}

CudaContextWarmup::CudaContextWarmup() {}
CudaContextWarmup::~CudaContextWarmup() = default;

}  // namespace terrazo
#endif
