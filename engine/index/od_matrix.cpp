// engine/index/od_matrix.cpp: od_matrix_by_index and od_matrix_by_exchange (engine/index/od_matrix.h).
#include "engine/index/od_matrix.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>

#include "kernels/common/error.h"
#include "kernels/common/timer.h"
#include "engine/index/build_index.h"
#include "engine/index/gprime_exchange.h"
#include "engine/index/gprime_round_loop.h"
#include "engine/index/gprime_sweep.h"
#include "engine/index/gprime_tiles.h"
#include "kernels/index/boundary_ring.h"
#include "kernels/index/tile_boundary_matrix.h"
#include "kernels/sssp/block_sssp.h"

namespace terrazo {
namespace {

// A site's cells in one tile (local ids), and its ring vector there (an offset into site_ring).
struct SitePart {
  std::uint64_t tile = 0;
  std::uint32_t site = 0;
  std::vector<std::uint32_t> cells;
};

// The (site, tile) parts, ordered by tile, then site.
std::vector<SitePart> site_parts(const TileGrid& grid, const std::vector<OdSite>& sites) {
  std::map<std::pair<std::uint64_t, std::uint32_t>, std::vector<std::uint32_t>> by_tile;
  for (std::uint32_t i = 0; i < sites.size(); ++i)
    for (std::uint64_t cell : sites[i].cells) {
      const std::uint64_t x = cell % grid.width, y = cell / grid.width;
      by_tile[{(y / grid.tile) * grid.tiles_x() + x / grid.tile, i}].push_back(
          static_cast<std::uint32_t>((y % grid.tile) * grid.tile + x % grid.tile));
    }
  std::vector<SitePart> out;
  for (auto& [key, cells] : by_tile) out.push_back(SitePart{key.first, key.second, std::move(cells)});
  return out;
}

// The sweep's order of the sites: by squared distance of each site's mean cell from the centre of the
// sites' bounding box, farthest first (ties: the given order); rank[i] = site i's place.
std::vector<std::uint32_t> sweep_rank(const std::vector<OdSite>& sites, std::uint64_t width) {
  const std::size_t k = sites.size();
  std::vector<double> sx(k, 0), sy(k, 0);
  double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
  for (std::size_t i = 0; i < k; ++i) {
    for (std::uint64_t cell : sites[i].cells) {
      sx[i] += static_cast<double>(cell % width);
      sy[i] += static_cast<double>(cell / width);
    }
    const double n = static_cast<double>(std::max<std::size_t>(1, sites[i].cells.size()));
    sx[i] /= n;
    sy[i] /= n;
    x0 = std::min(x0, sx[i]);
    x1 = std::max(x1, sx[i]);
    y0 = std::min(y0, sy[i]);
    y1 = std::max(y1, sy[i]);
  }
  const double cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
  std::vector<std::uint32_t> order(k);
  for (std::uint32_t i = 0; i < k; ++i) order[i] = i;
  auto far = [&](std::uint32_t i) { return (sx[i] - cx) * (sx[i] - cx) + (sy[i] - cy) * (sy[i] - cy); };
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return far(a) > far(b); });
  std::vector<std::uint32_t> rank(k);
  for (std::uint32_t r = 0; r < k; ++r) rank[order[r]] = r;
  return rank;
}

// The query's fixed needs: the (site, tile) parts' ring vectors, the in-tile solve buffers, the results.
std::uint64_t query_fixed_bytes(std::uint32_t t, std::uint64_t parts, std::uint64_t k) {
  const std::uint64_t b = ring_size(t);
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t, halo = static_cast<std::uint64_t>(t + 2) * (t + 2);
  return parts * (b * 8 + 64) + halo * 16 + cells * 9 + k * k * 8;
}

// The queue's labels of one source: G' labels and pending labels, 16 bytes per ring cell of every
// tile (the worst case), 64 bytes of bookkeeping per tile, and a round's vectors (24 bytes per ring
// cell of each of its tiles).
std::uint64_t queue_source_bytes(std::uint64_t tiles, std::uint32_t b, std::uint64_t round_tiles) {
  return tiles * b * 16 + 64 * tiles + round_tiles * b * 24;
}

// Tiles of a round of the CPU's queue: with the index one a thread, without one.
std::uint64_t cpu_round_tiles(bool with_index, unsigned threads, std::uint64_t present, std::uint64_t tiles) {
  const std::uint64_t round_tiles = with_index ? std::max(1u, threads) : 1;
  return std::min<std::uint64_t>(round_tiles, std::max<std::uint64_t>(1, with_index ? present : tiles));
}

// One entry of the index tile cache: a tile's matrix, ring values and bookkeeping.
std::uint64_t index_cache_entry_bytes(std::uint32_t b) { return static_cast<std::uint64_t>(b) * b * 8 + b * 8 + 64; }

// The sites' side of a query: the (site, tile) parts, their ring vectors and the results.
struct SiteVectors {
  std::vector<SitePart> parts;
  std::vector<PathLength> site_ring;  // parts x B: in-tile distance from the part to its ring
  std::vector<PathLength> result;     // k x k, row = source
};

