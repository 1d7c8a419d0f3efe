// kernels/sssp/resident_sssp.cu: the CUDA resident SSSP solver (contract: kernels/sssp/resident_sssp.h).
//
// The values and distances of the whole raster live in device memory; the host uploads each
// window once, then only launches rounds and reads one count per round:
//   gather_windows      one block per active tile: its (g+2h)^2 window from the resident arrays (h = 2
//                       with knight's moves, else 1);
//   launch_block_sssp   the relaxation-sweep block solver (kernels/sssp/block_sssp.cu; with knight's
//                       moves kernels/sssp/block_sssp_knight.cu), many tiles per launch;
//   store_interiors     the changed cells of each window back into the resident distances;
//   activate_neighbours one block per solved tile: changed border-band cells lower the keys of the
//                       neighbouring tiles they improve (resident_improved_neighbour, shared with
//                       the CPU twin; atomicMin);
//   selection           cub::DeviceReduce::Min gives the smallest key, select_round flags the tiles
//                       under the near-far threshold (and clears their keys), cub::DeviceSelect::Flagged
//                       lists them in ascending tile order (deterministic, as the CPU twin).
// A round longer than batch_tiles is processed in groups, each group seeing the earlier ones'
// results (as the CPU twin does). Every CUDA call and launch is checked.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/sssp/block_sssp_launch.cuh"
#include "kernels/common/cuda_device.h"
#include "kernels/common/cuda_support.cuh"
#include "kernels/sssp/resident_sssp.h"
#include "kernels/sssp/resident_sssp_steps.h"

