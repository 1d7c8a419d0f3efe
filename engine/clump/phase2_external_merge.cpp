// engine/clump/phase2_external_merge.cpp: the external merge of clump's border regions
// (engine/clump/phase2_external_merge.h).
#include "engine/clump/phase2_external_merge.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <future>
#include <limits>
#include <mutex>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/clump/label_tile.h"
#include "io/store/posix_file.h"

namespace terrazo {
namespace {

constexpr std::uint64_t kNoId = ~0ull;
enum : int { kTop = 0, kBottom = 1, kLeft = 2, kRight = 3 };

// One side of a group: the id (kNoId: no region) and key of each cell, left to right or top to bottom.
struct Side {
  std::vector<std::uint64_t> id;
  std::vector<double> key;
};

struct Summary {
  Side side[4];  // empty where the side is on the raster's edge
  MemoryBudget::Reservation reservation;
};

struct Link {
  std::uint64_t child = 0, group = 0;
};
static_assert(sizeof(Link) == 16, "a link is 16 bytes on the links file");

struct Rect {
  std::uint64_t x0 = 0, y0 = 0, w = 0, h = 0;
};

// (id, final root) sorted by id; an id that is not in it is its own root.
using FinalMap = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

std::uint64_t lookup(const FinalMap& map, std::uint64_t id) {
  const auto it = std::lower_bound(map.begin(), map.end(), std::make_pair(id, std::uint64_t{0}));
  return it != map.end() && it->first == id ? it->second : id;
}

class ExternalMerge {
 public:
  ExternalMerge(const TileGrid& grid, Connectivity connectivity, const BorderRecords& records, BorderTable& table,
                MemoryBudget& budget, Progress& progress, const std::string& links_path, unsigned threads)
      : grid_(grid),
        t_(grid.tile),
        eight_(connectivity == Connectivity::Eight),
        records_(records),
        table_(table),
        budget_(budget),
        progress_(progress),
        links_(links_path, PosixFile::Mode::CreateReadWrite) {
    while ((1ull << levels_) < std::max(grid.tiles_x(), grid.tiles_y())) ++levels_;
    // Parallel levels: the top `parallel_` levels run their (up to four) children's subtrees on
    // threads of their own, so up to 4^parallel_ subtrees at once (the fewest levels that give
    // `threads` subtrees), when the budget has room for that many recursion paths (each about
    // 256 (W + H) bytes at most, summaries and one group's union-find); else one thread.
    const std::uint64_t path_bytes = 256 * (grid.width + grid.height);
    while (parallel_ < levels_ && (1ull << (2 * parallel_)) < threads &&
           (1ull << (2 * (parallel_ + 1))) * path_bytes <= budget.available() / 2)
      ++parallel_;
    const std::uint64_t tasks = 1ull << (2 * parallel_);
    // Per subtree at once: one tile's ring (4t ids and keys), its regions (at most 4t) and their roots.
    scratch_ = budget.reserve(tasks * 4ull * t_ * (4 + 8 + sizeof(BorderRegion) + 8), "clump external merge (tile scratch)");
    std::uint64_t groups = 0;
    index_.resize(levels_ + 1);
    for (std::uint32_t k = 1; k <= levels_; ++k) groups += groups_x(k) * groups_y(k);
    index_reservation_ = budget.reserve(16 * groups, "clump external merge (group index)");
    for (std::uint32_t k = 1; k <= levels_; ++k) index_[k].resize(groups_x(k) * groups_y(k));
    steps_ = groups;
  }

  ClumpExternalMergeTotals run() {
    progress_.update("clump: merge", 0, steps_);
    if (levels_ > 0) up(levels_, 0, 0);
    down(levels_, 0, 0, FinalMap());
    totals_.levels = levels_;
    totals_.parallel_levels = parallel_;
    totals_.links = links_written_;
    totals_.bytes_read = bytes_read_;
    totals_.bytes_written = bytes_written_;
    totals_.merge.roots = roots_owned_;
    return totals_;
  }

 private:
  std::uint64_t groups_x(std::uint32_t k) const { return (grid_.tiles_x() + (1ull << k) - 1) >> k; }
  std::uint64_t groups_y(std::uint32_t k) const { return (grid_.tiles_y() + (1ull << k) - 1) >> k; }
  bool exists(std::uint32_t k, std::uint64_t cx, std::uint64_t cy) const { return cx < groups_x(k) && cy < groups_y(k); }