// The distinct tiles of the parts (ordered by tile).
std::uint64_t distinct_tiles(const std::vector<SitePart>& parts) {
  std::uint64_t n = 0;
  for (std::uint64_t a = 0; a < parts.size(); ++a) n += a == 0 || parts[a].tile != parts[a - 1].tile;
  return n;
}

void clamp_to_max_cost(std::vector<PathLength>& result, PathLength max_cost) {
  for (PathLength& d : result)
    if (d > max_cost) d = kUnreached;
}

// The in-tile solves of one tile's parts: the tile's values in a one-cell NaN halo, the distance
// labels and the solver's scratch (halo * 16 + cells * 9 bytes).
class InTileSolve {
 public:
  explicit InTileSolve(std::uint32_t t)
      : t_(t), tile_values_(static_cast<std::uint64_t>(t) * t), values_(halo()), dist_(halo()), changed_(tile_values_.size()) {}
  // Reads `tile` (NaN when absent); with an index, checks it is the tile indexed.
  void load(const TileInput& input, const IndexFile* index, std::uint64_t tile, const std::string& site_text);
  // Solves from `part`'s valid cells; false when it has none. Throws on a point site on nodata and
  // on an overflowing weight.
  bool solve(const SitePart& part, const OdSite& site, const OdQueryOptions& options, std::uint32_t ty);
  // The last solve's distance to tile-local cell l.
  PathLength at(std::uint32_t l) const { return dist_[static_cast<std::uint64_t>(l / t_ + 1) * (t_ + 2) + l % t_ + 1]; }
  bool valid(std::uint32_t l) const { return !std::isnan(tile_values_[l]); }

 private:
  std::uint64_t halo() const { return static_cast<std::uint64_t>(t_ + 2) * (t_ + 2); }
  std::uint32_t t_;
  std::vector<double> tile_values_, values_;
  std::vector<PathLength> dist_;
  std::vector<std::uint8_t> changed_;
};

void InTileSolve::load(const TileInput& input, const IndexFile* index, std::uint64_t tile, const std::string& site_text) {
  const TileGrid& grid = input.grid();
  const auto tx = static_cast<std::uint32_t>(tile % grid.tiles_x()), ty = static_cast<std::uint32_t>(tile / grid.tiles_x());
  if (input.tile_present(tx, ty)) input.read_tile(tx, ty, tile_values_.data());
  else std::fill(tile_values_.begin(), tile_values_.end(), std::numeric_limits<double>::quiet_NaN());
  if (index) check_index_tile(*index, tile, tile_values_.data(), site_text);
  std::fill(values_.begin(), values_.end(), std::numeric_limits<double>::quiet_NaN());
  for (std::uint32_t y = 0; y < t_; ++y)
    std::copy(tile_values_.begin() + static_cast<std::ptrdiff_t>(y) * t_, tile_values_.begin() + static_cast<std::ptrdiff_t>(y + 1) * t_,
              values_.begin() + static_cast<std::ptrdiff_t>(y + 1) * (t_ + 2) + 1);
}

bool InTileSolve::solve(const SitePart& part, const OdSite& site, const OdQueryOptions& options, std::uint32_t ty) {
  std::fill(dist_.begin(), dist_.end(), kUnreached);
  bool any = false;
  for (std::uint32_t l : part.cells) {
    if (!valid(l)) {
      if (site.cells.size() == 1) throw UsageError(site.text + " is on a nodata cell; move it onto valid data");
      continue;  // a region's nodata cell: left out
    }
    dist_[static_cast<std::uint64_t>(l / t_ + 1) * (t_ + 2) + l % t_ + 1] = 0;
    any = true;
  }
  if (!any) return false;
  bool overflow = false;
  WeightParams params = options.params;  // step lengths by global row: local row 0 is the halo row
  params.steps.row0 = static_cast<std::int64_t>(ty) * t_ - 1;
  block_sssp_cpu(values_.data(), t_, params, options.connectivity, options.max_cost, dist_.data(), changed_.data(), &overflow);
  if (overflow) throw UsageError("an edge weight overflows at --scale " + std::to_string(options.params.scale));
  return true;
}

