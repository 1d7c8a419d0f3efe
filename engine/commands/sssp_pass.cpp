// engine/commands/sssp_pass.cpp: run_sssp_pass (engine/commands/sssp_groups.h): one pass of the sssp
// pipeline as named stages: check the flags, choose the device, open INPUT (or the index), choose the
// step lengths and weights, open the barrier and friction rasters, locate the sources
// (engine/commands/sssp_pass_sources.h), run the exchange (or the index query), write the outputs.
// The stages run in this order, so the first refusal a user meets is the same whatever else is wrong.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <thread>

#include "engine/commands/cost_outputs_writer.h"
#include "engine/commands/sssp_groups.h"
#include "engine/commands/sssp_pass_input.h"
#include "engine/commands/sssp_pass_sources.h"
#include "engine/cost_models/walk_weights.h"
#include "engine/index/index_fingerprint.h"
#include "engine/index/index_sssp.h"
#include "engine/raster_inputs/pipeline_input.h"
#include "engine/raster_inputs/raster_io.h"
#include "engine/raster_inputs/statistics_check.h"
#include "engine/run/tile_ownership.h"
#include "engine/sssp/border_mail.h"
#include "engine/sssp/distance_store.h"
#include "engine/sssp/distributed_output.h"
#include "engine/sssp/exchange.h"
#include "engine/sssp/output.h"
#include "engine/sssp/resident_exchange.h"
#include "engine/sssp/source_groups.h"
#include "engine/tile_inputs/barrier_input.h"
#include "engine/tile_inputs/tile_store_input.h"
#include "engine/tile_inputs/walk_input.h"
#include "io/gdal/gdal_raster.h"
#include "io/store/index_file.h"
#include "io/store/run_directory.h"
#include "io/store/tile_store.h"
#include "kernels/common/cuda_device.h"
#include "kernels/common/device_choice.h"
#include "kernels/common/error.h"
#include "kernels/common/timer.h"
#include "kernels/sssp/backlink.h"
#include "kernels/sssp/knight.h"