  Rect rect(std::uint32_t k, std::uint64_t cx, std::uint64_t cy) const {
    const std::uint64_t s = static_cast<std::uint64_t>(t_) << k;
    Rect r;
    r.x0 = cx * s, r.y0 = cy * s;
    r.w = std::min(s, grid_.width - r.x0), r.h = std::min(s, grid_.height - r.y0);
    return r;
  }

  // Lengths of the kept sides (0: on the raster's edge).
  void side_lengths(const Rect& r, std::uint64_t* len) const {
    len[kTop] = r.y0 > 0 ? r.w : 0;
    len[kBottom] = r.y0 + r.h < grid_.height ? r.w : 0;
    len[kLeft] = r.x0 > 0 ? r.h : 0;
    len[kRight] = r.x0 + r.w < grid_.width ? r.h : 0;
  }

  Summary tile_summary(std::uint64_t tx, std::uint64_t ty) {
    std::vector<std::uint32_t> ring_(4ull * t_);  // this call's scratch (reserved as "tile scratch")
    std::vector<double> keys_(4ull * t_);
    std::vector<BorderRegion> regions_(4ull * t_);
    const Rect r = rect(0, tx, ty);
    std::uint64_t len[4];
    side_lengths(r, len);
    Summary s;
    s.reservation = budget_.reserve(16 * (len[0] + len[1] + len[2] + len[3]), "clump external merge (summaries)");
    const std::uint64_t tile = ty * grid_.tiles_x() + tx;
    const bool present = records_.read_ring(tile, ring_.data(), keys_.data());
    const std::uint64_t b0 = table_.tile_offset[tile], n = table_.tile_offset[tile + 1] - b0;
    table_.read_regions(b0, n, regions_.data());
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (int side = 0; side < 4; ++side) {
      Side& out = s.side[side];
      out.id.resize(len[side]);
      out.key.resize(len[side]);
      for (std::uint64_t k = 0; k < len[side]; ++k) {
        const std::uint64_t p = static_cast<std::uint64_t>(side) * t_ + k;  // ring order: top, bottom, left, right
        if (!present || ring_[p] == kNoRegion) {
          out.id[k] = kNoId, out.key[k] = nan;
        } else {
          if (ring_[p] >= n) throw Error("clump: internal error: a ring cell names a border region its tile does not have");
          out.id[k] = regions_[ring_[p]].first, out.key[k] = keys_[p];
        }
      }
    }
    return s;
  }

  // Runs work(i) for the existing children i of group (k, cx, cy): on threads of their own at the
  // parallel levels (each child's subtree is independent: its own tiles, groups and links), else in
  // Z-order on this thread. Every task is waited for before the first error is rethrown.
  template <class Work>
  void for_children(std::uint32_t k, std::uint64_t cx, std::uint64_t cy, Work work) {
    const bool parallel = k + parallel_ > levels_;
    std::future<void> task[4];
    std::exception_ptr error;
    for (int i = 0; i < 4; ++i) {
      const std::uint64_t x = 2 * cx + (i & 1), y = 2 * cy + (i >> 1);
      if (!exists(k - 1, x, y)) continue;
      if (!parallel) {
        work(i, x, y);
        continue;
      }
      try {
        task[i] = std::async(std::launch::async, [&work, i, x, y] { work(i, x, y); });
      } catch (...) {
        if (!error) error = std::current_exception();
        break;
      }
    }
    for (std::future<void>& f : task) {
      if (!f.valid()) continue;
      try {
        f.get();
      } catch (...) {
        if (!error) error = std::current_exception();
      }
    }
    if (error) std::rethrow_exception(error);
  }

  Summary up(std::uint32_t k, std::uint64_t cx, std::uint64_t cy) {
    if (k == 0) return tile_summary(cx, cy);
    std::unique_ptr<Summary> child[4];  // Z-order: (0,0), (1,0), (0,1), (1,1)
    for_children(k, cx, cy, [&](int i, std::uint64_t x, std::uint64_t y) {
      child[i] = std::make_unique<Summary>(up(k - 1, x, y));
    });
    return merge(k, cx, cy, child);
  }

  // The ids of a group's children's sides, sorted and distinct, in a union-find whose roots are
  // each set's smallest id.
  struct GroupSets {
    std::vector<std::uint64_t> ids;
    std::vector<std::uint64_t> parent;

