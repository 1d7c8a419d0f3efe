#include <cuda_runtime.h>

#include "kernels/common/cuda_device.h"

namespace terrazo {

const CudaDeviceInfo& cuda_device() {
  static const CudaDeviceInfo info = [] {
    CudaDeviceInfo result;
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
      result.reason = status != cudaSuccess ? std::string("no CUDA device: ") + cudaGetErrorString(status)
                                            : std::string("no CUDA device found");
      cudaGetLastError();  // clear the sticky status of a failed query
      return result;
    }
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
      result.reason = "cannot read the properties of CUDA device 0";
      return result;
    }
    result.available = true;
    result.name = prop.name;
    result.multiprocessors = prop.multiProcessorCount;
    result.global_memory = prop.totalGlobalMem;
    return result;
  }();
  return info;
}

CudaContextWarmup::CudaContextWarmup() {
  if (!cuda_device().available) return;
  thread_ = std::thread([] {
    cudaFree(nullptr);   // creates the primary context; a failure shows again at the first real call
    cudaGetLastError();  // and is not left sticky for it
  });
}

CudaContextWarmup::~CudaContextWarmup() {
  if (thread_.joinable()) thread_.join();
}

}  // namespace terrazo
