// engine/mst/phase2_merge_levels.cpp: the level-synchronous merge (contract, memory and I/O in
// mst_merge_levels.h; the merge step and its proof in mst_merge.h).
//
// Plainly, for k = 1..L:
//   for each level-k cluster P in Z-order:
//     children = the next (up to 4) summaries of the level-(k-1) file
//     graph    = children's summary edges + crossing edges, vertices numbered by first appearance
//     (in_forest, summary) = graph_msf(graph, boundary = P's ring)
//     out records: summary edges not in the forest; in records: crossing edges in the forest
//     write P's summary (global ids, rep keys, sorted by rep; P's ring) to the level-k file
// Optimized: the steps are read sequentially in groups of about one slot, the next group by one
// pool thread while the others build the current group's graphs (one iteration per step); packed
// into batch slots in parallel, solved in batches (GPU: two slots, one packed while the other is
// solved), unpacked in parallel, written in order on the calling thread.
#include "engine/mst/phase2_merge_levels.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "kernels/common/bits.h"
#include "kernels/common/error.h"
#include "engine/mst/summary_file.h"
#include "kernels/mst/graph_msf.h"
#include "kernels/mst/graph_msf_solver.h"

namespace terrazo {
namespace {

// Host bytes per edge of slot capacity (mst_merge_levels.h, "Memory").
constexpr std::uint64_t kCpuHostBytesPerSlotEdge = 900;
constexpr std::uint64_t kCudaHostBytesPerSlotEdge = 1200;
constexpr std::uint64_t kCpuMaxSlotEdges = 1ull << 20;
constexpr std::uint64_t kCudaMaxSlotEdges = 1ull << 19;
// A merge step's bytes per edge of its graph's upper bound while it is built, besides its children
// and the vertex map (header, "Memory"): the edge (24), two vertices (id 8 + boundary 1 each), the
// crossing list (32).
constexpr std::uint64_t kStepBytesPerBoundEdge = sizeof(GraphEdge) + 2 * (sizeof(CellId) + 1) + sizeof(CrossingEdge);
// Once built, per edge: the edge (24), its record (16) and parent summary edge (32) at most.
constexpr std::uint64_t kBuiltBytesPerEdge = sizeof(GraphEdge) + sizeof(SortRecord) + sizeof(SummaryEdge);
// graph_msf_cpu's scratch for one graph (kernels/mst/graph_msf_cpu.cpp): per edge the sort order (4),
// removed flag (1) and unsorted summary (12); per vertex union-find, CSR, degree, forest (36).
constexpr std::uint64_t kCpuSolverBytesPerEdge = 4 + 1 + sizeof(GraphSummaryEdge);
constexpr std::uint64_t kCpuSolverBytesPerVertex = 36;
constexpr std::uint64_t kNoSpan = std::numeric_limits<std::uint64_t>::max();

std::uint64_t ring_bytes(const ClusterRing& ring) {
  return (ring.top.capacity() + ring.bottom.capacity() + ring.left.capacity() + ring.right.capacity()) *
         sizeof(double);
}

// The clusters of an nx x ny grid in Z-order (Morton order restricted to the grid, the order of
// TileGrid::z_order), one at a time with O(log) state.
class ZOrderCursor {
 public:
  ZOrderCursor(std::uint64_t nx, std::uint64_t ny) : nx_(nx), ny_(ny) {
    std::uint64_t size = 1;
    while (size < std::max(nx, ny)) size *= 2;
    if (nx > 0 && ny > 0) stack_.push_back(Frame{0, 0, size});
  }
  bool next(std::uint64_t* x, std::uint64_t* y) {
    while (!stack_.empty()) {
      const Frame f = stack_.back();
      stack_.pop_back();
      if (f.x0 >= nx_ || f.y0 >= ny_) continue;
      if (f.size == 1) {
        *x = f.x0;
        *y = f.y0;
        return true;
      }
      const std::uint64_t half = f.size / 2;
      // Quadrants (0,0), (1,0), (0,1), (1,1) pop in that order.
      for (int q = 3; q >= 0; --q) stack_.push_back(Frame{f.x0 + (q & 1) * half, f.y0 + (q >> 1) * half, half});
    }
    return false;
  }