// (1) One in-tile solve per (site, tile) part: its ring vector, and the distances to the sites'
// parts in the same tile. Throws naming a site without a valid cell.
void solve_site_parts(const TileInput& input, const IndexFile* index, const std::vector<OdSite>& sites,
                      const OdQueryOptions& options, Progress& progress, SiteVectors& sv) {
  const TileGrid& grid = input.grid();
  const std::uint32_t t = grid.tile, b = ring_size(t);
  const std::uint64_t k = sites.size();
  const std::vector<SitePart>& parts = sv.parts;
  std::vector<char> has_cell(k, 0);
  progress.update("od-matrix: sites", 0, parts.size());
  {
    InTileSolve solve(t);
    for (std::uint64_t first = 0; first < parts.size();) {
      std::uint64_t end = first + 1;
      while (end < parts.size() && parts[end].tile == parts[first].tile) ++end;
      const std::uint64_t tile = parts[first].tile;
      solve.load(input, index, tile, sites[parts[first].site].text);
      for (std::uint64_t a = first; a < end; ++a) {
        const SitePart& part = parts[a];
        if (!solve.solve(part, sites[part.site], options, static_cast<std::uint32_t>(tile / grid.tiles_x()))) continue;
        has_cell[part.site] = 1;
        for (std::uint32_t p = 0; p < b; ++p) {
          std::uint32_t x, y;
          ring_cell_of(t, p, &x, &y);
          sv.site_ring[a * b + p] = solve.at(y * t + x);
        }
        for (std::uint64_t c = first; c < end; ++c) {
          PathLength& best = sv.result[part.site * k + parts[c].site];
          for (std::uint32_t l : parts[c].cells)
            if (solve.valid(l)) best = std::min(best, solve.at(l));
        }
        progress.update("od-matrix: sites", a + 1, parts.size());
      }
      first = end;
    }
  }
  for (std::uint64_t i = 0; i < k; ++i) {
    if (!has_cell[i]) throw UsageError(sites[i].text + " has no cell on valid data; give it at least one valid cell");
    sv.result[i * k + i] = 0;
  }
}

// The sweep: every source alone on a thread over the index in memory; each serves the sites after
// it, and the symmetric weights give the rest.
void sweep_sources(const TileInput& input, const IndexInMemory& memory, const std::vector<OdSite>& sites,
                   const OdQueryOptions& options, MemoryBudget& budget, Progress& progress, SiteVectors& sv,
                   OdQueryStats& st) {
  if (is_directed(options.params.model)) throw Error("od-matrix: an index holds symmetric weights only");
  const std::uint32_t t = input.grid().tile, b = ring_size(t);
  const std::uint64_t k = sites.size();
  const unsigned threads = std::max(1u, options.threads);
  MemoryBudget::Reservation sweep_reservation =
      budget.reserve(GPrimeSweep::bytes(t, memory.present_tiles(), threads), "od-matrix sweep: edge weights and label blocks");
  const GPrimeSweep sweep(memory, options, threads);
  std::vector<std::vector<SweepSeed>> sources(k);
  std::unordered_map<std::uint64_t, std::vector<SweepTarget>> targets;
  for (std::uint64_t a = 0; a < sv.parts.size(); ++a) {
    const PathLength* ring = sv.site_ring.data() + a * b;
    sources[sv.parts[a].site].push_back(SweepSeed{sv.parts[a].tile, ring});
    targets[sv.parts[a].tile].push_back(SweepTarget{sv.parts[a].site, ring});
  }
  // Each pair needs one of its two sweeps: a source serves the sites ranked after it, and it stops
  // once they are settled. Ranked from the outside in (farthest from the sites' centre first), the
  // sites left to a source lie inward of it, so its sweep stops sooner than in the given order
  // (12% fewer tile solves for 100 random sites at 16.8 M cells; docs/index.md "The sweep on the CPU").
  const std::vector<std::uint32_t> rank = sweep_rank(sites, input.grid().width);
  GPrimeSweepStats ss;
  sweep.run(sources, targets, rank, sv.result.data(), progress, &ss);
  std::vector<PathLength>& result = sv.result;
  for (std::uint64_t i = 0; i < k; ++i)
    for (std::uint64_t j = i + 1; j < k; ++j) {
      const PathLength d = std::min(result[i * k + j], result[j * k + i]);
      result[i * k + j] = result[j * k + i] = d;
    }
  st.exchange = "sweep";
  st.batch_sources = k;
  st.tile_solves = ss.tile_solves;
  st.settled = ss.settled;
  st.stopped_early = ss.stopped_early;
  st.max_live = ss.max_live;
  st.index_bytes = memory.bytes();
}

// Where the G' tiles come from (an index file, the GPU build, or block solves of the input) and
// how the exchange runs (OdQueryOptions::exchange).
struct GPrimeRequest {
  const TileInput& input;
  const IndexFile* index;
  bool build_on_gpu;
  const OdQueryOptions& options;
};

// The exchange's plan: rounds or the queue, on which device, and the sources per batch.
struct ExchangePlan {
  bool cuda = false, rounds = false;
  std::uint64_t present = 0;    // present tiles (index or GPU build)
  std::uint64_t gpu_batch = 0;  // rounds on the GPU: the sources its memory holds (0: no bound)
  std::uint64_t round_tiles = 1;
  std::uint64_t batch = 1;      // sources per batch
};