namespace terrazo {
namespace cuda {
namespace {

__global__ void write_window_kernel(ResidentLayout l, std::uint64_t x0, std::uint64_t y0, std::uint32_t w,
                                    std::uint32_t h, const double* __restrict__ in, double* __restrict__ values) {
  const std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::uint64_t>(w) * h) return;
  values[l.index(x0 + i % w, y0 + i / w)] = in[i];
}

__global__ void read_window_kernel(ResidentLayout l, std::uint64_t x0, std::uint64_t y0, std::uint32_t w,
                                   std::uint32_t h, const PathLength* __restrict__ dist, PathLength* __restrict__ out) {
  const std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::uint64_t>(w) * h) return;
  out[i] = dist[l.index(x0 + i % w, y0 + i / w)];
}

__global__ void gather_windows(ResidentLayout l, const std::uint64_t* __restrict__ active, const double* __restrict__ values,
                               const PathLength* __restrict__ dist, double* __restrict__ window_values,
                               PathLength* __restrict__ window_dist, std::int64_t* __restrict__ window_row0,
                               std::uint8_t* __restrict__ ever, unsigned long long* __restrict__ first_solves) {
  const std::uint64_t tile = active[blockIdx.x];
  const std::uint32_t s = l.window_side(), cells = s * s;
  double* wv = window_values + blockIdx.x * static_cast<std::uint64_t>(cells);
  PathLength* wd = window_dist + blockIdx.x * static_cast<std::uint64_t>(cells);
  for (std::uint32_t i = threadIdx.x; i < cells; i += blockDim.x) resident_window_cell(l, tile, i, values, dist, &wv[i], &wd[i]);
  if (threadIdx.x == 0) window_row0[blockIdx.x] = static_cast<std::int64_t>((tile / l.tiles_x) * l.g) - l.halo;
  if (threadIdx.x == 0 && !ever[tile]) {
    ever[tile] = 1;
    atomicAdd(first_solves, 1ull);
  }
}

__global__ void store_interiors(ResidentLayout l, const std::uint64_t* __restrict__ active,
                                const PathLength* __restrict__ window_dist, const std::uint8_t* __restrict__ changed,
                                PathLength* __restrict__ dist) {
  const std::uint64_t tile = active[blockIdx.x];
  const std::uint32_t g = l.g, s = l.window_side(), h = l.halo;
  const PathLength* wd = window_dist + blockIdx.x * static_cast<std::uint64_t>(s) * s;
  const std::uint8_t* ch = changed + blockIdx.x * l.tile_cells();
  PathLength* out = dist + tile * l.tile_cells();
  for (std::uint32_t c = threadIdx.x; c < g * g; c += blockDim.x)
    if (ch[c]) out[c] = wd[(c / g + h) * s + c % g + h];
}

__global__ void select_round(std::uint64_t tiles, PathLength threshold, PathLength* __restrict__ key,
                             std::uint8_t* __restrict__ selected) {
  const std::uint64_t k = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (k >= tiles) return;
  const bool take = key[k] <= threshold;
  selected[k] = take ? 1 : 0;
  if (take) key[k] = kUnreached;
}

__global__ void activate_neighbours(ResidentLayout l, const std::uint64_t* __restrict__ active,
                                    const std::uint8_t* __restrict__ changed, const double* __restrict__ values,
                                    const PathLength* __restrict__ dist, ResidentEdges edges,
                                    PathLength* __restrict__ key, int* __restrict__ overflow) {
  const std::uint64_t tile = active[blockIdx.x];
  const std::uint32_t g = l.g, border = l.border_count();
  const int directions = direction_count(edges.connectivity);
  const std::uint8_t* ch = changed + blockIdx.x * l.tile_cells();
  bool overflowed = false;
  for (std::uint32_t b = threadIdx.x; b < border; b += blockDim.x) {
    std::uint32_t lx, ly;
    l.border_cell(b, &lx, &ly);
    if (!ch[ly * g + lx]) continue;
    for (int start = 0, dir = 0; start < directions; start = dir + 1) {
      PathLength candidate = kUnreached;
      const std::uint64_t n = resident_improved_neighbour(l, tile, lx, ly, start, &dir, edges, values, dist, &candidate,
                                                          &overflowed);
      if (n == ~std::uint64_t{0}) break;
      atomicMin(reinterpret_cast<unsigned long long*>(&key[n]), static_cast<unsigned long long>(candidate));
    }
  }
  if (overflowed) atomicExch(overflow, 1);
}

class ResidentSsspCuda final : public ResidentSsspSolver {
 public:
  explicit ResidentSsspCuda(const ResidentSsspOptions& options) : options_(options), layout_(options) {
    if (!cuda_device().available) throw Error("resident SSSP on CUDA: " + cuda_device().reason);
    if (options.g < 2 || options.g > 1024) throw Error("resident SSSP: tile side " + std::to_string(options.g) + " is outside 2..1024");
    batch_ = std::max<std::uint64_t>(1, std::min<std::uint64_t>(options.batch_tiles, layout_.tiles()));
    const std::uint64_t cells = layout_.tiles() * layout_.tile_cells();
    const std::uint64_t s = layout_.window_side();
    values_.resize(cells);
    dist_.resize(cells);
    key_.resize(layout_.tiles());
    selected_.resize(layout_.tiles());
    ever_.resize(layout_.tiles());
    active_.resize(layout_.tiles());
    window_values_.resize(batch_ * s * s);
    window_dist_.resize(batch_ * s * s);
    changed_.resize(batch_ * layout_.tile_cells());
    window_row0_.resize(batch_);
    device_params_ = options_.params;
    if (options_.params.steps.rows) {  // per-row step lengths: the table on the device, global rows
      const std::uint64_t entries = static_cast<std::uint64_t>(options_.params.steps.row_count) * 3;
      steps_.resize(entries);
      TERRAZO_CUDA_CHECK(cudaMemcpy(steps_.get(), options_.params.steps.rows, entries * sizeof(double),
                                    cudaMemcpyHostToDevice));
      device_params_.steps.rows = steps_.get();
    }
    device_params_.steps.row0 = 0;
    edges_ = resident_edges(device_params_, options_.connectivity, options_.max_cost);
    workspace_.sweep = options_.frontier_bfs ? SsspSweep::FrontierBfs : SsspSweep::Auto;
    counters_.resize(5);  // changed cells, first solves, rounds of sweeps, selected count, smallest key
    overflow_.resize(1);
    host_count_.resize(2);
    // Nodata and unreached everywhere: NaN's bytes are 0xff.. too (a quiet NaN with all bits set).
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(values_.get(), 0xff, cells * sizeof(double), stream_.get()));
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(dist_.get(), 0xff, cells * sizeof(PathLength), stream_.get()));
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(key_.get(), 0xff, layout_.tiles() * sizeof(PathLength), stream_.get()));
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(ever_.get(), 0, layout_.tiles(), stream_.get()));
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, 5 * sizeof(unsigned long long), stream_.get()));
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(overflow_.get(), 0, sizeof(int), stream_.get()));
    std::size_t select_temp = 0, reduce_temp = 0;
    TERRAZO_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, select_temp, thrust::counting_iterator<std::uint64_t>(0),
                                                  selected_.get(), active_.get(), counters_.get() + 3, layout_.tiles(),
                                                  stream_.get()));
    TERRAZO_CUDA_CHECK(cub::DeviceReduce::Min(nullptr, reduce_temp, key_.get(), counters_.get() + 4, layout_.tiles(),
                                              stream_.get()));
    cub_temp_bytes_ = std::max<std::size_t>({select_temp, reduce_temp, 1});
    cub_temp_.resize(cub_temp_bytes_);
    stream_.synchronize();
  }

  Device device() const override { return Device::Cuda; }

  void write_values(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, const double* values) override {
    // Two staging slots: the copy and scatter of one window overlap filling the next.
    const std::uint64_t n = static_cast<std::uint64_t>(w) * h;
    if (n == 0) return;
    Staging& slot = staging_[next_staging_];
    next_staging_ ^= 1;
    if (slot.used) TERRAZO_CUDA_CHECK(cudaEventSynchronize(slot.done.get()));
    if (slot.host.size() < n) {
      slot.host.resize(n);
      slot.device.resize(n);
    }
    std::copy(values, values + n, slot.host.get());
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(slot.device.get(), slot.host.get(), n * sizeof(double), cudaMemcpyHostToDevice,
                                       stream_.get()));
    write_window_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream_.get()>>>(layout_, x0, y0, w, h,
                                                                                          slot.device.get(), values_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    TERRAZO_CUDA_CHECK(cudaEventRecord(slot.done.get(), stream_.get()));
    slot.used = true;
  }

  void set_source(std::uint64_t x, std::uint64_t y, PathLength start) override {
    // min(current, start) for the cell and the keys of its tile and neighbours (a few copies per
    // source; the stream's earlier work, e.g. write_values, is ordered before by the synchronous copies).
    stream_.synchronize();
    auto lower = [&](PathLength* d_at) {
      PathLength current = 0;
      TERRAZO_CUDA_CHECK(cudaMemcpy(&current, d_at, sizeof(current), cudaMemcpyDeviceToHost));
      if (start < current) TERRAZO_CUDA_CHECK(cudaMemcpy(d_at, &start, sizeof(start), cudaMemcpyHostToDevice));
    };
    lower(dist_.get() + layout_.index(x, y));
    for (const std::uint64_t tile : layout_.source_tiles(x, y)) lower(key_.get() + tile);
  }

  ResidentSsspStats solve(const std::function<void(std::uint64_t, std::uint64_t)>& round_done) override {
    ResidentSsspStats stats;
    const unsigned threads = 256;
    CudaEvent start, stop, selected, solved;
    double select_ms = 0, solve_ms = 0;
    bool timed_round = false;  // `solved` marks the end of the previous round's solves
    TERRAZO_CUDA_CHECK(cudaEventRecord(start.get(), stream_.get()));
    NearFarSchedule schedule;
    schedule.target = std::max<std::uint64_t>(1, options_.round_tiles);
    const unsigned long long* d_min = counters_.get() + 4;
    for (;;) {
      // The smallest key; the tiles under the threshold, listed in ascending order, keys cleared.
      std::size_t temp = cub_temp_bytes_;
      TERRAZO_CUDA_CHECK(cub::DeviceReduce::Min(cub_temp_.get(), temp, key_.get(), counters_.get() + 4, layout_.tiles(),
                                                stream_.get()));
      TERRAZO_CUDA_CHECK(cudaMemcpyAsync(host_count_.get() + 1, d_min, sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                         stream_.get()));
      stream_.synchronize();
      const PathLength min_key = host_count_.get()[1];
      if (min_key == kUnreached) break;
      select_round<<<static_cast<unsigned>((layout_.tiles() + 255) / 256), 256, 0, stream_.get()>>>(
          layout_.tiles(), schedule.threshold(min_key), key_.get(), selected_.get());
      TERRAZO_CUDA_CHECK_LAUNCH();
      temp = cub_temp_bytes_;
      TERRAZO_CUDA_CHECK(cub::DeviceSelect::Flagged(cub_temp_.get(), temp, thrust::counting_iterator<std::uint64_t>(0),
                                                    selected_.get(), active_.get(), counters_.get() + 3, layout_.tiles(),
                                                    stream_.get()));
      TERRAZO_CUDA_CHECK(cudaMemcpyAsync(host_count_.get(), counters_.get() + 3, sizeof(unsigned long long),
                                         cudaMemcpyDeviceToHost, stream_.get()));
      TERRAZO_CUDA_CHECK(cudaEventRecord(selected.get(), stream_.get()));
      stream_.synchronize();
      {
        float ms = 0;
        if (timed_round) {
          TERRAZO_CUDA_CHECK(cudaEventElapsedTime(&ms, solved.get(), selected.get()));
          select_ms += ms;
        }
      }
      const std::uint64_t active = host_count_.get()[0];
      schedule.adapt(active);
      ++stats.rounds;
      stats.max_active = std::max(stats.max_active, active);
      for (std::uint64_t first = 0; first < active; first += batch_) {
        const std::uint64_t count = std::min(batch_, active - first);
        const std::uint64_t* list = active_.get() + first;
        gather_windows<<<static_cast<unsigned>(count), threads, 0, stream_.get()>>>(
            layout_, list, values_.get(), dist_.get(), window_values_.get(), window_dist_.get(), window_row0_.get(),
            ever_.get(), counters_.get() + 1);
        TERRAZO_CUDA_CHECK_LAUNCH();
        launch_block_sssp(window_values_.get(), count, layout_.g, device_params_, options_.connectivity, options_.max_cost,
                          window_dist_.get(), changed_.get(), counters_.get(), overflow_.get(), workspace_, stream_.get(),
                          counters_.get() + 2, window_row0_.get());
        store_interiors<<<static_cast<unsigned>(count), threads, 0, stream_.get()>>>(layout_, list, window_dist_.get(),
                                                                                     changed_.get(), dist_.get());
        TERRAZO_CUDA_CHECK_LAUNCH();
        activate_neighbours<<<static_cast<unsigned>(count), threads, 0, stream_.get()>>>(
            layout_, list, changed_.get(), values_.get(), dist_.get(), edges_, key_.get(), overflow_.get());
        TERRAZO_CUDA_CHECK_LAUNCH();
        stats.solves += count;
      }
      TERRAZO_CUDA_CHECK(cudaEventRecord(solved.get(), stream_.get()));
      TERRAZO_CUDA_CHECK(cudaEventSynchronize(solved.get()));
      {
        float ms = 0;
        TERRAZO_CUDA_CHECK(cudaEventElapsedTime(&ms, selected.get(), solved.get()));
        solve_ms += ms;
        timed_round = true;
      }
      round_done(stats.rounds, stats.solves);
    }
    TERRAZO_CUDA_CHECK(cudaEventRecord(stop.get(), stream_.get()));
    stream_.synchronize();
    float ms = 0;
    TERRAZO_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    stats.kernel_ms = ms;
    unsigned long long counters[3] = {0, 0, 0};
    int overflow = 0;
    TERRAZO_CUDA_CHECK(cudaMemcpy(counters, counters_.get(), sizeof(counters), cudaMemcpyDeviceToHost));
    TERRAZO_CUDA_CHECK(cudaMemcpy(&overflow, overflow_.get(), sizeof(int), cudaMemcpyDeviceToHost));
    stats.cells_improved = counters[0];
    stats.tiles_solved = counters[1];
    stats.sweeps = counters[2];
    stats.select_ms = select_ms;
    stats.solve_ms = solve_ms;
    stats.overflow = overflow != 0;
    return stats;
  }

  void read_distances(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, PathLength* dist) override {
    const std::uint64_t n = static_cast<std::uint64_t>(w) * h;
    if (n == 0) return;
    if (staging_dist_.size() < n) {
      staging_dist_.resize(n);
      device_dist_window_.resize(n);
    }
    read_window_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream_.get()>>>(layout_, x0, y0, w, h, dist_.get(),
                                                                                         device_dist_window_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(staging_dist_.get(), device_dist_window_.get(), n * sizeof(PathLength),
                                       cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    std::copy(staging_dist_.get(), staging_dist_.get() + n, dist);
  }

 private:
  ResidentSsspOptions options_;
  ResidentLayout layout_;
  std::uint64_t batch_ = 1;
  CudaStream stream_;
  DeviceBuffer<double> values_;
  DeviceBuffer<PathLength> dist_;
  DeviceBuffer<PathLength> key_;  // pending tiles: the smallest distance pushed in; kUnreached: not pending
  DeviceBuffer<std::uint8_t> selected_, ever_;
  DeviceBuffer<std::uint64_t> active_;
  DeviceBuffer<double> window_values_;
  DeviceBuffer<PathLength> window_dist_;
  DeviceBuffer<std::uint8_t> changed_;
  DeviceBuffer<std::int64_t> window_row0_;  // each window's global row of its halo row
  DeviceBuffer<double> steps_;              // the per-row step-length table, when the weights have one
  WeightParams device_params_;              // options_.params with steps_ for the table
  ResidentEdges edges_;                     // device_params_, the neighbourhood and the knight's lengths
  DeviceBuffer<unsigned long long> counters_;
  DeviceBuffer<int> overflow_;
  DeviceBuffer<unsigned char> cub_temp_;
  std::size_t cub_temp_bytes_ = 0;
  SsspWorkspace workspace_;
  PinnedBuffer<unsigned long long> host_count_;
  struct Staging {
    PinnedBuffer<double> host;
    DeviceBuffer<double> device;
    CudaEvent done;
    bool used = false;
  };
  Staging staging_[2];
  int next_staging_ = 0;
  PinnedBuffer<PathLength> staging_dist_;
  DeviceBuffer<PathLength> device_dist_window_;
};

}  // namespace
}  // namespace cuda

std::unique_ptr<ResidentSsspSolver> make_resident_sssp_cuda(const ResidentSsspOptions& options) {
  return std::make_unique<cuda::ResidentSsspCuda>(options);
}

}  // namespace terrazo
