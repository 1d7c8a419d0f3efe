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
//   selection           DeviceRoundSelect (kernels/common/round_select.cuh): the smallest key, then the
//                       tiles under the near-far threshold listed in ascending tile order (deterministic,
//                       as the CPU twin), their keys cleared.
// A round longer than batch_tiles is processed in groups, each group seeing the earlier ones'
// results (as the CPU twin does). Every CUDA call and launch is checked.
//
// Paged (options.device_slots > 0, docs/sssp.md "Paged resident exchange"): the cells live in
// page-locked host memory; the device keeps every tile's border band (rings, what a neighbour's
// window and activation read) and the interiors of `device_slots` tiles. Before each group's solves
// TilePager (kernels/common/tile_pager.h) names the moves: dirty victims' distances back to the host
// (page_out), slot_of updated (map_slots), the group's missing tiles in (page_in); the copies are
// kernels reading and writing the mapped host memory, one block per tile. The steps then read cells
// through PagedCells (resident_sssp_steps.h) instead of ResidentCells; nothing else changes.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <limits>
#include <thread>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/common/huge_buffer.h"
#include "kernels/sssp/block_sssp_launch.cuh"
#include "kernels/common/cuda_device.h"
#include "kernels/common/cuda_support.cuh"
#include "kernels/common/round_select.cuh"
#include "kernels/common/staged_upload.cuh"
#include "kernels/sssp/resident_sssp.h"
#include "kernels/sssp/resident_sssp_steps.h"
#include "kernels/common/tile_pager.h"

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

// The distances of the exchange's cells (layout indices `where`) out, in list order.
__global__ void gather_cells(const std::uint64_t* __restrict__ where, std::uint64_t n, const PathLength* __restrict__ dist,
                             PathLength* __restrict__ out) {
  const std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = dist[where[i]];
}

// Each listed cell lowered to min(current, in[i]) (atomically: a cell may be listed twice); a
// lowered cell makes its tile and the tiles around it pending with at most that key (set_source).
__global__ void lower_cells_kernel(ResidentLayout l, const std::uint64_t* __restrict__ where, std::uint64_t n,
                                   const PathLength* __restrict__ in, PathLength* dist, std::uint64_t* keys,
                                   unsigned long long* lowered) {
  const std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const PathLength v = in[i];
  const PathLength old = atomicMin(reinterpret_cast<unsigned long long*>(dist + where[i]), static_cast<unsigned long long>(v));
  if (v >= old) return;
  atomicAdd(lowered, 1ull);
  const std::uint64_t tile = where[i] / l.tile_cells(), tx = tile % l.tiles_x, ty = tile / l.tiles_x;
  for (std::uint64_t ny = ty == 0 ? 0 : ty - 1; ny <= ty + 1 && ny < l.tiles_y; ++ny)
    for (std::uint64_t nx = tx == 0 ? 0 : tx - 1; nx <= tx + 1 && nx < l.tiles_x; ++nx)
      atomicMin(reinterpret_cast<unsigned long long*>(keys + ny * l.tiles_x + nx), static_cast<unsigned long long>(v));
}

template <class Cells>
__global__ void gather_windows(Cells at, const std::uint64_t* __restrict__ active, double* __restrict__ window_values,
                               PathLength* __restrict__ window_dist, std::int64_t* __restrict__ window_row0,
                               std::uint8_t* __restrict__ ever, unsigned long long* __restrict__ first_solves) {
  const ResidentLayout& l = at.l;
  const std::uint64_t tile = active[blockIdx.x];
  const std::uint32_t s = l.window_side(), cells = s * s;
  double* wv = window_values + blockIdx.x * static_cast<std::uint64_t>(cells);
  PathLength* wd = window_dist + blockIdx.x * static_cast<std::uint64_t>(cells);
  for (std::uint32_t i = threadIdx.x; i < cells; i += blockDim.x) resident_window_cell(at, tile, i, &wv[i], &wd[i]);
  if (threadIdx.x == 0) window_row0[blockIdx.x] = static_cast<std::int64_t>((tile / l.tiles_x) * l.g) - l.halo;
  if (threadIdx.x == 0 && !ever[tile]) {
    ever[tile] = 1;
    atomicAdd(first_solves, 1ull);
  }
}

