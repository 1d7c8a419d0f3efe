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

#include "engine/raster_inputs/geotiff_tile_input.h"
#include "engine/commands/output_paths.h"
#include "engine/commands/run_totals.h"
#include "engine/raster_inputs/raster_io.h"
#include "kernels/common/error.h"
#include "kernels/common/timer.h"
#include "engine/tile_inputs/tile_store_input.h"
#include "kernels/common/cuda_device.h"
#include "kernels/common/device_choice.h"
#include "io/gdal/gdal_raster.h"
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

}  // namespace

ClumpResult run_clump(const ClumpOptions& options, RunContext& context) {
  MemoryBudget& budget = context.budget();
  Progress& progress = context.progress();
  Stopwatch start;
  ClumpResult result;
  check_clump_options(options);
  // Device: the per-tile labeller (kernels/clump/label_tile_solver.h); the rest runs on the CPU.
  Stopwatch probe;
  const bool use_cuda = context.device() == Device::Cuda;
  const MemoryBudget::Reservation device_host = reserve_device_host_memory(use_cuda ? Device::Cuda : Device::Cpu, budget);
  result.seconds.device_setup = probe.seconds();
  // The context is made while the input is read (its first use would pay for it otherwise).
  std::optional<CudaContextWarmup> warmup;
  if (use_cuda) warmup.emplace();

  // Every output's partial file is made before any work and all are published together at the end
  // (io/store/output_set.h): a failure writing either publishes neither.
  OutputSet outputs;
  AtomicOutput& labels_output = outputs.add(options.output, geotiff_sidecar_suffixes());
  AtomicOutput* stats_output = outputs.add_if(options.stats);
  RunDirectory& run = context.run_directory();
  const std::unique_ptr<PipelineInput> input = open_clump_input(options, context, result);
  const RasterInfo info = input->info();
  const TileGrid grid = input->grid();
  result.device = device_description(use_cuda ? Device::Cuda : Device::Cpu);
  result.by = options.by;

  const ClumpPhaseOptions phase_options = clump_phase_options(options, info, use_cuda, context);
  LabelRasterWriter raster(labels_output, grid, info, budget, options.geotiff);
  std::unique_ptr<StatsCsv> csv;
  if (stats_output) csv = std::make_unique<StatsCsv>(*stats_output, info);
  std::unique_ptr<ClumpLabelFile> label_file;
  if (options.min_size > 0) label_file = std::make_unique<ClumpLabelFile>(run.path() + "/clump_labels.u32", grid.width, grid.height);
  ClumpWindowSink* sink = label_file ? static_cast<ClumpWindowSink*>(label_file.get()) : &raster;
  const ClumpPhaseResult phases = run_clump_phases(input->cells(), phase_options, budget, progress, sink, csv.get());
  ClumpSieveResult sieve;
  if (label_file) sieve = sieve_small_regions(options, *label_file, phases.regions, grid.tile, raster, context, result);
  Stopwatch finish;
  result.bytes_written += raster.finish();
  result.seconds.finish = finish.seconds();
  if (csv) result.bytes_written += csv->finish();
  outputs.publish();

  fill_clump_result(phases, label_file ? &sieve : nullptr, result);
  finish_run_totals(result, *input, budget, start);
  return result;
}

}  // namespace terrazo
