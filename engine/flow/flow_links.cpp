// engine/flow/flow_links.cpp: FlowLinks (engine/flow/flow_links.h).
#include "engine/flow/flow_links.h"

#include <algorithm>
#include <string>

#include "kernels/common/error.h"
#include "kernels/flow/d8_codes.h"

namespace terrazo {
namespace {

constexpr std::uint32_t kDone = 0xffffffffu;  // an in-degree: the exit's accumulation is final

}  // namespace

std::uint32_t perimeter_cells(std::uint32_t w, std::uint32_t h) {
  if (h == 1) return w;
  if (w == 1) return h;
  return 2 * w + 2 * (h - 2);
}

std::uint32_t perimeter_position(std::uint32_t x, std::uint32_t y, std::uint32_t w, std::uint32_t h) {
  if (y == 0) return x;
  if (y == h - 1) return w + x;
  if (x == 0) return 2 * w + (y - 1);
  return 2 * w + (h - 2) + (y - 1);  // x == w - 1
}

std::uint64_t FlowLinks::most_perimeter_cells(const TileGrid& grid) {
  return grid.tile_count() * (grid.tile == 1 ? 1 : 4ull * grid.tile - 4);
}

FlowLinks::FlowLinks(const TileGrid& grid, MemoryBudget& budget) : grid_(grid) {
  first_.resize(grid.tile_count() + 1);
  for (std::uint64_t tile = 0; tile < grid.tile_count(); ++tile) {
    const TileWindow w = grid.window(tile);
    first_[tile + 1] = first_[tile] + perimeter_cells(w.w, w.h);
  }
  const std::uint64_t nodes = first_.back();
  reservation_ = budget.reserve(nodes * bytes_per_cell(), "flow links of the tiles' perimeters");
  code_.assign(nodes, kD8Nodata);
  end_.assign(nodes, kNotACell);
  amount_.assign(nodes, 0);
}

std::uint64_t FlowLinks::node(const Cell& cell) const {
  const TileWindow w = grid_.window(cell.tile);
  return first_[cell.tile] + perimeter_position(cell.x, cell.y, w.w, w.h);
}

template <class Visit>
void FlowLinks::for_each_node(Visit&& visit) const {
  for (std::uint64_t tile = 0; tile < grid_.tile_count(); ++tile) {
    const TileWindow w = grid_.window(tile);
    const auto at = [&](std::uint32_t x, std::uint32_t y) {
      const Cell cell{tile, x, y};
      visit(cell, node(cell));
    };
    for (std::uint32_t x = 0; x < w.w; ++x) at(x, 0);
    if (w.h > 1)
      for (std::uint32_t x = 0; x < w.w; ++x) at(x, w.h - 1);
    for (std::uint32_t y = 1; y + 1 < w.h; ++y) at(0, y);
    if (w.w > 1)
      for (std::uint32_t y = 1; y + 1 < w.h; ++y) at(w.w - 1, y);
  }
}

void FlowLinks::set_tile(std::uint32_t tx, std::uint32_t ty, const TileD8& flow, const std::uint32_t* end,
                         const std::int64_t* amount) {
  const std::uint64_t tile = std::uint64_t{ty} * grid_.tiles_x() + tx;
  const TileWindow w = grid_.window(tile);
  const auto keep = [&](std::uint32_t x, std::uint32_t y) {
    const std::uint64_t n = first_[tile] + perimeter_position(x, y, w.w, w.h);
    const std::size_t i = std::size_t{y} * grid_.tile + x;
    code_[n] = flow.code[i];
    end_[n] = end[i];
    amount_[n] = flow.code[i] == kD8Nodata || !amount ? 0 : amount[i];
  };
  for_each_perimeter_cell(w.w, w.h, keep);
}

bool FlowLinks::exit_target(const Cell& cell, Cell& target) const {
  const std::uint8_t code = code_[node(cell)];
  if (code == kD8Nodata || code == kD8NoFlow) return false;
  const TileWindow w = grid_.window(cell.tile);
  const D8Step& step = kD8Steps[kD8IndexOf[code]];
  const std::int64_t lx = std::int64_t{cell.x} + step.dx, ly = std::int64_t{cell.y} + step.dy;
  if (lx >= 0 && ly >= 0 && lx < w.w && ly < w.h) return false;  // inside the tile
  const std::int64_t gx = static_cast<std::int64_t>(w.x0) + lx, gy = static_cast<std::int64_t>(w.y0) + ly;
  if (gx < 0 || gy < 0 || gx >= static_cast<std::int64_t>(grid_.width) || gy >= static_cast<std::int64_t>(grid_.height))
    return false;  // off the raster: the flow ends here
  const auto ux = static_cast<std::uint64_t>(gx), uy = static_cast<std::uint64_t>(gy);
  target.tile = (uy / grid_.tile) * grid_.tiles_x() + ux / grid_.tile;
  target.x = static_cast<std::uint32_t>(ux % grid_.tile);
  target.y = static_cast<std::uint32_t>(uy % grid_.tile);
  return true;
}

bool FlowLinks::linked_exit(const Cell& exit, Cell& next, bool& into_nodata) const {
  Cell entered;
  into_nodata = false;
  if (!exit_target(exit, entered)) return false;
  const std::uint64_t n = node(entered);
  if (code_[n] == kD8Nodata) return into_nodata = true, false;
  const TileWindow w = grid_.window(entered.tile);
  const Cell last{entered.tile, end_[n] % grid_.tile, end_[n] / grid_.tile};
  const bool on_perimeter = last.x == 0 || last.y == 0 || last.x + 1 == w.w || last.y + 1 == w.h;
  Cell beyond;
  if (!on_perimeter || !exit_target(last, beyond)) return false;  // its path ends inside that tile
  next = last;
  return true;
}

void FlowLinks::count_in_degrees(std::vector<std::uint32_t>& in_degree) {
  exits_ = into_nodata_ = 0;
  for_each_node([&](const Cell& cell, std::uint64_t) {
    Cell target, next;
    bool into_nodata = false;
    if (!exit_target(cell, target)) return;
    ++exits_;
    if (linked_exit(cell, next, into_nodata)) ++in_degree[node(next)];
    into_nodata_ += into_nodata;
  });
}

// Kahn's algorithm without a queue: from each exit that nothing enters, down its chain of links as
// long as the next exit has nothing left to wait for.
void FlowLinks::accumulate_chains(std::vector<std::uint32_t>& in_degree, const char* overflow_remedy) {
  for_each_node([&](const Cell& start, std::uint64_t start_node) {
    Cell target;
    if (in_degree[start_node] != 0 || !exit_target(start, target)) return;
    Cell cell = start, next;
    std::uint64_t n = start_node;
    bool into_nodata = false;
    for (;;) {
      in_degree[n] = kDone;
      if (!linked_exit(cell, next, into_nodata)) break;
      const std::uint64_t m = node(next);
      if (__builtin_add_overflow(amount_[m], amount_[n], &amount_[m]))
        throw Error(std::string("flow accumulation overflows 64 bits: ") + overflow_remedy);
      if (--in_degree[m] != 0) break;
      cell = next;
      n = m;
    }
  });
}

void FlowLinks::refuse_loop_at(const Cell& cell) const {
  const TileWindow w = grid_.window(cell.tile);
  throw UsageError("the direction raster loops: the flow of cell " + std::to_string(w.x0 + cell.x) + "," +
                   std::to_string(w.y0 + cell.y) + " (column,row) comes back to it across tiles; a direction "
                   "raster must drain every cell to an outlet (terrazo flowdir writes one)");
}

// The exits left wait on each other: each lies on a loop of links (each exit has one successor).
void FlowLinks::refuse_loops(const std::vector<std::uint32_t>& in_degree) const {
  for_each_node([&](const Cell& cell, std::uint64_t n) {
    Cell target;
    if (in_degree[n] != kDone && exit_target(cell, target)) refuse_loop_at(cell);
  });
}

std::uint64_t FlowLinks::raster_id(const Cell& cell) const {
  const TileWindow w = grid_.window(cell.tile);
  return (w.y0 + cell.y) * grid_.width + w.x0 + cell.x;
}

bool FlowLinks::flow_on(const Cell& exit, Cell& next, std::uint64_t& end) const {
  Cell entered;
  exit_target(exit, entered);
  const std::uint64_t n = node(entered);
  if (code_[n] == kD8Nodata) return end = raster_id(exit), false;
  bool into_nodata = false;
  if (linked_exit(exit, next, into_nodata)) return true;
  end = raster_id(Cell{entered.tile, end_[n] % grid_.tile, end_[n] / grid_.tile});
  return false;
}

// Each exit's end, by walking down its chain of links to an exit whose end is known (or where the flow
// ends), then giving every exit walked that end. States: 0 not seen, 1 on the walk, kDone known.
void FlowLinks::solve_outlets(MemoryBudget& budget) {
  const MemoryBudget::Reservation held = budget.reserve(code_.size() * solve_bytes_per_cell(), "flow links' states");
  std::vector<std::uint32_t> state(code_.size(), 0);
  std::vector<std::uint64_t> walk;
  exits_ = into_nodata_ = 0;
  for_each_node([&](const Cell& start, std::uint64_t start_node) {
    Cell target;
    if (!exit_target(start, target)) return;
    ++exits_;
    if (state[start_node] == kDone) return;
    walk.clear();
    Cell cell = start, next;
    std::uint64_t n = start_node, end = 0;
    for (;;) {
      state[n] = 1;
      walk.push_back(n);
      if (!flow_on(cell, next, end)) break;
      const std::uint64_t m = node(next);
      if (state[m] == kDone) {
        end = static_cast<std::uint64_t>(amount_[m]);
        break;
      }
      if (state[m] == 1) refuse_loop_at(next);
      cell = next;
      n = m;
    }
    for (const std::uint64_t w : walk) {
      amount_[w] = static_cast<std::int64_t>(end);
      state[w] = kDone;
    }
  });
}

std::uint64_t FlowLinks::outlet(std::uint32_t tx, std::uint32_t ty, std::uint32_t cell) const {
  const std::uint64_t tile = std::uint64_t{ty} * grid_.tiles_x() + tx;
  return static_cast<std::uint64_t>(amount_[node(Cell{tile, cell % grid_.tile, cell / grid_.tile})]);
}

std::vector<std::uint64_t> FlowLinks::crossing_outlets() const {
  std::vector<std::uint64_t> outlets;
  for_each_node([&](const Cell& cell, std::uint64_t n) {
    Cell target;
    if (exit_target(cell, target) && code_[node(target)] != kD8Nodata) outlets.push_back(static_cast<std::uint64_t>(amount_[n]));
  });
  std::sort(outlets.begin(), outlets.end());
  outlets.erase(std::unique(outlets.begin(), outlets.end()), outlets.end());
  return outlets;
}

void FlowLinks::solve_accumulation(MemoryBudget& budget, const char* overflow_remedy) {
  overflow_remedy_ = overflow_remedy;
  const MemoryBudget::Reservation held =
      budget.reserve(code_.size() * solve_bytes_per_cell(), "flow links' in-degrees");
  std::vector<std::uint32_t> in_degree(code_.size(), 0);
  count_in_degrees(in_degree);
  accumulate_chains(in_degree, overflow_remedy);
  refuse_loops(in_degree);
}

std::int64_t FlowLinks::inflow(std::uint32_t tx, std::uint32_t ty, std::uint32_t cell) const {
  const TileWindow w = grid_.window(tx, ty);
  const std::int64_t gx = static_cast<std::int64_t>(w.x0 + cell % grid_.tile);
  const std::int64_t gy = static_cast<std::int64_t>(w.y0 + cell / grid_.tile);
  std::int64_t sum = 0;
  for (const D8Step& step : kD8Steps) {
    const std::int64_t nx = gx - step.dx, ny = gy - step.dy;  // a neighbour whose code `step` points here
    if (nx < 0 || ny < 0 || nx >= static_cast<std::int64_t>(grid_.width) || ny >= static_cast<std::int64_t>(grid_.height))
      continue;
    const auto ux = static_cast<std::uint64_t>(nx), uy = static_cast<std::uint64_t>(ny);
    if (ux / grid_.tile == tx && uy / grid_.tile == ty) continue;
    const Cell from{(uy / grid_.tile) * grid_.tiles_x() + ux / grid_.tile, static_cast<std::uint32_t>(ux % grid_.tile),
                    static_cast<std::uint32_t>(uy % grid_.tile)};
    const std::uint64_t n = node(from);
    if (code_[n] == step.code && __builtin_add_overflow(sum, amount_[n], &sum))
      throw Error("flow accumulation overflows 64 bits: " + overflow_remedy_);
  }
  return sum;
}

}  // namespace terrazo
