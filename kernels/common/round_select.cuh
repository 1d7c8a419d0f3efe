// kernels/common/round_select.cuh: the pending tiles of a resident solver on the device and the choice
// of each round's tiles (the near-far selection of kernels/sssp/resident_sssp_steps.h's NearFarSchedule,
// made on the device): per tile a 64-bit key (~0: not pending; the kernels lower keys by atomicMin),
//   smallest_key()      cub::DeviceReduce::Min over the keys, read back;
//   select(threshold)   the tiles whose key is at most `threshold` flagged and their keys cleared,
//                       cub::DeviceSelect::Flagged lists them in ascending tile order (deterministic,
//                       as the CPU twins' loops), the count read back.
// Device memory: 17 bytes a tile and CUB's temporary. Included by the kernels/*.cu files only.
#pragma once
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cstdint>

#include "kernels/common/cuda_support.cuh"

namespace terrazo::cuda {

static __global__ void flag_round_tiles(std::uint64_t tiles, std::uint64_t threshold, std::uint64_t* __restrict__ key,
                                        std::uint8_t* __restrict__ selected) {
  const std::uint64_t k = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (k >= tiles) return;
  const bool take = key[k] <= threshold;
  selected[k] = take ? 1 : 0;
  if (take) key[k] = ~std::uint64_t{0};
}

class DeviceRoundSelect {
 public:
  // Every key ~0 (nothing pending), ordered on `stream`.
  DeviceRoundSelect(std::uint64_t tiles, cudaStream_t stream) : tiles_(tiles), stream_(stream) {
    key_.resize(tiles);
    selected_.resize(tiles);
    active_.resize(tiles);
    counters_.resize(2);  // the selected count, the smallest key
    host_.resize(2);
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(key_.get(), 0xff, tiles * sizeof(std::uint64_t), stream_));
    std::size_t select_temp = 0, reduce_temp = 0;
    TERRAZO_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, select_temp, thrust::counting_iterator<std::uint64_t>(0),
                                                  selected_.get(), active_.get(), counters_.get(), tiles_, stream_));
    TERRAZO_CUDA_CHECK(cub::DeviceReduce::Min(nullptr, reduce_temp, key_.get(), counters_.get() + 1, tiles_, stream_));
    temp_bytes_ = std::max<std::size_t>({select_temp, reduce_temp, 1});
    temp_.resize(temp_bytes_);
  }

  std::uint64_t* keys() const { return key_.get(); }
  const std::uint64_t* active() const { return active_.get(); }

  // The smallest key (~0: nothing pending); synchronizes the stream.
  std::uint64_t smallest_key() {
    std::size_t temp = temp_bytes_;
    TERRAZO_CUDA_CHECK(cub::DeviceReduce::Min(temp_.get(), temp, key_.get(), counters_.get() + 1, tiles_, stream_));
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(host_.get() + 1, counters_.get() + 1, sizeof(std::uint64_t), cudaMemcpyDeviceToHost,
                                       stream_));
    TERRAZO_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return host_.get()[1];
  }

  // The tiles whose key is at most `threshold`, listed in ascending order in active(), their keys
  // cleared; returns their count (synchronizes the stream). `done`, when given, is recorded on the
  // stream after the selection's work (for timing).
  std::uint64_t select(std::uint64_t threshold, cudaEvent_t done = nullptr) {
    flag_round_tiles<<<static_cast<unsigned>((tiles_ + 255) / 256), 256, 0, stream_>>>(tiles_, threshold, key_.get(),
                                                                                      selected_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    std::size_t temp = temp_bytes_;
    TERRAZO_CUDA_CHECK(cub::DeviceSelect::Flagged(temp_.get(), temp, thrust::counting_iterator<std::uint64_t>(0),
                                                  selected_.get(), active_.get(), counters_.get(), tiles_, stream_));
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(host_.get(), counters_.get(), sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream_));
    if (done) TERRAZO_CUDA_CHECK(cudaEventRecord(done, stream_));
    TERRAZO_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return host_.get()[0];
  }

 private:
  std::uint64_t tiles_;
  cudaStream_t stream_;
  DeviceBuffer<std::uint64_t> key_;
  DeviceBuffer<std::uint8_t> selected_;
  DeviceBuffer<std::uint64_t> active_;
  DeviceBuffer<std::uint64_t> counters_;
  DeviceBuffer<unsigned char> temp_;
  std::size_t temp_bytes_ = 0;
  PinnedBuffer<std::uint64_t> host_;
};

}  // namespace terrazo::cuda
