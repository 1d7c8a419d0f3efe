// kernels/common/cuda_support.cuh: checked CUDA calls and RAII owners for device memory, pinned host
// memory, streams and events. Included by the kernels/*.cu files only.
//
//   TERRAZO_CUDA_CHECK(cudaMemcpy(...));   throws terrazo::Error("CUDA error at file:line: call: message")
//   TERRAZO_CUDA_CHECK_LAUNCH();           after every kernel launch (launch configuration errors)
//   DeviceBuffer<T> d_keys(count);         cudaMalloc'ed, freed on destruction, move-only
//   PinnedBuffer<T> host(count);           cudaMallocHost'ed (page-locked), for asynchronous copies
//   CudaStream stream; CudaEvent event;    created on construction, destroyed on destruction
// Sizes are 64-bit element counts; byte counts are checked against overflow.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "kernels/common/error.h"

namespace terrazo::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  throw Error(std::string("CUDA error at ") + file + ":" + std::to_string(line) + ": " + call + ": " +
              cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

inline void check(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) throw_cuda_error(status, call, file, line);
}

#define TERRAZO_CUDA_CHECK(call) ::terrazo::cuda::check((call), #call, __FILE__, __LINE__)
// A launch reports configuration errors through cudaGetLastError; execution errors surface at the
// next synchronizing call, which is checked too.
#define TERRAZO_CUDA_CHECK_LAUNCH() ::terrazo::cuda::check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

inline std::size_t checked_bytes(std::uint64_t count, std::size_t element_size) {
  if (count > std::numeric_limits<std::size_t>::max() / (element_size ? element_size : 1)) {
    throw Error("CUDA buffer of " + std::to_string(count) + " elements does not fit in the address space");
  }
  return static_cast<std::size_t>(count) * element_size;
}

// The two kinds of CUDA memory a buffer can own: how to allocate and free it, and what the error
// message advises when the allocation fails.
struct DeviceMemory {
  static cudaError_t allocate(void** pointer, std::size_t bytes) { return cudaMalloc(pointer, bytes); }
  static void free(void* pointer) noexcept { cudaFree(pointer); }
  static constexpr const char* kWhat = "GPU memory";
  static constexpr const char* kAdvice = "lower --gpu-memory or the tile size";
};
struct PinnedMemory {
  static cudaError_t allocate(void** pointer, std::size_t bytes) { return cudaMallocHost(pointer, bytes); }
  static void free(void* pointer) noexcept { cudaFreeHost(pointer); }
  static constexpr const char* kWhat = "pinned host memory";
  static constexpr const char* kAdvice = "lower --memory or the batch size";
};

// `count` elements of T (uninitialized) in the memory `Memory` allocates. Move-only.
template <typename T, typename Memory>
class CudaBuffer {
 public:
  CudaBuffer() = default;
  explicit CudaBuffer(std::uint64_t count) { resize(count); }
  ~CudaBuffer() { release(); }
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;
  CudaBuffer(CudaBuffer&& other) noexcept { swap(other); }
  CudaBuffer& operator=(CudaBuffer&& other) noexcept {
    if (this != &other) {
      release();
      swap(other);
    }
    return *this;
  }

  // Reallocates only when the capacity is too small; the contents are not kept.
  void resize(std::uint64_t count) {
    if (count <= capacity_) {
      count_ = count;
      return;
    }
    release();
    void* pointer = nullptr;
    const std::size_t bytes = checked_bytes(count, sizeof(T));
    const cudaError_t status = Memory::allocate(&pointer, bytes ? bytes : 1);
    if (status != cudaSuccess) {
      cudaGetLastError();
      throw Error("cannot allocate " + std::to_string(bytes) + " bytes of " + Memory::kWhat + " (" +
                  cudaGetErrorString(status) + "); " + Memory::kAdvice);
    }
    data_ = static_cast<T*>(pointer);
    count_ = capacity_ = count;
  }
  T* get() const { return data_; }
  std::uint64_t size() const { return count_; }
  std::size_t bytes() const { return static_cast<std::size_t>(count_) * sizeof(T); }

 private:
  void release() noexcept {
    if (data_) Memory::free(data_);
    data_ = nullptr;
    count_ = capacity_ = 0;
  }
  void swap(CudaBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    std::swap(capacity_, other.capacity_);
  }
  T* data_ = nullptr;
  std::uint64_t count_ = 0, capacity_ = 0;
};

// Device memory (cudaMalloc) and page-locked host memory (cudaMallocHost), for asynchronous copies.
template <typename T>
using DeviceBuffer = CudaBuffer<T, DeviceMemory>;
template <typename T>
using PinnedBuffer = CudaBuffer<T, PinnedMemory>;

class CudaStream {
 public:
  CudaStream() { TERRAZO_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~CudaStream() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize() const { TERRAZO_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

class CudaEvent {
 public:
  CudaEvent() { TERRAZO_CUDA_CHECK(cudaEventCreate(&event_)); }
  ~CudaEvent() {
    if (event_) cudaEventDestroy(event_);
  }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) { TERRAZO_CUDA_CHECK(cudaEventRecord(event_, stream)); }
  void synchronize() const { TERRAZO_CUDA_CHECK(cudaEventSynchronize(event_)); }
  // Milliseconds from `start` to this event (both recorded and complete).
  float elapsed_since(const CudaEvent& start) const {
    float ms = 0.0f;
    TERRAZO_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
    return ms;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

// The device's limit on dynamic shared memory per block (opt-in maximum), cached.
std::size_t max_shared_bytes_per_block();
// Multiprocessors of device 0, cached.
int multiprocessor_count();

}  // namespace terrazo::cuda
