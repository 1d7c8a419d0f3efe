// kernels/flow/flat_gradient.h: drainage directions over flats, the flat step of `terrazo flowdir`
// ([Barnes2014b]; docs/flow.md "Flats").
//
// A flat cell is a valid cell that is not an outlet and has no strictly lower valid neighbour; two
// neighbouring flat cells have the same elevation (neither is lower than the other), so the flats
// are the 8-connected components of the flat cells. The cells of one or more whole flats are given
// as a graph: for each cell its eight neighbours (kD8Steps order) that are flat cells of the set,
// which neighbours drain at the same elevation (`low`: valid cells that are not flat, i.e. flow to a
// strictly lower cell or are outlets) and whether a valid neighbour is higher (`high`).
//
// Contract (plain formula, [Barnes2014b, sec. 2]): per flat F,
//   towards(c) = 1 + the fewest steps inside F from c to a cell with a `low` bit;
//   away(c)    = 1 + the fewest steps inside F from c to a `high` cell (0 when F has none);
//   mask(c)    = 2 * towards(c) + (max over F of away - away(c)).
// A cell's code is the step to its neighbour of least mask, a `low` neighbour counting as mask 0,
// among the steps whose mask is below the cell's own; ties go to the first in kD8Steps order. Along
// a step towards falls by 1 and away changes by at most 1, so some neighbour's mask is lower: every
// path strictly descends the mask and ends at a draining cell (no cycles). A flat with no `low` cell
// (an undrained pit: the input was not filled) has no way out: its cells get kD8NoFlow.
// The result depends only on the flats' cells, never on their order in the set (BFS distances).
// Cost: O(cells) time; FlatScratch holds 24 bytes a cell at most.
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

namespace terrazo {

constexpr std::uint32_t kNoFlatCell = std::numeric_limits<std::uint32_t>::max();

struct FlatCells {
  std::vector<std::uint32_t> neighbour;  // 8 per cell: the set index of that neighbour, or kNoFlatCell
  std::vector<std::uint8_t> low;         // per cell: bit d = neighbour d drains at the same elevation
  std::vector<std::uint8_t> high;        // per cell: 1 when a valid neighbour is higher
  std::size_t size() const { return low.size(); }
  void clear() {
    neighbour.clear();
    low.clear();
    high.clear();
  }
  // The bytes a cell takes here.
  static constexpr std::uint64_t kBytesPerCell = 8 * 4 + 2;
};

struct FlatStats {
  std::uint64_t flats = 0;            // components
  std::uint64_t undrained_flats = 0;  // with no `low` cell
  std::uint64_t undrained_cells = 0;
};

struct FlatScratch {
  std::vector<std::uint32_t> flat, towards, away, queue, members;  // per cell
  std::vector<std::uint32_t> first;                                // per flat (+1)
  static constexpr std::uint64_t kBytesPerCell = 24;               // at most one flat a cell
};

class WorkerPool;

// Writes the code of every cell of `cells` to codes[i] (resized to cells.size()); adds to `stats`.
// With a `pool`, the flats are drained on its threads (the same codes: each flat's are its own).
void resolve_flats(const FlatCells& cells, std::vector<std::uint8_t>& codes, FlatScratch& scratch, FlatStats& stats,
                   WorkerPool* pool = nullptr);

}  // namespace terrazo