// Rounds or the queue, and the GPU's bound on the batch.
ExchangePlan plan_exchange(const GPrimeRequest& q) {
  const OdQueryOptions& options = q.options;
  const std::uint32_t b = ring_size(q.input.grid().tile);
  ExchangePlan plan;
  plan.cuda = (q.index || q.build_on_gpu) && options.device == Device::Cuda;
  plan.present = q.index ? q.index->present_tiles() : q.build_on_gpu ? input_present_tiles(q.input) : 0;
  plan.rounds = (q.index || q.build_on_gpu) && plan.present > 0 &&
                (q.build_on_gpu || options.exchange == OdExchange::Rounds || (options.exchange == OdExchange::Auto && plan.cuda));
  if (!plan.rounds || !plan.cuda) return plan;
  const std::uint64_t gpu_bytes =
      options.gpu_memory_bytes ? options.gpu_memory_bytes : MinPlusCuda::free_device_bytes() / 10 * 6;
  const std::uint64_t one = GPrimeRoundsCuda::device_bytes(b, plan.present, 1);
  const std::uint64_t per = GPrimeRoundsCuda::device_bytes(b, plan.present, 2) - one;
  if (one <= gpu_bytes) {
    plan.gpu_batch = 1 + (gpu_bytes - one) / per;
    return plan;
  }
  if (q.build_on_gpu)
    throw BudgetError("GPU memory too small for od-matrix's index on the GPU: the matrices and one source's labels need " +
                      MemoryBudget::format_size(one) + ", --gpu-memory gives " + MemoryBudget::format_size(gpu_bytes) +
                      "; raise --gpu-memory or give an --index file");
  if (options.exchange == OdExchange::Rounds)
    throw BudgetError("GPU memory too small for od-matrix --exchange rounds: the matrices and one source's labels need " +
                      MemoryBudget::format_size(one) + ", --gpu-memory gives " + MemoryBudget::format_size(gpu_bytes) +
                      "; raise --gpu-memory or use --exchange queue");
  plan.rounds = false;  // auto: the queue, its matrices streamed through GPU slots
  return plan;
}

// The rounds' host memory: G' in-edges, and the GPU build's tile values or the index load's staging.
MemoryBudget::Reservation reserve_rounds(const GPrimeRequest& q, const ExchangePlan& plan, MemoryBudget& budget) {
  if (!plan.rounds) return {};
  const std::uint32_t t = q.input.grid().tile;
  const std::uint64_t cells = static_cast<std::uint64_t>(t) * t;
  return budget.reserve(gprime_rounds_host_bytes(t, plan.present, q.input.grid().tile_count(), 0) +
                            (q.build_on_gpu ? gprime_build_batch_tiles(t, kDefaultIndexLeaf) * cells * 8
                             : plan.cuda    ? gprime_rounds_load_plan(t, std::max(1u, q.options.threads)).host_bytes
                                            : 0),
                        q.build_on_gpu ? "od-matrix G' in-edges and the GPU index build's tile values"
                                       : "od-matrix G' in-edges and the index load's staging");
}

// The label batch. Queue: per source 2 x 8 bytes per ring cell of every tile reached (worst case)
// and its vectors of a round (3 x 8 x B per round tile); rounds on the CPU: 3 x 8 bytes per ring
// cell of every present tile; rounds on the GPU: the labels on the GPU (the batch also bounded by
// --gpu-memory), on the host the seeds' and the site tiles' labels. From half of what is left.
MemoryBudget::Reservation reserve_label_batch(const GPrimeRequest& q, const SiteVectors& sv, std::uint64_t k,
                                              MemoryBudget& budget, ExchangePlan& plan) {
  const OdQueryOptions& options = q.options;
  const std::uint32_t t = q.input.grid().tile, b = ring_size(t);
  const std::uint64_t tiles = q.input.grid().tile_count(), present = plan.present;
  plan.round_tiles = plan.cuda ? std::min<std::uint64_t>(options.round_tiles ? options.round_tiles : 512,
                                                         std::max<std::uint64_t>(1, q.index || q.build_on_gpu ? present : tiles))
                               : cpu_round_tiles(q.index != nullptr, options.threads, present, tiles);
  const std::uint64_t site_tiles = distinct_tiles(sv.parts);
  const std::uint64_t per_source = !plan.rounds ? queue_source_bytes(tiles, b, plan.round_tiles)
                                   : plan.cuda  ? (site_tiles * 2 + 2) * b * 8
                                                : gprime_rounds_host_bytes(t, present, tiles, 1) -
                                                     gprime_rounds_host_bytes(t, present, tiles, 0) + site_tiles * b * 8;
  const std::uint64_t label_room = budget.available() / 2;
  if (per_source > label_room)
    throw BudgetError("memory budget too small for od-matrix: the labels of one source need " + MemoryBudget::format_size(per_source) +
                      " and only " + MemoryBudget::format_size(label_room) + " is left for them; raise --memory");
  plan.batch = std::max<std::uint64_t>(1, std::min<std::uint64_t>(k, label_room / per_source));
  if (options.max_batch) plan.batch = std::min(plan.batch, options.max_batch);
  if (plan.gpu_batch) plan.batch = std::min(plan.batch, plan.gpu_batch);
  return budget.reserve(plan.batch * per_source, "od-matrix G' labels");
}

