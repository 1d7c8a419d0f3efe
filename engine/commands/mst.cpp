// engine/commands/mst.cpp: run_mst = import + statistics + weight parameters + phases 1-3
// (engine/mst/phases.h) + the edge GeoTIFF (contract in mst_pipeline.h, design in docs/mst.md).
#include "engine/commands/mst.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include "engine/commands/output_paths.h"
#include "engine/commands/run_totals.h"
#include "engine/raster_inputs/pipeline_input.h"
#include "engine/raster_inputs/statistics_check.h"
#include "kernels/common/error.h"
#include "kernels/common/timer.h"
#include "engine/tile_inputs/tile_store_input.h"
#include "engine/raster_inputs/raster_io.h"
#include "engine/mst/phases.h"
#include "io/store/output_set.h"
#include "io/store/run_directory.h"
#include "io/gdal/gdal_raster.h"
#include "io/store/tile_store.h"
#include "kernels/common/cuda_device.h"
#include "kernels/common/device_choice.h"
#include "engine/run/rank_report.h"
#include "engine/run/tile_ownership.h"

namespace terrazo {
namespace {




// The edge raster: a Byte GeoTIFF georeferenced like the input, nodata 255. Tiles arrive in
// Z-order, so GDAL's block cache needs only a few blocks (block = clamp(t, 256, 1024)); it gets up to
// 16 MiB when the budget allows.
class EdgeRasterWriter : public MstWindowSink {
 public:
  // Blocks are encoded on options.threads threads (0: all cores) by GeoTiffWriter's block writer,
  // whose blocks in flight stay within the GDAL cache limit reserved here (io/gdal/gdal_raster.h).
  EdgeRasterWriter(AtomicOutput& output, const TileGrid& grid, const RasterInfo& georef, MemoryBudget& budget,
                   const GeoTiffOptions& options) {
    const std::uint32_t block = std::max<std::uint32_t>(256, std::min<std::uint32_t>(grid.tile, 1024));
    const std::uint64_t cache_bytes =
        std::max<std::uint64_t>(2ull * block * block, std::min<std::uint64_t>(16ull << 20, budget.available() / 4));
    cache_ = std::make_unique<GdalCacheLimit>(budget, cache_bytes);
    writer_ = std::make_unique<GeoTiffWriter>(output, grid.width, grid.height, CellType::UInt8, georef, true, 255.0,
                                              block, options);
  }
  void write_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                    const std::uint8_t* cells) override {
    writer_->write_window_u8(x0, y0, w, h, cells);
  }
  std::uint64_t finish() {
    writer_->finish();
    return writer_->bytes_written();
  }

 private:
  std::unique_ptr<GdalCacheLimit> cache_;
  std::unique_ptr<GeoTiffWriter> writer_;
};

// The phases' options: the weights, the device, the plan, the merge and the edge list's output.
MstPhaseOptions mst_phase_options(const MstOptions& options, const WeightParams& params, bool use_cuda,
                                  AtomicOutput* edge_list_output, RunContext& context) {
  MstPhaseOptions phase_options;
  phase_options.params = params;
  phase_options.connectivity = options.connectivity;
  phase_options.cuda = use_cuda;
  phase_options.threads = context.threads();
  phase_options.gpu_memory_bytes = context.gpu_memory_bytes();
  phase_options.plan = &context.plan();
  phase_options.record_buffer_bytes = options.record_buffer_bytes;
  phase_options.merge_mode = options.merge_mode;
  phase_options.merge_batch_edges = options.merge_batch_edges;
  phase_options.edge_list = options.edge_list;
  phase_options.edge_list_output = edge_list_output;
  phase_options.scratch_dir = context.run_directory().path();
  return phase_options;
}

// The phases' tree and counters into the result; the total weight in input units (--weight max:
// each edge's offset added back).
void fill_mst_result(const MstPhaseResult& phases, const WeightParams& params, MstResult& result) {
  result.total_weight = phases.total_weight;
  result.edges = phases.edges;
  result.vertices = phases.vertices;
  result.components = phases.components;
  result.total_weight_input_units = static_cast<double>(result.total_weight) / params.scale;
  if (params.model == WeightModel::Max) {
    result.total_weight_input_units += static_cast<double>(result.edges) * params.offset;
  }
  result.seconds.block_local = phases.block_local_seconds;
  result.seconds.merge = phases.merge_seconds;
  result.seconds.expansion = phases.expansion_seconds;
  result.summary_edges = phases.summary_edges;
  result.expansion_records = phases.expansion_records;
  result.expansion_record_runs = phases.expansion_record_runs;
  result.merge_levels = phases.merge_levels;
  result.gpu_batch_tiles = phases.gpu_batch_tiles;
  result.gpu_kernel_seconds = phases.gpu_kernel_ms / 1000.0;
  result.merge_mode = phases.merge_mode;
  result.merge_batches = phases.merge_batches;
  result.merge_graphs = phases.merge_graphs;
  result.merge_oversized_graphs = phases.merge_oversized_graphs;
  result.merge_batch_edges = phases.merge_batch_edges;
  result.gpu_merge_kernel_seconds = phases.gpu_merge_kernel_ms / 1000.0;
  result.bytes_read += phases.bytes_read;
  result.bytes_written += phases.bytes_written;
}

// This rank's part of the `ranks` summary (docs/distributed.md).
RankReport mst_rank_report(const TileOwnership& ownership, int rank, const MstPhaseResult& phases) {
  return rank_report(ownership, rank, phases.bytes_sent, phases.bytes_received,
                     {{"block_local", phases.block_local_seconds}, {"merge", phases.merge_seconds},
                      {"expansion", phases.expansion_seconds}});
}

}  // namespace

