// engine/index/build_index.cpp: build_index (engine/index/build_index.h).
#include "engine/index/build_index.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/common/timer.h"
#include "kernels/common/worker_pool.h"
#include "kernels/common/cuda_device.h"
#include "kernels/index/boundary_ring.h"
#include "kernels/index/tile_boundary_matrix.h"

namespace terrazo {

namespace {

// Values, matrix, ring values and the encoded record of each tile of a batch.
std::uint64_t batch_bytes_per_tile(std::uint32_t t) {
  const std::uint64_t b = ring_size(t);
  return static_cast<std::uint64_t>(t) * t * 8 + b * b * 8 + b * 8 + index_record_bytes(t, 8);
}

// The CPU build's batch: about 4 MiB a thread (small tiles: fewer hand-offs to the threads), at least
// 4 tiles a thread, at most 1024 tiles.
std::uint64_t cpu_batch_tiles(std::uint32_t t, unsigned threads) {
  return std::max<std::uint64_t>(4ull * threads, std::min<std::uint64_t>(1024, (4ull << 20) * threads / batch_bytes_per_tile(t)));
}

// The tiles of a batch: on the CPU cpu_batch_tiles; on the GPU what its memory holds (up to 1024
// tiles); either within what the budget has left beside the workspace. A budget below one tile's
// needs is refused.
std::uint64_t choose_batch_tiles(const IndexBuildOptions& options, std::uint32_t t, unsigned threads,
                                 std::uint64_t workspace, MemoryBudget& budget) {
  const bool cuda = options.device == Device::Cuda;
  std::uint64_t want = cuda ? 1024 : cpu_batch_tiles(t, threads);
  if (cuda) {
    const std::uint64_t room = options.gpu_memory_bytes ? options.gpu_memory_bytes : cuda_device().global_memory / 4;
    const std::uint64_t per_gpu_tile = tile_boundary_cuda_bytes(t, options.leaf, 1);
    want = std::max<std::uint64_t>(1, std::min(want, room / per_gpu_tile));
  }
  const std::uint64_t minimum = build_index_minimum_bytes(t, options.leaf, threads, cuda);
  if (minimum > budget.available())
    throw BudgetError("memory budget too small for the index build: one tile of " + std::to_string(t) + " needs " +
                MemoryBudget::format_size(minimum) + " but only " + MemoryBudget::format_size(budget.available()) +
                " of --memory " + MemoryBudget::format_size(budget.total()) + " is left; raise --memory or lower --tile");
  return std::max<std::uint64_t>(1, std::min(want, (budget.available() - workspace) / batch_bytes_per_tile(t)));
}

// The CPU's matrices of the batch's present tiles, a tile per thread; true when a weight overflowed.
bool cpu_matrices(const IndexBuildOptions& options, std::uint32_t t, std::uint64_t count, const std::vector<char>& present,
                  const double* values, PathLength* matrices, WorkerPool& pool) {
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t b2 = static_cast<std::uint64_t>(ring_size(t)) * ring_size(t);
  std::vector<char> overflows(count, 0);
  pool.run(count, [&](std::uint64_t i) {
    thread_local std::vector<PathLength> work;
    if (!present[i]) return;
    bool o = false;
    tile_boundary_matrix_cpu(values + i * cells, t, options.leaf, options.params, options.connectivity, work,
                             matrices + i * b2, &o);
    overflows[i] = o;
  });
  bool overflow = false;
  for (char o : overflows) overflow = overflow || o;
  return overflow;
}

// The batch's records appended in tile order (an absent tile: its values' checksum only); returns
// the present tiles written.
std::uint64_t write_batch_records(const std::vector<std::uint64_t>& ids, const std::vector<char>& present,
                                  const std::vector<IndexRecord>& records, const std::vector<std::uint32_t>& values_crcs,
                                  std::uint64_t count, IndexRecordSink& writer) {
  std::uint64_t written = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (present[i]) {
      writer.write_record(ids[i], records[i], values_crcs[i]);
      ++written;
    } else {
      writer.set_values_crc(ids[i], values_crcs[i]);
    }
  }
  return written;
}

}  // namespace

std::uint64_t build_index_cpu_bytes(std::uint32_t t, std::uint32_t leaf, unsigned threads) {
  threads = std::max(1u, threads);
  return cpu_batch_tiles(t, threads) * batch_bytes_per_tile(t) + tile_boundary_workspace_entries(t, leaf) * 8 * threads;
}

std::uint64_t build_index_minimum_bytes(std::uint32_t t, std::uint32_t leaf, unsigned threads, bool cuda) {
  return batch_bytes_per_tile(t) + (cuda ? 0 : tile_boundary_workspace_entries(t, leaf) * 8 * std::max(1u, threads));
}

