// engine/mst/phase2_merge_levels.h: phase 2 of the MST pipeline (the hierarchical merge) level by level,
// every merge step of a level solved as one small graph of kernels/mst/graph_msf.h, many per batch, on
// the CPU (graph_msf_cpu on the WorkerPool) or on the GPU (CudaGraphMsfBatchSolver). It makes
// exactly the decisions of the Z-order post-order merge of engine/mst/phase2_merge_post_order.h (the same
// merge steps on the same summaries), so the expansion (phase 3) and its checks are unchanged.
//
// Source: [Gerritsen2012, sec. 6.1] "further work" (the merge on the GPU) over
// chapters 2-3; the merge step and the proof of the expansion rule: engine/mst/merge_step.h; the graph
// contract: kernels/mst/graph_msf.h; docs/mst.md "The level-synchronous merge".
//
// Why level by level. The post-order merge has one merge in flight per subtree, so a GPU would see
// a few graphs at a time. All merges of level k depend only on level k-1, so a level is one stream
// of independent graphs: thousands per launch, two batches in flight (one packed on the host while
// the GPU solves the other). The summaries of level k-1 are read as one sequential scan of one file,
// whose Z-order puts the (up to 4) children of every level-k cluster next to each other; level k's
// summaries are written in Z-order to the next file. I/O: the level-0 summaries once, plus every
// higher level written and read once; a level's summaries are about half of the level below's (a
// cluster's perimeter doubles per level while the number of clusters quarters), so the total is
// about twice the level-0 summaries, against once for the post-order merge.
//
// Contract (run_level_merge): `tile_summaries` holds the level-0 summary of EVERY tile of `grid`
// (absent and all-nodata tiles with an empty one) in grid.z_order(), as phase 1 writes it. For
// k = 1..L, L = ceil(log2(max(tiles_x, tiles_y))), every level-k cluster (cx, cy) with
// cx * 2^k < tiles_x and cy * 2^k < tiles_y (MergePass's exists()) is merged from its existing
// children, in Z-order. One merge step is one graph:
//   vertices = the distinct global cell ids of the children's summary edges and of the crossing
//              edges (engine/mst/merge_step.h append_crossing_edges), numbered in order of first
//              appearance (a hash table, no sort; deterministic);
//   boundary = the vertices on the parent's ring (ClusterExtent::on_ring);
//   edges    = the children's summary edges (children 0..3, each in its stored order; key = rep),
//              then the crossing edges (key = their own).
// After solving: every summary edge not in the forest -> "out" record of its rep; every crossing
// edge in the forest -> "in" record (expansion_record_key, pushed into `records`); the parent's
// summary = the graph's summary edges with global ends (a < b) and rep = the key of the graph's
// rep edge, sorted by rep, plus assemble_ring(): the same summary merge_clusters makes (the MSF is
// unique, the reduced forest is a function of it and of the boundary, and the order is by rep).
// Parents are written to the level-k scratch file "mst_level_summaries_<k>" in Z-order (nothing at
// the root); the level-(k-1) file (the tile summaries too) is deleted once read.
// The totals (in/out edges and weights) equal MergePass's; bytes_read/bytes_written count the
// level files actually read and written (more than MergePass reads: see "I/O" above).
// Progress: "mst: merge", 0 .. (number of merge steps), one update per merge step.
//
// Batches. A batch slot holds up to edge_capacity() edges, vertex_capacity() vertices and
// graph_capacity() graphs; merge steps are packed in Z-order until the next does not fit. A merge
// step with no edge is not sent to a solver (no decisions; its parent is the ring alone). A merge
// step larger than an empty slot is solved alone with graph_msf_cpu under its own reservation
// ("MST merge oversized graph"), after every batch before it (so parents stay in Z-order); the slot
// is never grown. Steps are read in groups of about one slot (by their edge bounds); one pool thread
// reads the next group while the others build the current group's graphs (one step per
// iteration); packing into the slot and unpacking run on the pool too, parallel over the steps of a
// batch; the records and parents are then written on the calling thread in Z-order. GPU: two
// slots, so a batch is packed while the other is solved.
//
// Memory (all reserved from `budget` before it is allocated, under the names in quotes):
//   "MST summary buffer" x 2          reader of level k-1 and writer of level k, 1 MiB each;
//   "MST merge batch slot" (CPU)      cap x (24 + 1 + 12 + 2 x 1 + 24 + 4) bytes: edges, in_forest,
//                                     summaries, 2 vertices' boundary bytes, spans, summary counts;
//   "MST merge GPU pinned slots"      the solver's pinned_bytes() (two slots, ~150 bytes per edge);
//   "MST merge steps"                 per step, when read: its children's summaries, the parent's
//                                     ring, 74 bytes per edge of its graph's bound (summary edges +
//                                     3 x (x_count + y_count) + 8 crossing edges: the edge 24, two
//                                     vertices 2 x (8 + 1), the crossing list 32) and the vertex map
//                                     (12 bytes x the power of two >= 4 x bound); once built,
//                                     exactly what it holds: 72 bytes per edge (the edge, its record,
//                                     a parent summary edge), 9 per vertex, the ring, and on the CPU
//                                     graph_msf_cpu's scratch for it (17 per edge, 36 per vertex);
//                                     in memory at once: the group being built, the next group being
//                                     read (each one slot by bounds, plus one step), the staged steps
//                                     (less than a slot) and the steps in the solver (1 or 2 slots);
//   "MST merge oversized graph"       13 bytes per edge (in_forest, summary) while one is solved
//                                     alone (plus graph_msf_cpu's scratch on the GPU backend).
// cap (edges per slot) = batch_edges when given, else (available - 2 MiB) / 2 / H, clamped to
// [1, 2^20 (CPU) or 2^19 (GPU)], H = 900 (CPU) or 1200 (GPU) host bytes per slot edge: the slot
// arrays plus the steps above. The GPU's cap keeps the solver's allocation small (2^19 edges: ~75
// MiB pinned, ~140 MiB on the device; page-locking several hundred MiB took a visible share of the
// merge's time on 268 M cells), while a batch still holds hundreds of merge steps.
#pragma once
#include <cstdint>
#include <string>