 private:
  struct Frame {
    std::uint64_t x0, y0, size;
  };
  std::uint64_t nx_, ny_;
  std::vector<Frame> stack_;
};

// Open addressing (linear probing) from global cell id to local vertex index. Holds at most
// `max_keys` keys at load <= 1/2.
class VertexMap {
 public:
  explicit VertexMap(std::uint64_t max_keys) {
    const std::uint32_t bits = slot_bits(max_keys);
    shift_ = 64 - bits;
    mask_ = (std::uint64_t{1} << bits) - 1;
    keys_.assign(mask_ + 1, kEmpty);
    values_.resize(mask_ + 1);
  }
  // Bytes of a map for `max_keys` keys.
  static std::uint64_t bytes(std::uint64_t max_keys) {
    return (std::uint64_t{1} << slot_bits(max_keys)) * (sizeof(CellId) + sizeof(std::uint32_t));
  }
  // The index of `key`; a new key gets `next` (and *inserted is set).
  std::uint32_t find_or_insert(CellId key, std::uint32_t next, bool* inserted) {
    std::uint64_t slot = (key * 0x9E3779B97F4A7C15ull) >> shift_;
    for (;;) {
      if (keys_[slot] == key) {
        *inserted = false;
        return values_[slot];
      }
      if (keys_[slot] == kEmpty) {
        keys_[slot] = key;
        values_[slot] = next;
        *inserted = true;
        return next;
      }
      slot = (slot + 1) & mask_;
    }
  }

 private:
  static constexpr CellId kEmpty = std::numeric_limits<CellId>::max();  // no cell has this id
  static std::uint32_t slot_bits(std::uint64_t max_keys) {
    std::uint32_t bits = 4;
    while ((std::uint64_t{1} << bits) < 2 * max_keys) ++bits;
    return bits;
  }
  std::uint32_t shift_ = 0;
  std::uint64_t mask_ = 0;
  std::vector<CellId> keys_;
  std::vector<std::uint32_t> values_;
};

// One merge step: its children (until built), its graph, its results.
struct MergeStep {
  std::uint64_t cx = 0, cy = 0;
  ClusterSummary children[4];
  bool has_child[4] = {false, false, false, false};
  std::uint64_t bound_edges = 0;  // upper bound of the graph's edges
  MemoryBudget::Reservation reservation;

  std::vector<GraphEdge> edges;  // summary edges first, then crossing edges
  std::uint64_t summary_edges = 0;
  std::vector<CellId> ids;  // local vertex -> global cell id
  std::vector<std::uint8_t> boundary;
  ClusterRing ring;  // the parent's
  bool overflow = false;

  std::uint64_t span = kNoSpan;  // graph index in its batch
  std::uint64_t first_edge = 0;  // slot-relative offset of its edges

  ClusterSummary parent;
  std::vector<SortRecord> records;
  MergeBalance balance;