// The tiles of G' and what serves them: the rounds (resident), or the tiles the queue exchange
// reads (gtiles: index matrices through a cache, on the CPU or the GPU, or block solves of the
// input). Members in dependency order: the cache outlives the tiles and rounds that read it.
struct GPrimeSource {
  MemoryBudget::Reservation cache_reservation;
  std::unique_ptr<IndexTileCache> cache;
  std::unique_ptr<GPrimeTiles> gtiles;
  IndexMatrixTilesCuda* gpu = nullptr;
  BlockSolveTiles* block = nullptr;
  std::unique_ptr<GPrimeRounds> resident;
};

// An index file's tiles: a cache of its matrices, read by the rounds or by the queue's tiles.
void open_index_tiles(const GPrimeRequest& q, const ExchangePlan& plan, std::uint64_t cache_bytes, MemoryBudget& budget,
                      GPrimeSource& source, OdQueryStats& st) {
  const IndexFile& index = *q.index;
  const OdQueryOptions& options = q.options;
  const std::uint32_t b = ring_size(q.input.grid().tile);
  const std::uint64_t entry_bytes = index_cache_entry_bytes(b);
  cache_bytes = std::min(cache_bytes, q.input.grid().tile_count() * entry_bytes + 2 * entry_bytes);
  if (cache_bytes < 2 * entry_bytes) cache_bytes = 2 * entry_bytes;
  source.cache_reservation = budget.reserve(cache_bytes, "od-matrix index tile cache");
  source.cache = std::make_unique<IndexTileCache>(index, cache_bytes / entry_bytes);
  st.cache_tiles = source.cache->capacity();
  const GPrimeExchangeOptions& xo = options;
  if (plan.rounds) {
    source.resident = std::make_unique<GPrimeRounds>(index, *source.cache, xo, plan.cuda ? Device::Cuda : Device::Cpu,
                                                     plan.batch, std::max(1u, options.threads), options.round_window);
  } else if (plan.cuda) {
    std::uint64_t round_tiles = plan.round_tiles;
    std::uint64_t gpu_bytes = options.gpu_memory_bytes;
    const std::uint64_t vectors = round_tiles * plan.batch * b * 16 + (1ull << 20);
    if (gpu_bytes == 0) gpu_bytes = MinPlusCuda::free_device_bytes() / 10 * 6;
    const std::uint64_t slot = MinPlusCuda::slot_bytes(b);
    std::uint64_t slots = gpu_bytes > vectors ? (gpu_bytes - vectors) / slot : 0;
    slots = std::min(slots, index.present_tiles() + 1);
    if (slots < round_tiles) round_tiles = std::max<std::uint64_t>(1, slots);
    if (slots == 0)
      throw BudgetError("GPU memory too small for od-matrix --device cuda: a tile matrix needs " + MemoryBudget::format_size(slot) +
                        "; use --device cpu");
    auto g = std::make_unique<IndexMatrixTilesCuda>(index, *source.cache, slots, round_tiles);
    source.gpu = g.get();
    source.gtiles = std::move(g);
  } else {
    source.gtiles = std::make_unique<IndexMatrixTiles>(index, *source.cache, std::max(1u, options.threads));
  }
}

// No index: the tiles of G' are block solves of the input, through a cache of tiles.
void open_block_tiles(const GPrimeRequest& q, std::uint64_t cache_bytes, MemoryBudget& budget, GPrimeSource& source,
                      OdQueryStats& st) {
  const std::uint32_t t = q.input.grid().tile;
  const unsigned threads = std::max(1u, q.options.threads);
  const std::uint64_t per_tile = block_solve_tiles_bytes(t, 1, 0) - block_solve_tiles_bytes(t, 0, 0);
  const std::uint64_t base = block_solve_tiles_bytes(t, 0, threads);
  std::uint64_t cache_tiles = cache_bytes > base ? (cache_bytes - base) / per_tile : 0;
  cache_tiles = std::max<std::uint64_t>(2, std::min(cache_tiles, q.input.grid().tile_count()));
  source.cache_reservation = budget.reserve(block_solve_tiles_bytes(t, cache_tiles, threads), "od-matrix tile cache");
  st.cache_tiles = cache_tiles;
  auto g = std::make_unique<BlockSolveTiles>(q.input, q.options, cache_tiles, threads);
  source.block = g.get();
  source.gtiles = std::move(g);
}

