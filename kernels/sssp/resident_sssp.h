// kernels/sssp/resident_sssp.h: exact shortest distances on a whole raster held in one memory (GPU
// memory for the CUDA solver, RAM for its CPU twin), by rounds of block solves over the active tiles.
//
// Source: docs/sssp.md "Resident exchange"; [Gerritsen2012, ch. 4-5] for the block decomposition,
// [Malison2012] for relaxation sweeps on the GPU, [Harish2007] for frontier rounds with device-side
// flags. The streamed exchange (engine/sssp/exchange.h) is the out-of-core path; this one serves runs
// whose values and distances fit the device, so that no tile crosses the bus more than once.
//
// Layout: the raster cut into g x g tiles (tile k = ty * tiles_x + tx, tiles_x = ceil(width / g)),
// each tile's cells contiguous and row-major; cells beyond the raster are nodata (NaN) and unreached.
// Algorithm (both twins; [Harish2007]-style frontier at tile granularity, label-correcting):
//   pending = the tiles holding a source, and their neighbours, with key 0.
//   round:  0. active = the pending tiles whose key is at most the smallest key + delta
//              (NearFarSchedule, resident_sssp_steps.h); they leave the pending set;
//           1. every active tile is solved by the block solver of kernels/sssp/block_sssp.h on its
//              (g+2h)^2 window (its cells and the h-cell ring of its neighbours' cells, as stored;
//              h = 1, or 2 with knight's moves, kernels/sssp/knight.h);
//           2. its interior distances are stored back;
//           3. for every cell u of the tile's border band (within h of its edge) whose distance
//              decreased, and every neighbour v of it in another tile (8 or 16 directions; a
//              knight's move weighed over the two cells it crosses, which lie in the raster when u
//              and v do): if dist(u) + w(u, v) <= max_cost improves dist(v), v's tile becomes
//              pending, its key lowered to that candidate distance. With g >= 2 every neighbour
//              lies in one of the 8 tiles around u's (a knight's move spans 2 cells).
//   until no tile is pending.
// Invariant after each round: every edge (u, v) across tiles with dist(u) + w < dist(v) has v's tile
// pending (a changed u is checked in step 3; an unchanged u, at most h cells from v, was in the
// window of v's tile, with the cells its step crosses, if that tile was solved, and if it was not, the edge was already violated and so v's tile was pending).
// Inside a tile the solver leaves every edge satisfied. So when no tile is pending every edge
// satisfies dist(v) <= dist(u) + w(u, v), every stored value is the length of a real path, and the
// distances are the exact shortest distances, whatever the order and grouping of the solves: the
// CUDA solver and its CPU twin give bit-identical distances (and the same as the streamed exchange).
// Distances only (no source/hops labels: backlinks and allocation take the streamed exchange).
// Memory: values 8 + distances 8 bytes per cell of the padded tile grid, plus per tile a key (8),
// a flag and a list entry (8), plus the batch windows (resident_sssp_bytes gives the total).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "kernels/common/worker_pool.h"
#include "kernels/common/batch_solver.h"
#include "kernels/common/edge_weight.h"
#include "kernels/common/tile_geometry.h"
#include "kernels/sssp/knight.h"