namespace terrazo {

using namespace sssp_pass;

namespace {

// Tiles of a solved GPU batch; the cache must hold this many tiles at once.
constexpr std::uint32_t kCudaBatchTiles = 64;

// The ranks of a distributed pass (docs/distributed.md "sssp") and the tiles each owns; comm null:
// one process.
struct PassRanks {
  Communicator* comm = nullptr;
  std::unique_ptr<TileOwnership> ownership;
  bool distributed() const { return comm != nullptr; }
  bool root() const { return !comm || comm->root(); }
  bool mine(std::uint64_t tile) const { return !comm || ownership->owner(tile) == comm->rank(); }
  std::uint64_t bytes_sent = 0, bytes_received = 0;  // this rank's result messages
};

// The write phase of a pass in the run's memory plan (its fixed needs: GDAL's block cache and the
// output windows, the output tile), planned now: a budget that cannot hold it is refused before any
// work. Returns its bytes.
// The write phase's bytes as planned: its fixed needs, and the encoders' share (0 when the budget
// leaves nothing beside the minimums).
struct WritePhasePlan {
  std::uint64_t bytes = 0;     // all of it, the encoders' share included
  std::uint64_t encoders = 0;
};

WritePhasePlan plan_sssp_write_phase(const SsspOptions& options, const TileGrid& grid, bool labelled,
                                     const PassRanks& ranks, RunContext& context) {
  MemoryPlan& plan = context.plan();
  const std::string phase = plan.unique_name("the sssp write phase");
  // Distributed: rank 0 writes every file, the others send it their tiles (distributed_output.h).
  const std::uint64_t message = sssp_tile_message_bytes(grid.tile, !options.allocation.empty(), !options.backlink.empty());
  if (ranks.distributed() && !ranks.root()) plan.need(phase, "a tile's results to rank 0", message);
  if (ranks.distributed() && ranks.root())
    plan.need(phase, "tiles received from the other ranks and their output slot",
              2 * message + CostOutputsWriter::window_bytes(options, grid));
  if (!ranks.root()) {
    plan.need(phase, "output tile", sssp_output_tile_bytes(grid.tile, labelled, !options.backlink.empty(),
                                                           halo_width(options.connectivity)));
    plan.assign(context.budget());
    WritePhasePlan p;
    p.bytes = message + sssp_output_tile_bytes(grid.tile, labelled, !options.backlink.empty(), halo_width(options.connectivity));
    return p;
  }
  const std::uint64_t outputs = CostOutputsWriter::reserved_bytes(options, grid);
  const std::uint64_t tile =
      sssp_output_tile_bytes(grid.tile, labelled, !options.backlink.empty(), halo_width(options.connectivity));
  plan.need(phase, "GDAL block cache and output windows", outputs);
  plan.need(phase, "output tile", tile);
  plan.need(phase, "block encoders on every core", 0, outputs ? CostOutputsWriter::encoder_bytes(options, grid) : 0);
  plan.assign(context.budget());
  WritePhasePlan p;
  p.encoders = plan.assigned(phase, "block encoders on every core");
  p.bytes = outputs + tile + p.encoders + (ranks.distributed() ? 2 * message + CostOutputsWriter::window_bytes(options, grid) : 0);
  return p;
}

// The streamed exchange's phase of the plan, but its tile cache (the exchange declares that last,
// once its fixed structures are reserved): what stays unreserved beside the cache, served first.
void plan_streamed_exchange(std::uint64_t mask_bytes, std::uint64_t write_phase_bytes, const TileGrid& grid,
                            RunContext& context, SsspExchangeOptions& xo) {
  MemoryPlan& plan = context.plan();
  xo.plan = &plan;
  xo.plan_phase = plan.unique_name("the sssp exchange");
  if (mask_bytes) plan.need(xo.plan_phase, "the source mask's reader", mask_bytes);
  // Distributed: the border pushes to and from the other ranks of a round (border_mail.h).
  if (xo.distributed())
    plan.need(xo.plan_phase, "border messages between ranks",
              BorderMail::bytes_bound(*xo.ownership, xo.comm->rank(), grid, halo_width(xo.connectivity), xo.connectivity));
  // Small allocations of the exchange (queue set nodes, lists), and the margin for what no
  // reservation tracks (worker threads' allocator slack, GDAL's encoder code): the cache is kept
  // through the write phase, where the 4 G-cell 16-neighbour run peaked.
  plan.need(xo.plan_phase, "small allocations and the allocator's margin", (1ull << 20) + context.budget().cache_margin());
  // Kept free when the cache's minimum fits beside it: the outputs are then written from the cache.
  plan.need(xo.plan_phase, "room for the write phase beside the cache", 0, write_phase_bytes);
}

// The flags checked before the device is chosen: INPUT and a source given, --max-cost, distinct
// paths, and what knight's moves take.
void check_pass_flags(const SsspOptions& options) {
  if (options.input.empty()) throw UsageError("sssp: INPUT is missing");
  if (options.sources.empty() && options.sources_file.empty() && options.source_raster.empty())
    throw UsageError("no source: give --source x,y (repeatable), --sources-file FILE or --source-raster FILE");
  if (options.max_cost >= 0 && !std::isfinite(options.max_cost))
    throw UsageError("invalid --max-cost: expected a finite number");
  check_sssp_paths(options);

  // Knight's moves (GRASS r.cost -k, docs/sssp.md "Knight's moves"): the symmetric models whose
  // weight over four cells is defined, on uniform step lengths, through either exchange.
  if (options.connectivity != Connectivity::Sixteen) return;
  if (options.weight != WeightModel::Friction && options.weight != WeightModel::Geometric &&
      options.weight != WeightModel::Unit)
    throw UsageError(std::string("--connectivity 16 (knight's moves) takes --weight friction, geometric or unit, not ") +
                     (is_directed(options.weight) ? "--model " : "--weight ") + to_string(options.weight));
  if (options.distance == DistanceMode::Geodesic)
    throw UsageError("--connectivity 16 (knight's moves) takes --distance cells or map, not geodesic");
  if (!options.index.empty())
    throw UsageError("--connectivity 16 (knight's moves) has no index (its boundary graph is 8-connected); drop --index");
  if (options.block_solver == "bfs")
    throw UsageError("--connectivity 16 (knight's moves) runs the Dijkstra block solver; drop --block-solver bfs");
}

// The exchange's flags (--exchange, --block-solver, --resident-tile) and --index with a directed
// model, checked once the device is chosen; `labelled`: backlinks or source ids are asked for.
void check_exchange_flags(const SsspOptions& options, bool labelled) {
  if (options.exchange != "auto" && options.exchange != "streamed" && options.exchange != "resident")
    throw UsageError("--exchange must be auto, streamed or resident, not '" + options.exchange + "'");
  if (options.exchange == "resident" && labelled)
    throw UsageError("--exchange resident computes distances only; --backlink and --allocation need --exchange streamed");
  if (options.block_solver != "auto" && options.block_solver != "bfs" && options.block_solver != "sweep")
    throw UsageError("--block-solver must be auto, bfs or sweep, not '" + options.block_solver + "'");
  if (options.block_solver == "bfs" && options.weight != WeightModel::Unit)
    throw UsageError(std::string("--block-solver bfs needs --weight unit (every step the same weight), not --weight ") +
                     to_string(options.weight));
  if (options.resident_tile < 8 || options.resident_tile > 256)
    throw UsageError("--resident-tile must be 8 to 256, not " + std::to_string(options.resident_tile));

  if (is_directed(options.weight) && !options.index.empty())
    throw UsageError(std::string("--model ") + to_string(options.weight) + " has directed weights (uphill is not "
                     "downhill); the index holds symmetric distances: drop --index");
}

// The exchange's options: the solver's weights and device, what it tracks, its threads and batch.
SsspExchangeOptions exchange_options(const SsspOptions& options, const SsspPass& pass, const PassWeights& weights,
                                     bool use_cuda, RunContext& context) {
  SsspExchangeOptions xo;
  xo.params = weights.solve_params;
  xo.connectivity = options.connectivity;
  xo.max_cost = weights.max_cost;
  xo.track_source = !options.allocation.empty() || pass.track_source;
  xo.track_hops = !options.backlink.empty();
  xo.device = use_cuda ? SsspSolverDevice::Cuda : SsspSolverDevice::Cpu;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  xo.threads = use_cuda ? 1 : (context.threads() ? context.threads() : cores);
  xo.batch = use_cuda ? kCudaBatchTiles : xo.threads;
  xo.cache_bytes = options.cache_bytes;
  xo.gpu_memory_bytes = context.gpu_memory_bytes();
  xo.frontier_bfs = options.block_solver == "bfs";
  return xo;
}

// Resident: asked for, or auto on a GPU whose memory holds the raster (with a quarter spare); never
// with --index. Paged on a GPU whose memory does not hold it when the host budget holds every cell
// beside the write phase and the GPU holds the bands and enough slots (any number when asked for,
// a round's width twice over on auto).
struct ResidentChoice {
  bool resident = false;
  std::uint64_t device_slots = 0;
};

// Distributed: each rank's GPU holds its window (engine/sssp/rank_window.h), never paged; a window
// that does not fit is an error when resident was asked for, the streamed exchange on auto (the
// ranks then agree: agree_exchange).
ResidentChoice choose_resident(const SsspOptions& options, const TileInput& input, const SsspExchangeOptions& xo,
                               bool use_cuda, bool indexed, std::uint64_t write_phase_bytes, RunContext& context) {
  constexpr std::uint64_t kAutoPagedSlots = 512;
  ResidentChoice choice;
  if (indexed || options.exchange == "streamed") return choice;
  choice.resident = options.exchange == "resident";
  if (!use_cuda) return choice;
  const std::uint32_t g = options.resident_tile;
  const TileGrid& grid = input.grid();
  const RankWindow window = ResidentSsspExchange::window_of(input, xo);
  const std::uint64_t need = ResidentSsspExchange::device_bytes(window.width, window.height, g, Device::Cuda, 1,
                                                                options.connectivity);
  const std::uint64_t room = context.gpu_memory_bytes() ? context.gpu_memory_bytes() : cuda_device().global_memory / 4 * 3;
  if (need <= room) return ResidentChoice{true, 0};
  if (context.comm().distributed()) {
    if (choice.resident)
      throw Error("--exchange resident: rank " + std::to_string(context.comm().rank()) + "'s part of the raster needs " +
                  MemoryBudget::format_size(need) + " of GPU memory, more than its " + MemoryBudget::format_size(room) +
                  "; give more ranks, a larger --gpu-memory or --exchange streamed");
    return ResidentChoice{};
  }
  const std::uint64_t slots = ResidentSsspExchange::paged_slots(grid.width, grid.height, g, options.connectivity, room);
  const std::uint64_t host = ResidentSsspExchange::paged_host_bytes(grid.width, grid.height, g, options.connectivity);
  const bool host_fits = host + write_phase_bytes <= context.budget().available();
  if (slots >= (choice.resident ? 2 : kAutoPagedSlots) && host_fits) return ResidentChoice{true, slots};
  return choice;
}

// The index query (--index): every source seeded at 0, distances into the store.
void run_index_query(const SsspOptions& options, const std::vector<SourceCell>& points, const TileInput& input,
                     IndexFile& index, const PassWeights& weights, DistanceStore& distances, RunContext& context,
                     SsspResult& result) {
  std::vector<IndexSource> sources;
  for (const SourceCell& c : points) {
    if (c.start != 0)  // the index query seeds every source at 0
      throw UsageError(c.text + " has the initial cost " + format_value(c.start) +
                       "; --index starts every source at 0: drop --index or the initial costs");
    sources.push_back(IndexSource{c.cell, c.text});
  }
  GPrimeExchangeOptions go;
  go.params = weights.solve_params;
  go.connectivity = options.connectivity;
  go.max_cost = weights.max_cost;
  const IndexSsspStats is = index_sssp(input, index, sources, go, options.cache_bytes, distances, context.budget(),
                                       context.progress());
  result.sources = points.size();
  result.solves = is.tile_solves;
  result.tiles_solved = is.tiles_written;
}

// The exchange of a pass (streamed or resident) and where its outputs read the distances from: the
// GPU of a resident exchange (no flush to the store), the streamed exchange's cache when the write
// phase fits beside it, else the distance store.
struct PassExchange {
  SsspExchangeOptions xo;
  std::unique_ptr<RasterReader> mask;  // --source-raster, read while the exchange holds its cache
  bool resident = false;
  std::uint64_t device_slots = 0;  // the paged resident solver's slots (0: not paged)
  std::uint64_t encoder_bytes = 0; // the write phase's planned share for its block encoders
  bool outputs_from_device = false;
  SsspExchange* outputs_from_cache = nullptr;
  std::unique_ptr<SsspExchangeRun> run;
};

// Phase "sssp: sources": the exchange made and the sources set in their tiles. `phase` times the
// stages from the sources on.
void start_exchange(const SsspOptions& options, const std::vector<SourceCell>& points, const TileInput& input,
                    const TileGrid& grid, const PassWeights& weights, bool barred, std::uint64_t write_phase_bytes,
                    DistanceStore& distances, RunContext& context, Stopwatch& phase, PassExchange& x,
                    SsspResult& result) {
  MemoryBudget& budget = context.budget();
  Progress& progress = context.progress();
  const std::uint32_t t = grid.tile;
  if (x.resident) {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    x.xo.threads = context.threads() ? context.threads() : cores;  // the CPU twin's solvers, or the GPU's tile readers
    x.run = std::make_unique<ResidentSsspExchange>(input, distances, x.xo, options.resident_tile,
                                                   options.resident_round, x.device_slots, budget, progress);
  } else {
    const std::uint64_t tile_cells = static_cast<std::uint64_t>(t) * t;
    plan_streamed_exchange(x.mask ? kMaskCacheBytes + tile_cells * 8 + x.mask->resident_bytes(t) : 0,
                           write_phase_bytes, grid, context, x.xo);
    x.run = std::make_unique<SsspExchange>(input, distances, x.xo, budget);
  }
  SsspExchangeRun& exchange = *x.run;
  result.seconds.load = phase.seconds();
  phase.restart();
  add_point_sources(points, grid, weights.params.scale, weights.max_cost, barred, exchange, result);
  if (x.mask) add_mask_sources(options, *x.mask, grid, weights.params.scale, exchange, context, result);
  progress.update("sssp: sources", 1, 1);
  result.seconds.sources += phase.seconds();
}

// Phase "sssp: exchange" (block-local solves and boundary exchange), then the distances flushed to
// the store unless the outputs read them from the device or the cache.
SsspExchangeStats finish_exchange(std::uint64_t write_phase_bytes, RunContext& context, Stopwatch& phase,
                                  PassExchange& x, SsspResult& result) {
  MemoryBudget& budget = context.budget();
  SsspExchangeRun& exchange = *x.run;
  phase.restart();
  exchange.run(context.progress());
  result.seconds.exchange = phase.seconds();
  const SsspExchangeStats stats = exchange.stats();
  if (const auto* r = dynamic_cast<const ResidentSsspExchange*>(x.run.get())) result.resident = r->resident_stats();
  if (!x.outputs_from_device) {
    phase.restart();
    auto* streamed = dynamic_cast<SsspExchange*>(x.run.get());
    if (streamed && write_phase_bytes <= budget.available()) {
      x.outputs_from_cache = streamed;
    } else {
      exchange.flush();
      x.run.reset();
    }
    result.seconds.flush = phase.seconds();
  }
  result.solves = stats.solves;
  result.tiles_solved = stats.tiles_solved;
  result.resolves = stats.resolves;
  result.rounds = stats.rounds;
  result.cache_tiles = stats.cache_capacity;
  result.cache_evictions = stats.cache_evictions;
  return stats;
}

// Phase "sssp: write": the final labels into the run's outputs, or into the pass's scratch file (a
// group's pass). The store is at its largest now; each tile's slot is released once written, so the
// outputs grow into the space the store gives back.
void write_pass_outputs(const SsspOptions& options, const SsspPass& pass, const TileInput& input, const PassInput& in,
                        const PassWeights& weights, PassRanks& ranks, PassExchange& x, DistanceStore& distances,
                        RunContext& context, SsspResult& result) {
  MemoryBudget& budget = context.budget();
  std::unique_ptr<CostOutputsWriter> writer;
  std::unique_ptr<SsspResultGatherer> gatherer;
  std::unique_ptr<SsspResultSender> sender;
  SsspResultSink* sink_ptr = nullptr;
  const bool ids = x.xo.track_source, backlinks = !options.backlink.empty();
  if (!ranks.root()) {
    sender = std::make_unique<SsspResultSender>(*ranks.comm, in.grid, ids, backlinks, budget);
    sink_ptr = sender.get();
  } else if (pass.scratch) {
    *pass.scratch = std::make_unique<SsspGroupScratch>(pass.scratch_path, in.grid, x.xo.track_source,
                                                       !options.backlink.empty(), budget);
    sink_ptr = pass.scratch->get();
  } else {
    if (!pass.outputs) throw Error("internal error: an sssp pass without the run's outputs");
    writer = std::make_unique<CostOutputsWriter>(options, *pass.outputs, in.info, in.grid, weights.params.scale, budget,
                                                 x.encoder_bytes);
    sink_ptr = writer.get();
    if (ranks.distributed()) {
      gatherer = std::make_unique<SsspResultGatherer>(*ranks.comm, *ranks.ownership, in.grid, *writer, ids, backlinks, budget);
      sink_ptr = gatherer.get();
    }
  }
  SsspResultSink& sink = *sink_ptr;
  SsspLabelSource& labels = x.outputs_from_device ? static_cast<SsspLabelSource&>(
                                                        static_cast<ResidentSsspExchange&>(*x.run))
                            : x.outputs_from_cache ? static_cast<SsspLabelSource&>(*x.outputs_from_cache)
                                                   : distances;
  if (ranks.distributed()) fault_point(*ranks.comm, "sssp: write");
  const SsspOutputStats out = write_sssp_results(input, labels, x.xo, backlinks, sink, budget, context.progress(), true,
                                                 [&ranks](std::uint64_t tile) { return ranks.mine(tile); });
  if (gatherer) gatherer->finish();
  result.seconds.write_read = out.read_seconds;
  result.seconds.write_prepare = out.prepare_seconds;
  result.seconds.write_hand_off = out.hand_off_seconds;
  result.reached_cells = out.reached_cells;
  result.max_distance_fixed = out.max_dist;
  if (gatherer) ranks.bytes_received += gatherer->bytes_received();
  if (sender) ranks.bytes_sent += sender->bytes_sent();
  // Every rank's part is written (or sent) now: a failure anywhere publishes nothing.
  const Stopwatch finish;
  if (ranks.distributed()) {
    agreed_stage(*ranks.comm, "sssp: writing the outputs", [&] {
      if (writer) result.bytes_written += writer->finish();
    });
  } else if (writer) {
    result.bytes_written += writer->finish();
  }
  result.seconds.write_finish = finish.seconds();
  if (pass.scratch) (*pass.scratch)->finish_writing();
}

// The bytes the pass read and wrote (INPUT's import when this pass opened it, the distance store,
// the barrier and friction rasters), its time and its memory peaks.
void fill_totals(const PassInput& input, const PassCells& cells, const DistanceStore& distances, const Stopwatch& start,
                 MemoryBudget& budget, SsspResult& result) {
  const PipelineInput* barrier_source = cells.barrier_source.get();
  const PipelineInput* friction_source = cells.friction_source.get();
  result.bytes_read += (input.owned ? input.source->bytes_read() : 0) + distances.bytes_read() +
                       (barrier_source ? barrier_source->bytes_read() : 0) +
                       (friction_source ? friction_source->bytes_read() : 0);
  result.bytes_written += distances.bytes_written() + (input.owned ? input.source->bytes_written() : 0) +
                          (barrier_source ? barrier_source->bytes_written() : 0) +
                          (friction_source ? friction_source->bytes_written() : 0);
  result.seconds.total = start.seconds();
  result.peak_rss_bytes = peak_rss_bytes();
  result.memory_peak_reserved = budget.peak_reserved();
}

// What a pass holds from its opening to its end (declared in this order: destroyed in reverse).
struct PassState {
  SsspResult result;
  bool labelled = false, use_cuda = false;
  MemoryBudget::Reservation device_host;
  PassRanks ranks;
  std::unique_ptr<PassInput> input;
  PassWeights weights;
  PassCells cells;
  std::vector<SourceCell> points;
  std::unique_ptr<DistanceStore> distances;
  WritePhasePlan write_plan;
  PassExchange x;
  Stopwatch start, phase;
};

// What a distributed pass does not run yet (docs/distributed.md "sssp"), refused on every rank.
void check_distributed_flags(const SsspOptions& options, const PassRanks& ranks) {
  if (!ranks.distributed()) return;
  if (!options.index.empty())
    throw UsageError("--index does not run on several ranks yet (docs/distributed.md); drop --index or run one process");
}

// Stage "sssp: opening the input": the flags, the device, INPUT (or the index), the step lengths
// and weights, the barrier and friction rasters, the sources located, the tile ownership of a
// distributed run, the distance store and the plan of the write phase.
void open_pass(const SsspOptions& options, const SsspPass& pass, RunContext& context, PassState& s) {
  MemoryBudget& budget = context.budget();
  SsspResult& result = s.result;
  check_pass_flags(options);
  if (context.comm().distributed()) s.ranks.comm = &context.comm();
  check_distributed_flags(options, s.ranks);
  // Device: the CUDA block solver computes distances only; backlinks and allocation need the
  // CPU solver's labels.
  s.labelled = !options.backlink.empty() || !options.allocation.empty() || pass.track_source;
  s.use_cuda = context.device() == Device::Cuda && !s.labelled;
  s.device_host = reserve_device_host_memory(s.use_cuda ? Device::Cuda : Device::Cpu, budget);
  result.device = device_description(s.use_cuda ? Device::Cuda : Device::Cpu);
  if (context.device_request() == DeviceRequest::Cuda && s.labelled) result.device = "cpu (backlinks and allocation use the CPU solver)";
  check_exchange_flags(options, s.labelled);
  const RasterInfo barrier_info = open_barrier_band(options, budget, result);

  s.input = std::make_unique<PassInput>(context.tmpdir());
  PassInput& input = *s.input;
  open_pass_input(options, pass, s.labelled, context, input, result);
  choose_steps(options, input, budget, s.weights, result);
  open_barriers(options, barrier_info, input, context, s.cells, result);
  open_walk_cells(options, input, s.weights, context, s.cells, result);
  fix_weights(options, pass, s.weights, result);

  s.phase.restart();
  context.progress().update("sssp: sources", 0, 1);
  s.points = locate_pass_sources(options, pass, input.info);
  const TileGrid& grid = input.grid;
  if (grid.tile < halo_width(options.connectivity))
    throw UsageError("--tile " + std::to_string(grid.tile) + " is narrower than the two-cell halo of --connectivity 16");
  if (s.ranks.distributed()) {  // weights: present tiles (docs/distributed.md "Ownership")
    const TileInput& cells = input.source->cells();
    s.ranks.ownership = std::make_unique<TileOwnership>(grid, s.ranks.comm->size(), [&](std::uint64_t tile) -> std::uint64_t {
      return cells.tile_present(static_cast<std::uint32_t>(tile % grid.tiles_x()), static_cast<std::uint32_t>(tile / grid.tiles_x()));
    });
  }
  s.distances = std::make_unique<DistanceStore>(input.run.file("distances.bin"), grid, s.labelled, budget,
                                                halo_width(options.connectivity));
  // The write phase's fixed needs, planned before any work beside what is held now (the store's
  // index, the distance store). The streamed exchange leaves this much unreserved when it can, so
  // the outputs are written straight from its cache (no flush to the store and no second read of it).
  s.write_plan = plan_sssp_write_phase(options, grid, s.labelled, s.ranks, context);
}

// The exchange's options and the choice between the streamed and the resident exchange.
void choose_exchange(const SsspOptions& options, const SsspPass& pass, RunContext& context, PassState& s) {
  PassExchange& x = s.x;
  SsspResult& result = s.result;
  x.encoder_bytes = s.write_plan.encoders;
  x.xo = exchange_options(options, pass, s.weights, s.use_cuda, context);
  if (s.ranks.distributed()) x.xo.comm = s.ranks.comm, x.xo.ownership = s.ranks.ownership.get();
  result.block_solver = options.weight == WeightModel::Unit && x.xo.frontier_bfs && !s.labelled ? "bfs" : "sweep";
  // The source mask is read while the exchange holds its cache: open it first, keep its room free.
  if (!options.source_raster.empty() && pass.mask) x.mask = RasterReader::open(options.source_raster);
  const ResidentChoice resident = choose_resident(options, s.cells.solved(*s.input), x.xo, s.use_cuda,
                                                  s.input->index != nullptr, s.write_plan.bytes, context);
  x.resident = resident.resident;
  x.device_slots = resident.device_slots;
  result.resident_slots = resident.device_slots;
  result.exchange = s.input->index ? "index" : x.resident ? "resident" : "streamed";
  x.outputs_from_device = x.resident && s.use_cuda;
}

// Distributed, --exchange auto on GPUs: the resident exchange only when every rank's window fits
// its GPU (each rank chose alone in choose_exchange), else the streamed one on every rank.
void agree_exchange(Communicator& comm, PassState& s) {
  PassExchange& x = s.x;
  if (comm.all_reduce(std::uint64_t{x.resident}, ReduceOp::Min) == std::uint64_t{x.resident}) return;
  x.resident = false;
  x.outputs_from_device = false;
  s.result.exchange = "streamed";
}

// A distributed pass's totals over the ranks (every rank's result alike) and, at rank 0, every
// rank's report (the `ranks` summary).
void gather_pass_totals(PassState& s, const SsspExchangeStats& stats) {
  SsspResult& r = s.result;
  Communicator& comm = *s.ranks.comm;
  std::uint64_t sums[4] = {r.reached_cells, r.solves, r.tiles_solved, r.resolves};
  comm.all_reduce(sums, 4, ReduceOp::Sum);
  r.reached_cells = sums[0], r.solves = sums[1], r.tiles_solved = sums[2], r.resolves = sums[3];
  std::uint64_t most[2] = {r.max_distance_fixed, r.rounds};
  comm.all_reduce(most, 2, ReduceOp::Max);
  r.max_distance_fixed = most[0], r.rounds = most[1];
  r.ranks = gather_rank_reports(
      comm, rank_report(*s.ranks.ownership, comm.rank(), stats.bytes_sent + s.ranks.bytes_sent,
                        stats.bytes_received + s.ranks.bytes_received,
                        {{"import", r.seconds.import}, {"load", r.seconds.load}, {"sources", r.seconds.sources},
                         {"exchange", r.seconds.exchange}, {"exchange_trade", stats.trade_seconds},
                         {"exchange_agree", stats.agree_seconds}, {"flush", r.seconds.flush}, {"write", r.seconds.write}}));
}

}  // namespace

// One process, or one rank of `mpirun -np N` (docs/distributed.md "sssp"): every rank opens the
// input and solves its own tiles; rank 0 alone writes the outputs. The opening, the sources, the
// check of the input's tiles and the outputs' finish are agreed stages (a failure on any rank ends
// every rank with it); a failure in the exchange or the write phase ends the job from main (MPI_Abort).
SsspResult run_sssp_pass(const SsspOptions& options, const SsspPass& pass, RunContext& context) {
  MemoryBudget& budget = context.budget();
  Communicator& comm = context.comm();
  PassState s;
  SsspResult& result = s.result;
  agreed_stage(comm, "sssp: opening the input", [&] {
    open_pass(options, pass, context, s);
    choose_exchange(options, pass, context, s);
  });
  if (s.ranks.distributed()) agree_exchange(comm, s);
  PassInput& input = *s.input;
  const TileInput& solved = s.cells.solved(input);
  const TileGrid& grid = input.grid;
  PassExchange& x = s.x;
  result.seconds.sources = s.phase.seconds();
  s.phase.restart();
  SsspExchangeStats stats;
  if (input.index) {
    run_index_query(options, s.points, solved, *input.index, s.weights, *s.distances, context, result);
    result.seconds.exchange = s.phase.seconds();
  } else {
    agreed_stage(comm, "sssp: sources", [&] {
      start_exchange(options, s.points, solved, grid, s.weights, s.cells.barred != nullptr, s.write_plan.bytes,
                     *s.distances, context, s.phase, x, result);
    });
    stats = finish_exchange(s.write_plan.bytes, context, s.phase, x, result);
  }

  // The header's statistics set the weight scale: every stored tile is checked against them
  // (exactly: io/store/tile_store.h) before any output is published, also the tiles this run did not
  // need (--max-cost, regions no source reaches), which are read now.
  check_input_statistics(*input.source, comm, s.ranks.ownership.get(), budget, "sssp");

  result.scratch_bytes = s.distances->bytes_on_disk();
  s.phase.restart();
  write_pass_outputs(options, pass, solved, input, s.weights, s.ranks, x, *s.distances, context, result);
  result.seconds.write = s.phase.seconds();
  if (s.ranks.distributed()) gather_pass_totals(s, stats);
  result.max_distance = static_cast<double>(result.max_distance_fixed) / s.weights.params.scale;
  x.run.reset();
  fill_totals(input, s.cells, *s.distances, s.start, budget, result);
  return result;
}

}  // namespace terrazo
