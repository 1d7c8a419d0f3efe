// engine/mst/phases.cpp: the MST pipeline as the composition of its phases (contract in engine/mst/phases.h,
// design in docs/mst.md): phase 1 engine/mst/phase1_block_local.h, phase 2 engine/mst/phase2_merge_post_order.h
// or engine/mst/phase2_merge_levels.h, phase 3 engine/mst/phase3_expansion.h.
//
// Scratch files in the scratch directory:
//   mst_forest.bits      1 byte per cell of each present tile, in Z-order: forest bits, 255 = nodata
//   mst_tile_summaries   per tile in Z-order: header, summary edges (global ids and keys), ring values
//   mst_level_summaries_<k>  level merges only: the level-k cluster summaries, same format (each
//                        deleted once level k+1 has read it; mst_tile_summaries too)
//   mst_records*         the expansion records' sorter runs (only when they exceed its buffer)
// Expansion record: key = morton(owner tile) << shift | local edge id << 1 | kind (0 in, 1 out),
// value = weight; shift = 2 log2(t) + 3, so one tile's records are contiguous in Z-order.
#include "engine/mst/phases.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "kernels/common/bits.h"
#include "kernels/common/enum_names.h"
#include "kernels/common/error.h"
#include "kernels/common/timer.h"
#include "kernels/common/worker_pool.h"
#include "engine/mst/merge_balance.h"
#include "engine/mst/merge_step.h"
#include "engine/mst/phase1_block_local.h"
#include "engine/mst/phase2_merge_levels.h"
#include "engine/mst/phase2_merge_post_order.h"
#include "engine/mst/phase3_expansion.h"
#include "engine/mst/merge_ranks.h"
#include "engine/mst/rank_stages.h"
#include "engine/mst/summary_file.h"
#include "io/store/external_sorter.h"
#include "io/store/sequential_file.h"

