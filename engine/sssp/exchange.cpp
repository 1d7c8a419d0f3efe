// engine/sssp/exchange.cpp: block-local solves and boundary exchange (engine/sssp/exchange.h).
#include "engine/sssp/exchange.h"
#include "engine/sssp/exchange_entry.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <string>

#include "kernels/common/error.h"
#include "kernels/common/page_arena.h"
#include "engine/sssp/halo_values.h"
#include "kernels/sssp/block_sssp.h"
#include "kernels/sssp/knight.h"
#include "kernels/common/tile_geometry.h"

namespace terrazo {

SsspExchange::SsspExchange(const TileInput& input, DistanceStore& store, const SsspExchangeOptions& options,
                           MemoryBudget& budget)
    : input_(input),
      store_(store),
      options_(options),
      grid_(input.grid()),
      labelled_(options.track_source || options.track_hops),
      t_(input.grid().tile),
      h_(halo_width(options.connectivity)) {
  if (store.labelled() != labelled_) throw Error("internal: distance store and exchange disagree on labels");
  if (store.halo() != h_) throw Error("internal: distance store and exchange disagree on the halo");
  if (t_ < h_) throw Error("internal: the tile is narrower than the halo");
  if (options_.threads == 0) options_.threads = 1;
  if (options_.batch < options_.threads) options_.batch = options_.threads;
  halo_cells_ = static_cast<std::uint64_t>(t_ + 2 * h_) * (t_ + 2 * h_);
  const std::uint64_t tiles = grid_.tile_count();
  const std::uint64_t cells = static_cast<std::uint64_t>(t_) * t_;

  // Fixed structures first, then the cache takes what is asked, or what the plan gives it.
  const std::uint64_t queue_bytes = tiles * 8 + tiles / 8 + 64;
  reservations_.push_back(budget.reserve(queue_bytes, "sssp tile queue"));
  // Solver heaps and masks per thread, plus this object's tile, label and ring buffers.
  // The load scratch is one set per thread: a round's tiles are loaded in parallel (run()).
  const std::uint64_t solver_bytes = options_.threads * (halo_cells_ * (labelled_ ? 48 : 32) +
                                                         cells * (16 + (labelled_ ? 8 : 0)) +
                                                         ring_cell_count(t_, h_) * sizeof(RingCell) + (h_ > 1 ? cells * 8 : 0));
  reservations_.push_back(budget.reserve(solver_bytes, "sssp block solver workspace"));
  pool_ = std::make_unique<WorkerPool>(options_.threads);
  SsspTileSolverOptions solver_options;
  solver_options.t = t_;
  solver_options.params = options_.params;
  solver_options.connectivity = options_.connectivity;
  solver_options.max_cost = options_.max_cost;
  solver_options.labelled = labelled_;
  solver_options.batch = options_.batch;
  solver_options.gpu_memory_bytes = options_.gpu_memory_bytes;
  solver_options.frontier_bfs = options_.frontier_bfs;
  solver_ = make_sssp_tile_solver(options_.device, solver_options, *pool_, budget);
  options_.batch = static_cast<std::uint32_t>(std::min<std::uint64_t>(options_.batch, solver_->batch_tiles()));
  // The piece (rounded up to 64 bytes by the arena), the entry and its map node.
  const std::uint64_t entry_bytes = entry_piece_bytes() + 128;
  const std::uint64_t minimum = entry_bytes * options_.batch;
  const std::uint64_t most = entry_bytes * std::max<std::uint64_t>(tiles, options_.batch);
  std::uint64_t wanted = options_.cache_bytes;
  if (wanted == 0 && options_.plan) {
    options_.plan->need(options_.plan_phase, "sssp tile cache", minimum, most);
    options_.plan->assign(budget);
    wanted = options_.plan->assigned(options_.plan_phase, "sssp tile cache");
  } else if (wanted == 0) {
    wanted = budget.available();
  }
  wanted = std::min(wanted, most);
  if (wanted < minimum)
    throw BudgetError("--memory is too small for the SSSP tile cache: it needs at least " +
                MemoryBudget::format_size(minimum) + " (" + std::to_string(options_.batch) + " tiles of " +
                MemoryBudget::format_size(entry_bytes) + "); raise --memory or lower --tile");
  reservations_.push_back(budget.reserve(wanted, "sssp tile cache"));
  capacity_ = wanted / entry_bytes;
  stats_.cache_capacity = capacity_;
  for (const auto& r : reservations_) stats_.memory_bytes += r.bytes();
  stats_.memory_bytes += solver_->reserved_bytes();

  queued_key_.assign(tiles, kUnreached);
  solved_once_.assign(tiles, false);
  full_scan_.assign(tiles, false);
  load_scratch_.resize(options_.threads);
  for (LoadScratch& scratch : load_scratch_) {
    scratch.values.resize(cells);
    scratch.dist.resize(cells);
    if (labelled_) {
      scratch.source.resize(cells);
      scratch.hops.resize(cells);
    }
    scratch.ring.resize(store_.ring_cells());
    if (h_ > 1) scratch.halo.resize(cells);
  }
  for (int d = 8; d < 16; ++d) knight_lengths_[d] = knight_length(options_.params.steps, d);
  if (options_.distributed()) {
    mail_ = std::make_unique<BorderMail>(*options_.comm, *options_.ownership, grid_, options_.connectivity);
    stats_.neighbour_ranks = static_cast<std::uint32_t>(mail_->neighbours().size());
  }
}

SsspExchange::~SsspExchange() = default;

// ---- cache ------------------------------------------------------------------------------------

// One piece: values and distances (8 bytes a halo cell), sources and hops (4 + 4, labelled runs),
// the t*t changed flags, back to back (each array on its natural alignment; the piece on 64 bytes).
std::uint64_t SsspExchange::entry_piece_bytes() const {
  return halo_cells_ * (16 + (labelled_ ? 8 : 0)) + static_cast<std::uint64_t>(t_) * t_;
}

void SsspExchange::carve_entry(Entry& e) const {
  auto* p = static_cast<unsigned char*>(e.piece);
  e.values = {reinterpret_cast<double*>(p), halo_cells_};
  p += halo_cells_ * 8;
  e.dist = {reinterpret_cast<PathLength*>(p), halo_cells_};
  p += halo_cells_ * 8;
  if (labelled_) {
    e.source = {reinterpret_cast<std::uint32_t*>(p), halo_cells_};
    p += halo_cells_ * 4;
    e.hops = {reinterpret_cast<std::uint32_t*>(p), halo_cells_};
    p += halo_cells_ * 4;
  }
  e.changed = {p, static_cast<std::size_t>(t_) * t_};
}

SsspExchange::Entry& SsspExchange::acquire(std::uint64_t tile) {
  bool load_it = false;
  Entry& e = claim(tile, &load_it);
  if (load_it) load(e, load_scratch_[0]);
  return e;
}

SsspExchange::Entry& SsspExchange::claim(std::uint64_t tile, bool* load_it) {
  *load_it = false;
  auto found = cache_.find(tile);
  if (found != cache_.end()) {
    Entry& entry = *found->second;
    lru_.erase(entry.lru);
    lru_.push_front(tile);
    entry.lru = lru_.begin();
    ++entry.pins;
    return entry;
  }
  while (cache_.size() >= capacity_) evict_one();
  std::unique_ptr<Entry> entry;
  if (!free_entries_.empty()) {
    entry = std::move(free_entries_.back());
    free_entries_.pop_back();
  } else {
    entry = std::make_unique<Entry>();
    if (!arena_) arena_ = std::make_unique<PageArena>(entry_piece_bytes(), capacity_);
    entry->piece = arena_->take();
    carve_entry(*entry);
  }
  Entry& e = *entry;
  e.tile = tile;
  e.tx = static_cast<std::uint32_t>(tile % grid_.tiles_x());
  e.ty = static_cast<std::uint32_t>(tile / grid_.tiles_x());
  e.dirty = false;
  e.pins = 1;
  ++stats_.cache_loads;
  lru_.push_front(tile);
  e.lru = lru_.begin();
  cache_.emplace(tile, std::move(entry));
  *load_it = true;
  return e;
}

// Reads only the input and the store's slot of e's own tile, which nothing changes between claim()
// and load() (evictions write their own tiles' slots; pushes come after the round's solves), so the
// tiles of a round load in parallel (TileInput::read_tile and the store's reads take several threads
// on distinct tiles).
void SsspExchange::load(Entry& e, LoadScratch& scratch) {
  const std::uint64_t tile = e.tile;
  const std::uint32_t t = t_, h = h_, s = t_ + 2 * h_;
  // Values: the tile from the input, the ring from the store (where a neighbour pushed a label).
  if (input_.tile_present(e.tx, e.ty)) {
    input_.read_tile(e.tx, e.ty, scratch.values.data());
  } else {
    std::fill(scratch.values.begin(), scratch.values.end(), std::numeric_limits<double>::quiet_NaN());
  }
  for (std::uint32_t y = 0; y < t; ++y)
    std::memcpy(&e.values[static_cast<std::size_t>(y + h) * s + h], &scratch.values[static_cast<std::size_t>(y) * t],
                t * sizeof(double));
  // Labels of the interior.
  store_.read_interior(tile, scratch.dist.data(), labelled_ ? scratch.source.data() : nullptr,
                       labelled_ ? scratch.hops.data() : nullptr);
  for (std::uint32_t y = 0; y < t; ++y) {
    const std::size_t row = (y + h) * static_cast<std::size_t>(s) + h;
    std::memcpy(&e.dist[row], &scratch.dist[static_cast<std::size_t>(y) * t], t * sizeof(PathLength));
    if (labelled_) {
      std::memcpy(&e.source[row], &scratch.source[static_cast<std::size_t>(y) * t], t * 4);
      std::memcpy(&e.hops[row], &scratch.hops[static_cast<std::size_t>(y) * t], t * 4);
    }
  }
  // The ring.
  std::vector<RingCell>& ring = scratch.ring;
  store_.read_ring(tile, 0, store_.ring_cells(), ring.data());
  for (std::uint32_t r = 0; r < ring.size(); ++r) {
    std::uint32_t hx, hy;
    ring_cell(t, r, &hx, &hy, h);
    const std::size_t i = static_cast<std::size_t>(hy) * s + hx;
    e.dist[i] = ring[r].dist;
    e.values[i] = ring[r].dist == kUnreached ? std::numeric_limits<double>::quiet_NaN() : ring[r].value;
    if (labelled_) {
      e.source[i] = ring[r].source;
      e.hops[i] = ring[r].hops;
    }
  }
  // A knight's move weighs the two cells it crosses, reached or not: with 16 neighbours every halo
  // cell holds its value, read from the neighbouring tiles (engine/sssp/halo_values.h).
  if (h > 1) fill_halo_values(input_, e.tx, e.ty, h, e.values.data(), scratch.halo);
}

void SsspExchange::unpin(Entry& entry) { --entry.pins; }

void SsspExchange::write_back(Entry& e) {
  const std::uint32_t t = t_, h = h_, s = t_ + 2 * h_;
  LoadScratch& scratch = load_scratch_[0];  // write_back runs on the exchange's own thread
  std::vector<PathLength>& dist = scratch.dist;
  std::vector<std::uint32_t>& source = scratch.source;
  std::vector<std::uint32_t>& hops = scratch.hops;
  for (std::uint32_t y = 0; y < t; ++y) {
    const std::size_t row = (y + h) * static_cast<std::size_t>(s) + h;
    std::memcpy(&dist[static_cast<std::size_t>(y) * t], &e.dist[row], t * sizeof(PathLength));
    if (labelled_) {
      std::memcpy(&source[static_cast<std::size_t>(y) * t], &e.source[row], t * 4);
      std::memcpy(&hops[static_cast<std::size_t>(y) * t], &e.hops[row], t * 4);
    }
  }
  store_.write_interior(e.tile, dist.data(), labelled_ ? source.data() : nullptr, labelled_ ? hops.data() : nullptr);
  std::vector<RingCell>& ring = scratch.ring;
  bool any = false;
  for (std::uint32_t r = 0; r < ring.size(); ++r) {
    std::uint32_t hx, hy;
    ring_cell(t, r, &hx, &hy, h);
    const std::size_t i = static_cast<std::size_t>(hy) * s + hx;
    ring[r].dist = e.dist[i];
    ring[r].value = e.values[i];
    if (labelled_) {
      ring[r].source = e.source[i];
      ring[r].hops = e.hops[i];
    }
    any = any || e.dist[i] != kUnreached;
  }
  if (any || store_.ring_present(e.tile)) store_.write_ring(e.tile, 0, store_.ring_cells(), ring.data());
  e.dirty = false;
}

void SsspExchange::evict_one() {
  for (auto it = lru_.rbegin(); it != lru_.rend(); ++it) {
    auto found = cache_.find(*it);
    Entry& e = *found->second;
    if (e.pins > 0) continue;
    if (e.dirty) write_back(e);
    lru_.erase(std::next(it).base());
    free_entries_.push_back(std::move(found->second));  // its piece is reused as it is
    cache_.erase(found);
    ++stats_.cache_evictions;
    return;
  }
  throw Error("internal: every cached SSSP tile is in use; the cache needs more room than the batch");
}

void SsspExchange::flush() {
  for (auto& [tile, entry] : cache_)
    if (entry->dirty) write_back(*entry);
  cache_.clear();
  lru_.clear();
  free_entries_.clear();
  arena_.reset();
}

// ---- queue ------------------------------------------------------------------------------------

void SsspExchange::enqueue(std::uint64_t tile, PathLength key) {
  PathLength& current = queued_key_[tile];
  if (current != kUnreached) {
    if (current <= key) return;
    queue_.erase({current, tile});
  }
  current = key;
  queue_.insert({key, tile});
}

// ---- sources ----------------------------------------------------------------------------------

std::vector<std::uint32_t> SsspExchange::add_sources(std::uint32_t tx, std::uint32_t ty,
                                                     const std::vector<TileSource>& sources) {
  std::vector<std::uint32_t> on_nodata;
  const std::uint64_t tile = static_cast<std::uint64_t>(ty) * grid_.tiles_x() + tx;
  if (mail_ && options_.ownership->owner(tile) != options_.comm->rank()) return check_foreign_sources(tx, ty, sources);
  Entry& e = acquire(tile);
  const std::uint32_t t = t_, h = h_, s = t_ + 2 * h_;
  std::fill(e.changed.begin(), e.changed.end(), 0);
  bool any = false;
  for (const TileSource& source : sources) {
    const std::uint32_t lx = source.local % t, ly = source.local / t;
    const std::size_t i = static_cast<std::size_t>(ly + h) * s + lx + h;
    if (e.values[i] != e.values[i]) {
      on_nodata.push_back(source.local);
      continue;
    }
    if (source.start > options_.max_cost) continue;  // beyond --max-cost from the start: reaches nothing
    const Label label{source.start,
                      labelled_ ? (static_cast<std::uint64_t>(options_.track_source ? source.id : 0) << 32) : 0};
    if (!(label < e.label(i))) continue;
    e.dist[i] = source.start;
    if (labelled_) {
      e.source[i] = options_.track_source ? source.id : 0;
      e.hops[i] = 0;
    }
    e.changed[source.local] = 1;
    any = true;
  }
  if (any) {
    e.dirty = true;
    full_scan_[tile] = true;
    enqueue(tile, 0);
    push_borders(e, e.changed.data());
  }
  unpin(e);
  return on_nodata;
}

// A distributed run: the sources of a tile another rank owns are checked on the input alone.
std::vector<std::uint32_t> SsspExchange::check_foreign_sources(std::uint32_t tx, std::uint32_t ty,
                                                               const std::vector<TileSource>& sources) {
  std::vector<double>& values = load_scratch_[0].values;
  if (input_.tile_present(tx, ty)) {
    input_.read_tile(tx, ty, values.data());
  } else {
    std::fill(values.begin(), values.end(), std::numeric_limits<double>::quiet_NaN());
  }
  std::vector<std::uint32_t> on_nodata;
  for (const TileSource& source : sources)
    if (values[source.local] != values[source.local]) on_nodata.push_back(source.local);
  return on_nodata;
}

// ---- boundary exchange ------------------------------------------------------------------------

WeightParams SsspExchange::tile_params(const Entry& e) const {
  WeightParams p = options_.params;
  p.steps.row0 = static_cast<std::int64_t>(e.ty) * t_ - h_;
  return p;
}

// The weight of the step from window cell u = (ux, uy) in direction d (0..15) to its neighbour v
// (both inside e's window, and with a knight's move the two cells it crosses too).
Weight SsspExchange::window_step_weight(const Entry& e, const WeightParams& params, std::int64_t ux, std::int64_t uy,
                                        int d, bool* overflow) const {
  const std::int64_t s = t_ + 2 * h_;
  const std::size_t u = static_cast<std::size_t>(uy * s + ux);
  const std::size_t v = static_cast<std::size_t>((uy + kStepDy[d]) * s + ux + kStepDx[d]);
  if (!is_knight(d)) return step_weight(params, e.values[u], e.values[v], d, uy, overflow);
  int ax, ay, bx, by;
  knight_crossed(d, &ax, &ay, &bx, &by);
  return knight_weight(params, e.values[u], e.values[static_cast<std::size_t>((uy + ay) * s + ux + ax)],
                       e.values[static_cast<std::size_t>((uy + by) * s + ux + bx)], e.values[v], knight_lengths_[d],
                       overflow);
}

bool SsspExchange::step_improves(const Entry& e, std::size_t u, std::size_t v, Weight w) const {
  if (w == kNoEdge) return false;
  const PathLength nd = e.dist[u] + w;
  if (nd < w || nd > options_.max_cost) return false;
  Label candidate{nd, 0};
  if (labelled_) candidate.second = (static_cast<std::uint64_t>(e.source[u]) << 32) | (e.hops[u] + 1u);
  return candidate < e.label(v);
}

bool SsspExchange::halo_improves_interior(const Entry& e, std::uint32_t hx, std::uint32_t hy) const {
  const std::int64_t s = t_ + 2 * h_, h = h_, t = t_;
  const std::size_t u = static_cast<std::size_t>(hy) * static_cast<std::size_t>(s) + hx;
  const WeightParams params = tile_params(e);
  bool overflow = false;
  for (int d = 0; d < direction_count(options_.connectivity); ++d) {
    if (!step_used(d, options_.connectivity)) continue;
    const std::int64_t x = static_cast<std::int64_t>(hx) + kStepDx[d], y = static_cast<std::int64_t>(hy) + kStepDy[d];
    if (x < h || y < h || x >= t + h || y >= t + h) continue;
    const std::size_t v = static_cast<std::size_t>(y * s + x);
    if (step_improves(e, u, v, window_step_weight(e, params, hx, hy, d, &overflow))) return true;
  }
  return false;  // an overflowing weight is reported by the solver when the tile is solved anyway
}

// Whether interior cell (lx, ly) of `e` improves a cell of the neighbouring tile at tile offset
// (dx, dy) next to it, judged on e's ring (the neighbour's border labels as last pushed, never
// lower than its current labels). A neighbour cell never pushed (unreached in the ring, value
// unknown) counts as improved.
bool SsspExchange::improves_across(const Entry& e, std::uint32_t lx, std::uint32_t ly, int dx, int dy) const {
  const std::int64_t t = t_, h = h_, s = t_ + 2 * h_;
  const std::size_t u = static_cast<std::size_t>((ly + h) * s + lx + h);
  const WeightParams params = tile_params(e);
  bool overflow = false;
  for (int d = 0; d < direction_count(options_.connectivity); ++d) {
    if (!step_used(d, options_.connectivity)) continue;
    const std::int64_t vx = static_cast<std::int64_t>(lx) + kStepDx[d], vy = static_cast<std::int64_t>(ly) + kStepDy[d];
    if ((vx < 0 ? -1 : vx >= t ? 1 : 0) != dx || (vy < 0 ? -1 : vy >= t ? 1 : 0) != dy) continue;
    const std::size_t v = static_cast<std::size_t>((vy + h) * s + vx + h);
    if (e.dist[v] == kUnreached) return true;
    if (step_improves(e, u, v, window_step_weight(e, params, lx + h, ly + h, d, &overflow))) return true;
  }
  return false;
}

// Pushes the changed border cells of `e` into the rings of its neighbours.
void SsspExchange::push_borders(Entry& e, const std::uint8_t* changed) {
  const std::uint32_t t = t_, h = h_, s = t_ + 2 * h_;
  const std::int64_t tiles_x = grid_.tiles_x(), tiles_y = grid_.tiles_y();
  std::vector<RingCell> cells;
  std::vector<char> improves;
  for (int d = 0; d < 8; ++d) {
    if (!step_used(d, options_.connectivity)) continue;
    const int dx = kDirDx[d], dy = kDirDy[d];
    const std::int64_t ntx = static_cast<std::int64_t>(e.tx) + dx, nty = static_cast<std::int64_t>(e.ty) + dy;
    if (ntx < 0 || nty < 0 || ntx >= tiles_x || nty >= tiles_y) continue;
    // This tile's cells in the neighbour's halo: h columns, h rows or an h x h corner block. In the
    // neighbour's window, cell (lx, ly) of this tile sits at (lx - dx*t + h, ly - dy*t + h). Their
    // ring positions increase in this loop's order; a corner block's leave gaps, pushed as
    // unreached ("no news").
    const std::uint32_t xa = dx > 0 ? t - h : 0, xb = dx < 0 ? h - 1 : t - 1;
    const std::uint32_t ya = dy > 0 ? t - h : 0, yb = dy < 0 ? h - 1 : t - 1;
    cells.clear();
    improves.clear();
    std::uint32_t first = 0;
    bool any = false;
    for (std::uint32_t ly = ya; ly <= yb; ++ly)
      for (std::uint32_t lx = xa; lx <= xb; ++lx) {
        const std::uint32_t hx = static_cast<std::uint32_t>(static_cast<std::int64_t>(lx) - dx * static_cast<std::int64_t>(t) + h);
        const std::uint32_t hy = static_cast<std::uint32_t>(static_cast<std::int64_t>(ly) - dy * static_cast<std::int64_t>(t) + h);
        const std::uint32_t r = ring_index(t, hx, hy, h);
        if (cells.empty()) first = r;
        while (first + cells.size() < r) {  // a gap of a corner block
          cells.push_back(RingCell{});
          improves.push_back(0);
        }
        const std::size_t i = static_cast<std::size_t>(ly + h) * s + lx + h;
        RingCell cell;  // unreached: "no news" for ring positions whose cell did not change
        bool better = false;
        if (changed[static_cast<std::size_t>(ly) * t + lx]) {
          better = improves_across(e, lx, ly, dx, dy);
          cell.dist = e.dist[i];
          cell.value = e.values[i];
          if (labelled_) {
            cell.source = e.source[i];
            cell.hops = e.hops[i];
            if (cell.hops >= kHopsLimit)
              throw Error("a least-cost path has more than 3 * 2^30 steps; backlinks and allocation "
                          "cannot be computed for it");
          }
          any = true;
        }
        cells.push_back(cell);
        improves.push_back(better ? 1 : 0);
      }
    if (any)
      push_to_neighbour(static_cast<std::uint64_t>(nty) * tiles_x + static_cast<std::uint64_t>(ntx), first, cells,
                        improves);
  }
}

void SsspExchange::push_to_neighbour(std::uint64_t tile, std::uint32_t first, const std::vector<RingCell>& cells,
                                     const std::vector<char>& improves) {
  if (mail_) {
    const int owner = options_.ownership->owner(tile);
    if (owner != options_.comm->rank()) return mail_->post(owner, tile, first, cells, improves);
  }
  const std::uint32_t t = t_, s = t_ + 2 * h_;
  const auto count = static_cast<std::uint32_t>(cells.size());
  auto label_of = [&](const RingCell& c) {
    return Label{c.dist, labelled_ ? (static_cast<std::uint64_t>(c.source) << 32 | c.hops) : 0};
  };
  auto found = cache_.find(tile);
  if (found != cache_.end()) {
    Entry& n = *found->second;
    PathLength key = kUnreached;
    for (std::uint32_t k = 0; k < count; ++k) {
      if (cells[k].dist == kUnreached) continue;
      std::uint32_t hx, hy;
      ring_cell(t, first + k, &hx, &hy, h_);
      const std::size_t i = static_cast<std::size_t>(hy) * s + hx;
      if (!(label_of(cells[k]) < n.label(i))) continue;
      n.dist[i] = cells[k].dist;
      n.values[i] = cells[k].value;
      if (labelled_) {
        n.source[i] = cells[k].source;
        n.hops[i] = cells[k].hops;
      }
      n.dirty = true;
      if (halo_improves_interior(n, hx, hy)) key = std::min(key, cells[k].dist);
    }
    if (key != kUnreached) enqueue(tile, key);
    return;
  }
  std::vector<RingCell> ring(count);
  store_.read_ring(tile, first, count, ring.data());
  PathLength key = kUnreached;
  bool any = false;
  for (std::uint32_t k = 0; k < count; ++k) {
    if (cells[k].dist == kUnreached || !(label_of(cells[k]) < label_of(ring[k]))) continue;
    ring[k] = cells[k];
    any = true;
    if (improves[k]) key = std::min(key, cells[k].dist);
  }
  if (!any) return;
  store_.write_ring(tile, first, count, ring.data());
  if (key != kUnreached) enqueue(tile, key);
}

// ---- solving ----------------------------------------------------------------------------------

void throw_weight_overflow(const WeightParams& params) {
  throw Error("an edge weight does not fit in 32 bits at this --scale (" + std::to_string(params.scale) +
              "); lower --scale");
}

void SsspExchange::solve_batch(const std::vector<Entry*>& batch) {
  SsspTileBatch tiles;
  tiles.tiles.reserve(batch.size());
  for (Entry* e : batch) {
    SsspTile tile;
    tile.values = e->values.data();
    tile.dist = e->dist.data();
    if (labelled_) {
      tile.source = e->source.data();
      tile.hops = e->hops.data();
    }
    tile.interior_consistent = !full_scan_[e->tile];
    tile.changed = e->changed.data();
    tile.row0 = static_cast<std::int64_t>(e->ty) * t_ - h_;
    tiles.tiles.push_back(tile);
  }
  const SsspTileSolved& solved = solver_->solve(tiles);
  stats_.cells_improved += solved.changed_cells;
  const bool overflow = solved.overflow;
  if (overflow) throw_weight_overflow(options_.params);
}

std::size_t SsspExchange::solve_round(PathLength bound) {
  std::vector<Entry*> batch, to_load;
  while (!queue_.empty() && batch.size() < options_.batch && queue_.begin()->first <= bound) {
    const std::uint64_t tile = queue_.begin()->second;
    queue_.erase(queue_.begin());
    queued_key_[tile] = kUnreached;
    bool load_it = false;
    batch.push_back(&claim(tile, &load_it));
    if (load_it) to_load.push_back(batch.back());
  }
  // The round's new tiles load on every thread: reading, converting and first touching a tile's
  // pages is a fifth of a small run, and on one thread it left the others idle. With a two-cell
  // halo a load also reads its neighbours' tiles, which TileInput does not promise for one tile
  // on several threads at once: those load one after another.
  if (to_load.size() == 1 || load_scratch_.size() == 1 || h_ > 1) {
    for (Entry* e : to_load) load(*e, load_scratch_[0]);
  } else if (!to_load.empty()) {
    std::atomic<std::size_t> next{0};
    pool_->run(std::min<std::size_t>(load_scratch_.size(), to_load.size()), [&](std::uint64_t k) {
      for (std::size_t i = next++; i < to_load.size(); i = next++) load(*to_load[i], load_scratch_[k]);
    });
  }
  if (!batch.empty()) solve_batch(batch);
  for (Entry* e : batch) {
    e->dirty = true;
    full_scan_[e->tile] = false;
    ++stats_.solves;
    if (!solved_once_[e->tile]) {
      solved_once_[e->tile] = true;
      ++stats_.tiles_solved;
    }
    push_borders(*e, e->changed.data());
  }
  for (Entry* e : batch) unpin(*e);
  ++stats_.rounds;
  return batch.size();
}

void SsspExchange::run(Progress& progress) {
  if (mail_) {
    run_rounds(progress);
    return;
  }
  const std::string phase = "sssp: exchange";
  progress.update(phase, 0, 0);
  const std::uint64_t cells = static_cast<std::uint64_t>(t_) * t_;
  while (!queue_.empty()) {
    solve_round(kUnreached);
    progress.update(phase, stats_.solves, 0, stats_.solves * cells);
  }
  stats_.resolves = stats_.solves - stats_.tiles_solved;
  progress.update(phase, stats_.solves, stats_.solves, stats_.solves * cells);
}

}  // namespace terrazo
