// engine/tile_inputs/walk_input.h: the cells of the directed models (sssp --model walk|tobler): elevation and
// friction packed in one value per cell (kernels/common/edge_weight.h pack_walk_cell).
//
// Contract: read_tile(tx, ty) = per cell pack_walk_cell(float(h), float(f)), with h the elevation
// tile's value and f the friction tile's (0 without a friction input); NaN (nodata) where h or f is
// nodata (NaN). Both inputs have the same grid (the caller checks the rasters match cell for cell),
// elevations are finite floats (the caller checks the statistics) and frictions finite and >= 0
// (choose_walk_weight_params checks every cell). Elevation and friction are rounded to float
// (exact for integer DEMs up to 2^24 and for Float32 rasters; docs/cost_models.md).
// Every solver, the exchange and the output phase read the packed values without a change of their
// own: only edge_weight.h unpacks them.
// Memory: one tile of doubles per calling thread (thread-local; the caller reserves threads x t^2 x 8).
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

#include "engine/tile_inputs/tile_input.h"
#include "kernels/common/edge_weight.h"

namespace terrazo {

class WalkTileInput : public TileInput {
 public:
  // friction: null for none (every friction 0).
  WalkTileInput(const TileInput& elevation, const TileInput* friction) : elevation_(elevation), friction_(friction) {}
  const TileGrid& grid() const override { return elevation_.grid(); }
  bool tile_present(std::uint32_t tx, std::uint32_t ty) const override {
    return elevation_.tile_present(tx, ty) && (!friction_ || friction_->tile_present(tx, ty));
  }
  void read_tile(std::uint32_t tx, std::uint32_t ty, double* out) const override {
    const std::uint64_t cells = static_cast<std::uint64_t>(grid().tile) * grid().tile;
    elevation_.read_tile(tx, ty, out);
    thread_local std::vector<double> friction;
    if (friction_) {
      friction.resize(cells);
      if (friction_->tile_present(tx, ty)) friction_->read_tile(tx, ty, friction.data());
      else friction.assign(cells, std::numeric_limits<double>::quiet_NaN());
    }
    for (std::uint64_t i = 0; i < cells; ++i) {
      const double h = out[i];
      const double f = friction_ ? friction[i] : 0.0;
      out[i] = (h != h || f != f) ? std::numeric_limits<double>::quiet_NaN()
                                  : pack_walk_cell(static_cast<float>(h), static_cast<float>(f));
    }
  }
  std::uint64_t bytes_read() const override {
    return elevation_.bytes_read() + (friction_ ? friction_->bytes_read() : 0);
  }

 private:
  const TileInput& elevation_;
  const TileInput* friction_;
};

}  // namespace terrazo
