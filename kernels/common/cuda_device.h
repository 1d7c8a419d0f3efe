// kernels/common/cuda_device.h: is there a CUDA device to run the GPU solvers on?
//
// Always declared; in a build without CUDA it answers false with the reason. GPU tests call it
// and skip with the message when there is none; `--device auto` uses it to choose.
#pragma once
#include <string>
#include <thread>

namespace terrazo {

struct CudaDeviceInfo {
  bool available = false;
  std::string reason;      // why not, when !available
  std::string name;        // e.g. "NVIDIA H100 80GB HBM3"
  int multiprocessors = 0;
  std::size_t global_memory = 0;
};

// Queries device 0 once (cached).
const CudaDeviceInfo& cuda_device();

// Throws Error("<what>: this terrazo was built without CUDA ...; use --device cpu"). Each kernel
// family's <family>_cuda_none.cpp defines its CUDA entry points with it in a build without CUDA.
[[noreturn]] void refuse_without_cuda(const char* what);

// Creates device 0's primary context (the first CUDA call of a process that needs one pays for it:
// 0.1-0.5 s) on a thread of its own, so that it overlaps what the caller does next, reading the
// input, say; the destructor joins the thread. Nothing without a device (or without CUDA).
class CudaContextWarmup {
 public:
  CudaContextWarmup();
  ~CudaContextWarmup();
  CudaContextWarmup(const CudaContextWarmup&) = delete;
  CudaContextWarmup& operator=(const CudaContextWarmup&) = delete;

 private:
  std::thread thread_;
};

}  // namespace terrazo