  // What it holds once built, with graph_msf_cpu's scratch for it when `cpu` solves it.
  std::uint64_t built_bytes(bool cpu) const {
    return sizeof(MergeStep) + edges.size() * kBuiltBytesPerEdge + ids.capacity() * sizeof(CellId) +
           boundary.capacity() + ring_bytes(ring) +
           (cpu ? edges.size() * kCpuSolverBytesPerEdge + ids.size() * kCpuSolverBytesPerVertex : 0);
  }
};

// Builds the graph of step `s` of level `level` (header: vertices, boundary, edges) and frees its
// children.
void build_graph(const TileGrid& grid, std::uint32_t level, const LevelMergeOptions& options, bool root,
                 MergeStep& s) {
  const ClusterSummary* children[4];
  std::uint64_t summary_edges = 0;
  for (int q = 0; q < 4; ++q) {
    children[q] = s.has_child[q] ? &s.children[q] : nullptr;
    if (children[q]) summary_edges += children[q]->edges.size();
  }
  std::vector<CrossingEdge> crossing;
  append_crossing_edges(grid, level, s.cx, s.cy, children, options.params, options.connectivity, &crossing,
                        &s.overflow);
  const std::uint64_t edge_count = summary_edges + crossing.size();
  if (edge_count > s.bound_edges) {
    throw Error("internal error: an MST merge graph has more edges than its bound");
  }
  if (edge_count >= std::numeric_limits<std::uint32_t>::max() / 2) {
    throw Error("MST merge: a merge graph has more than 2^31 edges; use a smaller --tile");
  }
  s.summary_edges = summary_edges;
  s.edges.reserve(edge_count);
  s.ids.reserve(2 * edge_count);  // within the step's reservation (two vertices per bound edge)
  VertexMap map(2 * edge_count);
  auto vertex = [&](CellId g) {
    bool inserted = false;
    const std::uint32_t v = map.find_or_insert(g, static_cast<std::uint32_t>(s.ids.size()), &inserted);
    if (inserted) s.ids.push_back(g);
    return v;
  };
  auto add = [&](CellId a, CellId b, const GlobalEdgeKey& key) {
    GraphEdge e;
    e.a = vertex(a);
    e.b = vertex(b);
    e.weight = key.weight;
    e.id = key.id;
    s.edges.push_back(e);
  };
  for (int q = 0; q < 4; ++q) {
    if (!children[q]) continue;
    for (const SummaryEdge& e : children[q]->edges) add(e.a, e.b, e.rep);
  }
  for (const CrossingEdge& e : crossing) add(e.a, e.b, e.key);
  s.ids.shrink_to_fit();
  const ClusterExtent extent = ClusterExtent::of(grid, level, s.cx, s.cy);
  s.boundary.resize(s.ids.size());
  for (std::size_t v = 0; v < s.ids.size(); ++v)
    s.boundary[v] = extent.on_ring(s.ids[v] % grid.width, s.ids[v] / grid.width) ? 1 : 0;
  if (!root) s.ring = assemble_ring(extent, children);
  for (int q = 0; q < 4; ++q) s.children[q] = ClusterSummary();
}

// Reads the decisions of step `s` from its solved graph (in_forest, summary: the step's own,
// indexed from 0) into records and the parent's summary.
void unpack(const TileGrid& grid, std::uint32_t level, std::uint32_t shift, bool root, const std::uint8_t* in_forest,
            const GraphSummaryEdge* summary, std::uint32_t summary_count, MergeStep& s) {
  const std::uint64_t edge_count = s.edges.size();
  std::uint64_t decisions = 0;
  for (std::uint64_t e = 0; e < edge_count; ++e) decisions += (e < s.summary_edges) == (in_forest[e] == 0);
  s.records.reserve(decisions);
  for (std::uint64_t e = 0; e < edge_count; ++e) {
    const GlobalEdgeKey key{s.edges[e].weight, s.edges[e].id};
    const bool kept = in_forest[e] != 0;
    if (e < s.summary_edges && !kept) {
      s.records.push_back(SortRecord{expansion_record_key(grid, shift, key, 1), key.weight});
      s.balance.dropped(key.weight);
    } else if (e >= s.summary_edges && kept) {
      s.records.push_back(SortRecord{expansion_record_key(grid, shift, key, 0), key.weight});
      s.balance.kept(key.weight);
    }
  }
  if (!root) {
    s.parent.level = level;
    s.parent.cx = s.cx;
    s.parent.cy = s.cy;
    s.parent.edges.reserve(summary_count);
    for (std::uint32_t i = 0; i < summary_count; ++i) {
      const GraphSummaryEdge& g = summary[i];
      if (g.a >= s.ids.size() || g.b >= s.ids.size() || g.rep >= edge_count) {
        throw Error("internal error: the merge graph solver returned a summary edge outside its graph");
      }
      const CellId a = s.ids[g.a], b = s.ids[g.b];
      s.parent.edges.push_back(SummaryEdge{std::min(a, b), std::max(a, b),
                                           GlobalEdgeKey{s.edges[g.rep].weight, s.edges[g.rep].id}});
    }
    std::sort(s.parent.edges.begin(), s.parent.edges.end(),
              [](const SummaryEdge& p, const SummaryEdge& q) { return p.rep < q.rep; });
    s.parent.ring = std::move(s.ring);
  }
  s.edges = std::vector<GraphEdge>();
  s.ids = std::vector<CellId>();
  s.boundary = std::vector<std::uint8_t>();
}

// ---- the pass ----------------------------------------------------------------------------------------
class LevelMerge {
 public:
  LevelMerge(const TileGrid& grid, const LevelMergeOptions& options, ExternalSorter& records, MemoryBudget& budget,
             Progress& progress, WorkerPool& pool)
      : grid_(grid), options_(options), records_(records), budget_(budget), progress_(progress), pool_(pool),
        shift_(expansion_record_shift(grid.tile)) {
    totals_.levels = ceil_log2(std::max(grid.tiles_x(), grid.tiles_y()));
    for (std::uint32_t k = 1; k <= totals_.levels; ++k) total_merges_ += clusters_x(k) * clusters_y(k);
  }

