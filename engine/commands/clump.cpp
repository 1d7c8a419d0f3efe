// engine/commands/clump.cpp: run_clump = the input as a tile store + phases 1-3 (engine/clump/phases.h) + the
// labels GeoTIFF (engine/commands/clump.h, docs/clump.md).
#include "engine/commands/clump.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "engine/clump/distributed_sinks.h"
#include "engine/raster_inputs/geotiff_tile_input.h"
#include "engine/raster_inputs/statistics_check.h"
#include "engine/run/tile_ownership.h"
#include "engine/commands/output_paths.h"
#include "engine/commands/run_totals.h"
#include "engine/raster_inputs/raster_io.h"
#include "kernels/common/error.h"
#include "kernels/common/timer.h"
#include "engine/tile_inputs/tile_store_input.h"
#include "kernels/common/cuda_device.h"
#include "kernels/common/device_choice.h"
#include "io/gdal/gdal_raster.h"
#include "io/gdal/tiff_block_writer.h"
#include "io/gdal/zstd_block_codec.h"
#include "io/store/atomic_output.h"
#include "io/store/output_set.h"
#include "io/store/run_directory.h"
#include "io/store/tile_store.h"

namespace terrazo {
namespace {

// The labels raster: UInt32, nodata 0. Windows arrive in row-major tile order; GDAL's cache holds
// one row of blocks (block = clamp(t, 256, 1024)) when the budget allows, so each block is
// compressed once. No predictor unless --co asks for one: labels are runs of equal values, which
// ZSTD packs better undifferenced (16.8 M cells of elevation bands: 575 KB against 710 KB with
// PREDICTOR=2, and a fifth less encoder time; docs/clump.md "Output").
class LabelRasterWriter : public ClumpWindowSink {
 public:
  LabelRasterWriter(AtomicOutput& output, const TileGrid& grid, const RasterInfo& georef, MemoryBudget& budget,
                    GeoTiffOptions options) {
    options.predictor = 1;
    const std::uint32_t block = std::max<std::uint32_t>(256, std::min<std::uint32_t>(grid.tile, 1024));
    const std::uint64_t row_bytes = ((grid.width + block - 1) / block + 1) * block * block * 4ull;
    const std::uint64_t cache_bytes =
        std::max<std::uint64_t>(2ull * block * block * 4, std::min<std::uint64_t>(row_bytes, budget.available() / 4));
    cache_ = std::make_unique<GdalCacheLimit>(budget, cache_bytes);
    writer_ = std::make_unique<GeoTiffWriter>(output, grid.width, grid.height, CellType::UInt32, georef, true, 0.0,
                                              block, options);
    block_ = block;
  }
  void write_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                    const std::uint32_t* labels) override {
    writer_->write_window_u32(x0, y0, w, h, labels);
  }
  // Tiles that are the file's blocks go to the block writer as they are (nodata 0 = the fill).
  bool takes_tiles(std::uint32_t t) const override { return t == block_ && writer_->takes_blocks(); }
  std::vector<std::uint8_t> take_tile() override { return writer_->take_block(); }
  void write_tile(std::uint64_t tx, std::uint64_t ty, std::vector<std::uint8_t> labels) override {
    writer_->write_block(tx, ty, std::move(labels));
  }
  std::uint64_t finish() {
    writer_->finish();
    return writer_->bytes_written();
  }
  // The block writer's format when the tiles of --tile `t` are the file's blocks (null otherwise),
  // and a block another rank encoded with it.
  const TiffBlockFormat* tile_block_format(std::uint32_t t) const { return takes_tiles(t) ? writer_->block_format() : nullptr; }
  void write_encoded(std::uint64_t bx, std::uint64_t by, std::vector<std::uint8_t> encoded) {
    writer_->write_encoded_block(bx, by, std::move(encoded));
  }