template <class Cells>
__global__ void store_interiors(Cells at, const std::uint64_t* __restrict__ active,
                                const PathLength* __restrict__ window_dist, const std::uint8_t* __restrict__ changed) {
  const ResidentLayout& l = at.l;
  const std::uint64_t tile = active[blockIdx.x];
  const std::uint32_t g = l.g, s = l.window_side(), h = l.halo;
  const PathLength* wd = window_dist + blockIdx.x * static_cast<std::uint64_t>(s) * s;
  const std::uint8_t* ch = changed + blockIdx.x * l.tile_cells();
  for (std::uint32_t c = threadIdx.x; c < g * g; c += blockDim.x)
    if (ch[c]) at.store(tile, c, wd[(c / g + h) * s + c % g + h]);
}

template <class Cells>
__global__ void activate_neighbours(Cells at, const std::uint64_t* __restrict__ active,
                                    const std::uint8_t* __restrict__ changed, ResidentEdges edges,
                                    PathLength* __restrict__ key, int* __restrict__ overflow) {
  const std::uint64_t tile = active[blockIdx.x];
  bool overflowed = false;
  activate_band(
      at.l, changed + blockIdx.x * at.l.tile_cells(), threadIdx.x, blockDim.x, direction_count(edges.connectivity),
      [&](std::uint32_t lx, std::uint32_t ly, int start, int* dir, PathLength* candidate) {
        return resident_improved_neighbour(at, tile, lx, ly, start, dir, edges, candidate, &overflowed);
      },
      [&](std::uint64_t n, PathLength candidate) {
        atomicMin(reinterpret_cast<unsigned long long*>(&key[n]), static_cast<unsigned long long>(candidate));
      });
  if (overflowed) atomicExch(overflow, 1);
}