  LevelMergeTotals run(const std::string& tile_summaries) {
    progress_.update("mst: merge", 0, total_merges_);
    if (totals_.levels > 0) {
      const std::uint64_t capacity = slot_capacity();
      solver_ = make_graph_msf_solver(options_.cuda ? Device::Cuda : Device::Cpu, capacity, options_.gpu_memory_bytes,
                                      pool_, budget_);
      totals_.batch_edges = solver_->edge_capacity();
      std::string input = tile_summaries;
      for (std::uint32_t k = 1; k <= totals_.levels; ++k) {
        const std::string output = k < totals_.levels ? level_file(k) : std::string();
        run_level(k, input, output);
        std::remove(input.c_str());
        input = output;
      }
      solver_.reset();
    }
    if (overflow_) throw Error("internal error: a crossing edge weight overflowed after the weight check passed");
    totals_.merges = merges_done_;
    progress_.update("mst: merge", total_merges_, total_merges_);
    return totals_;
  }

 private:
  // Consecutive steps read together (about one slot's edges by their bounds).
  struct Group {
    std::vector<std::unique_ptr<MergeStep>> steps;
    bool last = false;  // no step of the level follows
  };
  // Consecutive steps on their way through the solver.
  struct Batch {
    std::vector<std::unique_ptr<MergeStep>> steps;
    std::uint64_t graphs = 0, edges = 0, vertices = 0;
    bool submitted = false;  // in a solver slot
    bool alone = false;      // one oversized step, solved alone with graph_msf_cpu
  };

  std::uint64_t clusters_x(std::uint32_t k) const { return (grid_.tiles_x() + (std::uint64_t{1} << k) - 1) >> k; }
  std::uint64_t clusters_y(std::uint32_t k) const { return (grid_.tiles_y() + (std::uint64_t{1} << k) - 1) >> k; }
  std::string level_file(std::uint32_t k) const {
    return options_.scratch_dir + "/mst_level_summaries_" + std::to_string(k);
  }

  std::uint64_t slot_capacity() const {
    if (options_.batch_edges > 0) return options_.batch_edges;
    const std::uint64_t available = budget_.available();
    const std::uint64_t share = available > 2 * kSummaryFileBufferBytes ? (available - 2 * kSummaryFileBufferBytes) / 2 : 0;
    const std::uint64_t per_edge = options_.cuda ? kCudaHostBytesPerSlotEdge : kCpuHostBytesPerSlotEdge;
    const std::uint64_t most = options_.cuda ? kCudaMaxSlotEdges : kCpuMaxSlotEdges;
    return std::max<std::uint64_t>(1, std::min(most, share / per_edge));
  }