 private:
  std::unique_ptr<GdalCacheLimit> cache_;
  std::unique_ptr<GeoTiffWriter> writer_;
  std::uint32_t block_ = 0;
};

// The --stats CSV, written to its output's partial file (published with the labels by the run's OutputSet).
class StatsCsv : public ClumpStatsSink {
 public:
  StatsCsv(AtomicOutput& output, const RasterInfo& info) : output_(output) {
    file_ = std::fopen(output_.partial().c_str(), "w");
    if (!file_)
      throw IoError("--stats '" + output_.path() + "': cannot create " + output_.partial() + ": " +
                    std::strerror(errno));
    const auto& g = info.geotransform;
    gt_ = g;
    georeferenced_ = info.has_geotransform;
    pixel_area_ = georeferenced_ ? std::fabs(g[1] * g[5] - g[2] * g[4]) : 1.0;
    std::fputs("label,cells,area,value,col_min,row_min,col_max,row_max,x_min,y_min,x_max,y_max\n", file_);
  }
  ~StatsCsv() override {
    if (file_) std::fclose(file_);
  }
  void region(const ClumpRegionStats& s) override {
    // Map box: the four corners of the cells' box (edges: col_max + 1, row_max + 1).
    double x_min = HUGE_VAL, y_min = HUGE_VAL, x_max = -HUGE_VAL, y_max = -HUGE_VAL;
    for (int corner = 0; corner < 4; ++corner) {
      const double c = static_cast<double>(corner & 1 ? s.col_max + 1 : s.col_min);
      const double r = static_cast<double>(corner & 2 ? s.row_max + 1 : s.row_min);
      const double x = gt_[0] + c * gt_[1] + r * gt_[2], y = gt_[3] + c * gt_[4] + r * gt_[5];
      x_min = std::min(x_min, x), x_max = std::max(x_max, x), y_min = std::min(y_min, y), y_max = std::max(y_max, y);
    }
    // One line, numbers in their shortest form that reads back exactly (std::to_chars): doubles in
    // fixed notation from 1e-6 to 1e16 (500000, not 5e+05), else in the general one.
    char line[1024];
    char* p = line;
    char* const end = line + sizeof line - 1;  // room for the newline
    auto put = [&](std::uint64_t n) { p = std::to_chars(p, end, n).ptr; };
    auto put_double = [&](double v) {
      const double a = std::fabs(v);
      const bool fixed = a == 0 || (a >= 1e-6 && a < 1e16);
      p = std::to_chars(p, end, v, fixed ? std::chars_format::fixed : std::chars_format::general).ptr;
    };
    auto comma = [&] {
      if (p < end) *p++ = ',';
    };
    put(s.label), comma(), put(s.cells), comma(), put_double(static_cast<double>(s.cells) * pixel_area_), comma();
    if (s.value == s.value) put_double(s.value);
    comma(), put(s.col_min), comma(), put(s.row_min), comma(), put(s.col_max), comma(), put(s.row_max), comma();
    put_double(x_min), comma(), put_double(y_min), comma(), put_double(x_max), comma(), put_double(y_max);
    *p++ = '\n';
    const auto bytes = static_cast<std::size_t>(p - line);
    if (std::fwrite(line, 1, bytes, file_) != bytes && write_errno_ == 0) write_errno_ = errno ? errno : EIO;
  }
  std::uint64_t finish() {
    const long size = std::ftell(file_);
    const bool failed = std::ferror(file_) != 0;
    const int closed = std::fclose(file_);
    file_ = nullptr;
    // The first failed write's errno (a full disk: ENOSPC), not whatever errno holds by now.
    const int error = write_errno_ ? write_errno_ : errno;
    if (failed || closed != 0 || write_errno_) throw IoError("--stats '" + output_.path() + "': write failed: " + std::strerror(error));
    return size > 0 ? static_cast<std::uint64_t>(size) : 0;
  }