// The tiles of G' for `plan`; the caches get what is left of the budget (or --cache).
void open_gprime_source(const GPrimeRequest& q, const ExchangePlan& plan, MemoryBudget& budget, Progress& progress,
                        GPrimeSource& source, OdQueryStats& st) {
  const std::uint64_t keep = (1ull << 20) + budget.cache_margin();  // kernels/common/memory_budget.h
  std::uint64_t cache_bytes = q.options.cache_bytes;
  if (cache_bytes == 0) cache_bytes = budget.available() > keep ? budget.available() - keep : 0;
  if (q.build_on_gpu && plan.rounds) {
    GPrimeBuildStats build;
    Stopwatch build_watch;
    source.resident = std::make_unique<GPrimeRounds>(q.input, q.options, kDefaultIndexLeaf, plan.batch,
                                                     std::max(1u, q.options.threads), q.options.round_window, progress, &build);
    st.seconds_index = build_watch.seconds();
    st.index_kernel_ms = build.kernel_ms;
  } else if (q.build_on_gpu) {
    // no tile the input holds: no label leaves a site's tile (the in-tile terms are the matrix)
  } else if (q.index) {
    open_index_tiles(q, plan, cache_bytes, budget, source, st);
  } else {
    open_block_tiles(q, cache_bytes, budget, source, st);
  }
}

// Targets of sources [first, first + kb): min over the ring cells r of each tile U of j of
// label(r) + d_U(r, j).
void reach_targets(const GPrimeLabels& labels, const std::map<std::uint64_t, std::vector<std::uint64_t>>& parts_in_tile,
                   std::uint64_t first, std::uint64_t kb, std::uint64_t k, std::uint32_t b, SiteVectors& sv) {
  for (const auto& [tile, list] : parts_in_tile) {
    auto it = labels.find(tile);
    if (it == labels.end()) continue;
    for (std::uint64_t v = 0; v < kb; ++v) {
      PathLength* best = sv.result.data() + (first + v) * k;
      const PathLength* label = it->second.data() + v * b;
      for (std::uint64_t a : list) {
        const PathLength* ring = sv.site_ring.data() + a * b;
        PathLength& out = best[sv.parts[a].site];
        for (std::uint32_t p = 0; p < b; ++p) {
          const PathLength via = min_plus_add(label[p], ring[p]);
          if (via < out) out = via;
        }
      }
    }
  }
}

// (3) The sources in batches: the G' exchange, then the targets.
void query_sources(const GPrimeRequest& q, const ExchangePlan& plan, GPrimeSource& source, std::uint64_t k,
                   Progress& progress, SiteVectors& sv, OdQueryStats& st) {
  const std::uint32_t b = ring_size(q.input.grid().tile);
  const GPrimeExchangeOptions& xo = q.options;
  const std::vector<SitePart>& parts = sv.parts;
  std::map<std::uint64_t, std::vector<std::uint64_t>> parts_in_tile;
  for (std::uint64_t a = 0; a < parts.size(); ++a) parts_in_tile[parts[a].tile].push_back(a);
  std::vector<std::uint64_t> wanted;
  for (const auto& [tile, list] : parts_in_tile) wanted.push_back(tile);
  progress.update("od-matrix: queries", 0, k);
  for (std::uint64_t first = 0; first < k; first += plan.batch) {
    const std::uint64_t kb = std::min<std::uint64_t>(plan.batch, k - first);
    std::vector<GPrimeSeed> seeds;
    for (std::uint64_t a = 0; a < parts.size(); ++a) {
      const std::uint64_t s = parts[a].site;
      if (s < first || s >= first + kb) continue;
      seeds.push_back(GPrimeSeed{parts[a].tile, static_cast<std::uint32_t>(s - first),
                                 std::vector<PathLength>(sv.site_ring.begin() + static_cast<std::ptrdiff_t>(a * b),
                                                         sv.site_ring.begin() + static_cast<std::ptrdiff_t>((a + 1) * b))});
    }
    GPrimeStats gs;
    const GPrimeLabels labels = source.resident ? source.resident->run(kb, seeds, wanted, &gs)
                                : source.gtiles ? gprime_exchange(*source.gtiles, q.input.grid(), kb, seeds, xo, &gs)
                                                : GPrimeLabels{};  // (no tile to exchange through)
    st.tile_solves += gs.tile_solves;
    st.rounds += gs.rounds;
    reach_targets(labels, parts_in_tile, first, kb, k, b, sv);
    progress.update("od-matrix: queries", first + kb, k);
  }
}

void report_source(const GPrimeSource& source, OdQueryStats& st) {
  if (source.cache) st.matrix_loads = source.cache->loads();
  if (source.gpu) {
    st.gpu_uploads = source.gpu->uploads();
    st.kernel_ms = source.gpu->kernel_ms();
  }
  if (const GPrimeRounds* resident = source.resident.get()) {
    st.gpu_uploads = resident->uploads();
    st.kernel_ms = resident->kernel_ms();
    st.kernel_ms_select = resident->select_ms();
    st.kernel_ms_solve = resident->solve_ms();
    st.kernel_ms_push = resident->push_ms();
    st.due_sources = resident->due_sources();
    st.max_active = resident->max_active();
  }
  if (source.block) {
    st.exchange_solves = source.block->solves();
    st.matrix_loads = source.block->loads();
  }
}

