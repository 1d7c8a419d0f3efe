// engine/raster_inputs/pipeline_input.cpp: open_pipeline_input (engine/raster_inputs/pipeline_input.h).
#include "engine/raster_inputs/pipeline_input.h"

#include <algorithm>
#include <future>
#include <string>
#include <unistd.h>
#include <vector>

#include "engine/raster_inputs/geotiff_tile_input.h"
#include "engine/raster_inputs/raster_io.h"
#include "kernels/common/enum_names.h"
#include "kernels/common/error.h"
#include "kernels/common/worker_pool.h"
#include "engine/tile_inputs/in_memory_tile_input.h"
#include "engine/tile_inputs/tile_store_input.h"
#include "io/gdal/gdal_raster.h"

namespace terrazo {

namespace {
constexpr EnumName<InputMode> kInputModeNames[] = {
    {InputMode::Auto, "auto"}, {InputMode::Memory, "memory"}, {InputMode::Direct, "direct"}, {InputMode::Import, "import"}};
}  // namespace

InputMode parse_input_mode(const std::string& text) { return parse_named(kInputModeNames, "--input-mode", text); }

const char* to_string(InputMode mode) { return name_of(kInputModeNames, mode, "auto"); }

struct PipelineInput::Held {
  std::unique_ptr<TileStore> store;
  std::unique_ptr<TileStoreInput> store_input;
  std::unique_ptr<InMemoryTileInput> memory;
  std::unique_ptr<GdalCacheLimit> direct_cache;  // before `direct`: the reader's blocks stay within it
  std::unique_ptr<GeoTiffTileInput> direct;
};

PipelineInput::PipelineInput() : held_(std::make_unique<Held>()) {}
PipelineInput::~PipelineInput() = default;

const TileStore* PipelineInput::store() const { return held_->store.get(); }

std::uint64_t PipelineInput::bytes_read() const { return import_read_ + cells_->bytes_read(); }

void PipelineInput::check_unseen_tiles(MemoryBudget& budget) const {
  if (held_->store) held_->store->read_unseen_tiles(&budget);
}

namespace {

bool usable_tile(std::uint32_t t) { return t >= 16 && t <= 4096 && (t & (t - 1)) == 0; }

// GDAL's block cache for reading in place: two tiles per reading thread in the file's type, 256 KiB at least.
std::uint64_t direct_cache_bytes(const RasterInfo& info, std::uint32_t t, unsigned threads) {
  const std::uint64_t tile_bytes = static_cast<std::uint64_t>(t) * t * cell_type_size(info.type);
  return std::max<std::uint64_t>(256ull << 10, 2ull * std::max(1u, threads) * tile_bytes);
}

// With several threads, a GDAL raster's CRS is read on this thread while the pool decodes its
// cells (RasterReader::open_without_crs): the first CRS look-up of a process costs 40-55 ms of
// PROJ database queries, and PROJ's context is per thread, so this thread, which later writes the
// outputs' georeferencing, is the one that pays it (on another thread it was paid twice).
struct CrsRead {
  bool left_out = false;  // the reader was opened without its CRS
  bool read = false;      // `wkt` read (during the decode)
  std::uint32_t band = 1;
  std::string wkt;
};

// A tiled GeoTIFF whose blocks tile the tiles, decoded into tiles in memory on `threads` threads
// (one GDAL dataset each, engine/raster_inputs/geotiff_tile_input.h), the CRS read meanwhile on
// this thread when the reader left it out. An integer raster's cells go from GDAL straight into
// their tiles (put_tile_cells: no doubles, no copy); a float raster's through doubles (put_tile).
std::unique_ptr<InMemoryTileInput> decode_tiled_in_memory(GeoTiffTileInput& tiled, const RasterInfo& ri, std::uint32_t t,
                                                          const PipelineInputOptions& options, MemoryBudget& budget,
                                                          Progress& progress, CrsRead& crs) {
  std::unique_ptr<InMemoryTileInput> held_memory = std::make_unique<InMemoryTileInput>(ri, t, budget);
  GdalCacheLimit cache(budget, direct_cache_bytes(ri, t, options.threads));
  const bool cells_as_they_are = cell_type_is_integer(ri.type);
  // Per thread (doubles only): the tile read and put_tile's padded copy of an edge tile.
  auto buffers = budget.reserve(cells_as_they_are ? 0 : 2ull * options.threads * t * t * sizeof(double),
                                "input load tiles");
  const TileGrid grid{ri.width, ri.height, t};
  progress.update("import", 0, grid.tiles_y());
  WorkerPool pool(options.threads);
  InMemoryTileInput& memory = *held_memory;
  auto decode = [&] {
    pool.run(grid.tiles_y(), [&](std::uint64_t ty) {
      const auto y = static_cast<std::uint32_t>(ty);
      if (cells_as_they_are) {
        for (std::uint32_t tx = 0; tx < grid.tiles_x(); ++tx)
          memory.put_tile_cells(tx, y, [&](void* cells) { tiled.read_tile_cells(tx, y, cells); });
        return;
      }
      std::vector<double> cells(static_cast<std::size_t>(t) * t);
      for (std::uint32_t tx = 0; tx < grid.tiles_x(); ++tx) {
        tiled.read_tile(tx, y, cells.data());
        memory.put_tile(tx, y, cells.data());
      }
    });
  };
  if (crs.left_out) {
    // The pool's loop on a thread of its own (its threads - 1 workers and that one), the CRS here.
    std::future<void> decoded = std::async(std::launch::async, decode);
    try {
      crs.wkt = RasterReader::read_crs_wkt(options.path, crs.band);
      crs.read = true;
    } catch (...) {
      decoded.wait();
      throw;
    }
    decoded.get();
  } else {
    decode();
  }
  progress.update("import", grid.tiles_y(), grid.tiles_y());
  memory.set_bytes_read(tiled.bytes_read());
  return held_memory;
}

// --input-mode memory (or auto when the tiles fit in a quarter of what is left): the raster's
// tiles in memory, decoded in parallel from a tiled GeoTIFF, else read strip by strip.
std::unique_ptr<InMemoryTileInput> load_tiles_in_memory(std::unique_ptr<RasterReader>& reader, const RasterInfo& ri,
                                                        std::uint32_t t, bool tiles_fit,
                                                        const PipelineInputOptions& options, MemoryBudget& budget,
                                                        Progress& progress, CrsRead& crs) {
  const std::string& path = options.path;
  if (!tiles_fit)
    throw BudgetError("--input-mode memory: INPUT '" + path + "' takes " +
                      MemoryBudget::format_size(InMemoryTileInput::bytes_for(ri, t)) + " as tiles in memory but only " +
                      MemoryBudget::format_size(budget.available()) + " of --memory " +
                      MemoryBudget::format_size(budget.total()) + " is left; raise --memory or use --input-mode auto");
  std::unique_ptr<GeoTiffTileInput> tiled;
  if (options.threads > 1 && options.band <= 1 && usable_tile(t)) tiled = GeoTiffTileInput::open_if_tiled(reader, path, t);
  if (tiled) return decode_tiled_in_memory(*tiled, ri, t, options, budget, progress, crs);
  return load_in_memory(*reader, t, budget, progress);
}

// --input-mode direct refused: INPUT cannot be read in place.
[[noreturn]] void refuse_direct(const std::string& path, std::uint32_t t) {
  throw UsageError("--input-mode direct: INPUT '" + path + "' is not a one-band GeoTIFF whose square blocks tile " +
                   std::to_string(t) + " x " + std::to_string(t) +
                   " tiles (make one with gdal_translate -co TILED=YES -co BLOCKXSIZE=" + std::to_string(t) +
                   " -co BLOCKYSIZE=" + std::to_string(t) + "), or use --input-mode auto");
}

// The import of INPUT into a store of the run directory, under a name of its own for each import
// of the run; `*output` its path.
ImportResult import_into_run(const PipelineInputOptions& options, RunDirectory& run, MemoryBudget& budget,
                             Progress& progress, std::string* output) {
  const std::string& path = options.path;
  std::string base = path.substr(path.find_last_of('/') + 1);
  *output = run.file("input-" + base + ".tzs");
  for (int n = 2; ::access(output->c_str(), F_OK) == 0; ++n)
    *output = run.file("input-" + base + "-" + std::to_string(n) + ".tzs");
  ImportOptions import;
  import.input = path;
  import.output = *output;
  import.tile = options.tile;
  import.band = options.band;
  return run_import(import, budget, progress);
}

}  // namespace

std::unique_ptr<PipelineInput> open_pipeline_input(const PipelineInputOptions& options, RunDirectory& run,
                                                   MemoryBudget& budget, Progress& progress) {
  std::unique_ptr<PipelineInput> input(new PipelineInput());
  PipelineInput::Held& held = *input->held_;
  const std::string& path = options.path;
  // A store of the tile asked for is read in place, whatever the mode.
  if (TileStore::looks_like_tile_store(path)) {
    if (options.band > 1)
      throw UsageError("band " + std::to_string(options.band) + " of '" + path + "' does not exist: it has 1 band");
    auto store = TileStore::open(path, &budget);
    if (options.tile == 0 || store->tile() == options.tile) held.store = std::move(store);
  }
  const std::uint32_t t = options.tile ? options.tile : kDefaultTile;
  CrsRead crs;
  if (!held.store && options.mode != InputMode::Import) {
    std::unique_ptr<RasterReader> reader =
        options.threads > 1
            ? RasterReader::open_without_crs(path, options.band, RasterReader::kChooseBand, &budget, &crs.left_out)
            : RasterReader::open(path, options.band, RasterReader::kChooseBand, &budget);
    crs.band = reader->band();
    const RasterInfo ri = reader->info();  // a copy: the reader may go to the tiled input below
    const std::uint64_t need = InMemoryTileInput::bytes_for(ri, t);
    const bool tiles_fit = options.mode == InputMode::Memory ? need < budget.available() : need <= budget.available() / 4;
    if (options.mode == InputMode::Memory || (options.mode == InputMode::Auto && tiles_fit)) {
      held.memory = load_tiles_in_memory(reader, ri, t, tiles_fit, options, budget, progress, crs);
      input->info_ = held.memory->info();
      input->cells_ = held.memory.get();
      input->how_ = "memory";
    } else if (options.mode != InputMode::Import && options.band <= 1 && usable_tile(t) &&
               (options.mode == InputMode::Direct || direct_cache_bytes(ri, t, options.threads) <= budget.available() / 4)) {
      const std::uint64_t cache = direct_cache_bytes(ri, t, options.threads);
      reader.reset();
      held.direct_cache = std::make_unique<GdalCacheLimit>(budget, cache);
      held.direct = GeoTiffTileInput::open_if_tiled(path, t);
      if (!held.direct) held.direct_cache.reset();
    }
    if (!held.memory && !held.direct && options.mode == InputMode::Direct) refuse_direct(path, t);
    if (held.direct) {
      if (options.statistics) {
        auto scratch = budget.reserve(static_cast<std::uint64_t>(t) * t * sizeof(double), "input statistics tile");
        std::vector<double> tile(static_cast<std::size_t>(t) * t);
        held.direct->scan(tile.data(), progress);
      }
      input->info_ = held.direct->info();
      input->cells_ = held.direct.get();
      input->how_ = "direct";
    }
  }
  if (crs.left_out && input->cells_) {  // (an import's store has the CRS the import read)
    if (!crs.read) crs.wkt = RasterReader::read_crs_wkt(path, crs.band);  // the other ways: now
    input->info_.crs_wkt = crs.wkt;
  }
  if (!input->cells_) {
    if (!held.store) {
      std::string output;
      const ImportResult imported = import_into_run(options, run, budget, progress, &output);
      input->import_read_ = imported.bytes_read;
      input->import_written_ = imported.bytes_written;
      held.store = TileStore::open(output, &budget);
      input->how_ = "imported";
    } else {
      input->how_ = "tile store";
    }
    held.store_input = std::make_unique<TileStoreInput>(*held.store);
    input->cells_ = held.store_input.get();
    input->info_ = held.store->info();
    if (options.statistics && !input->info_.has_stats)
      compute_store_statistics(*held.store, &input->info_, budget, "input statistics tile");
  }
  return input;
}

}  // namespace terrazo