// A host array for the paged solver's backing: huge pages where the kernel gives them, every byte
// 0xff (in 64 MiB chunks on up to 16 threads), then page-locked and mapped for the kernels in one
// cudaHostRegister (pinning 2 MiB pages is cheaper than cudaMallocHost's 4 KiB ones; registering
// chunks from several threads was slower). The kernels use the host pointer: the device must be able to
// (cudaDevAttrCanUseHostPointerForRegisteredMem, true on Linux x86-64), else Error. Move-only RAII.
template <typename T>
class MappedHostArray {
 public:
  MappedHostArray() = default;
  MappedHostArray(const MappedHostArray&) = delete;
  MappedHostArray& operator=(const MappedHostArray&) = delete;
  ~MappedHostArray() {
    if (registered_) cudaHostUnregister(host_);
    if (host_) huge_free(host_, mapped_);
  }
  void allocate(std::uint64_t count, double* setup_ms) {
    int direct = 0, device = 0;
    TERRAZO_CUDA_CHECK(cudaGetDevice(&device));
    TERRAZO_CUDA_CHECK(cudaDeviceGetAttribute(&direct, cudaDevAttrCanUseHostPointerForRegisteredMem, device));
    if (!direct) throw Error("the paged resident exchange needs a GPU that reads registered host memory at its host address");
    const auto start = std::chrono::steady_clock::now();
    const std::uint64_t bytes = checked_bytes(count, sizeof(T)), chunk = 64ull << 20;
    host_ = static_cast<T*>(huge_allocate(bytes, &mapped_));
    const std::uint64_t chunks = (bytes + chunk - 1) / chunk;
    std::atomic<std::uint64_t> next{0};
    const unsigned threads = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([&] {
        for (std::uint64_t c; (c = next++) < chunks;)
          std::memset(reinterpret_cast<char*>(host_) + c * chunk, 0xff, std::min(chunk, bytes - c * chunk));
      });
    for (std::thread& t : pool) t.join();
    const cudaError_t status = cudaHostRegister(host_, bytes, cudaHostRegisterMapped | cudaHostRegisterPortable);
    if (status != cudaSuccess) {
      cudaGetLastError();
      throw Error("cannot page-lock " + std::to_string(bytes) + " bytes of host memory for the paged resident exchange (" +
                  cudaGetErrorString(status) + "); lower --memory so that it is not chosen, or use --exchange streamed");
    }
    registered_ = true;
    *setup_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  T* host() const { return host_; }
  T* device() const { return host_; }

 private:
  T* host_ = nullptr;
  std::size_t mapped_ = 0;
  bool registered_ = false;
};

// Paging: one block per moved tile, its g^2 cells copied between the mapped host backing and its slot.
__global__ void page_out(const TilePager::Move* __restrict__ moves, std::uint64_t tile_cells,
                         const PathLength* __restrict__ slot_dist, PathLength* __restrict__ host_dist) {
  const TilePager::Move m = moves[blockIdx.x];
  for (std::uint64_t c = threadIdx.x; c < tile_cells; c += blockDim.x)
    host_dist[m.tile * tile_cells + c] = slot_dist[m.slot * tile_cells + c];
}

__global__ void page_in(const TilePager::Move* __restrict__ moves, std::uint64_t tile_cells,
                        const double* __restrict__ host_values, const PathLength* __restrict__ host_dist,
                        double* __restrict__ slot_values, PathLength* __restrict__ slot_dist) {
  const TilePager::Move m = moves[blockIdx.x];
  for (std::uint64_t c = threadIdx.x; c < tile_cells; c += blockDim.x) {
    slot_values[m.slot * tile_cells + c] = host_values[m.tile * tile_cells + c];
    slot_dist[m.slot * tile_cells + c] = host_dist[m.tile * tile_cells + c];
  }
}

__global__ void map_slots(const TilePager::Move* __restrict__ moves, std::uint64_t count, std::uint32_t* __restrict__ slot_of) {
  const std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (i < count) slot_of[moves[i].tile] = moves[i].slot;
}

// Every tile's border band from the host backing into the rings (once, before the rounds).
__global__ void build_rings(ResidentLayout l, const double* __restrict__ host_values, const PathLength* __restrict__ host_dist,
                            double* __restrict__ ring_values, PathLength* __restrict__ ring_dist) {
  const std::uint32_t band = l.border_count();
  const std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (i >= l.tiles() * band) return;
  const std::uint64_t tile = i / band;
  std::uint32_t lx, ly;
  l.border_cell(static_cast<std::uint32_t>(i % band), &lx, &ly);
  const std::uint64_t k = tile * l.tile_cells() + ly * l.g + lx;
  ring_values[i] = host_values[k];
  ring_dist[i] = host_dist[k];
}

class ResidentSsspCuda final : public ResidentSsspSolver {
 public:
  explicit ResidentSsspCuda(const ResidentSsspOptions& options)
      : options_(options), layout_(options), paged_(options.device_slots > 0 && options.device_slots < layout_.tiles()) {
    if (!cuda_device().available) throw Error("resident SSSP on CUDA: " + cuda_device().reason);
    if (options.g < 2 || options.g > 1024) throw Error("resident SSSP: tile side " + std::to_string(options.g) + " is outside 2..1024");
    batch_ = std::max<std::uint64_t>(1, std::min<std::uint64_t>(options.batch_tiles, layout_.tiles()));
    if (paged_) allocate_pages();
    else allocate_resident();
    allocate_rounds();
  }

  Device device() const override { return Device::Cuda; }
  bool concurrent_writes() const override { return paged_; }

