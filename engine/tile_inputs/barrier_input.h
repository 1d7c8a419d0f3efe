// engine/tile_inputs/barrier_input.h: INPUT with the cells of a barrier raster closed (sssp --barrier-raster).
//
// A barrier cell (barrier value not 0 and not nodata) reads as nodata (NaN), so no edge enters or
// leaves it: every solver, the exchange and the output phase see the same closed cells without a
// change of their own (kernels/common/edge_weight.h: a NaN end point is no edge).
// Contract: read_tile(tx, ty) = INPUT's tile with NaN where the barrier tile's value v satisfies
// v == v && v != 0. Both inputs have the same grid (the caller checks the rasters match cell for cell).
// Memory: one tile of doubles per calling thread (thread-local; the caller reserves threads x t^2 x 8).
#pragma once
#include <cstdint>
#include <vector>

#include "engine/tile_inputs/tile_input.h"

namespace terrazo {

class BarrierTileInput : public TileInput {
 public:
  BarrierTileInput(const TileInput& input, const TileInput& barrier) : input_(input), barrier_(barrier) {}
  const TileGrid& grid() const override { return input_.grid(); }
  bool tile_present(std::uint32_t tx, std::uint32_t ty) const override { return input_.tile_present(tx, ty); }
  void read_tile(std::uint32_t tx, std::uint32_t ty, double* out) const override {
    input_.read_tile(tx, ty, out);
    if (!barrier_.tile_present(tx, ty)) return;  // an absent barrier tile is all nodata: nothing closed
    const std::uint64_t cells = static_cast<std::uint64_t>(grid().tile) * grid().tile;
    thread_local std::vector<double> barrier;
    barrier.resize(cells);
    barrier_.read_tile(tx, ty, barrier.data());
    for (std::uint64_t i = 0; i < cells; ++i) {
      const double b = barrier[i];
      if (b == b && b != 0) out[i] = kClosed;
    }
  }
  std::uint64_t bytes_read() const override { return input_.bytes_read() + barrier_.bytes_read(); }

  static constexpr double kClosed = __builtin_nan("");

 private:
  const TileInput& input_;
  const TileInput& barrier_;
};

}  // namespace terrazo