 private:
  AtomicOutput& output_;
  std::FILE* file_ = nullptr;
  int write_errno_ = 0;
  std::array<double, 6> gt_{};
  bool georeferenced_ = false;
  double pixel_area_ = 1;
};

// The flags: INPUT and LABELS given, distinct paths, --by range ordered, --min-size at least 1 and
// not with --stats.
void check_clump_options(const ClumpOptions& options) {
  if (options.input.empty()) throw UsageError("clump: INPUT is missing");
  if (options.output.empty()) throw UsageError("clump: LABELS.tif is missing");
  check_distinct_paths({{"INPUT", options.input}}, {{"LABELS", options.output}, {"--stats", options.stats}});
  if (options.by_given && options.by == ClumpBy::Range && !(options.range_lo <= options.range_hi))
    throw UsageError("invalid --by range: the low end is above the high end");
  if (options.min_size_given && options.min_size == 0)
    throw UsageError("invalid --min-size 0: expected a cell count of at least 1");
  if (options.min_size > 0 && !options.stats.empty())
    throw UsageError("--stats cannot be combined with --min-size (the statistics are of the regions before the sieve)");
}

// Phase "import": a store, tiles in memory, a tiled GeoTIFF in place or an import
// (engine/raster_inputs/pipeline_input.h); the labelling needs no statistics. A raster of
// non-integer cells needs --by.
std::unique_ptr<PipelineInput> open_clump_input(const ClumpOptions& options, RunContext& context, ClumpResult& result) {
  Stopwatch phase;
  PipelineInputOptions in = pipeline_input_options(options, context);
  in.statistics = false;
  std::unique_ptr<PipelineInput> input = open_pipeline_input(in, context.run_directory(), context.budget(), context.progress());
  result.seconds.import = phase.seconds();
  result.input_read = input->how();
  result.input_read_in_place = input->how() == "memory" || input->how() == "direct";
  const RasterInfo info = input->info();
  if (!options.by_given && !cell_type_is_integer(info.type))
    throw UsageError(std::string("INPUT '") + options.input + "' is " + to_string(info.type) +
                     ": give --by value (exact equality of the values), valid or range:LO,HI");
  const TileGrid grid = input->grid();
  result.width = grid.width;
  result.height = grid.height;
  result.tile = grid.tile;
  return input;
}

ClumpPhaseOptions clump_phase_options(const ClumpOptions& options, const RasterInfo& info, bool use_cuda,
                                      RunContext& context) {
  ClumpPhaseOptions phase_options;
  phase_options.connectivity = options.connectivity;
  phase_options.by = options.by;
  phase_options.range_lo = options.range_lo;
  phase_options.range_hi = options.range_hi;
  phase_options.threads = context.threads();
  phase_options.device = use_cuda ? Device::Cuda : Device::Cpu;
  phase_options.gpu_memory_bytes = context.gpu_memory_bytes();
  phase_options.plan = &context.plan();
  phase_options.gpu_key_code = clump_gpu_key_code(info.type, options.by);
  phase_options.scratch_dir = context.run_directory().path();
  return phase_options;
}

// --min-size: the regions smaller than it merged or isolated, from the label file into the raster.
ClumpSieveResult sieve_small_regions(const ClumpOptions& options, ClumpLabelFile& label_file, std::uint64_t regions,
                                     std::uint32_t tile, LabelRasterWriter& raster, RunContext& context,
                                     ClumpResult& result) {
  Stopwatch sieve_clock;
  ClumpSieveOptions so;
  so.min_size = options.min_size;
  so.action = options.min_size_action;
  so.connectivity = options.connectivity;
  so.tile = tile;
  so.scratch_dir = context.run_directory().path();
  const ClumpSieveResult sieve =
      run_clump_sieve(label_file, regions, so, context.budget(), context.progress(), &raster);
  result.seconds.sieve = sieve_clock.seconds();
  result.bytes_read += sieve.bytes_read;
  result.bytes_written += sieve.bytes_written + label_file.bytes_written();
  return sieve;
}

// The phases' (and the sieve's, when run) counters and times into the result.
void fill_clump_result(const ClumpPhaseResult& phases, const ClumpSieveResult* sieve, ClumpResult& result) {
  result.regions = phases.regions;
  result.cells_labelled = phases.cells_labelled;
  result.largest_region = phases.largest_region;
  if (sieve) {
    result.regions_before_sieve = phases.regions;
    result.small_regions = sieve->small_regions;
    result.small_merged = sieve->merged;
    result.small_isolated = sieve->isolated;
    result.regions = sieve->regions;
    result.cells_labelled = sieve->cells_labelled;
    result.largest_region = sieve->largest_region;
  }
  result.border_regions = phases.border_regions;
  result.merged_border_regions = phases.merged_border_regions;
  result.external_merge = phases.external_merge;
  result.seconds.tile_labels = phases.tile_labels_seconds;
  result.seconds.merge = phases.merge_seconds;
  result.seconds.relabel = phases.relabel_seconds;
  result.seconds.tile_labels_solve = phases.tile_labels_solve;
  result.seconds.tile_labels_borders = phases.tile_labels_borders;
  result.seconds.tile_labels_table = phases.tile_labels_table;
  result.seconds.relabel_solve = phases.relabel.solve;
  result.seconds.relabel_number = phases.relabel.number;
  result.seconds.relabel_write = phases.relabel.write;
  result.seconds.device_setup += phases.solver_setup_seconds;
  result.seconds.device_busy = phases.device_busy_seconds;
  result.seconds.stats = phases.stats_seconds;
  result.bytes_read += phases.bytes_read;
  result.bytes_written += phases.bytes_written;
}


// A distributed run's sinks (engine/clump/distributed_sinks.h): rank 0 gathers the other ranks'
// windows and statistics into its writers; the other ranks send theirs.
struct ClumpRankSinks {
  std::unique_ptr<ClumpWindowGatherer> gatherer;
  std::unique_ptr<ClumpWindowSender> sender;
  std::unique_ptr<ClumpStatsMerger> merger;
  std::unique_ptr<ClumpStatsSender> stats_sender;
  ClumpWindowSink* windows = nullptr;
  ClumpStatsSink* stats = nullptr;
};

// The block format rank 0's writer encodes the tiles with, when the tiles are the file's blocks
// (GeoTIFF block writer; not with --min-size, whose windows go to the label file): rank 0's, to
// every rank. A collective.
std::optional<TiffBlockFormat> shared_block_format(Communicator& comm, const LabelRasterWriter* raster,
                                                   const ClumpWindowSink* local_sink, std::uint32_t t) {
  std::vector<std::uint8_t> bytes;
  const TiffBlockFormat* format = raster && local_sink == raster ? raster->tile_block_format(t) : nullptr;
  if (comm.root() && format) bytes.assign(reinterpret_cast<const std::uint8_t*>(format),
                                          reinterpret_cast<const std::uint8_t*>(format) + sizeof *format);
  comm.broadcast(bytes, 0);
  if (bytes.size() != sizeof(TiffBlockFormat)) return std::nullopt;
  TiffBlockFormat shared;
  std::memcpy(&shared, bytes.data(), sizeof shared);
  return shared;
}

ClumpRankSinks rank_sinks(Communicator& comm, const TileOwnership& ownership, const TileGrid& grid,
                          ClumpWindowSink* windows, ClumpStatsSink* stats, bool want_stats, LabelRasterWriter* raster) {
  ClumpRankSinks s;
  s.windows = windows, s.stats = stats;
  if (!comm.distributed()) return s;
  const std::optional<TiffBlockFormat> format = shared_block_format(comm, raster, windows, grid.tile);
  if (comm.root()) {
    ClumpEncodedBlockWriter encoded;
    if (format)
      encoded = [raster](std::uint64_t bx, std::uint64_t by, std::vector<std::uint8_t> e) { raster->write_encoded(bx, by, std::move(e)); };
    s.gatherer = std::make_unique<ClumpWindowGatherer>(comm, ownership, grid, *windows, std::move(encoded));
    s.windows = s.gatherer.get();
    if (stats) s.merger = std::make_unique<ClumpStatsMerger>(comm, *stats);
    s.stats = s.merger.get();
  } else {
    ClumpBlockEncoder encode;
    if (format)
      encode = [f = *format, zstd = std::make_shared<ZstdBlockCodec>()](const std::vector<std::uint8_t>& labels) {
        return encode_tiff_block(f, labels, true, zstd.get());
      };
    s.sender = std::make_unique<ClumpWindowSender>(comm, grid.tile, std::move(encode));
    s.windows = s.sender.get();
    if (want_stats) s.stats_sender = std::make_unique<ClumpStatsSender>(comm);
    s.stats = s.stats_sender.get();
  }
  return s;
}

// This rank's part of the `ranks` summary.
RankReport clump_rank_report(const TileOwnership& ownership, int rank, const ClumpPhaseResult& phases) {
  return rank_report(ownership, rank, phases.bytes_sent, phases.bytes_received,
                     {{"tile_labels", phases.tile_labels_seconds}, {"exchange", phases.exchange_seconds},
                      {"merge", phases.merge_seconds}, {"relabel", phases.relabel_seconds},
                      {"stats", phases.stats_seconds}});
}

}  // namespace