  void write_values(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, const double* values) override {
    const std::uint64_t n = static_cast<std::uint64_t>(w) * h;
    if (n == 0) return;
    if (paged_) {  // straight into the host backing, a tile row's run at a time (thread-safe)
      copy_runs(x0, y0, w, h, [&](std::uint64_t k, std::size_t i, std::uint32_t n) {
        std::memcpy(host_values_.host() + k, values + i, n * sizeof(double));
      });
      rings_built_ = false;
      return;
    }
    // Two staging slots: the copy and scatter of one window overlap filling the next.
    write_window_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream_.get()>>>(layout_, x0, y0, w, h,
                                                                                          upload_.stage(values, n), values_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
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
    if (paged_) {
      PathLength& d = host_dist_.host()[layout_.index(x, y)];
      d = std::min(d, start);
      rings_built_ = false;
    } else {
      lower(dist_.get() + layout_.index(x, y));
    }
    for (const std::uint64_t tile : layout_.source_tiles(x, y)) lower(select_->keys() + tile);
  }

  ResidentSsspStats solve(const std::function<void(std::uint64_t, std::uint64_t)>& round_done) override {
    ResidentSsspStats stats;
    if (paged_ && !rings_built_) build_all_rings();
    CudaEvent start, stop, selected, solved;
    double select_ms = 0, solve_ms = 0;
    bool timed_round = false;  // `solved` marks the end of the previous round's solves
    TERRAZO_CUDA_CHECK(cudaEventRecord(start.get(), stream_.get()));
    NearFarSchedule schedule;
    schedule.target = std::max<std::uint64_t>(1, options_.round_tiles);
    for (;;) {
      const PathLength min_key = select_->smallest_key();
      if (min_key == kUnreached) break;
      const std::uint64_t active = select_->select(schedule.threshold(min_key), selected.get());
      if (timed_round) select_ms += elapsed_ms(solved, selected);
      schedule.adapt(active);
      ++stats.rounds;
      stats.max_active = std::max(stats.max_active, active);
      if (paged_) copy_active_list(active);
      for (std::uint64_t first = 0; first < active; first += batch_) {
        const std::uint64_t count = std::min(batch_, active - first);
        if (paged_) {
          admit_group(first, count);
          solve_group(paged_cells(), first, count);
          for (std::uint64_t i = 0; i < count; ++i) pager_->mark_dirty(host_active_.get()[first + i]);
        } else {
          solve_group(resident_cells(), first, count);
        }
        stats.solves += count;
      }
      TERRAZO_CUDA_CHECK(cudaEventRecord(solved.get(), stream_.get()));
      TERRAZO_CUDA_CHECK(cudaEventSynchronize(solved.get()));
      solve_ms += elapsed_ms(selected, solved);
      timed_round = true;
      round_done(stats.rounds, stats.solves);
    }
    TERRAZO_CUDA_CHECK(cudaEventRecord(stop.get(), stream_.get()));
    stream_.synchronize();
    stats.kernel_ms = elapsed_ms(start, stop);
    stats.select_ms = select_ms;
    stats.solve_ms = solve_ms;
    read_counters(stats);
    flushed_ = false;
    return stats;
  }

  PathLength smallest_key() override {
    require_unpaged("smallest_key");
    return select_->smallest_key();
  }

  std::uint64_t solve_round(PathLength threshold, ResidentSsspStats& stats) override {
    require_unpaged("solve_round");
    const std::uint64_t active = select_->select(threshold);
    if (active == 0) return 0;
    ++stats.rounds;
    stats.max_active = std::max(stats.max_active, active);
    for (std::uint64_t first = 0; first < active; first += batch_) {
      const std::uint64_t count = std::min(batch_, active - first);
      solve_group(resident_cells(), first, count);
      stats.solves += count;
    }
    stream_.synchronize();
    return active;
  }

  void set_exchange_cells(const std::vector<std::uint64_t>& cells) override {
    require_unpaged("set_exchange_cells");
    exchange_count_ = cells.size();
    if (exchange_count_ == 0) return;
    exchange_host_.resize(exchange_count_);
    exchange_values_.resize(exchange_count_);
    exchange_where_.resize(exchange_count_);
    std::vector<std::uint64_t> where(exchange_count_);
    for (std::uint64_t i = 0; i < exchange_count_; ++i)
      where[i] = layout_.index(cells[i] % options_.width, cells[i] / options_.width);
    TERRAZO_CUDA_CHECK(cudaMemcpy(exchange_where_.get(), where.data(), exchange_count_ * sizeof(std::uint64_t),
                                  cudaMemcpyHostToDevice));
  }

  void read_cells(PathLength* out) override {
    if (exchange_count_ == 0) return;
    gather_cells<<<static_cast<unsigned>((exchange_count_ + 255) / 256), 256, 0, stream_.get()>>>(
        exchange_where_.get(), exchange_count_, dist_.get(), exchange_values_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(exchange_host_.get(), exchange_values_.get(), exchange_count_ * sizeof(PathLength),
                                       cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    std::copy(exchange_host_.get(), exchange_host_.get() + exchange_count_, out);
  }

  std::uint64_t lower_cells(const PathLength* in) override {
    if (exchange_count_ == 0) return 0;
    std::copy(in, in + exchange_count_, exchange_host_.get());
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(counters_.get() + 3, 0, sizeof(unsigned long long), stream_.get()));
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(exchange_values_.get(), exchange_host_.get(), exchange_count_ * sizeof(PathLength),
                                       cudaMemcpyHostToDevice, stream_.get()));
    lower_cells_kernel<<<static_cast<unsigned>((exchange_count_ + 255) / 256), 256, 0, stream_.get()>>>(
        layout_, exchange_where_.get(), exchange_count_, exchange_values_.get(), dist_.get(), select_->keys(),
        counters_.get() + 3);
    TERRAZO_CUDA_CHECK_LAUNCH();
    unsigned long long lowered = 0;
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(&lowered, counters_.get() + 3, sizeof(lowered), cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    return lowered;
  }

  void read_distances(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, PathLength* dist) override {
    const std::uint64_t n = static_cast<std::uint64_t>(w) * h;
    if (n == 0) return;
    if (paged_) {  // from the host backing, once every dirty slot is back
      if (!flushed_) flush_dirty();
      copy_runs(x0, y0, w, h, [&](std::uint64_t k, std::size_t i, std::uint32_t n) {
        std::memcpy(dist + i, host_dist_.host() + k, n * sizeof(PathLength));
      });
      return;
    }
    const bool direct = read_target_ && dist >= read_target_ && dist + n <= read_target_ + read_target_cells_;
    if (device_dist_window_.size() < n) device_dist_window_.resize(n);
    if (!direct && staging_dist_.size() < n) staging_dist_.resize(n);
    read_window_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream_.get()>>>(layout_, x0, y0, w, h, dist_.get(),
                                                                                         device_dist_window_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(direct ? dist : staging_dist_.get(), device_dist_window_.get(),
                                       n * sizeof(PathLength), cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    if (!direct) std::copy(staging_dist_.get(), staging_dist_.get() + n, dist);
  }

  void set_read_target(PathLength* host, std::uint64_t cells) override {
    release_read_target();
    if (!host || cells == 0) return;
    const cudaError_t status = cudaHostRegister(host, cells * sizeof(PathLength), cudaHostRegisterDefault);
    if (status != cudaSuccess) {  // not an error: the windows go through the staging as before
      cudaGetLastError();
      return;
    }
    read_target_ = host;
    read_target_cells_ = cells;
  }

  ~ResidentSsspCuda() override { release_read_target(); }

 private:
  static constexpr unsigned kThreads = 256;

  void require_unpaged(const char* what) const {
    if (paged_) throw Error(std::string("internal: the paged resident SSSP solver has no ") + what);
  }

  void release_read_target() {
    if (read_target_) cudaHostUnregister(read_target_);
    read_target_ = nullptr;
    read_target_cells_ = 0;
  }

  // A w x h window at (x0, y0) as runs of cells contiguous in the resident layout (a row of one
  // tile): copy(layout index, window index, cells).
  template <class Copy>
  void copy_runs(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, Copy copy) const {
    const std::uint32_t g = layout_.g;
    for (std::uint32_t y = 0; y < h; ++y)
      for (std::uint64_t x = x0; x < x0 + w;) {
        const auto n = static_cast<std::uint32_t>(std::min<std::uint64_t>(g - x % g, x0 + w - x));
        copy(layout_.index(x, y0 + y), static_cast<std::size_t>(y) * w + (x - x0), n);
        x += n;
      }
  }

  // Every tile's cells on the device, nodata and unreached (NaN's bytes are 0xff.. too).
  void allocate_resident() {
    const std::uint64_t cells = layout_.tiles() * layout_.tile_cells();
    values_.resize(cells);
    dist_.resize(cells);
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(values_.get(), 0xff, cells * sizeof(double), stream_.get()));
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(dist_.get(), 0xff, cells * sizeof(PathLength), stream_.get()));
  }

  // The host backing (every cell, page-locked and mapped), the device slots and the rings.
  void allocate_pages() {
    const std::uint64_t cells = layout_.tiles() * layout_.tile_cells(), tc = layout_.tile_cells();
    const std::uint32_t slots = static_cast<std::uint32_t>(std::min<std::uint64_t>(options_.device_slots, 0xfffffffeu));
    batch_ = std::max<std::uint64_t>(1, std::min<std::uint64_t>(batch_, slots / 2));
    // Nodata and unreached: every byte 0xff (a quiet NaN; kUnreached).
    host_values_.allocate(cells, &host_setup_ms_);
    host_dist_.allocate(cells, &host_setup_ms_);
    values_.resize(static_cast<std::uint64_t>(slots) * tc);
    dist_.resize(static_cast<std::uint64_t>(slots) * tc);
    ring_values_.resize(layout_.tiles() * layout_.border_count());
    ring_dist_.resize(layout_.tiles() * layout_.border_count());
    slot_of_.resize(layout_.tiles());
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(slot_of_.get(), 0xff, layout_.tiles() * sizeof(std::uint32_t), stream_.get()));
    host_active_.resize(layout_.tiles());
    moves_.resize(3 * batch_ + 1);
    device_moves_.resize(3 * batch_ + 1);
    pager_ = std::make_unique<TilePager>(layout_.tiles(), slots);
  }

  // Keys, flags, lists, windows, the weights' tables and CUB's scratch: the same in both modes.
  void allocate_rounds() {
    const std::uint64_t s = layout_.window_side();
    select_ = std::make_unique<DeviceRoundSelect>(layout_.tiles(), stream_.get());
    ever_.resize(layout_.tiles());
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
    counters_.resize(4);  // changed cells, first solves, rounds of sweeps; lower_cells' count
    overflow_.resize(1);
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(ever_.get(), 0, layout_.tiles(), stream_.get()));
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, 3 * sizeof(unsigned long long), stream_.get()));
    TERRAZO_CUDA_CHECK(cudaMemsetAsync(overflow_.get(), 0, sizeof(int), stream_.get()));
    stream_.synchronize();
  }

  ResidentCells resident_cells() { return ResidentCells{layout_, values_.get(), dist_.get()}; }
  PagedCells paged_cells() {
    return PagedCells{layout_, slot_of_.get(), values_.get(), dist_.get(), ring_values_.get(), ring_dist_.get()};
  }

  float elapsed_ms(const CudaEvent& from, const CudaEvent& to) {
    float ms = 0;
    TERRAZO_CUDA_CHECK(cudaEventElapsedTime(&ms, from.get(), to.get()));
    return ms;
  }

  // Steps 1-3 for `count` tiles of the round's list from `first`, on the cells of `at`.
  template <class Cells>
  void solve_group(const Cells& at, std::uint64_t first, std::uint64_t count) {
    const std::uint64_t* list = select_->active() + first;
    gather_windows<<<static_cast<unsigned>(count), kThreads, 0, stream_.get()>>>(
        at, list, window_values_.get(), window_dist_.get(), window_row0_.get(), ever_.get(), counters_.get() + 1);
    TERRAZO_CUDA_CHECK_LAUNCH();
    launch_block_sssp(window_values_.get(), count, layout_.g, device_params_, options_.connectivity, options_.max_cost,
                      window_dist_.get(), changed_.get(), counters_.get(), overflow_.get(), workspace_, stream_.get(),
                      counters_.get() + 2, window_row0_.get());
    store_interiors<<<static_cast<unsigned>(count), kThreads, 0, stream_.get()>>>(at, list, window_dist_.get(),
                                                                                  changed_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    activate_neighbours<<<static_cast<unsigned>(count), kThreads, 0, stream_.get()>>>(at, list, changed_.get(), edges_,
                                                                                      select_->keys(), overflow_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
  }

  void read_counters(ResidentSsspStats& stats) override {
    unsigned long long counters[3] = {0, 0, 0};
    int overflow = 0;
    TERRAZO_CUDA_CHECK(cudaMemcpy(counters, counters_.get(), sizeof(counters), cudaMemcpyDeviceToHost));
    TERRAZO_CUDA_CHECK(cudaMemcpy(&overflow, overflow_.get(), sizeof(int), cudaMemcpyDeviceToHost));
    stats.cells_improved = counters[0];
    stats.tiles_solved = counters[1];
    stats.sweeps = counters[2];
    stats.overflow = overflow != 0;
    stats.pages_in = pages_in_;
    stats.pages_out = pages_out_;
    stats.bus_bytes = bus_bytes_;
    stats.paging_ms = paging_ms_;
    stats.host_setup_ms = host_setup_ms_;
  }

  // Paged: the round's list on the host, for the pager.
  void copy_active_list(std::uint64_t active) {
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(host_active_.get(), select_->active(), active * sizeof(std::uint64_t),
                                       cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
  }

  void build_all_rings() {
    const std::uint64_t n = layout_.tiles() * layout_.border_count();
    build_rings<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream_.get()>>>(layout_, host_values_.device(), host_dist_.device(),
                                                                                   ring_values_.get(), ring_dist_.get());
    TERRAZO_CUDA_CHECK_LAUNCH();
    stream_.synchronize();
    rings_built_ = true;
  }

  // Paged: the group's tiles into slots (dirty victims out first), timed on the stream.
  void admit_group(std::uint64_t first, std::uint64_t count) {
    pager_->admit(host_active_.get() + first, count, &pending_moves_);
    apply_moves(pending_moves_.out, pending_moves_.map, pending_moves_.in);
  }

  void flush_dirty() {
    std::vector<TilePager::Move> out;
    pager_->take_dirty(&out);
    apply_moves(out, {}, {});
    flushed_ = true;
  }

  // page_out, map_slots, page_in, in that order, from one upload of the three lists (the previous
  // upload is finished: every group ends with a synchronisation).
  void apply_moves(const std::vector<TilePager::Move>& out, const std::vector<TilePager::Move>& map,
                   const std::vector<TilePager::Move>& in) {
    const std::uint64_t n = out.size() + map.size() + in.size();
    if (n == 0) return;
    if (moves_.size() < n) {
      moves_.resize(n);
      device_moves_.resize(n);
    }
    std::copy(out.begin(), out.end(), moves_.get());
    std::copy(map.begin(), map.end(), moves_.get() + out.size());
    std::copy(in.begin(), in.end(), moves_.get() + out.size() + map.size());
    CudaEvent begin, end;
    TERRAZO_CUDA_CHECK(cudaEventRecord(begin.get(), stream_.get()));
    TERRAZO_CUDA_CHECK(cudaMemcpyAsync(device_moves_.get(), moves_.get(), n * sizeof(TilePager::Move), cudaMemcpyHostToDevice,
                                       stream_.get()));
    const TilePager::Move* d = device_moves_.get();
    const std::uint64_t tc = layout_.tile_cells();
    if (!out.empty()) {
      page_out<<<static_cast<unsigned>(out.size()), kThreads, 0, stream_.get()>>>(d, tc, dist_.get(), host_dist_.device());
      TERRAZO_CUDA_CHECK_LAUNCH();
    }
    if (!map.empty()) {
      map_slots<<<static_cast<unsigned>((map.size() + 255) / 256), 256, 0, stream_.get()>>>(d + out.size(), map.size(),
                                                                                            slot_of_.get());
      TERRAZO_CUDA_CHECK_LAUNCH();
    }
    if (!in.empty()) {
      page_in<<<static_cast<unsigned>(in.size()), kThreads, 0, stream_.get()>>>(
          d + out.size() + map.size(), tc, host_values_.device(), host_dist_.device(), values_.get(), dist_.get());
      TERRAZO_CUDA_CHECK_LAUNCH();
    }
    TERRAZO_CUDA_CHECK(cudaEventRecord(end.get(), stream_.get()));
    TERRAZO_CUDA_CHECK(cudaEventSynchronize(end.get()));
    paging_ms_ += elapsed_ms(begin, end);
    pages_out_ += out.size();
    pages_in_ += in.size();
    bus_bytes_ += (out.size() * 8 + in.size() * 16) * tc;
  }

  ResidentSsspOptions options_;
  ResidentLayout layout_;
  bool paged_ = false;
  std::uint64_t batch_ = 1;
  CudaStream stream_;
  DeviceBuffer<double> values_;     // every tile's cells, or (paged) the slots' interiors
  DeviceBuffer<PathLength> dist_;
  std::unique_ptr<DeviceRoundSelect> select_;  // pending tiles' keys (the smallest distance pushed in), rounds' lists
  DeviceBuffer<std::uint8_t> ever_;
  DeviceBuffer<double> window_values_;
  DeviceBuffer<PathLength> window_dist_;
  DeviceBuffer<std::uint8_t> changed_;
  DeviceBuffer<std::int64_t> window_row0_;  // each window's global row of its halo row
  DeviceBuffer<double> steps_;              // the per-row step-length table, when the weights have one
  WeightParams device_params_;              // options_.params with steps_ for the table
  ResidentEdges edges_;                     // device_params_, the neighbourhood and the knight's lengths
  DeviceBuffer<unsigned long long> counters_;
  DeviceBuffer<int> overflow_;
  SsspWorkspace workspace_;
  StagedUpload upload_{stream_.get()};
  PinnedBuffer<PathLength> staging_dist_;
  PathLength* read_target_ = nullptr;  // page-locked by set_read_target
  std::uint64_t read_target_cells_ = 0;
  DeviceBuffer<PathLength> device_dist_window_;
  std::uint64_t exchange_count_ = 0;          // set_exchange_cells' list: layout indices, values both ways
  DeviceBuffer<std::uint64_t> exchange_where_;
  DeviceBuffer<PathLength> exchange_values_;
  PinnedBuffer<PathLength> exchange_host_;
  // Paged mode only.
  MappedHostArray<double> host_values_;       // every cell, ResidentLayout::index order
  MappedHostArray<PathLength> host_dist_;
  DeviceBuffer<double> ring_values_;       // every tile's border band
  DeviceBuffer<PathLength> ring_dist_;
  DeviceBuffer<std::uint32_t> slot_of_;    // per tile: its slot, or kNoSlot
  PinnedBuffer<std::uint64_t> host_active_;
  PinnedBuffer<TilePager::Move> moves_;
  DeviceBuffer<TilePager::Move> device_moves_;
  std::unique_ptr<TilePager> pager_;
  TilePager::Moves pending_moves_;
  std::atomic<bool> rings_built_{false};  // write_values clears it from the loading threads
  bool flushed_ = true;
  std::uint64_t pages_in_ = 0, pages_out_ = 0, bus_bytes_ = 0;
  double paging_ms_ = 0, host_setup_ms_ = 0;
};

}  // namespace
}  // namespace cuda

std::unique_ptr<ResidentSsspSolver> make_resident_sssp_cuda(const ResidentSsspOptions& options) {
  return std::make_unique<cuda::ResidentSsspCuda>(options);
}

}  // namespace terrazo