// build_on_gpu: no index file; the matrices built on the GPU into the rounds' memory (GPrimeRounds'
// second constructor), the exchange in rounds there. memory: the index in memory (from `index`, or
// the transient build when index is null): the sweep.
std::vector<PathLength> od_matrix_gprime(const TileInput& input, const IndexFile* index, const IndexInMemory* memory,
                                         bool build_on_gpu, const std::vector<OdSite>& sites,
                                         const OdQueryOptions& options, MemoryBudget& budget, Progress& progress,
                                         OdQueryStats& st) {
  const TileGrid& grid = input.grid();
  const std::uint32_t t = grid.tile;
  if (index) check_index_fits(*index, grid, options.params, options.connectivity);
  if (build_on_gpu && (index || options.device != Device::Cuda))
    throw Error("od-matrix: the index built on the GPU takes no index file and needs --device cuda");
  if (!index && !build_on_gpu && options.exchange == OdExchange::Rounds)
    throw UsageError("--exchange rounds needs --index (without it a tile's re-solve is a cell-level solve: the queue)");
  const std::uint64_t k = sites.size();
  const std::uint32_t b = ring_size(t);
  SiteVectors sv;
  sv.parts = site_parts(grid, sites);
  st.site_parts = sv.parts.size();
  const std::uint64_t fixed = query_fixed_bytes(t, sv.parts.size(), k);
  MemoryBudget::Reservation fixed_reservation = budget.reserve(fixed, "od-matrix labels and site vectors");
  sv.result.assign(k * k, kUnreached);
  sv.site_ring.assign(sv.parts.size() * b, kUnreached);

  Stopwatch watch;
  solve_site_parts(input, index, sites, options, progress, sv);
  st.site_tiles = distinct_tiles(sv.parts);
  st.seconds_sites = watch.seconds();
  watch.restart();
  if (memory) {
    sweep_sources(input, *memory, sites, options, budget, progress, sv, st);
    st.seconds_queries = watch.seconds();
  } else {
    // (2) The exchange and the label batch, (3) the queries.
    const GPrimeRequest q{input, index, build_on_gpu, options};
    ExchangePlan plan = plan_exchange(q);
    st.exchange = !plan.rounds ? "queue" : plan.cuda ? "rounds-gpu" : "rounds-cpu";
    const MemoryBudget::Reservation rounds_reservation = reserve_rounds(q, plan, budget);
    const MemoryBudget::Reservation label_reservation = reserve_label_batch(q, sv, k, budget, plan);
    st.batch_sources = plan.batch;
    GPrimeSource source;
    open_gprime_source(q, plan, budget, progress, source, st);
    query_sources(q, plan, source, k, progress, sv, st);
    report_source(source, st);
    st.seconds_queries = watch.seconds() - st.seconds_index;  // (the index built on the GPU is its own phase)
  }
  clamp_to_max_cost(sv.result, options.max_cost);
  return std::move(sv.result);
}

}  // namespace

std::uint64_t input_present_tiles(const TileInput& input) {
  const TileGrid& grid = input.grid();
  std::uint64_t present = 0;
  for (std::uint32_t ty = 0; ty < grid.tiles_y(); ++ty)
    for (std::uint32_t tx = 0; tx < grid.tiles_x(); ++tx) present += input.tile_present(tx, ty);
  return present;
}

std::vector<PathLength> od_matrix_by_index(const TileInput& input, const IndexFile& index, const std::vector<OdSite>& sites,
                                           const OdQueryOptions& options, MemoryBudget& budget, Progress& progress,
                                           OdQueryStats* stats) {
  OdQueryStats local;
  OdQueryStats& st = stats ? *stats : local;
  // On the CPU the sweep, with every record read into memory, when three quarters of what the budget
  // has left hold the records and the sweep (the sites' vectors and the results come from the rest).
  const unsigned threads = std::max(1u, options.threads);
  const bool sweep = options.device == Device::Cpu && (options.exchange == OdExchange::Sweep || options.exchange == OdExchange::Auto);
  if (sweep) {
    check_index_fits(index, input.grid(), options.params, options.connectivity);
    const std::uint64_t records = IndexInMemory::bytes_of(index);
    const std::uint64_t need = records + GPrimeSweep::bytes(index.header().tile, index.present_tiles(), threads);
    if (need <= budget.available() / 4 * 3) {
      MemoryBudget::Reservation reservation = budget.reserve(records, "od-matrix index in memory");
      Stopwatch watch;
      const std::unique_ptr<IndexInMemory> memory = IndexInMemory::load(index, threads);
      const double load_seconds = watch.seconds();
      std::vector<PathLength> result = od_matrix_gprime(input, &index, memory.get(), false, sites, options, budget, progress, st);
      st.seconds_queries += load_seconds;
      return result;
    }
    if (options.exchange == OdExchange::Sweep)
      throw BudgetError("memory budget too small for od-matrix --exchange sweep: the index's records and the sweep need " +
                        MemoryBudget::format_size(need) + ", " + MemoryBudget::format_size(budget.available()) +
                        " is available; raise --memory or use --exchange queue");
  }
  if (options.exchange == OdExchange::Sweep) throw UsageError("--exchange sweep runs on the CPU: use --device cpu");
  return od_matrix_gprime(input, &index, nullptr, false, sites, options, budget, progress, st);
}