MstResult run_mst(const MstOptions& options, RunContext& context) {
  Stopwatch start;
  MstResult result;
  MemoryBudget& budget = context.budget();
  Progress& progress = context.progress();
  if (options.input.empty()) throw UsageError("mst: INPUT is missing");
  check_distinct_paths({{"INPUT", options.input}}, {{"OUTPUT", options.output}, {"--edge-list", options.edge_list}});

  // Device.
  const bool use_cuda = context.device() == Device::Cuda;
  const MemoryBudget::Reservation device_host = reserve_device_host_memory(use_cuda ? Device::Cuda : Device::Cpu, budget);
  result.device = device_description(use_cuda ? Device::Cuda : Device::Cpu);
  if (options.merge_mode == MstMergeMode::CudaLevels && !cuda_device().available) {
    throw Error("--merge cuda: " + cuda_device().reason + "; use --merge cpu or cpu-levels");
  }

  // Every output's partial file is made before any work and all are published together at the end
  // (io/store/output_set.h): a failure writing either publishes neither. A distributed run's are
  // rank 0's alone (docs/distributed.md "mst"), published after the ranks agreed the last stage.
  Communicator& comm = context.comm();
  OutputSet outputs;
  AtomicOutput* edges_output = nullptr;
  AtomicOutput* edge_list_output = nullptr;
  RunDirectory& run = context.run_directory();
  std::unique_ptr<PipelineInput> input;
  std::unique_ptr<TileOwnership> ownership;

  // 0. The input: a store, tiles in memory, a tiled GeoTIFF in place or an import (engine/raster_inputs/pipeline_input.h).
  Stopwatch phase;
  agreed_stage(comm, "mst: opening the input and outputs", [&] {
    if (comm.distributed() && options.merge_mode != MstMergeMode::Auto && options.merge_mode != MstMergeMode::CpuPostOrder)
      throw UsageError(std::string("--merge ") + to_string(options.merge_mode) +
                       " does not run on several ranks yet (docs/distributed.md); give --merge cpu or run one process");
    if (comm.root()) edges_output = outputs.add_if(options.output, geotiff_sidecar_suffixes());
    if (comm.root()) edge_list_output = outputs.add_if(options.edge_list);
    input = open_pipeline_input(pipeline_input_options(options, context), run, budget, progress);
    const TileGrid grid = input->grid();
    const TileInput& cells = input->cells();
    ownership = std::make_unique<TileOwnership>(grid, comm.size(), [&](std::uint64_t tile) -> std::uint64_t {
      return cells.tile_present(static_cast<std::uint32_t>(tile % grid.tiles_x()), static_cast<std::uint32_t>(tile / grid.tiles_x()));
    });
  });
  result.seconds.import = phase.seconds();
  result.input_read = input->how();
  const RasterInfo info = input->info();
  const TileGrid grid = input->grid();
  result.width = grid.width;
  result.height = grid.height;
  result.tile = grid.tile;
  agreed_stage(comm, "mst: weights", [&] {
    result.weights = choose_weight_params(options.weight, options.scale, info, options.connectivity,
                                          kMstDefaultStepLimit, &input->cells(), &budget);
  });
  const WeightParams params = result.weights.params;
  result.params = params;

  // 1-3. The phases, the edge raster written window by window (rank 0's writer takes every rank's).
  MstPhaseOptions phase_options = mst_phase_options(options, params, use_cuda, edge_list_output, context);
  if (comm.distributed()) phase_options.comm = &comm, phase_options.ownership = ownership.get();
  std::unique_ptr<EdgeRasterWriter> raster;
  agreed_stage(comm, "mst: making the edge raster", [&] {
    if (edges_output) raster = std::make_unique<EdgeRasterWriter>(*edges_output, grid, info, budget, options.geotiff);
  });
  const MstPhaseResult phases = run_mst_phases(input->cells(), phase_options, budget, progress, raster.get());
  // One process read every tile (the check ran as they were read); ranks each read their own.
  check_input_statistics(*input, comm, comm.distributed() ? ownership.get() : nullptr, budget, "mst");
  agreed_stage(comm, "mst: writing the outputs", [&] {
    if (raster) result.bytes_written += raster->finish();
  });
  if (comm.root()) outputs.publish();

  fill_mst_result(phases, params, result);
  finish_run_totals(result, *input, budget, start);
  if (comm.distributed()) result.ranks = gather_rank_reports(comm, mst_rank_report(*ownership, comm.rank(), phases));
  return result;
}

}  // namespace terrazo
