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

RetileResult retile_tile_store(const TileStore& source, TileStoreWriter& writer, unsigned threads, MemoryBudget& budget,
                               Progress& progress, const char* phase) {
  const TileGrid& in = source.grid();
  const TileGrid& out = writer.grid();
  if (in.width != out.width || in.height != out.height)
    throw Error("retile: the output grid (" + std::to_string(out.width) + " x " + std::to_string(out.height) +
                ") is not the store's (" + std::to_string(in.width) + " x " + std::to_string(in.height) + ")");
  const std::uint32_t big = std::max(in.tile, out.tile);
  if (big % in.tile != 0 || big % out.tile != 0) throw Error("retile: tile sizes that do not divide each other");
  const std::uint64_t size = cell_type_size(source.info().type);
  const std::uint32_t per_in = big / in.tile, per_out = big / out.tile;  // tiles per unit side
  const std::uint64_t units_x = (in.width + big - 1) / big, units_y = (in.height + big - 1) / big;
  const std::uint64_t units = units_x * units_y;

  // Per thread: the unit, one input tile when it is smaller than the unit, one output tile.
  const std::uint64_t unit_bytes = static_cast<std::uint64_t>(big) * big * size;
  const std::uint64_t per_thread = unit_bytes + (per_in > 1 ? static_cast<std::uint64_t>(in.tile) * in.tile * size : 0) +
                                   (per_out > 1 ? static_cast<std::uint64_t>(out.tile) * out.tile * size : 0) +
                                   static_cast<std::uint64_t>(out.tile) * out.tile * size;  // the writer's edge copy
  unsigned n = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
  n = static_cast<unsigned>(std::min<std::uint64_t>({n, std::max<std::uint64_t>(units, 1),
                                                     std::max<std::uint64_t>(budget.available() / per_thread, 1)}));
  auto reservation = budget.reserve(per_thread * n, "retile units");

  // One pool iteration per worker, each with its own buffers, taking units in Z-order from a shared
  // counter (neighbouring units land in neighbouring output slots).
  const std::vector<std::uint64_t> order = TileGrid{in.width, in.height, big}.z_order();
  std::atomic<std::uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex progress_mutex;
  std::uint64_t done = 0;
  progress.update(phase, 0, units, 0);
  WorkerPool pool(n);
  pool.run(n, [&](std::uint64_t) {
    std::vector<unsigned char> buffer(unit_bytes);
    std::vector<unsigned char> tile_in(per_in > 1 ? static_cast<std::uint64_t>(in.tile) * in.tile * size : 0);
    std::vector<unsigned char> tile_out(per_out > 1 ? static_cast<std::uint64_t>(out.tile) * out.tile * size : 0);
    try {
      for (std::uint64_t k; !failed.load() && (k = next.fetch_add(1)) < order.size();) {
        const std::uint64_t ux = order[k] % units_x, uy = order[k] / units_x;
        bool any_present = false;
        // The unit's source tiles. Those beyond the grid (a unit hanging over the raster's edge) are
        // skipped: their part of the buffer lies outside the raster, padding the writer ignores.
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
              source.read_tile_raw(sx, sy, buffer.data());
              continue;
            }
            source.read_tile_raw(sx, sy, tile_in.data());  // an absent tile reads as nodata
            for (std::uint32_t r = 0; r < in.tile; ++r)
              std::memcpy(buffer.data() + ((static_cast<std::uint64_t>(j) * in.tile + r) * big +
                                           static_cast<std::uint64_t>(i) * in.tile) * size,
                          tile_in.data() + static_cast<std::uint64_t>(r) * in.tile * size, in.tile * size);
          }
        // A unit without a present source tile has no valid cell: its output tiles stay absent.
        if (any_present)
          for (std::uint32_t j = 0; j < per_out; ++j)
            for (std::uint32_t i = 0; i < per_out; ++i) {
              const std::uint64_t tx = ux * per_out + i, ty = uy * per_out + j;
              if (tx >= out.tiles_x() || ty >= out.tiles_y()) continue;
              const auto ox = static_cast<std::uint32_t>(tx), oy = static_cast<std::uint32_t>(ty);
              if (per_out == 1) {
                writer.write_tile_raw(ox, oy, buffer.data());
                continue;
              }
              for (std::uint32_t r = 0; r < out.tile; ++r)
                std::memcpy(tile_out.data() + static_cast<std::uint64_t>(r) * out.tile * size,
                            buffer.data() + ((static_cast<std::uint64_t>(j) * out.tile + r) * big +
                                             static_cast<std::uint64_t>(i) * out.tile) * size,
                            out.tile * size);
              writer.write_tile_raw(ox, oy, tile_out.data());
            }
        std::lock_guard<std::mutex> lock(progress_mutex);
        ++done;
        progress.update(phase, done, units, done * static_cast<std::uint64_t>(big) * big);
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