IndexBuildStats build_index(const TileInput& input, IndexRecordSink& writer, const IndexBuildOptions& options,
                            MemoryBudget& budget, Progress& progress) {
  IndexBuildStats stats;
  const TileGrid& grid = input.grid();
  const std::uint32_t t = grid.tile;
  const std::uint32_t b = ring_size(t);
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  const std::uint64_t b2 = static_cast<std::uint64_t>(b) * b;
  const std::uint64_t per_tile = batch_bytes_per_tile(t);
  const bool cuda = options.device == Device::Cuda;
  const unsigned threads = std::max(1u, options.threads);
  const std::uint64_t workspace = cuda ? 0 : tile_boundary_workspace_entries(t, options.leaf) * 8 * threads;
  const std::uint64_t batch = stats.batch_tiles = choose_batch_tiles(options, t, threads, workspace, budget);
  stats.memory_bytes = batch * per_tile + workspace;
  MemoryBudget::Reservation reservation = budget.reserve(stats.memory_bytes, "index build batch");
  // The batch's values and matrices: page-locked buffers of the GPU build (copied at the bus's speed,
  // not staged by the driver on one thread), else vectors.
  std::unique_ptr<TileBoundaryCuda> gpu_build;  // the device buffers, kept for every batch
  std::vector<double> values_vector, ring(batch * b);
  std::vector<PathLength> matrices_vector;
  double* values = nullptr;
  PathLength* matrices = nullptr;
  if (cuda) {
    gpu_build = std::make_unique<TileBoundaryCuda>(t, options.leaf, batch, PinnedHost::ValuesAndMatrices);
    values = gpu_build->host_values();
    matrices = gpu_build->host_matrices();
  } else {
    values_vector.resize(batch * cells);
    matrices_vector.resize(batch * b2);
    values = values_vector.data();
    matrices = matrices_vector.data();
  }
  std::vector<std::uint64_t> ids;
  std::vector<char> present;  // per tile of the batch: a valid ring cell (else no record)
  std::vector<IndexRecord> records(batch);
  std::vector<std::uint32_t> values_crcs(batch);
  // CPU: the matrices on these threads; both devices: the tile reads and the records' encoding.
  WorkerPool pool(threads);
  const std::vector<std::uint64_t> order = grid.z_order();
  stats.tiles = order.size();
  progress.update("index: matrices", 0, order.size());
  bool overflow = false;
  for (std::uint64_t first = 0; first < order.size(); first += batch) {
    const std::uint64_t count = std::min<std::uint64_t>(batch, order.size() - first);
    ids.assign(order.begin() + static_cast<std::ptrdiff_t>(first), order.begin() + static_cast<std::ptrdiff_t>(first + count));
    present.assign(count, 0);
    Stopwatch watch;
    auto read_one = [&](std::uint64_t i) {
      const auto tx = static_cast<std::uint32_t>(ids[i] % grid.tiles_x()), ty = static_cast<std::uint32_t>(ids[i] / grid.tiles_x());
      double* v = values + i * cells;
      if (input.tile_present(tx, ty)) input.read_tile(tx, ty, v);
      else std::fill(v, v + cells, std::nan(""));
      gather_ring_values(v, t, ring.data() + i * b);
      for (std::uint32_t p = 0; p < b; ++p)
        if (!std::isnan(ring[i * b + p])) present[i] = 1;
    };
    pool.run(count, read_one);
    stats.read_seconds += watch.seconds();
    watch.restart();
    if (cuda) {
      stats.kernel_ms += gpu_build->build(values, count, options.params, options.connectivity, matrices, false,
                                          &overflow);
    } else {
      overflow = cpu_matrices(options, t, count, present, values, matrices, pool) || overflow;
    }
    stats.matrix_seconds += watch.seconds();
    if (overflow) throw Error("index build: an edge weight overflows at --scale " + std::to_string(options.params.scale));
    watch.restart();
    // Records and checksums on the threads, then appended in tile order by this one.
    pool.run(count, [&](std::uint64_t i) {
      values_crcs[i] = index_values_crc(values + i * cells, cells);
      if (present[i]) encode_index_record(t, ring.data() + i * b, matrices + i * b2, &records[i]);
    });
    stats.present_tiles += write_batch_records(ids, present, records, values_crcs, count, writer);
    stats.write_seconds += watch.seconds();
    ++stats.batches;
    progress.update("index: matrices", first + count, order.size(), (first + count) * cells);
  }
  return stats;
}

}  // namespace terrazo
