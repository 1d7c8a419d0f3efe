// engine/clump/sieve.cpp: --min-size (engine/clump/sieve.h).
#include "engine/clump/sieve.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "kernels/common/error.h"
#include "io/store/external_sorter.h"

namespace terrazo {

const char* to_string(ClumpSmallAction action) {
  return action == ClumpSmallAction::Merge ? "merge" : "nodata";
}

ClumpLabelFile::ClumpLabelFile(const std::string& path, std::uint64_t width, std::uint64_t height)
    : file_(path, PosixFile::Mode::CreateReadWrite), width_(width), height_(height) {
  file_.truncate(width * height * 4);
}

void ClumpLabelFile::write_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                                  const std::uint32_t* labels) {
  for (std::uint32_t y = 0; y < h; ++y)
    file_.write_all(labels + static_cast<std::uint64_t>(y) * w, 4ull * w, ((y0 + y) * width_ + x0) * 4);
  bytes_written_ += 4ull * w * h;
}

void ClumpLabelFile::read_row(std::uint64_t y, std::uint32_t* labels) const {
  file_.read_exact(labels, 4 * width_, y * width_ * 4);
  bytes_read_ += 4 * width_;
}

void ClumpLabelFile::read_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                                 std::uint32_t* labels) const {
  for (std::uint32_t y = 0; y < h; ++y)
    file_.read_exact(labels + static_cast<std::uint64_t>(y) * w, 4ull * w, ((y0 + y) * width_ + x0) * 4);
  bytes_read_ += 4ull * w * h;
}

namespace {

// Calls pair(a, b) for every pair of neighbouring cells of rows `above` (may be null) and `row`
// (W labels each): W, N (and NW, NE) of each cell of `row`.
template <class Pair>
void for_each_neighbour_pair(const std::uint32_t* above, const std::uint32_t* row, std::uint64_t w, bool eight,
                             Pair&& pair) {
  for (std::uint64_t x = 0; x < w; ++x) {
    const std::uint32_t a = row[x];
    if (a == 0) continue;
    if (x > 0) pair(a, row[x - 1]);
    if (!above) continue;
    pair(a, above[x]);
    if (eight) {
      if (x > 0) pair(a, above[x - 1]);
      if (x + 1 < w) pair(a, above[x + 1]);
    }
  }
}

// One --min-size run (the contract in sieve.h). Stages: count_sizes (1.), choose_targets (2.: the
// borders sorted, each small region's best neighbour, chains followed), renumber, write_windows (3.).
class Sieve {
 public:
  Sieve(const ClumpLabelFile& labels, std::uint64_t regions, const ClumpSieveOptions& options, MemoryBudget& budget,
        Progress& progress);
  ClumpSieveResult run(ClumpWindowSink* sink);

 private:
  void check_fits() const;
  void count_sizes();
  void choose_targets();
  void push_borders(ExternalSorter& sorter);
  void pick_best_borders(ExternalSorter& sorter);
  void follow_chains();
  void renumber();
  void write_windows(ClumpWindowSink* sink);

  bool small(std::uint32_t r) const { return size_[r] < n_; }
  bool larger(std::uint32_t b, std::uint32_t a) const {
    return size_[b] > size_[a] || (size_[b] == size_[a] && b < a);
  }