  // Reads the children of level-k cluster (cx, cy) and reserves the step's bytes.
  std::unique_ptr<MergeStep> read_step(SequentialReader& in, std::uint32_t k, std::uint64_t cx, std::uint64_t cy) {
    auto s = std::make_unique<MergeStep>();
    s->cx = cx;
    s->cy = cy;
    std::uint64_t child_bytes = 0;
    for (int q = 0; q < 4; ++q) {
      const std::uint64_t ccx = 2 * cx + (q & 1), ccy = 2 * cy + (q >> 1);
      if (ccx >= clusters_x(k - 1) || ccy >= clusters_y(k - 1)) continue;
      s->children[q] = read_cluster_summary(in, k - 1);
      if (s->children[q].cx != ccx || s->children[q].cy != ccy) {
        throw Error("internal error: MST level-" + std::to_string(k - 1) + " summaries out of Z-order (expected " +
                    std::to_string(ccx) + "," + std::to_string(ccy) + ")");
      }
      s->has_child[q] = true;
      s->bound_edges += s->children[q].edges.size();
      child_bytes += s->children[q].heap_bytes();
    }
    // Crossing edges: <= 2 per cell of column x0+half-1, 1 per cell of column x0+half, 3 per cell
    // of row y0+half-1, and 2 more for each column cell on that row (mst_merge.h).
    const ClusterExtent extent = ClusterExtent::of(grid_, k, cx, cy);
    s->bound_edges += 3 * ((extent.x_end() - extent.x0) + (extent.y_end() - extent.y0)) + 8;
    const std::uint64_t ring_cells = 2 * ((extent.x_end() - extent.x0) + (extent.y_end() - extent.y0));
    s->reservation = budget_.reserve(sizeof(MergeStep) + child_bytes + s->bound_edges * kStepBytesPerBoundEdge +
                                         VertexMap::bytes(2 * s->bound_edges) + ring_cells * sizeof(double),
                                     "MST merge steps");
    return s;
  }

  // Level k: the steps are read in groups of about one slot (by their bounds); one pool thread
  // reads the next group while the others build this group's graphs; then the group's full batches
  // are packed, solved, unpacked and written.
  void run_level(std::uint32_t k, const std::string& input, const std::string& output) {
    const bool root = k == totals_.levels;
    SequentialReader in(input, budget_, kSummaryFileBufferBytes, "MST summary buffer");
    std::unique_ptr<SequentialWriter> out;
    if (!output.empty()) {
      out = std::make_unique<SequentialWriter>(output, budget_, kSummaryFileBufferBytes, "MST summary buffer");
    }
    ZOrderCursor cursor(clusters_x(k), clusters_y(k));
    const std::uint64_t capacity = solver_->edge_capacity();
    auto read_group = [&](Group* g) {
      std::uint64_t bound = 0, cx = 0, cy = 0;
      while (bound < capacity) {
        if (!cursor.next(&cx, &cy)) {
          g->last = true;
          return;
        }
        g->steps.push_back(read_step(in, k, cx, cy));
        bound += g->steps.back()->bound_edges;
      }
    };
    std::deque<std::unique_ptr<MergeStep>> staged;  // built, not yet in a batch
    std::uint64_t staged_edges = 0;
    std::deque<Batch> in_flight;
    Group next;
    read_group(&next);
    for (;;) {
      Group current = std::move(next);
      next = Group();
      // Iteration 0 reads the next group while the others build this one's graphs (the budget
      // sees only the reader's reservations meanwhile, so a run's reservations do not depend on
      // timing).
      const std::uint64_t ahead = current.last ? 0 : 1;
      pool_.run(ahead + current.steps.size(), [&](std::uint64_t i) {
        if (i < ahead) {
          read_group(&next);
        } else {
          build_graph(grid_, k, options_, root, *current.steps[i - ahead]);
        }
      });
      for (auto& s : current.steps) {
        s->reservation.release();
        s->reservation = budget_.reserve(s->built_bytes(!options_.cuda), "MST merge steps");
        staged_edges += s->edges.size();
        staged.push_back(std::move(s));
      }
      // Full batches from the front of the staged steps (at the level's end, all of them).
      while (!staged.empty() && (staged_edges >= capacity || current.last)) {
        Batch b = take_batch(staged, &staged_edges);
        if (b.graphs > 0) {
          while (solver_->pending() == solver_->slots()) consume_front(in_flight, k, out.get());
          pack_and_submit(b);
        }
        in_flight.push_back(std::move(b));
        // Batches with nothing for a solver wait behind the submitted ones: parents stay in Z-order.
        while (!in_flight.empty() && !in_flight.front().submitted) consume_front(in_flight, k, out.get());
      }
      if (current.last) break;
    }
    while (!in_flight.empty()) consume_front(in_flight, k, out.get());
    totals_.bytes_read += in.bytes_read();
    if (out) {
      out->finish();
      totals_.bytes_written += out->bytes_written();
    }
  }