std::vector<PathLength> od_matrix_by_memory_index(const TileInput& input, const IndexInMemory& index,
                                                  const std::vector<OdSite>& sites, const OdQueryOptions& options,
                                                  MemoryBudget& budget, Progress& progress, OdQueryStats* stats) {
  OdQueryStats local;
  return od_matrix_gprime(input, nullptr, &index, false, sites, options, budget, progress, stats ? *stats : local);
}

bool memory_index_fits(const TileInput& input, unsigned threads, const MemoryBudget& budget) {
  return memory_index_bytes(input, threads) <= budget.available() / 4 * 3;
}

std::uint64_t memory_index_bytes(const TileInput& input, unsigned threads) {
  const std::uint32_t t = input.grid().tile;
  const std::uint64_t present = input_present_tiles(input);
  return IndexInMemory::bytes_for(t, present, 4) + GPrimeSweep::bytes(t, present, threads) +
         build_index_cpu_bytes(t, kDefaultIndexLeaf, threads);  // (leaves of 8: the larger workspace)
}

std::vector<MemoryPlan::Part> od_query_needs(OdQueryKind kind, const TileGrid& grid, std::uint64_t present,
                                             std::uint64_t records, std::uint64_t sites, std::uint64_t parts,
                                             std::uint64_t site_tiles, unsigned threads) {
  const std::uint32_t t = grid.tile, b = ring_size(t);
  const std::uint64_t tiles = grid.tile_count();
  threads = std::max(1u, threads);
  const std::uint64_t fixed = query_fixed_bytes(t, parts, sites);
  std::vector<MemoryPlan::Part> needs;
  auto need = [&](const char* what, std::uint64_t bytes) {
    if (bytes) needs.push_back(MemoryPlan::Part{what, bytes, bytes, 0});
  };
  need("the sites' vectors and the results", fixed);
  if (kind == OdQueryKind::Sweep) {
    // The records and the sweep take at most three quarters of what is left.
    const std::uint64_t held = records + GPrimeSweep::bytes(t, present, threads);
    need("the index's records and the sweep", held);
    need("a quarter beside them", std::max((held + 2) / 3 * 4, held + fixed) - held - fixed);
    return needs;
  }
  const bool with_index = kind != OdQueryKind::Exchange;
  const std::uint64_t in_edges = kind == OdQueryKind::Rounds ? gprime_rounds_host_bytes(t, present, tiles, 0) : 0;
  const std::uint64_t per_source =
      kind == OdQueryKind::Rounds
          ? gprime_rounds_host_bytes(t, present, tiles, 1) - in_edges + std::max<std::uint64_t>(1, site_tiles) * b * 8
          : queue_source_bytes(tiles, b, cpu_round_tiles(with_index, threads, present, tiles));
  const std::uint64_t cache = with_index ? 2 * index_cache_entry_bytes(b) : block_solve_tiles_bytes(t, 2, threads);
  need("the rounds' in-edges", in_edges);
  // A batch of labels takes at most half of what is left: the labels of one source, and as much again
  // beside them, where the tile cache's least (2 tiles) must fit.
  need("the labels of one source", per_source);
  need(with_index ? "the index tile cache's least, 2 tiles, or as much as the labels"
                  : "the tile cache's least, 2 tiles, or as much as the labels",
       std::max(per_source, cache));
  return needs;
}


std::vector<PathLength> od_matrix_by_exchange(const TileInput& input, const std::vector<OdSite>& sites,
                                              const OdQueryOptions& options, MemoryBudget& budget, Progress& progress,
                                              OdQueryStats* stats) {
  OdQueryStats local;
  return od_matrix_gprime(input, nullptr, nullptr, false, sites, options, budget, progress, stats ? *stats : local);
}

std::vector<PathLength> od_matrix_by_gpu_index(const TileInput& input, const std::vector<OdSite>& sites,
                                               const OdQueryOptions& options, MemoryBudget& budget, Progress& progress,
                                               OdQueryStats* stats) {
  OdQueryStats local;
  return od_matrix_gprime(input, nullptr, nullptr, true, sites, options, budget, progress, stats ? *stats : local);
}

bool gpu_index_fits(const TileInput& input, const OdQueryOptions& options) {
  const std::uint64_t present = input_present_tiles(input);
  if (present == 0) return true;
  const std::uint32_t t = input.grid().tile;
  const std::uint64_t gpu_bytes = options.gpu_memory_bytes ? options.gpu_memory_bytes : MinPlusCuda::free_device_bytes() / 10 * 6;
  // The rounds' arrays for one source, and beside them the build's launches (an eighth of the memory at most).
  return GPrimeRoundsCuda::device_bytes(ring_size(t), present, 1) +
             gprime_build_batch_tiles(t, kDefaultIndexLeaf) * tile_boundary_cuda_bytes(t, kDefaultIndexLeaf, 1) <=
         gpu_bytes;
}

}  // namespace terrazo