#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "io/store/external_sorter.h"
#include "engine/mst/merge_balance.h"
#include "engine/mst/merge_step.h"
#include "io/store/sequential_file.h"
#include "kernels/common/worker_pool.h"
#include "io/store/tile_store.h"
#include "kernels/common/edge_weight.h"

namespace terrazo {

struct LevelMergeOptions {
  WeightParams params;
  Connectivity connectivity = Connectivity::Eight;
  bool cuda = false;                   // batches on the GPU (CudaGraphMsfBatchSolver), else graph_msf_cpu
  std::uint64_t gpu_memory_bytes = 0;  // the GPU solver's device budget (0: its default)
  std::uint64_t batch_edges = 0;       // edges per batch slot (0: from the budget, see above); tests
                                       // set it small to force batches of one graph and solving alone
  std::string scratch_dir;             // where the level files go
};

struct LevelMergeTotals {
  std::uint32_t levels = 0;
  MergeBalance balance;
  std::uint64_t bytes_read = 0, bytes_written = 0;  // the summary files of all levels
  std::uint64_t merges = 0;            // merge steps (clusters of levels 1..L)
  std::uint64_t graphs = 0;            // merge steps with at least one edge (solved)
  std::uint64_t batches = 0;           // batches solved by the CPU or GPU batch solver
  std::uint64_t oversized_graphs = 0;  // graphs larger than a slot, solved alone with graph_msf_cpu
  std::uint64_t batch_edges = 0;       // edge capacity of a slot
  double kernel_ms = 0;                // GPU: sum of the batches' kernel times (CUDA events)
};

// Runs the merge (contract above). Throws terrazo::Error on an I/O error, a scratch file out of
// Z-order, a budget too small for one merge step, or (GPU) a CUDA failure.
// What the root merge step reserves when it is read ("MST merge steps"), in the worst case: its
// four children's summaries (fewer than 2 edges per ring cell, 4 (W + H) ring cells), 74 bytes per
// bound edge (those summary edges and the crossing edges' bound 3 (W + H) + 8), the vertex map
// and the parent's ring of 2 (W + H) cells. Checked before any work by run_mst_phases. The
// step's later reservations (built, an oversized graph) are not counted: the level merge shrinks
// its slots down to budgets of a few MiB (tests/test_mst_pipeline.cpp), so the check names the
// budget that surely fails, not every one that might.
std::uint64_t level_merge_root_step_bytes(const TileGrid& grid);

LevelMergeTotals run_level_merge(const TileGrid& grid, const std::string& tile_summaries,
                                 const LevelMergeOptions& options, ExternalSorter& records, MemoryBudget& budget,
                                 Progress& progress, WorkerPool& pool);

}  // namespace terrazo