  const ClumpLabelFile& labels_;
  const std::uint64_t regions_;
  const ClumpSieveOptions& options_;
  MemoryBudget& budget_;
  Progress& progress_;
  const std::uint64_t w_, h_;
  const std::uint32_t n_;
  const bool eight_;
  ClumpSieveResult result_;
  // The region table: size (saturated at N; later the numbers of the roots) and target, per label 0..K.
  MemoryBudget::Reservation table_reservation_;
  std::vector<std::uint32_t> size_, target_;
  MemoryBudget::Reservation rows_reservation_;
  std::vector<std::uint32_t> row_, above_;
};

Sieve::Sieve(const ClumpLabelFile& labels, std::uint64_t regions, const ClumpSieveOptions& options,
             MemoryBudget& budget, Progress& progress)
    : labels_(labels),
      regions_(regions),
      options_(options),
      budget_(budget),
      progress_(progress),
      w_(labels.width()),
      h_(labels.height()),
      n_(static_cast<std::uint32_t>(std::min<std::uint64_t>(options.min_size, 0xFFFFFFFFull))),
      eight_(options.connectivity == Connectivity::Eight) {
  if (options.min_size == 0) throw UsageError("invalid --min-size 0: expected a cell count of at least 1");
  check_fits();
  table_reservation_ = budget.reserve(8 * (regions + 1), "clump --min-size region table");
  size_.assign(regions + 1, 0);
  target_.resize(regions + 1);
  for (std::uint64_t l = 0; l <= regions; ++l) target_[l] = static_cast<std::uint32_t>(l);
  rows_reservation_ = budget.reserve(8 * w_, "clump --min-size label rows");
  row_.resize(w_);
  above_.resize(w_);
}

// The region table beside two label rows and a window, checked before any work.
void Sieve::check_fits() const {
  const std::uint64_t table_bytes = 8 * (regions_ + 1), w = w_;
  const std::uint64_t window = 4ull * options_.tile * options_.tile;
  if (table_bytes + 8 * w + window > budget_.available())
    throw BudgetError("memory budget too small for clump --min-size: its region table needs " +
                      MemoryBudget::format_size(table_bytes) + " (8 bytes for each of " + std::to_string(regions_) +
                      " regions) beside two rows of " + std::to_string(w) + " labels, but only " +
                      MemoryBudget::format_size(budget_.available()) + " of --memory " +
                      MemoryBudget::format_size(budget_.total()) + " is left; raise --memory to " +
                      MemoryBudget::format_size(budget_.reserved() + table_bytes + 8 * w + window) + " at least");
}

ClumpSieveResult Sieve::run(ClumpWindowSink* sink) {
  count_sizes();
  if (options_.action == ClumpSmallAction::Merge && result_.small_regions > 0) choose_targets();
  renumber();
  write_windows(sink);
  result_.bytes_read += labels_.bytes_read();
  return result_;
}

// 1. Sizes, saturated at N.
void Sieve::count_sizes() {
  progress_.update("clump: sieve sizes", 0, h_);
  for (std::uint64_t y = 0; y < h_; ++y) {
    labels_.read_row(y, row_.data());
    for (std::uint64_t x = 0; x < w_; ++x) {
      std::uint32_t& s = size_[row_[x]];
      if (s < n_) ++s;
    }
    progress_.update("clump: sieve sizes", y + 1, h_);
  }
  size_[0] = 0;
  for (std::uint64_t l = 1; l <= regions_; ++l) result_.small_regions += small(static_cast<std::uint32_t>(l));
}

// 2. Each small region's target (merge): the borders to larger neighbours, sorted by (a, b).
void Sieve::choose_targets() {
  std::uint64_t buffer = options_.sort_buffer_bytes;
  if (buffer == 0) buffer = std::min<std::uint64_t>(budget_.available() / 4, 64ull << 20);
  ExternalSorter sorter(options_.scratch_dir + "/clump_sieve_borders", budget_, buffer);
  push_borders(sorter);
  sorter.finish();
  pick_best_borders(sorter);
  result_.bytes_read += sorter.bytes_read();
  result_.bytes_written += sorter.bytes_written();
  follow_chains();
}

// Every border (a, b) of a small region a with a larger neighbour b, once per pair of cells.
void Sieve::push_borders(ExternalSorter& sorter) {
  progress_.update("clump: sieve borders", 0, h_);
  for (std::uint64_t y = 0; y < h_; ++y) {
    labels_.read_row(y, row_.data());
    for_each_neighbour_pair(y > 0 ? above_.data() : nullptr, row_.data(), w_, eight_, [&](std::uint32_t a, std::uint32_t b) {
      if (b == 0 || a == b) return;
      if (small(a) && larger(b, a)) sorter.push({(static_cast<std::uint64_t>(a) << 32) | b, 0});
      if (small(b) && larger(a, b)) sorter.push({(static_cast<std::uint64_t>(b) << 32) | a, 0});
    });
    std::swap(row_, above_);
    progress_.update("clump: sieve borders", y + 1, h_);
  }
}

// Runs of equal (a, b) keys arrive by a, then b ascending: border(a, b) = the run's length; a
// strictly longer border replaces the best so far, so ties go to the smallest b.
void Sieve::pick_best_borders(ExternalSorter& sorter) {
  SortRecord record;
  std::uint64_t key = ~0ull, count = 0, best_count = 0;
  std::uint32_t current = 0;  // the a whose targets are being chosen (0: none yet)
  auto close_run = [&]() {
    if (key == ~0ull) return;
    const auto a = static_cast<std::uint32_t>(key >> 32), b = static_cast<std::uint32_t>(key);
    if (a != current) current = a, best_count = 0;
    if (count > best_count) target_[a] = b, best_count = count;
  };
  while (sorter.next(&record)) {
    if (record.key != key) {
      close_run();
      key = record.key;
      count = 0;
    }
    ++count;
  }
  close_run();
}

// Follow the chains (each step goes to a larger region: no cycles), compressing them.
void Sieve::follow_chains() {
  for (std::uint64_t l = 1; l <= regions_; ++l) {
    std::uint32_t r = static_cast<std::uint32_t>(l);
    while (target_[r] != r) r = target_[r];
    std::uint32_t c = static_cast<std::uint32_t>(l);
    while (target_[c] != r) {
      const std::uint32_t next = target_[c];
      target_[c] = r;
      c = next;
    }
    if (small(static_cast<std::uint32_t>(l))) {
      if (r != l) ++result_.merged;
      else ++result_.isolated;
    }
  }
}

// The new numbers: surviving groups in order of their smallest label (= their first cell).
// target[l] becomes l's new label (0: cleared); size[] holds the numbers of the roots.
void Sieve::renumber() {
  std::uint32_t next = 0;
  if (options_.action == ClumpSmallAction::Nodata) {
    for (std::uint64_t l = 1; l <= regions_; ++l) target_[l] = small(static_cast<std::uint32_t>(l)) ? 0 : ++next;
  } else {
    std::fill(size_.begin(), size_.end(), 0u);
    for (std::uint64_t l = 1; l <= regions_; ++l) {
      const std::uint32_t r = target_[l];  // r <= l is not guaranteed, but size[r] is set when first met
      if (size_[r] == 0) size_[r] = ++next;
      target_[l] = size_[r];
    }
  }
  result_.regions = next;
  target_[0] = 0;
}

// 3. The windows, relabelled; cells per new label counted in size[] (saturating). The label rows
// are given back first.
void Sieve::write_windows(ClumpWindowSink* sink) {
  std::fill(size_.begin(), size_.end(), 0u);
  rows_reservation_ = MemoryBudget::Reservation();
  row_ = std::vector<std::uint32_t>();
  above_ = std::vector<std::uint32_t>();
  const std::uint32_t t = options_.tile;
  auto window_reservation = budget_.reserve(4ull * t * t, "clump --min-size window");
  std::vector<std::uint32_t> window(static_cast<std::uint64_t>(t) * t);
  const std::uint64_t tiles_x = (w_ + t - 1) / t, tiles_y = (h_ + t - 1) / t;
  progress_.update("clump: sieve write", 0, tiles_y);
  for (std::uint64_t ty = 0; ty < tiles_y; ++ty) {
    const std::uint64_t y0 = ty * t;
    const auto wh = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, h_ - y0));
    for (std::uint64_t tx = 0; tx < tiles_x; ++tx) {
      const std::uint64_t x0 = tx * t;
      const auto ww = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, w_ - x0));
      labels_.read_window(x0, y0, ww, wh, window.data());
      const std::uint64_t cells = static_cast<std::uint64_t>(ww) * wh;
      for (std::uint64_t i = 0; i < cells; ++i) {
        const std::uint32_t l = target_[window[i]];
        window[i] = l;
        if (l == 0) continue;
        ++result_.cells_labelled;
        if (size_[l] != 0xFFFFFFFFu) ++size_[l];
      }
      if (sink) sink->write_window(x0, y0, ww, wh, window.data());
    }
    progress_.update("clump: sieve write", ty + 1, tiles_y);
  }
  for (std::uint64_t l = 1; l <= result_.regions; ++l)
    result_.largest_region = std::max<std::uint64_t>(result_.largest_region, size_[l]);
}

}  // namespace

ClumpSieveResult run_clump_sieve(const ClumpLabelFile& labels, std::uint64_t regions, const ClumpSieveOptions& options,
                                 MemoryBudget& budget, Progress& progress, ClumpWindowSink* sink) {
  Sieve sieve(labels, regions, options, budget, progress);
  return sieve.run(sink);
}

}  // namespace terrazo
