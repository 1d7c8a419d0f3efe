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

}  // namespace

ClumpSieveResult run_clump_sieve(const ClumpLabelFile& labels, std::uint64_t regions, const ClumpSieveOptions& options,
                                 MemoryBudget& budget, Progress& progress, ClumpWindowSink* sink) {
  if (options.min_size == 0) throw UsageError("invalid --min-size 0: expected a cell count of at least 1");
  const std::uint64_t w = labels.width(), h = labels.height();
  const std::uint32_t n = static_cast<std::uint32_t>(std::min<std::uint64_t>(options.min_size, 0xFFFFFFFFull));
  const bool eight = options.connectivity == Connectivity::Eight;
  ClumpSieveResult result;
  // The region table: size (saturated at N; later the numbers of the roots) and target, per label 0..K.
  const std::uint64_t table_bytes = 8 * (regions + 1);
  if (table_bytes + 8 * w + 4ull * options.tile * options.tile > budget.available())
    throw BudgetError("memory budget too small for clump --min-size: its region table needs " +
                MemoryBudget::format_size(table_bytes) + " (8 bytes for each of " + std::to_string(regions) +
                " regions) beside two rows of " + std::to_string(w) + " labels, but only " +
                MemoryBudget::format_size(budget.available()) + " of --memory " + MemoryBudget::format_size(budget.total()) +
                " is left; raise --memory to " + MemoryBudget::format_size(budget.reserved() + table_bytes + 8 * w +
                                                                          4ull * options.tile * options.tile) + " at least");
  auto table_reservation = budget.reserve(table_bytes, "clump --min-size region table");
  std::vector<std::uint32_t> size(regions + 1, 0), target(regions + 1);
  for (std::uint64_t l = 0; l <= regions; ++l) target[l] = static_cast<std::uint32_t>(l);
  auto rows_reservation = budget.reserve(8 * w, "clump --min-size label rows");
  std::vector<std::uint32_t> row(w), above(w);

  // 1. Sizes, saturated at N.
  progress.update("clump: sieve sizes", 0, h);
  for (std::uint64_t y = 0; y < h; ++y) {
    labels.read_row(y, row.data());
    for (std::uint64_t x = 0; x < w; ++x) {
      std::uint32_t& s = size[row[x]];
      if (s < n) ++s;
    }
    progress.update("clump: sieve sizes", y + 1, h);
  }
  size[0] = 0;
  auto small = [&](std::uint32_t r) { return size[r] < n; };
  auto larger = [&](std::uint32_t b, std::uint32_t a) { return size[b] > size[a] || (size[b] == size[a] && b < a); };
  for (std::uint64_t l = 1; l <= regions; ++l) result.small_regions += small(static_cast<std::uint32_t>(l));

  // 2. Each small region's target (merge): the borders to larger neighbours, sorted by (a, b).
  if (options.action == ClumpSmallAction::Merge && result.small_regions > 0) {
    std::uint64_t buffer = options.sort_buffer_bytes;
    if (buffer == 0) buffer = std::min<std::uint64_t>(budget.available() / 4, 64ull << 20);
    ExternalSorter sorter(options.scratch_dir + "/clump_sieve_borders", budget, buffer);
    progress.update("clump: sieve borders", 0, h);
    for (std::uint64_t y = 0; y < h; ++y) {
      labels.read_row(y, row.data());
      for_each_neighbour_pair(y > 0 ? above.data() : nullptr, row.data(), w, eight, [&](std::uint32_t a, std::uint32_t b) {
        if (b == 0 || a == b) return;
        if (small(a) && larger(b, a)) sorter.push({(static_cast<std::uint64_t>(a) << 32) | b, 0});
        if (small(b) && larger(a, b)) sorter.push({(static_cast<std::uint64_t>(b) << 32) | a, 0});
      });
      std::swap(row, above);
      progress.update("clump: sieve borders", y + 1, h);
    }
    sorter.finish();
    // Runs of equal (a, b) keys arrive by a, then b ascending: border(a, b) = the run's length; a
    // strictly longer border replaces the best so far, so ties go to the smallest b.
    SortRecord record;
    std::uint64_t key = ~0ull, count = 0, best_count = 0;
    std::uint32_t current = 0;  // the a whose targets are being chosen (0: none yet)
    auto close_run = [&]() {
      if (key == ~0ull) return;
      const auto a = static_cast<std::uint32_t>(key >> 32), b = static_cast<std::uint32_t>(key);
      if (a != current) current = a, best_count = 0;
      if (count > best_count) target[a] = b, best_count = count;
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
    result.bytes_read += sorter.bytes_read();
    result.bytes_written += sorter.bytes_written();
    // Follow the chains (each step goes to a larger region: no cycles), compressing them.
    for (std::uint64_t l = 1; l <= regions; ++l) {
      std::uint32_t r = static_cast<std::uint32_t>(l);
      while (target[r] != r) r = target[r];
      std::uint32_t c = static_cast<std::uint32_t>(l);
      while (target[c] != r) {
        const std::uint32_t next = target[c];
        target[c] = r;
        c = next;
      }
      if (small(static_cast<std::uint32_t>(l))) {
        if (r != l) ++result.merged;
        else ++result.isolated;
      }
    }
  }

  // The new numbers: surviving groups in order of their smallest label (= their first cell).
  // target[l] becomes l's new label (0: cleared); size[] holds the numbers of the roots.
  std::vector<char> cleared;
  if (options.action == ClumpSmallAction::Nodata) {
    std::uint32_t next = 0;
    for (std::uint64_t l = 1; l <= regions; ++l) target[l] = small(static_cast<std::uint32_t>(l)) ? 0 : ++next;
    result.regions = next;
  } else {
    std::fill(size.begin(), size.end(), 0u);
    std::uint32_t next = 0;
    for (std::uint64_t l = 1; l <= regions; ++l) {
      const std::uint32_t r = target[l];  // r <= l is not guaranteed, but size[r] is set when first met
      if (size[r] == 0) size[r] = ++next;
      target[l] = size[r];
    }
    result.regions = next;
  }
  target[0] = 0;

  // 3. The windows, relabelled; cells per new label counted in size[] (saturating).
  std::fill(size.begin(), size.end(), 0u);
  rows_reservation = MemoryBudget::Reservation();
  row = std::vector<std::uint32_t>();
  above = std::vector<std::uint32_t>();
  const std::uint32_t t = options.tile;
  auto window_reservation = budget.reserve(4ull * t * t, "clump --min-size window");
  std::vector<std::uint32_t> window(static_cast<std::uint64_t>(t) * t);
  const std::uint64_t tiles_x = (w + t - 1) / t, tiles_y = (h + t - 1) / t;
  progress.update("clump: sieve write", 0, tiles_y);
  for (std::uint64_t ty = 0; ty < tiles_y; ++ty) {
    const std::uint64_t y0 = ty * t;
    const auto wh = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, h - y0));
    for (std::uint64_t tx = 0; tx < tiles_x; ++tx) {
      const std::uint64_t x0 = tx * t;
      const auto ww = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, w - x0));
      labels.read_window(x0, y0, ww, wh, window.data());
      const std::uint64_t cells = static_cast<std::uint64_t>(ww) * wh;
      for (std::uint64_t i = 0; i < cells; ++i) {
        const std::uint32_t l = target[window[i]];
        window[i] = l;
        if (l == 0) continue;
        ++result.cells_labelled;
        if (size[l] != 0xFFFFFFFFu) ++size[l];
      }
      if (sink) sink->write_window(x0, y0, ww, wh, window.data());
    }
    progress.update("clump: sieve write", ty + 1, tiles_y);
  }
  for (std::uint64_t l = 1; l <= result.regions; ++l) result.largest_region = std::max<std::uint64_t>(result.largest_region, size[l]);
  result.bytes_read += labels.bytes_read();
  return result;
}

}  // namespace terrazo
