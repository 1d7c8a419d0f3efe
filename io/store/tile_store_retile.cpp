// io/store/tile_store_retile.cpp: see tile_store_retile.h.
#include "io/store/tile_store_retile.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/common/worker_pool.h"
#include "io/store/cell_values.h"

namespace terrazo {

namespace {

// The geometry of a retiling: units of big x big cells, each holding per_in^2 source tiles and
// per_out^2 output tiles (big is the larger tile size, a multiple of the other).
struct RetilePlan {
  TileGrid in, out;
  std::uint32_t big = 0, per_in = 0, per_out = 0;  // tiles per unit side
  std::uint64_t size = 0;                          // bytes per cell
  std::uint64_t units_x = 0, units_y = 0;

  RetilePlan(const TileStore& source, const TileStoreWriter& writer) : in(source.grid()), out(writer.grid()) {
    if (in.width != out.width || in.height != out.height)
      throw Error("retile: the output grid (" + std::to_string(out.width) + " x " + std::to_string(out.height) +
                  ") is not the store's (" + std::to_string(in.width) + " x " + std::to_string(in.height) + ")");
    big = std::max(in.tile, out.tile);
    if (big % in.tile != 0 || big % out.tile != 0) throw Error("retile: tile sizes that do not divide each other");
    size = cell_type_size(source.info().type);
    per_in = big / in.tile;
    per_out = big / out.tile;
    units_x = (in.width + big - 1) / big;
    units_y = (in.height + big - 1) / big;
  }
  std::uint64_t units() const { return units_x * units_y; }
  std::uint64_t unit_bytes() const { return static_cast<std::uint64_t>(big) * big * size; }
  // A source tile's bytes when units hold several (0 otherwise: read straight into the unit).
  std::uint64_t tile_in_bytes() const { return per_in > 1 ? static_cast<std::uint64_t>(in.tile) * in.tile * size : 0; }
  std::uint64_t tile_out_bytes() const {
    return per_out > 1 ? static_cast<std::uint64_t>(out.tile) * out.tile * size : 0;
  }
  // Per thread: the unit, one input tile when it is smaller than the unit, one output tile, and the
  // writer's edge copy.
  std::uint64_t per_thread_bytes() const {
    return unit_bytes() + tile_in_bytes() + tile_out_bytes() + static_cast<std::uint64_t>(out.tile) * out.tile * size;
  }

  // Reads unit (ux, uy)'s source tiles into `buffer`; returns whether any of them is present.
  // Tiles beyond the grid (a unit hanging over the raster's edge) are skipped: their part of the
  // buffer lies outside the raster, padding the writer ignores.
  bool read_unit(const TileStore& source, std::uint64_t ux, std::uint64_t uy, unsigned char* buffer,
                 unsigned char* tile_in) const {
    bool any_present = false;
    for (std::uint32_t j = 0; j < per_in; ++j)
      for (std::uint32_t i = 0; i < per_in; ++i) {
        const std::uint64_t tx = ux * per_in + i, ty = uy * per_in + j;
        if (tx >= in.tiles_x() || ty >= in.tiles_y()) continue;
        const auto sx = static_cast<std::uint32_t>(tx), sy = static_cast<std::uint32_t>(ty);
        if (!source.tile_present(sx, sy)) {
          if (per_in == 1) continue;  // nothing of the unit is written
        } else {
          any_present = true;
        }
        if (per_in == 1) {
          source.read_tile_raw(sx, sy, buffer);
          continue;
        }
        source.read_tile_raw(sx, sy, tile_in);  // an absent tile reads as nodata
        for (std::uint32_t r = 0; r < in.tile; ++r)
          std::memcpy(buffer + ((static_cast<std::uint64_t>(j) * in.tile + r) * big +
                                static_cast<std::uint64_t>(i) * in.tile) * size,
                      tile_in + static_cast<std::uint64_t>(r) * in.tile * size, in.tile * size);
      }
    return any_present;
  }

  // Writes unit (ux, uy)'s output tiles from `buffer` (those inside the grid).
  void write_unit(TileStoreWriter& writer, std::uint64_t ux, std::uint64_t uy, const unsigned char* buffer,
                  unsigned char* tile_out) const {
    for (std::uint32_t j = 0; j < per_out; ++j)
      for (std::uint32_t i = 0; i < per_out; ++i) {
        const std::uint64_t tx = ux * per_out + i, ty = uy * per_out + j;
        if (tx >= out.tiles_x() || ty >= out.tiles_y()) continue;
        const auto ox = static_cast<std::uint32_t>(tx), oy = static_cast<std::uint32_t>(ty);
        if (per_out == 1) {
          writer.write_tile_raw(ox, oy, buffer);
          continue;
        }
        for (std::uint32_t r = 0; r < out.tile; ++r)
          std::memcpy(tile_out + static_cast<std::uint64_t>(r) * out.tile * size,
                      buffer + ((static_cast<std::uint64_t>(j) * out.tile + r) * big +
                                static_cast<std::uint64_t>(i) * out.tile) * size,
                      out.tile * size);
        writer.write_tile_raw(ox, oy, tile_out);
      }
  }
};

}  // namespace

RetileResult retile_tile_store(const TileStore& source, TileStoreWriter& writer, unsigned threads, MemoryBudget& budget,
                               Progress& progress, const char* phase) {
  const RetilePlan plan(source, writer);
  const std::uint64_t units = plan.units(), per_thread = plan.per_thread_bytes();
  unsigned n = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
  n = static_cast<unsigned>(std::min<std::uint64_t>({n, std::max<std::uint64_t>(units, 1),
                                                     std::max<std::uint64_t>(budget.available() / per_thread, 1)}));
  auto reservation = budget.reserve(per_thread * n, "retile units");

  // One pool iteration per worker, each with its own buffers, taking units in Z-order from a shared
  // counter (neighbouring units land in neighbouring output slots).
  const std::vector<std::uint64_t> order = TileGrid{plan.in.width, plan.in.height, plan.big}.z_order();
  std::atomic<std::uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex progress_mutex;
  std::uint64_t done = 0;
  progress.update(phase, 0, units, 0);
  WorkerPool pool(n);
  pool.run(n, [&](std::uint64_t) {
    std::vector<unsigned char> buffer(plan.unit_bytes());
    std::vector<unsigned char> tile_in(plan.tile_in_bytes());
    std::vector<unsigned char> tile_out(plan.tile_out_bytes());
    try {
      for (std::uint64_t k; !failed.load() && (k = next.fetch_add(1)) < order.size();) {
        const std::uint64_t ux = order[k] % plan.units_x, uy = order[k] / plan.units_x;
        // A unit without a present source tile has no valid cell: its output tiles stay absent.
        if (plan.read_unit(source, ux, uy, buffer.data(), tile_in.data()))
          plan.write_unit(writer, ux, uy, buffer.data(), tile_out.data());
        std::lock_guard<std::mutex> lock(progress_mutex);
        ++done;
        progress.update(phase, done, units, done * static_cast<std::uint64_t>(plan.big) * plan.big);
      }
    } catch (...) {
      failed = true;  // the other workers stop at their next unit; the pool rethrows this
      throw;
    }
  });
  RetileResult result;
  result.units = units;
  result.threads = n;
  result.buffer_bytes = per_thread * n;
  return result;
}

}  // namespace terrazo
