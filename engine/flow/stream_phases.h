// engine/flow/stream_phases.h: the stream network of a D8 direction raster out of core, with its
// Strahler orders ([Strahler1957]) and its segments, over the tiles of a TileInput: each tile ordered
// alone with the orders entering from other tiles unknown, the tiles' key cells solved once
// (engine/flow/stream_links.h, after [Barnes2017]'s perimeter links), each tile ordered again with
// what enters it, and written.
//
// Contract. A stream cell is a valid cell of DIRECTIONS whose accumulation (ACCUMULATION's value,
// `terrazo flowacc`'s output on the same directions) is at least `threshold`; nodata accumulation:
// no stream. Streams follow the codes (kernels/flow/tile_d8.h): a stream cell flows into the cell its
// code points at when that one is a stream cell too, else the network ends there. Orders as
// engine/flow/strahler.h. The raster sink gets each stream cell's order, 0 at other valid cells and
// kStreamNodata at nodata and padding. A segment is a maximal path of stream cells that starts at a
// head (a stream cell with no stream cell flowing into it, a source, or with two or more, a junction)
// and holds no other head: it runs down to the cell before the next junction, or to the network's
// end. Segments are numbered 1..S in raster order of their heads (y * width + x), so the numbers, like
// the orders, do not depend on the tile size, the threads or the budget. Each segment's order is its
// head's (the same along it).
// Phases (Progress names): "watershed: streams tiles", "watershed: streams links", "watershed: streams
// write", and with a segment sink "watershed: streams vector".
// Memory: `threads` tiles' work at once (stream_tile_bytes each, their pieces included) through the
// first three phases, the stream links (15 bytes per slot, two slots per perimeter cell of every
// tile; 4 more per slot during their solve), the raster sink's bytes in the write phase and, with a
// segment sink, in the vector phase too (its writer is still open), and the network gathered for it:
// 8 bytes per stream cell and 32 per piece (a segment's part inside one tile; 16 more in the vector
// phase), its lists' growth included, at most what the plan gives the part "the stream network
// gathered for its segments" (the rest of the budget): a BudgetError when it needs more.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/flow/flow_phase.h"
#include "engine/tile_inputs/tile_input.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"

namespace terrazo {

constexpr std::uint8_t kStreamNodata = 255;

struct StreamPhaseOptions : FlowPhaseOptions {
  double threshold = 1;  // the least accumulation of a stream cell (> 0)
};

struct StreamPhaseResult {
  std::uint64_t stream_cells = 0;
  std::uint64_t segments = 0;  // S
  std::uint64_t max_order = 0;  // 0 without stream cells
  std::uint64_t keys = 0;       // key cells solved across tiles
  double tiles_seconds = 0, links_seconds = 0, write_seconds = 0, vector_seconds = 0;
};

using StreamTileSink = TileSink<std::uint8_t>;

// One segment as the segment sink gets it.
struct StreamSegment {
  std::uint64_t id = 0;          // 1..S
  std::uint8_t order = 0;
  std::uint64_t downstream = 0;  // the segment it flows into; 0: none (the network ends)
  std::uint64_t cells = 0;       // its cells
  std::uint64_t junction = ~std::uint64_t{0};  // the junction it flows into (its downstream's head), or ~0
};

// Where the segments go: each one in order of id, from one thread: begin, cell() for each of its
// cells (raster ids y * width + x, from its head down), end().
class StreamSegmentSink {
 public:
  virtual ~StreamSegmentSink() = default;
  virtual void begin(const StreamSegment& segment) = 0;
  virtual void cell(std::uint64_t id) = 0;
  virtual void end() = 0;
};

// Declares the phases' parts in `plan` (run_stream_phases on `threads` threads, with a segment sink
// when `vector`), `sink`'s in the write phase, for a command that assigns its plan before any work.
void plan_stream_phases(const TileGrid& grid, unsigned threads, bool vector, MemoryPlan& plan, StreamTileSink& sink);

// `accumulation` on the same grid as `directions`; `segments` null: no segments gathered. Plans its
// phases (and assigns the plan) unless options.plan holds them already (plan_stream_phases).
StreamPhaseResult run_stream_phases(const TileInput& directions, const TileInput& accumulation,
                                    const StreamPhaseOptions& options, MemoryBudget& budget, Progress& progress,
                                    StreamTileSink& raster, StreamSegmentSink* segments);

// The bytes one tile's work holds (codes, accumulation, the ordered flow, the per-cell state and, with
// `pieces`, the tile's pieces: at most one of 32 bytes and 8 bytes per cell).
std::uint64_t stream_tile_bytes(std::uint32_t t, bool pieces);

}  // namespace terrazo
