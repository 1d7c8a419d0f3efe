// engine/commands/cost_outputs_writer.cpp: CostOutputsWriter (engine/commands/cost_outputs_writer.h).
#include "engine/commands/cost_outputs_writer.h"

#include <algorithm>
#include <limits>
#include <thread>

#include "kernels/common/error.h"
#include "io/gdal/tiff_block_writer.h"
#include "kernels/sssp/backlink.h"

namespace terrazo {

namespace {

// The GeoTIFF block side: the tile side where it is a multiple of 16 up to 4096, else 256.
std::uint32_t block_side(const TileGrid& grid) {
  const std::uint32_t t = grid.tile;
  return (t >= 16 && t % 16 == 0 && t <= 4096) ? t : 256;
}

int output_count(const SsspOptions& options) {
  return !options.output.empty() + !options.backlink.empty() + !options.allocation.empty();
}

}  // namespace

std::uint64_t CostOutputsWriter::cache_bytes(const SsspOptions& options, const TileGrid& grid) {
  const std::uint32_t block = block_side(grid);
  const int outputs = output_count(options);
  if (outputs == 0) return 0;
  const std::uint64_t block_bytes = static_cast<std::uint64_t>(block) * block * 8;
  return std::max<std::uint64_t>(16ull << 20, 4 * outputs * block_bytes);
}

std::uint64_t CostOutputsWriter::encoder_bytes(const SsspOptions& options, const TileGrid& grid) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<std::uint64_t>(output_count(options)) * cores * block_encoder_thread_bytes(block_side(grid));
}

std::uint64_t CostOutputsWriter::window_bytes(const SsspOptions& options, const TileGrid& grid) {
  const std::uint64_t per_cell = 8 * !options.output.empty() + 8 * !options.allocation.empty() + !options.backlink.empty();
  return static_cast<std::uint64_t>(grid.tile) * grid.tile * per_cell;
}

std::uint64_t CostOutputsWriter::reserved_bytes(const SsspOptions& options, const TileGrid& grid) {
  const std::uint64_t c = cache_bytes(options, grid);
  return c ? c + window_bytes(options, grid) : 0;
}

CostOutputsWriter::CostOutputsWriter(const SsspOptions& options, OutputSet& outputs, const RasterInfo& info,
                                     const TileGrid& grid, double scale, MemoryBudget& budget, std::uint64_t encoders)
    : scale_(scale), cells_(static_cast<std::size_t>(grid.tile) * grid.tile),
      window_bytes_(window_bytes(options, grid)), budget_(budget) {
  const std::uint32_t block = block_side(grid);
  if (output_count(options) == 0) return;
  cache_ = std::make_unique<GdalCacheLimit>(budget, cache_bytes(options, grid) + encoders);
  buffers_ = budget.reserve(window_bytes_, "sssp output windows");
  const auto output_of = [&outputs](const std::string& path) -> AtomicOutput& {
    AtomicOutput* output = outputs.find(path);
    if (!output) throw Error("internal error: sssp output '" + path + "' is not in the run's outputs");
    return *output;
  };
  if (!options.output.empty())
    cost_ = std::make_unique<GeoTiffWriter>(output_of(options.output), grid.width, grid.height, options.cost_type,
                                            info, true, -1.0, block, options.geotiff);
  if (!options.backlink.empty())
    backlink_ = std::make_unique<GeoTiffWriter>(output_of(options.backlink), grid.width, grid.height,
                                                CellType::UInt8, info, true, 255.0, block, options.geotiff);
  if (!options.allocation.empty())
    allocation_ = std::make_unique<GeoTiffWriter>(output_of(options.allocation), grid.width, grid.height,
                                                  CellType::UInt32, info, true, 0.0, block, options.geotiff);
  cost_type_ = options.cost_type;
  block_ = block;
  cost_blocks_ = cost_ && cost_->takes_blocks() && block == grid.tile &&
                 (cost_type_ == CellType::Float32 || cost_type_ == CellType::Float64);
  set_slots(1);
}