  // One batch from the front of `staged`: steps in order while their graphs fit the slot; a step
  // whose graph is larger than a slot forms a batch of its own (solved alone); steps without edges
  // ride along.
  Batch take_batch(std::deque<std::unique_ptr<MergeStep>>& staged, std::uint64_t* staged_edges) {
    Batch b;
    while (!staged.empty()) {
      MergeStep& s = *staged.front();
      const std::uint64_t e = s.edges.size(), v = s.ids.size();
      if (e > 0) {
        const bool oversized = e > solver_->edge_capacity() || v > solver_->vertex_capacity();
        if (oversized && !b.steps.empty()) break;
        if (oversized) {
          b.alone = true;
        } else if (b.edges + e > solver_->edge_capacity() || b.vertices + v > solver_->vertex_capacity() ||
                   b.graphs + 1 > solver_->graph_capacity()) {
          break;
        } else {
          s.span = b.graphs++;
          s.first_edge = b.edges;
          b.edges += e;
          b.vertices += v;
        }
      }
      *staged_edges -= e;
      b.steps.push_back(std::move(staged.front()));
      staged.pop_front();
      if (b.alone) break;
    }
    return b;
  }

  // Copies the batch's graphs into the solver's free slot (parallel over steps) and submits it.
  void pack_and_submit(Batch& b) {
    GraphMsfBatch batch;
    batch.graphs = b.graphs;
    batch.edges = b.edges;
    batch.vertices = b.vertices;
    batch.pack = [&](const GraphMsfSlot& slot) {
      std::uint64_t first_vertex = 0;
      for (const auto& s : b.steps) {
        if (s->span == kNoSpan) continue;
        GraphSpan& span = slot.spans[s->span];
        span.first_edge = s->first_edge;
        span.first_vertex = first_vertex;
        span.edges = static_cast<std::uint32_t>(s->edges.size());
        span.vertices = static_cast<std::uint32_t>(s->ids.size());
        first_vertex += s->ids.size();
      }
      pool_.run(b.steps.size(), [&](std::uint64_t i) {
        const MergeStep& s = *b.steps[i];
        if (s.span == kNoSpan) return;
        std::memcpy(slot.edges + s.first_edge, s.edges.data(), s.edges.size() * sizeof(GraphEdge));
        std::memcpy(slot.boundary + slot.spans[s.span].first_vertex, s.boundary.data(), s.boundary.size());
      });
    };
    solver_->submit(batch);
    b.submitted = true;
    ++totals_.batches;
    totals_.graphs += b.graphs;
  }