namespace terrazo {

namespace {
constexpr EnumName<MstMergeMode> kMergeModeNames[] = {{MstMergeMode::Auto, "auto"},
                                                      {MstMergeMode::CpuPostOrder, "cpu"},
                                                      {MstMergeMode::CpuLevels, "cpu-levels"},
                                                      {MstMergeMode::CudaLevels, "cuda"}};
}  // namespace

const char* to_string(MstMergeMode mode) { return name_of(kMergeModeNames, mode, "cuda"); }

MstMergeMode parse_merge_mode(const std::string& text) { return parse_named(kMergeModeNames, "--merge", text); }

namespace {
std::string scratch_path(const MstPhaseOptions& options, const char* name) { return options.scratch_dir + "/" + name; }

MstMergeMode resolve_merge_mode(const MstPhaseOptions& options) {
  if (options.distributed() && options.merge_mode != MstMergeMode::Auto && options.merge_mode != MstMergeMode::CpuPostOrder)
    throw UsageError(std::string("--merge ") + to_string(options.merge_mode) +
                     " does not run on several ranks yet (docs/distributed.md); give --merge cpu or run one process");
  return options.merge_mode != MstMergeMode::Auto ? options.merge_mode
         : options.distributed()                 ? MstMergeMode::CpuPostOrder
         : options.cuda                          ? MstMergeMode::CudaLevels
                                                 : MstMergeMode::CpuPostOrder;
}

// The post-order merge's fixed need, planned before any work: its largest step, the root's, in the
// worst case. Each child summary is a forest on its ring cells and at most as many branch vertices,
// so fewer than 2 edges per ring cell; the four children's rings hold 4 (W + H) cells. Held then:
// the four summaries (heap_bytes), the merge graph (merge_working_bytes: 144 bytes per candidate,
// ring cells bringing 3 each), the summary reader's buffer and the expansion-record sorter, which
// takes an eighth of what is left when the merge starts.
void plan_post_order_merge(const TileGrid& grid, const MstPhaseOptions& options, const MemoryBudget& budget,
                           MemoryPlan& plan) {
  const std::uint64_t ring = 4 * (grid.width + grid.height);
  const std::uint64_t root_graph = (2 * ring + 3 * ring) * 144 + 4096;
  const std::uint64_t summaries = 2 * ring * sizeof(SummaryEdge) + ring * sizeof(double) + 4 * sizeof(ClusterSummary);
  const std::uint64_t available = budget.available();
  const std::uint64_t records =
      options.record_buffer_bytes ? options.record_buffer_bytes : std::min<std::uint64_t>(64ull << 20, available / 8);
  const std::string phase = "the MST merge phase";
  plan.need(phase, "its root merge step on " + std::to_string(grid.width) + " x " + std::to_string(grid.height) + " cells",
            root_graph + summaries);
  plan.need(phase, "the summary reader's buffer", kSummaryFileBufferBytes);
  plan.need(phase, "the expansion-record sorter", std::max(records, ExternalSorter::kMinimumBufferBytes));
  plan_rank_messages(grid, options, plan);
  plan.assign(budget);
}

// The level merge's fixed need, planned before any work (engine/mst/phase2_merge_levels.h): what its
// root step reserves whatever the data, the two summary buffers and the record sorter's least.
void plan_level_merge(const TileGrid& grid, MstMergeMode merge_mode, const MstPhaseOptions& options,
                      const MemoryBudget& budget, MemoryPlan& plan) {
  const std::uint64_t records = options.record_buffer_bytes ? options.record_buffer_bytes : 0;
  const std::string phase = std::string("the MST merge phase (--merge ") + to_string(merge_mode) + ")";
  plan.need(phase, "its root merge step on " + std::to_string(grid.width) + " x " + std::to_string(grid.height) + " cells",
            level_merge_root_step_bytes(grid));
  plan.need(phase, "two summary buffers", 2 * kSummaryFileBufferBytes);
  plan.need(phase, "the expansion-record sorter", std::max(records, ExternalSorter::kMinimumBufferBytes));
  plan.assign(budget);
}

// 1. Block-local MST and reduction: the forest bits and the tile summaries written.
BlockLocalTotals run_phase_block_local(const TileInput& source, const std::vector<std::uint64_t>& order,
                                       const MstPhaseOptions& options, WorkerPool& pool, MemoryBudget& budget,
                                       Progress& progress, std::vector<std::uint64_t>& summary_offsets,
                                       MstPhaseResult& result) {
  SequentialWriter bits_out(scratch_path(options, "mst_forest.bits"), budget, kSummaryFileBufferBytes,
                            "MST forest bits buffer");
  SequentialWriter summaries_out(scratch_path(options, "mst_tile_summaries"), budget, kSummaryFileBufferBytes,
                                 "MST summary buffer");
  progress.update("mst: block-local", 0, order.size());
  const BlockLocalTotals block_local = run_block_local(source, order, options, pool, budget, progress, bits_out,
                                                       summaries_out, summary_offsets, result);
  bits_out.finish();
  summaries_out.finish();
  result.bytes_written += bits_out.bytes_written() + summaries_out.bytes_written();
  return block_local;
}

// 2. Hierarchical merge, post-order or level by level (result.merge_mode); its expansion records go
// to `records`.
MergeBalance run_phase_merge(const TileGrid& grid, const MstPhaseOptions& options,
                             std::vector<std::uint64_t>& summary_offsets, ExternalSorter& records, MemoryBudget& budget,
                             Progress& progress, WorkerPool& pool, MstPhaseResult& result,
                             const MstMergeRanks* ranks = nullptr) {
  if (result.merge_mode == MstMergeMode::CpuPostOrder) {
    const PostOrderMergeTotals merge =
        run_post_order_merge(grid, options.params, options.connectivity, scratch_path(options, "mst_tile_summaries"),
                             summary_offsets, records, budget, progress, pool, ranks);
    result.merge_levels = merge.levels;
    result.bytes_read += merge.bytes_read;
    return merge.balance;
  }
  summary_offsets = std::vector<std::uint64_t>();  // the level merge reads the summaries in one scan
  LevelMergeOptions level_options;
  level_options.params = options.params;
  level_options.connectivity = options.connectivity;
  level_options.cuda = result.merge_mode == MstMergeMode::CudaLevels;
  level_options.gpu_memory_bytes = options.gpu_memory_bytes;
  level_options.batch_edges = options.merge_batch_edges;
  level_options.scratch_dir = options.scratch_dir;
  const LevelMergeTotals merge =
      run_level_merge(grid, scratch_path(options, "mst_tile_summaries"), level_options, records, budget, progress, pool);
  result.merge_levels = merge.levels;
  result.bytes_read += merge.bytes_read;
  result.bytes_written += merge.bytes_written;
  result.merge_batches = merge.batches;
  result.merge_graphs = merge.graphs;
  result.merge_oversized_graphs = merge.oversized_graphs;
  result.merge_batch_edges = merge.batch_edges;
  result.gpu_merge_kernel_ms = merge.kernel_ms;
  return merge.balance;
}

// Distributed: the merge over the ranks (engine/mst/merge_ranks.h), then every rank's records of
// another rank's tiles sent to it.
MergeBalance run_rank_merge(const TileGrid& grid, const MstPhaseOptions& options,
                            std::vector<std::uint64_t>& summary_offsets, ExternalSorter& records, MemoryBudget& budget,
                            Progress& progress, WorkerPool& pool, MstPhaseResult& result) {
  if (!options.distributed())
    return run_phase_merge(grid, options, summary_offsets, records, budget, progress, pool, result);
  const MstRanks ranks(*options.comm, *options.ownership, grid);
  SummaryMail mail(*options.comm, budget);
  RemoteRecords remote(ranks, budget);
  const MstMergeRanks merge_ranks{ranks, mail, remote};
  const MergeBalance balance =
      run_phase_merge(grid, options, summary_offsets, records, budget, progress, pool, result, &merge_ranks);
  mail.finish();
  remote.exchange(records);
  result.bytes_sent += mail.bytes_sent() + remote.bytes_sent();
  result.bytes_received += mail.bytes_received() + remote.bytes_received();
  return balance;
}

// Distributed: phases 1 and 2's totals and the counted edges summed over the ranks (the merges of
// one rank decide edges of other ranks' tiles; only the sums balance), and the counters the JSON
// reports.
void sum_totals(const MstPhaseOptions& options, BlockLocalTotals& block_local, MergeBalance& balance,
                std::uint64_t& counted_edges, MstPhaseResult& result) {
  if (!options.distributed()) return;
  std::vector<std::uint64_t> v = {block_local.forest_edges, block_local.valid, balance.in_edges, balance.out_edges,
                                  counted_edges, result.summary_edges, result.expansion_records,
                                  result.expansion_record_runs};
  split_u128(block_local.forest_weight, v);
  split_u128(balance.in_weight, v);
  split_u128(balance.out_weight, v);
  sum_over_ranks(options, v);
  block_local.forest_edges = v[0], block_local.valid = v[1], balance.in_edges = v[2], balance.out_edges = v[3];
  counted_edges = v[4], result.summary_edges = v[5], result.expansion_records = v[6], result.expansion_record_runs = v[7];
  block_local.forest_weight = join_u128(&v[8]);
  balance.in_weight = join_u128(&v[10]);
  balance.out_weight = join_u128(&v[12]);
}

// The tree's totals: the expansion's edge count checked against phases 1 and 2, the weight against
// 2^64.
void set_totals(const BlockLocalTotals& block_local, const MergeBalance& balance, std::uint64_t counted_edges,
                MstPhaseResult& result) {
  const std::uint64_t expected_edges = block_local.forest_edges + balance.in_edges - balance.out_edges;
  if (counted_edges != expected_edges) {
    throw Error("internal error: MST expansion counted " + std::to_string(counted_edges) + " edges, the merge " +
                std::to_string(expected_edges));
  }
  const unsigned __int128 total = block_local.forest_weight + balance.in_weight - balance.out_weight;
  if (total > std::numeric_limits<std::uint64_t>::max()) {
    throw Error("the MST's total weight exceeds 2^64 fixed-point units; choose a smaller --scale");
  }
  result.total_weight = static_cast<std::uint64_t>(total);
  result.edges = counted_edges;
  result.vertices = block_local.valid;
  result.components = block_local.valid - counted_edges;
}
}  // namespace

MstPhaseResult run_mst_phases(const TileInput& source, const MstPhaseOptions& options, MemoryBudget& budget,
                              Progress& progress, MstWindowSink* sink) {
  MstPhaseResult result;
  const TileGrid& grid = source.grid();
  const std::uint32_t t = grid.tile;
  Communicator& comm = options.distributed() ? *options.comm : world();
  // The tile order (this rank's Z range) and each tile's summary offset: 16 bytes per tile of the
  // grid, for the run.
  auto order_reservation = budget.reserve(grid.tile_count() * 16, "MST tile order and summary offsets");
  const std::vector<std::uint64_t> order = own_order(grid.z_order(), options);
  result.own_tiles = order.size();
  if (2 * ceil_log2(std::max(grid.tiles_x(), grid.tiles_y())) + 2 * ceil_log2(t) + 3 > 64) {
    throw Error("mst: the raster has too many tiles of " + std::to_string(t) +
                " cells for 64-bit expansion keys; use a larger --tile");
  }
  // The plan, before any work (a budget too small on any rank is every rank's error).
  agreed_stage(comm, "mst: planning memory", [&] {
    result.merge_mode = resolve_merge_mode(options);
    if (grid.tile_count() <= 1) return;
    MemoryPlan own_plan;
    MemoryPlan& plan = options.plan ? *options.plan : own_plan;
    if (result.merge_mode == MstMergeMode::CpuPostOrder) plan_post_order_merge(grid, options, budget, plan);
    else plan_level_merge(grid, result.merge_mode, options, budget, plan);
  });

  // 1. Block-local MSTs of this rank's tiles (no message: a failure is agreed).
  Stopwatch phase;
  WorkerPool pool(options.threads);
  std::vector<std::uint64_t> summary_offsets(grid.tile_count());
  BlockLocalTotals block_local;
  agreed_stage(comm, "mst: block-local", [&] {
    block_local = run_phase_block_local(source, order, options, pool, budget, progress, summary_offsets, result);
    if (options.distributed()) fault_point(comm, "mst: block-local");
  });
  result.block_local_seconds = phase.seconds();

  // 2. The merge (over the ranks: messages in flight, a failure ends the job).
  phase.restart();
  const std::uint64_t record_bytes = options.record_buffer_bytes
                                         ? options.record_buffer_bytes
                                         : std::min<std::uint64_t>(64ull << 20, budget.available() / 8);
  ExternalSorter records(scratch_path(options, "mst_records"), budget, record_bytes);
  MergeBalance balance = run_rank_merge(grid, options, summary_offsets, records, budget, progress, pool, result);
  records.finish();
  result.expansion_records = records.size();
  result.expansion_record_runs = records.runs_spilled();
  result.merge_seconds = phase.seconds();

  // 3. Expansion: forest bits + in - out, per tile in Z-order.
  phase.restart();
  const ExpansionTotals expansion =
      run_rank_expansion(source, order, options, records, budget, progress, sink, result);
  result.bytes_read += expansion.bytes_read;
  result.bytes_written += expansion.bytes_written;
  result.expansion_seconds = phase.seconds();

  std::uint64_t counted_edges = expansion.edges;
  sum_totals(options, block_local, balance, counted_edges, result);
  agreed_stage(comm, "mst: totals", [&] { set_totals(block_local, balance, counted_edges, result); });
  result.bytes_read += records.bytes_read();
  result.bytes_written += records.bytes_written();
  return result;
}

}  // namespace terrazo
