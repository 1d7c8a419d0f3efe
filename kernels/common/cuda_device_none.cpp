// The answer of a build without CUDA (kernels/common/cuda_device.h).
#include "kernels/common/cuda_device.h"

#if !defined(TERRAZO_WITH_CUDA)
#include <string>

#include "kernels/common/error.h"

namespace terrazo {

void refuse_without_cuda(const char* what) {
  throw Error(std::string(what) +
              ": this terrazo was built without CUDA (nvcc was not found at configure time); use --device cpu");
}

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