namespace terrazo {

struct ResidentSsspOptions {
  std::uint64_t width = 0, height = 0;
  std::uint32_t g = 64;  // resident tile side (the block solver's t)
  WeightParams params;
  Connectivity connectivity = Connectivity::Eight;
  PathLength max_cost = kUnreached;
  bool frontier_bfs = false;         // unit model: the frontier BFS block solver (kernels/sssp/block_bfs.h)
  std::uint64_t batch_tiles = 4096;  // tiles solved per launch (CPU: per pool loop) at most
  std::uint64_t round_tiles = 2048;  // tiles per round the near-far schedule aims at (resident_sssp_steps.h)
  // CUDA only. 0: every tile's cells live on the device. Otherwise the paged solver: the interiors of
  // at most this many tiles are on the device at once (batch_tiles lowered to half of it), every tile's
  // border band always is, and all the cells live in page-locked host memory (docs/sssp.md "Paged
  // resident exchange"). The distances are the same either way.
  std::uint64_t device_slots = 0;
};

struct ResidentSsspStats {
  std::uint64_t rounds = 0;
  std::uint64_t solves = 0;        // tile solves, all rounds
  std::uint64_t tiles_solved = 0;  // distinct tiles solved at least once
  std::uint64_t max_active = 0;    // largest round
  std::uint64_t cells_improved = 0;
  bool overflow = false;           // a weight did not fit (distances unspecified)
  double kernel_ms = 0.0;          // CUDA: GPU time of the rounds
  double select_ms = 0.0;          // CUDA: of which choosing the rounds' tiles (reduce, select, list)
  double solve_ms = 0.0;           // CUDA: of which gathering, solving, storing and activating
  std::uint64_t sweeps = 0;        // CUDA: sweep rounds of the block solver, all solves
  std::uint64_t pages_in = 0;      // paged solver: tile interiors copied to the device
  std::uint64_t pages_out = 0;     // ... and their distances copied back
  std::uint64_t bus_bytes = 0;     // ... bytes those copies moved, both ways
  double paging_ms = 0.0;          // ... GPU time of the copies
  double host_setup_ms = 0.0;      // ... the host backing allocated, cleared and page-locked
};

class ResidentSsspSolver {
 public:
  virtual ~ResidentSsspSolver() = default;
  virtual Device device() const = 0;
  // Whether write_values may be called from several threads at once (for disjoint windows).
  virtual bool concurrent_writes() const { return false; }
  // Row-major window of w x h values (NaN: nodata) at (x0, y0); windows may come in any order;
  // cells never written are nodata.
  virtual void write_values(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                            const double* values) = 0;
  // Distance min(current, start) at (x, y) (a valid cell; the caller checks; start <= max_cost).
  virtual void set_source(std::uint64_t x, std::uint64_t y, PathLength start = 0) = 0;
  // Rounds until no tile is active; round_done(rounds, solves) after each round (may throw to cancel).
  virtual ResidentSsspStats solve(const std::function<void(std::uint64_t, std::uint64_t)>& round_done) = 0;
  // Row-major window of distances (kUnreached: not reached).
  virtual void read_distances(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                              PathLength* dist) = 0;
  // The rounds one at a time, for a distributed exchange that agrees each round's threshold with
  // the other ranks (engine/sssp/resident_exchange.h; docs/distributed.md "sssp"). smallest_key():
  // the least key of the pending tiles (kUnreached: none). solve_round(threshold): every pending
  // tile whose key is at most `threshold` solved once (steps 1-3 of a round); returns their number,
  // `stats` accumulates (rounds, solves, max_active; the device's counters at read_counters()).
  // Not on the paged solver. solve() is these rounds under the near-far schedule.
  virtual PathLength smallest_key() = 0;
  virtual std::uint64_t solve_round(PathLength threshold, ResidentSsspStats& stats) = 0;
  // Counters the device keeps (tiles_solved, cells_improved, overflow, sweeps) into `stats`.
  virtual void read_counters(ResidentSsspStats& stats) = 0;
  // The cells a distributed exchange shares with other ranks: a fixed list of raster cells, each
  // y * width + x, given once; read_cells() copies their distances out in list order; lower_cells()
  // lowers each to min(current, in[i]), and every cell it lowers makes its tile and the tile's
  // neighbours pending with at most that key (as set_source). Returns the number of cells lowered.
  virtual void set_exchange_cells(const std::vector<std::uint64_t>& cells) = 0;
  virtual void read_cells(PathLength* out) = 0;
  virtual std::uint64_t lower_cells(const PathLength* in) = 0;
  // Host memory [host, host + cells) that read_distances will fill many times (the write phase's
  // slots): a device solver page-locks it and copies windows straight into it, not through its
  // staging. Until set_read_target(nullptr, 0) or the solver's end; the memory must outlive that.
  virtual void set_read_target(PathLength* /*host*/, std::uint64_t /*cells*/) {}
};

// Bytes the solver holds on its device (RAM for Device::Cpu with `threads` pool threads; GPU
// memory for Device::Cuda, plus 16 bytes of pinned host memory per cell of the largest window).
std::uint64_t resident_sssp_bytes(const ResidentSsspOptions& options, Device device, unsigned threads);

// The paged CUDA solver (options.device_slots > 0): bytes on the device for `slots` tile interiors,
// and bytes of page-locked host memory for the whole raster's cells and bands.
std::uint64_t resident_sssp_paged_device_bytes(const ResidentSsspOptions& options, std::uint64_t slots);
std::uint64_t resident_sssp_paged_host_bytes(const ResidentSsspOptions& options);
// The most slots whose paged device bytes fit `room` (with batch_tiles lowered to slots / 2 where
// needed), or 0 when not even 2 slots and the bands fit.
std::uint64_t resident_sssp_paged_slots(ResidentSsspOptions options, std::uint64_t room);

// Device::Cpu: the CPU twin on `pool` (block_sssp_cpu per tile). Device::Cuda: throws terrazo::Error
// when built without CUDA or on a CUDA failure (including too little device memory).
std::unique_ptr<ResidentSsspSolver> make_resident_sssp_solver(Device device, const ResidentSsspOptions& options,
                                                              WorkerPool& pool);

// The CUDA solver, paged when options.device_slots > 0 (kernels/sssp/resident_sssp.cu;
// kernels/sssp/sssp_cuda_none.cpp without CUDA).
std::unique_ptr<ResidentSsspSolver> make_resident_sssp_cuda(const ResidentSsspOptions& options);

// Shared by both twins (and passed to the CUDA kernels), and by the resident fill
// (kernels/flow/resident_fill.h): the resident tile grid and where each cell lives in the resident arrays.
struct ResidentLayout {
  std::uint64_t width = 0, height = 0;
  std::uint64_t tiles_x = 0, tiles_y = 0;
  std::uint32_t g = 0;
  std::uint32_t halo = 1;  // the windows' halo: 2 with knight's moves (kernels/sssp/knight.h), else 1
  ResidentLayout() = default;
  ResidentLayout(std::uint64_t w, std::uint64_t h, std::uint32_t side, std::uint32_t halo_cells)
      : width(w), height(h), tiles_x((w + side - 1) / side), tiles_y((h + side - 1) / side), g(side), halo(halo_cells) {}
  explicit ResidentLayout(const ResidentSsspOptions& o) : ResidentLayout(o.width, o.height, o.g, halo_width(o.connectivity)) {}
  TERRAZO_HD std::uint64_t tiles() const { return tiles_x * tiles_y; }
  TERRAZO_HD std::uint64_t tile_cells() const { return static_cast<std::uint64_t>(g) * g; }
  // Side of a tile's window: the tile and its halo on every side.
  TERRAZO_HD std::uint32_t window_side() const { return g + 2 * halo; }
  TERRAZO_HD std::uint64_t index(std::uint64_t x, std::uint64_t y) const {
    return ((y / g) * tiles_x + x / g) * tile_cells() + (y % g) * g + x % g;
  }
  // The border band of a tile: its cells within `halo` of its edge (the cells with a neighbour in
  // another tile): g^2 - (g - 2 halo)^2 of them, all g^2 when g <= 2 halo (4g - 4 with halo 1).
  TERRAZO_HD std::uint32_t border_count() const {
    const std::uint32_t h2 = 2 * halo;
    return g <= h2 ? g * g : g * g - (g - h2) * (g - h2);
  }
  // Border position b in [0, border_count()) -> local cell: the top `halo` rows, the bottom `halo`
  // rows, then each middle row's `halo` leftmost and `halo` rightmost cells.
  TERRAZO_HD void border_cell(std::uint32_t b, std::uint32_t* lx, std::uint32_t* ly) const {
    const std::uint32_t h2 = 2 * halo, band = halo * g;
    if (g <= h2 || b < band) {
      *lx = b % g;
      *ly = b / g;
    } else if (b < 2 * band) {
      *lx = (b - band) % g;
      *ly = g - halo + (b - band) / g;
    } else {
      const std::uint32_t k = (b - 2 * band) % h2;
      *ly = halo + (b - 2 * band) / h2;
      *lx = k < halo ? k : g - h2 + k;
    }
  }
  // The inverse of border_cell: the border position of band cell (lx, ly).
  TERRAZO_HD std::uint32_t band_index(std::uint32_t lx, std::uint32_t ly) const {
    const std::uint32_t h2 = 2 * halo, band = halo * g;
    if (g <= h2 || ly < halo) return ly * g + lx;
    if (ly >= g - halo) return band + (ly - (g - halo)) * g + lx;
    return 2 * band + (ly - halo) * h2 + (lx < halo ? lx : lx - (g - h2));
  }
  // The tiles a source at (x, y) makes pending: its own and its (up to 8) neighbours, ascending.
  std::vector<std::uint64_t> source_tiles(std::uint64_t x, std::uint64_t y) const {
    std::vector<std::uint64_t> tiles;
    const std::uint64_t tx = x / g, ty = y / g;
    for (std::uint64_t ny = ty == 0 ? 0 : ty - 1; ny <= ty + 1 && ny < tiles_y; ++ny)
      for (std::uint64_t nx = tx == 0 ? 0 : tx - 1; nx <= tx + 1 && nx < tiles_x; ++nx) tiles.push_back(ny * tiles_x + nx);
    return tiles;
  }
};

}  // namespace terrazo
