// kernels/common/cuda_support.cu: cached device limits for the CUDA block solvers (kernels/common/cuda_support.cuh).
#include "kernels/common/cuda_support.cuh"

namespace terrazo::cuda {
namespace {

const cudaDeviceProp& device_properties() {
  static const cudaDeviceProp properties = [] {
    cudaDeviceProp prop{};
    int device = 0;
    TERRAZO_CUDA_CHECK(cudaGetDevice(&device));
    TERRAZO_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    return prop;
  }();
  return properties;
}

}  // namespace

std::size_t max_shared_bytes_per_block() { return device_properties().sharedMemPerBlockOptin; }

int multiprocessor_count() { return device_properties().multiProcessorCount; }

}  // namespace terrazo::cuda
