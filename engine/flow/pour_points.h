// engine/flow/pour_points.h: the pour points of a watershed run (`terrazo watershed --outlet`,
// engine/flow/watershed_phases.h) on the tiles of a grid.
//
// Contract: a pour point is an outlet: its flow stops there, as at a code-0 cell, so the tile step
// (kernels/flow/tile_d8.h) takes its cell as code 0 (make_outlets) and every cell upstream of it
// drains to it. The pour points are held sorted and distinct by raster id (y * width + x), with their
// order by tile (tile, then raster id) for each tile's look-up, and each one's basin label once the
// write phase has labelled its tile. A pour point on nodata (in a tile the input marks absent, or on a
// nodata code) is refused with PourPointOnNodata, a UsageError naming its cell (column,row), which
// the command turns into a message naming the point as the user gave it.
// Memory: bytes_per_point() bytes per distinct pour point, for the run's life.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/tile_inputs/tile_input.h"
#include "io/store/tile_store.h"
#include "kernels/common/error.h"

namespace terrazo {

class PourPointOnNodata : public UsageError {
 public:
  PourPointOnNodata(std::uint64_t cell, std::uint64_t width);
  std::uint64_t cell() const { return cell_; }

 private:
  std::uint64_t cell_;
};

class PourPoints {
 public:
  PourPoints() = default;
  // `cells`: raster ids of `grid`'s cells, in any order, repeats allowed; Error for one outside it.
  PourPoints(const TileGrid& grid, std::vector<std::uint64_t> cells);
  static constexpr std::uint64_t bytes_per_point() { return 8 + 4 + 4; }

  bool empty() const { return cells_.empty(); }
  std::uint64_t size() const { return cells_.size(); }
  bool holds(std::uint64_t cell) const;
  // PourPointOnNodata for the first pour point (in raster order) in a tile `input` holds absent.
  void check_present(const TileInput& input) const;
  // Tile (tx, ty)'s codes (t * t, as read: NaN or 255 nodata) with each of its pour points made code 0;
  // PourPointOnNodata for one on nodata. A pour point on a code that is not a D8 code keeps it (the
  // tile step refuses it, naming the cell).
  void make_outlets(std::uint32_t tx, std::uint32_t ty, double* codes) const;
  // Each pour point of tile (tx, ty) takes its label from the tile's labels (t * t). Safe from several
  // threads at once for different tiles.
  void take_basins(std::uint32_t tx, std::uint32_t ty, const std::uint32_t* labels);

  const std::vector<std::uint64_t>& cells() const { return cells_; }     // sorted, distinct
  const std::vector<std::uint32_t>& basins() const { return basins_; }  // by cells(); 0 until taken
  // The cells and basins moved out (the pour points are empty after).
  void release(std::vector<std::uint64_t>& cells, std::vector<std::uint32_t>& basins);

 private:
  std::uint64_t tile_of(std::uint64_t cell) const;
  // visit(index in cells_, in-tile index) for each pour point of tile (tx, ty), in raster order.
  template <class Visit>
  void for_each_in_tile(std::uint32_t tx, std::uint32_t ty, Visit&& visit) const;

  TileGrid grid_;
  std::vector<std::uint64_t> cells_;
  std::vector<std::uint32_t> by_tile_;  // indices into cells_, by tile, then raster id
  std::vector<std::uint32_t> basins_;
};

}  // namespace terrazo