void CostOutputsWriter::set_slots(unsigned count) {
  if (count > slots_.size()) more_buffers_ = budget_.reserve((count - 1) * window_bytes_, "sssp output windows in flight");
  slots_.resize(count);
  if (cost_) cost_cells_.ensure(count * cells_);
  if (allocation_) allocation_cells_.ensure(count * cells_);
  if (backlink_) byte_cells_.ensure(count * cells_);
  for (std::size_t k = 0; k < count; ++k) {
    Slot& slot = slots_[k];
    slot.cost = cost_ ? cost_cells_.data() + k * cells_ : nullptr;
    slot.allocation = allocation_ ? allocation_cells_.data() + k * cells_ : nullptr;
    slot.bytes = backlink_ ? byte_cells_.data() + k * cells_ : nullptr;
  }
}

template <typename T>
void CostOutputsWriter::fill_cost_block(const SsspTileResult& r, std::vector<std::uint8_t>& block) const {
  constexpr double kNodata = -1.0;
  const double highest = std::numeric_limits<T>::max();
  T* out = reinterpret_cast<T*>(block.data());
  std::fill(out, out + static_cast<std::size_t>(block_) * block_, static_cast<T>(kNodata));
  for (std::uint32_t y = 0; y < r.height; ++y)
    for (std::uint32_t x = 0; x < r.width; ++x) {
      const PathLength d = r.dist[static_cast<std::size_t>(y) * r.stride + x];
      if (d == kUnreached) continue;
      const double value = static_cast<double>(d) / scale_;
      if (value > highest)
        throw Error("value " + std::to_string(value) + " does not fit the " + to_string(cost_type_) +
                    " cells of the cost raster (use --ot Float64)");
      out[static_cast<std::size_t>(y) * block_ + x] = static_cast<T>(value);
    }
}

void CostOutputsWriter::prepare_tile(const SsspTileResult& r) {
  Slot& slot = slots_.at(r.slot);
  auto at = [&](std::uint32_t x, std::uint32_t y) { return static_cast<std::size_t>(y) * r.stride + x; };
  if (cost_blocks_) {
    slot.cost_block = cost_->take_block();
    if (cost_type_ == CellType::Float32) fill_cost_block<float>(r, slot.cost_block);
    else fill_cost_block<double>(r, slot.cost_block);
  } else if (cost_) {
    for (std::uint32_t y = 0; y < r.height; ++y)
      for (std::uint32_t x = 0; x < r.width; ++x) {
        const PathLength d = r.dist[at(x, y)];
        slot.cost[static_cast<std::size_t>(y) * r.width + x] =
            d == kUnreached ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(d) / scale_;
      }
  }
  if (backlink_) {
    for (std::uint32_t y = 0; y < r.height; ++y)
      for (std::uint32_t x = 0; x < r.width; ++x)
        slot.bytes[static_cast<std::size_t>(y) * r.width + x] = r.backlink ? r.backlink[at(x, y)] : kNoBacklink;
  }
  if (allocation_) {
    for (std::uint32_t y = 0; y < r.height; ++y)
      for (std::uint32_t x = 0; x < r.width; ++x) {
        const bool reached = r.dist[at(x, y)] != kUnreached;
        slot.allocation[static_cast<std::size_t>(y) * r.width + x] =
            reached ? static_cast<double>(r.source[at(x, y)]) : std::numeric_limits<double>::quiet_NaN();
      }
  }
}

void CostOutputsWriter::write_tile(const SsspTileResult& r) {
  Slot& slot = slots_.at(r.slot);
  if (cost_blocks_) cost_->write_block(r.x0 / block_, r.y0 / block_, std::move(slot.cost_block));
  else if (cost_) cost_->write_window(r.x0, r.y0, r.width, r.height, slot.cost);
  if (backlink_) backlink_->write_window_u8(r.x0, r.y0, r.width, r.height, slot.bytes);
  if (allocation_) allocation_->write_window(r.x0, r.y0, r.width, r.height, slot.allocation);
}

std::uint64_t CostOutputsWriter::finish() {
  std::uint64_t written = 0;
  for (auto* writer : {cost_.get(), backlink_.get(), allocation_.get()})
    if (writer) {
      writer->finish();
      written += writer->bytes_written();
    }
  return written;
}

}  // namespace terrazo
