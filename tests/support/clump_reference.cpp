// tests/support/clump_reference.cpp: the plain formulas of tests/support/clump_reference.h.
#include "tests/support/clump_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

namespace terrazo::testing {

ClumpReference clump_reference(const std::vector<double>& values, std::uint64_t w, std::uint64_t h,
                               const ClumpPhaseOptions& o) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> keys(values);
  for (double& v : keys) {
    if (std::isnan(v)) continue;
    if (o.by == ClumpBy::Valid) v = 0;
    if (o.by == ClumpBy::Range) v = (v >= o.range_lo && v <= o.range_hi) ? 0 : nan;
  }
  ClumpReference r;
  r.labels.assign(w * h, 0);
  std::vector<std::uint64_t> stack;
  for (std::uint64_t s = 0; s < w * h; ++s) {
    if (std::isnan(keys[s]) || r.labels[s]) continue;
    const auto label = static_cast<std::uint32_t>(++r.regions);
    std::uint64_t size = 0;
    r.labels[s] = label;
    stack.push_back(s);
    while (!stack.empty()) {
      const std::uint64_t c = stack.back();
      stack.pop_back();
      ++size;
      const std::int64_t cx = c % w, cy = c / w;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          if ((dx == 0 && dy == 0) || (o.connectivity == Connectivity::Four && dx != 0 && dy != 0)) continue;
          const std::int64_t nx = cx + dx, ny = cy + dy;
          if (nx < 0 || ny < 0 || nx >= static_cast<std::int64_t>(w) || ny >= static_cast<std::int64_t>(h)) continue;
          const std::uint64_t n = ny * w + nx;
          if (r.labels[n] || !(keys[n] == keys[c])) continue;
          r.labels[n] = label;
          stack.push_back(n);
        }
    }
    r.cells += size;
    r.largest = std::max(r.largest, size);
  }
  return r;
}

std::vector<ClumpRegionStats> clump_reference_stats(const ClumpReference& o, const std::vector<double>& values,
                                                    std::uint64_t w, std::uint64_t h, ClumpBy by) {
  std::vector<ClumpRegionStats> r(o.regions);
  std::vector<bool> seen(o.regions, false);
  for (std::uint64_t y = 0; y < h; ++y)
    for (std::uint64_t x = 0; x < w; ++x) {
      const std::uint32_t l = o.labels[y * w + x];
      if (!l) continue;
      ClumpRegionStats& s = r[l - 1];
      if (!seen[l - 1]) {
        seen[l - 1] = true;
        s.label = l;
        s.value = by == ClumpBy::Value ? values[y * w + x] : std::numeric_limits<double>::quiet_NaN();
        s.col_min = s.col_max = x;
        s.row_min = s.row_max = y;
      }
      ++s.cells;
      s.col_min = std::min(s.col_min, x), s.col_max = std::max(s.col_max, x);
      s.row_min = std::min(s.row_min, y), s.row_max = std::max(s.row_max, y);
    }
  return r;
}

std::vector<std::uint32_t> sieve_reference(const ClumpReference& o, std::uint64_t w, std::uint64_t h, Connectivity c,
                                           std::uint64_t n, ClumpSmallAction action) {
  const std::uint64_t k = o.regions;
  std::vector<std::uint64_t> size(k + 1, 0);
  for (std::uint32_t l : o.labels) ++size[l];
  auto small = [&](std::uint64_t r) { return size[r] < n; };
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> border;
  for (std::uint64_t y = 0; y < h; ++y)
    for (std::uint64_t x = 0; x < w; ++x) {
      const std::uint32_t a = o.labels[y * w + x];
      const int dxs[] = {1, 0, 1, -1}, dys[] = {0, 1, 1, 1};  // E, S, SE, SW: each pair once
      for (int d = 0; d < (c == Connectivity::Eight ? 4 : 2); ++d) {
        const std::int64_t nx = static_cast<std::int64_t>(x) + dxs[d], ny = static_cast<std::int64_t>(y) + dys[d];
        if (nx < 0 || nx >= static_cast<std::int64_t>(w) || ny >= static_cast<std::int64_t>(h)) continue;
        const std::uint32_t b = o.labels[ny * w + nx];
        if (a == 0 || b == 0 || a == b) continue;
        ++border[{a, b}];
        ++border[{b, a}];
      }
    }
  std::vector<std::uint64_t> target(k + 1);
  for (std::uint64_t l = 0; l <= k; ++l) target[l] = l;
  std::vector<std::uint64_t> best(k + 1, 0);
  if (action == ClumpSmallAction::Merge)
    for (const auto& [pair, count] : border) {  // by a, then b ascending
      const auto [a, b] = pair;
      if (!small(a)) continue;
      if (!(size[b] > size[a] || (size[b] == size[a] && b < a))) continue;
      if (count > best[a]) best[a] = count, target[a] = b;
    }
  std::vector<std::uint32_t> number(k + 1, 0), out(w * h, 0);
  std::uint32_t next = 0;
  std::vector<std::uint32_t> label_of(k + 1, 0);
  for (std::uint64_t l = 1; l <= k; ++l) {
    if (action == ClumpSmallAction::Nodata) {
      label_of[l] = small(l) ? 0 : ++next;
      continue;
    }
    std::uint64_t r = l;
    while (target[r] != r) r = target[r];
    if (number[r] == 0) number[r] = ++next;
    label_of[l] = number[r];
  }
  for (std::uint64_t i = 0; i < w * h; ++i) out[i] = label_of[o.labels[i]];
  return out;
}

}  // namespace terrazo::testing