  // Finishes the oldest batch: its decisions (waiting for the solver, or solving the oversized
  // step alone), then records, totals and parents in Z-order.
  void consume_front(std::deque<Batch>& in_flight, std::uint32_t k, SequentialWriter* out) {
    Batch& b = in_flight.front();
    const bool root = k == totals_.levels;
    const std::uint8_t no_forest = 0;
    if (b.submitted) {
      const GraphMsfSolved& solved = solver_->wait();
      totals_.kernel_ms += solved.kernel_ms;
      pool_.run(b.steps.size(), [&](std::uint64_t i) {
        MergeStep& s = *b.steps[i];
        if (s.span == kNoSpan) {
          unpack(grid_, k, shift_, root, &no_forest, nullptr, 0, s);
        } else {
          unpack(grid_, k, shift_, root, solved.in_forest + s.first_edge, solved.summary + s.first_edge,
                 solved.summary_count[s.span], s);
        }
      });
    } else if (b.alone) {
      MergeStep& s = *b.steps.front();
      const std::uint64_t e = s.edges.size();
      // Its outputs, and (GPU backend: not in its step's reservation) graph_msf_cpu's scratch.
      auto reservation = budget_.reserve(
          e * (1 + sizeof(GraphSummaryEdge)) +
              (options_.cuda ? e * kCpuSolverBytesPerEdge + s.ids.size() * kCpuSolverBytesPerVertex : 0),
          "MST merge oversized graph");
      std::vector<std::uint8_t> in_forest(e);
      std::vector<GraphSummaryEdge> summary(e);
      std::uint32_t summary_count = 0;
      const GraphSpan span{0, 0, static_cast<std::uint32_t>(e), static_cast<std::uint32_t>(s.ids.size())};
      graph_msf_cpu(s.edges.data(), s.boundary.data(), &span, 1, in_forest.data(), summary.data(), &summary_count);
      unpack(grid_, k, shift_, root, in_forest.data(), summary.data(), summary_count, s);
      ++totals_.oversized_graphs;
      ++totals_.graphs;
    } else {
      for (auto& s : b.steps) unpack(grid_, k, shift_, root, &no_forest, nullptr, 0, *s);
    }
    for (auto& s : b.steps) {
      for (const SortRecord& r : s->records) records_.push(r);
      totals_.balance += s->balance;
      overflow_ = overflow_ || s->overflow;
      if (out) write_cluster_summary(*out, s->parent);
      s.reset();
      progress_.update("mst: merge", ++merges_done_, total_merges_);
    }
    in_flight.pop_front();
  }

  const TileGrid& grid_;
  const LevelMergeOptions& options_;
  ExternalSorter& records_;
  MemoryBudget& budget_;
  Progress& progress_;
  WorkerPool& pool_;
  std::uint32_t shift_;
  std::unique_ptr<GraphMsfBatchSolver> solver_;
  LevelMergeTotals totals_;
  std::uint64_t total_merges_ = 0, merges_done_ = 0;
  bool overflow_ = false;
};

}  // namespace

std::uint64_t level_merge_root_step_bytes(const TileGrid& grid) {
  // As read_step() reserves for the root cluster (its extent: the whole raster).
  const std::uint64_t perimeter = grid.width + grid.height;
  const std::uint64_t child_ring = 4 * perimeter;
  const std::uint64_t child_bytes =
      2 * child_ring * sizeof(SummaryEdge) + child_ring * sizeof(double) + 4 * sizeof(ClusterSummary);
  const std::uint64_t bound = 2 * child_ring + 3 * perimeter + 8;
  return sizeof(MergeStep) + child_bytes + bound * kStepBytesPerBoundEdge + VertexMap::bytes(2 * bound) +
         2 * perimeter * sizeof(double);
}

LevelMergeTotals run_level_merge(const TileGrid& grid, const std::string& tile_summaries,
                                 const LevelMergeOptions& options, ExternalSorter& records, MemoryBudget& budget,
                                 Progress& progress, WorkerPool& pool) {
  LevelMerge merge(grid, options, records, budget, progress, pool);
  return merge.run(tile_summaries);
}

}  // namespace terrazo