    std::uint64_t index(std::uint64_t id) const {
      return static_cast<std::uint64_t>(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin());
    }
    std::uint64_t root(std::uint64_t v) {
      while (parent[v] != v) v = parent[v] = parent[parent[v]];
      return v;
    }
    // Joins cell i of side a with cell j of side b when both have a region and equal keys; the
    // smaller root wins, so each set's root is its smallest id.
    void pair(const Side& a, std::uint64_t i, const Side& b, std::uint64_t j) {
      if (a.id[i] == kNoId || b.id[j] == kNoId || !(a.key[i] == b.key[j])) return;
      const std::uint64_t ra = root(index(a.id[i])), rb = root(index(b.id[j]));
      if (ra < rb) parent[rb] = ra;
      else if (rb < ra) parent[ra] = rb;
    }
    // Side a against side b across a seam: facing cells, and with 8 neighbours the diagonals along it.
    void seam(const Side& a, const Side& b, bool eight) {
      if (a.id.size() != b.id.size()) throw Error("clump: internal error: the sides of a seam differ in length");
      const std::uint64_t n = a.id.size();
      for (std::uint64_t i = 0; i < n; ++i) {
        pair(a, i, b, i);
        if (eight && i > 0) pair(a, i, b, i - 1);
        if (eight && i + 1 < n) pair(a, i, b, i + 1);
      }
    }
  };

  // The children's ids joined across the group's four seams (and, with 8 neighbours, the two
  // diagonals through its centre).
  void join_children(const std::unique_ptr<Summary>* child, GroupSets& sets) const {
    if (child[0] && child[1]) sets.seam(child[0]->side[kRight], child[1]->side[kLeft], eight_);
    if (child[2] && child[3]) sets.seam(child[2]->side[kRight], child[3]->side[kLeft], eight_);
    if (child[0] && child[2]) sets.seam(child[0]->side[kBottom], child[2]->side[kTop], eight_);
    if (child[1] && child[3]) sets.seam(child[1]->side[kBottom], child[3]->side[kTop], eight_);
    if (eight_ && child[3]) {  // the diagonals through the centre (child 3 implies children 0, 1 and 2)
      const Side& b0 = child[0]->side[kBottom];
      sets.pair(b0, b0.id.size() - 1, child[3]->side[kTop], 0);
      const Side& t2 = child[2]->side[kTop];
      sets.pair(child[1]->side[kBottom], 0, t2, t2.id.size() - 1);
    }
  }

  // The links: every child id and its group id, sorted by child id. Each group's links are a run of
  // the file at an offset of its own (the runs' order depends on the threads; the group index
  // finds them).
  void write_links(std::uint32_t k, std::uint64_t cx, std::uint64_t cy, GroupSets& sets) {
    std::vector<Link> links(sets.ids.size());
    for (std::uint64_t i = 0; i < sets.ids.size(); ++i) links[i] = Link{sets.ids[i], sets.ids[sets.root(i)]};
    const std::uint64_t at = links_written_.fetch_add(links.size());
    index_[k][cy * groups_x(k) + cx] = {at, links.size()};
    if (!links.empty()) links_.write_all(links.data(), 16 * links.size(), 16 * at);
    bytes_written_ += 16 * links.size();
  }

  // The group's summary: its children's outer sides, with group ids.
  Summary group_summary(std::uint32_t k, std::uint64_t cx, std::uint64_t cy, const std::unique_ptr<Summary>* child,
                        GroupSets& sets) {
    Summary s;
    const Rect r = rect(k, cx, cy);
    std::uint64_t len[4];
    side_lengths(r, len);
    s.reservation = budget_.reserve(16 * (len[0] + len[1] + len[2] + len[3]), "clump external merge (summaries)");
    // The children along each side: top 0, 1; bottom 2, 3; left 0, 2; right 1, 3 (a kept bottom
    // side has children 2 (and 3 where 1 is), a kept right side children 1 (and 3 where 2 is)).
    const int along[4][2] = {{0, 1}, {2, 3}, {0, 2}, {1, 3}};
    for (int side = 0; side < 4; ++side) {
      if (!len[side]) continue;
      Side& out = s.side[side];
      out.id.reserve(len[side]);
      out.key.reserve(len[side]);
      for (int c : along[side]) {
        if (!child[c]) continue;
        const Side& in = child[c]->side[side];
        for (std::uint64_t i = 0; i < in.id.size(); ++i) {
          out.id.push_back(in.id[i] == kNoId ? kNoId : sets.ids[sets.root(sets.index(in.id[i]))]);
          out.key.push_back(in.key[i]);
        }
      }
      if (out.id.size() != len[side]) throw Error("clump: internal error: a group's side is not its children's");
    }
    return s;
  }

