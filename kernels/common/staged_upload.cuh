// kernels/common/staged_upload.cuh: host windows of doubles to the device through two page-locked
// staging slots, so that the copy and the use of one window overlap the caller filling the next.
//
//   StagedUpload upload(stream);
//   const double* d = upload.stage(values, n);   // values[0, n) copied on `stream`
//   my_kernel<<<..., stream>>>(d, ...);          // reads d; enqueued before the next stage() call
// A slot is reused two calls later, once the work enqueued after its copy (its reader) is done: each
// stage() records the previous slot's event first, so that event follows the reader. Included by the
// kernels/*.cu files only.
#pragma once
#include <algorithm>
#include <cstdint>

#include "kernels/common/cuda_support.cuh"

namespace terrazo::cuda {

class StagedUpload {
 public:
  explicit StagedUpload(cudaStream_t stream) : stream_(stream) {}

  const double* stage(const double* values, std::uint64_t n) {
    if (used_[1 - next_]) slots_[1 - next_].done.record(stream_);  // after the previous slot's reader
    Slot& slot = slots_[next_];
    if (used_[next_]) slot.done.synchronize();
    if (slot.host.size() < n) {
      slot.host.resize(n);
      slot.device.resize(n);
    }
    std::copy(values, values + n, slot.host.get());
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.device.get(), slot.host.get(), n * sizeof(double), cudaMemcpyHostToDevice, stream_));
    used_[next_] = true;
    next_ ^= 1;
    return slot.device.get();
  }

 private:
  struct Slot {
    PinnedBuffer<double> host;
    DeviceBuffer<double> device;
    CudaEvent done;
  };
  cudaStream_t stream_;
  Slot slots_[2];
  bool used_[2] = {false, false};
  int next_ = 0;
};

}  // namespace terrazo::cuda