// One process, or one rank of `mpirun -np N` (docs/distributed.md "clump"): every rank opens the
// input and labels its own tiles; rank 0 alone makes, writes and publishes the output files. The
// stages before phase 3 and the outputs' finish are agreed stages (a failure on any rank ends every
// rank with it); a failure in phase 3 or the statistics ends the job from main (MPI_Abort).
ClumpResult run_clump(const ClumpOptions& options, RunContext& context) {
  MemoryBudget& budget = context.budget();
  Progress& progress = context.progress();
  Communicator& comm = context.comm();
  Stopwatch start;
  ClumpResult result;
  // Device: the per-tile labeller (kernels/clump/label_tile_solver.h); the rest runs on the CPU.
  Stopwatch probe;
  const bool use_cuda = context.device() == Device::Cuda;
  const MemoryBudget::Reservation device_host = reserve_device_host_memory(use_cuda ? Device::Cuda : Device::Cpu, budget);
  result.seconds.device_setup = probe.seconds();
  // The context is made while the input is read (its first use would pay for it otherwise).
  std::optional<CudaContextWarmup> warmup;
  if (use_cuda) warmup.emplace();

  // Every output's partial file is made before any work and all are published together at the end
  // (io/store/output_set.h): a failure writing either publishes neither. Rank 0's alone.
  OutputSet outputs;
  std::unique_ptr<PipelineInput> input;
  std::unique_ptr<LabelRasterWriter> raster;
  std::unique_ptr<StatsCsv> csv;
  std::unique_ptr<ClumpLabelFile> label_file;
  std::unique_ptr<TileOwnership> ownership;
  agreed_stage(comm, "clump: opening the input and outputs", [&] {
    check_clump_options(options);
    AtomicOutput* labels_output = comm.root() ? &outputs.add(options.output, geotiff_sidecar_suffixes()) : nullptr;
    AtomicOutput* stats_output = comm.root() ? outputs.add_if(options.stats) : nullptr;
    input = open_clump_input(options, context, result);
    const RasterInfo info = input->info();
    const TileGrid grid = input->grid();
    const TileInput& cells = input->cells();
    ownership = std::make_unique<TileOwnership>(grid, comm.size(), [&](std::uint64_t tile) -> std::uint64_t {
      return cells.tile_present(static_cast<std::uint32_t>(tile % grid.tiles_x()), static_cast<std::uint32_t>(tile / grid.tiles_x()));
    });
    if (!comm.root()) return;
    raster = std::make_unique<LabelRasterWriter>(*labels_output, grid, info, budget, options.geotiff);
    if (stats_output) csv = std::make_unique<StatsCsv>(*stats_output, info);
    if (options.min_size > 0)
      label_file = std::make_unique<ClumpLabelFile>(context.run_directory().path() + "/clump_labels.u32", grid.width, grid.height);
  });
  const RasterInfo info = input->info();
  const TileGrid grid = input->grid();
  result.device = device_description(use_cuda ? Device::Cuda : Device::Cpu);
  result.by = options.by;

  ClumpPhaseOptions phase_options = clump_phase_options(options, info, use_cuda, context);
  if (comm.distributed()) phase_options.comm = &comm, phase_options.ownership = ownership.get();
  ClumpWindowSink* local_sink = label_file ? static_cast<ClumpWindowSink*>(label_file.get()) : raster.get();
  const ClumpRankSinks sinks = rank_sinks(comm, *ownership, grid, local_sink, csv.get(), !options.stats.empty(), raster.get());
  const ClumpPhaseResult phases = run_clump_phases(input->cells(), phase_options, budget, progress, sinks.windows, sinks.stats);
  if (sinks.merger) sinks.merger->finish();
  if (sinks.stats_sender) sinks.stats_sender->finish();
  // One process read every tile (the check ran as they were read); ranks each read their own.
  check_input_statistics(*input, comm, comm.distributed() ? ownership.get() : nullptr, budget, "clump");
  ClumpSieveResult sieve;
  agreed_stage(comm, "clump: writing the outputs", [&] {
    if (!comm.root()) return;
    if (label_file) sieve = sieve_small_regions(options, *label_file, phases.regions, grid.tile, *raster, context, result);
    Stopwatch finish;
    result.bytes_written += raster->finish();
    result.seconds.finish = finish.seconds();
    if (csv) result.bytes_written += csv->finish();
  });
  if (comm.root()) outputs.publish();

  fill_clump_result(phases, label_file ? &sieve : nullptr, result);
  finish_run_totals(result, *input, budget, start);
  if (comm.distributed()) {
    RankReport report = clump_rank_report(*ownership, comm.rank(), phases);
    if (sinks.gatherer) report.bytes_received += sinks.gatherer->bytes_received();
    if (sinks.sender) report.bytes_sent += sinks.sender->bytes_sent();
    result.ranks = gather_rank_reports(comm, report);
  }
  return result;
}

}  // namespace terrazo