  Summary merge(std::uint32_t k, std::uint64_t cx, std::uint64_t cy, const std::unique_ptr<Summary>* child) {
    std::uint64_t cells = 0;
    for (int i = 0; i < 4; ++i)
      if (child[i])
        for (const Side& side : child[i]->side) cells += side.id.size();
    // ids (8), union-find (8), links (16) per cell at most.
    auto reservation = budget_.reserve(32 * cells, "clump external merge (one group)");
    GroupSets sets;
    std::vector<std::uint64_t>& ids = sets.ids;
    ids.reserve(cells);
    for (int i = 0; i < 4; ++i)
      if (child[i])
        for (const Side& side : child[i]->side)
          for (std::uint64_t id : side.id)
            if (id != kNoId) ids.push_back(id);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    sets.parent.resize(ids.size());
    std::iota(sets.parent.begin(), sets.parent.end(), std::uint64_t{0});
    join_children(child, sets);
    write_links(k, cx, cy, sets);
    Summary s = group_summary(k, cx, cy, child, sets);
    {
      std::lock_guard<std::mutex> lock(progress_mutex_);
      progress_.update("clump: merge", ++steps_done_, steps_);
    }
    return s;
  }

  void down(std::uint32_t k, std::uint64_t cx, std::uint64_t cy, FinalMap map) {
    if (k == 0) {
      const std::uint64_t tile = cy * grid_.tiles_x() + cx;
      const std::uint64_t b0 = table_.tile_offset[tile], n = table_.tile_offset[tile + 1] - b0;
      std::vector<BorderRegion> regions(n);  // at most 4t (reserved as "tile scratch")
      std::vector<std::uint64_t> roots(n);
      table_.read_regions(b0, n, regions.data());
      std::uint64_t owners = 0;
      for (std::uint64_t j = 0; j < n; ++j) {
        roots[j] = lookup(map, regions[j].first);
        owners += roots[j] == regions[j].first;
      }
      roots_owned_ += owners;
      table_.write_roots(b0, n, roots.data());
      return;
    }
    const auto [offset, count] = index_[k][cy * groups_x(k) + cx];
    auto reservation = budget_.reserve(32 * count, "clump external merge (links of one group)");
    FinalMap child[4];
    {
      std::vector<Link> links(count);
      if (count) links_.read_exact(links.data(), 16 * count, 16 * offset);
      bytes_read_ += 16 * count;
      const Rect r = rect(k, cx, cy);
      const std::uint64_t half = static_cast<std::uint64_t>(t_) << (k - 1);
      for (const Link& link : links) {
        const std::uint64_t x = link.child % grid_.width, y = link.child / grid_.width;
        const int i = (y - r.y0 >= half ? 2 : 0) + (x - r.x0 >= half ? 1 : 0);
        child[i].emplace_back(link.child, lookup(map, link.group));
      }
    }
    FinalMap().swap(map);
    for_children(k, cx, cy, [&](int i, std::uint64_t x, std::uint64_t y) { down(k - 1, x, y, std::move(child[i])); });
  }

  const TileGrid& grid_;
  const std::uint32_t t_;
  const bool eight_;
  const BorderRecords& records_;
  BorderTable& table_;
  MemoryBudget& budget_;
  Progress& progress_;
  PosixFile links_;
  std::uint32_t levels_ = 0;
  std::uint32_t parallel_ = 0;  // the top levels whose children run on threads of their own
  MemoryBudget::Reservation scratch_, index_reservation_;
  std::vector<std::vector<std::pair<std::uint64_t, std::uint64_t>>> index_;  // per level, per group: (first link, links)
  std::atomic<std::uint64_t> links_written_{0}, bytes_read_{0}, bytes_written_{0}, roots_owned_{0};
  std::mutex progress_mutex_;
  std::uint64_t steps_ = 0, steps_done_ = 0;  // steps_done_: under progress_mutex_
  ClumpExternalMergeTotals totals_;
};

}  // namespace

ClumpExternalMergeTotals run_clump_external_merge(const TileGrid& grid, Connectivity connectivity,
                                                  const BorderRecords& records, BorderTable& table,
                                                  MemoryBudget& budget, Progress& progress,
                                                  const std::string& links_path, unsigned threads) {
  if (!table.external()) throw Error("clump: internal error: the external merge of an in-memory border table");
  ExternalMerge merge(grid, connectivity, records, table, budget, progress, links_path, threads);
  return merge.run();
}

}  // namespace terrazo
