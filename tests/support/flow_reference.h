// tests/support/flow_reference.h: whole-raster, in-memory D8 references, the oracles of the
// out-of-core flow commands: a steepest-descent D8 of a DEM whose flats drain by a fixed rule (so its
// directions never loop), random forests of directions, and flow accumulation by following every
// cell's path (the textbook definition, no tiles, no order).
// Codes: ESRI's (1 E, 2 SE, 4 S, 8 SW, 16 W, 32 NW, 64 N, 128 NE), 0 no flow, 255 nodata; rasters
// are doubles, NaN or 255 nodata, row-major.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace terrazo::testing {

constexpr int kRefCodes[8] = {1, 2, 4, 8, 16, 32, 64, 128};
constexpr int kRefDx[8] = {1, 1, 0, -1, -1, -1, 0, 1};
constexpr int kRefDy[8] = {0, 1, 1, 1, 0, -1, -1, -1};

inline int reference_code_index(double code) {
  for (int d = 0; d < 8; ++d)
    if (code == kRefCodes[d]) return d;
  return -1;
}

// Steepest descent D8 of `dem` (NaN nodata) on the order (elevation, cell id): a cell flows to the
// neighbour of the largest drop per unit of distance among those lower than it in that order (equal
// elevations: the smaller id is lower, so flats drain towards the raster's top-left and never loop),
// the first in code order on ties; 0 where no neighbour is lower; 255 at nodata.
inline std::vector<double> reference_d8(const std::vector<double>& dem, std::uint64_t w, std::uint64_t h) {
  std::vector<double> codes(dem.size(), 255.0);
  for (std::uint64_t y = 0; y < h; ++y)
    for (std::uint64_t x = 0; x < w; ++x) {
      const std::uint64_t i = y * w + x;
      if (std::isnan(dem[i])) continue;
      int best = -1;
      double best_drop = -1;
      for (int d = 0; d < 8; ++d) {
        const std::int64_t nx = std::int64_t(x) + kRefDx[d], ny = std::int64_t(y) + kRefDy[d];
        if (nx < 0 || ny < 0 || nx >= std::int64_t(w) || ny >= std::int64_t(h)) continue;
        const std::uint64_t n = std::uint64_t(ny) * w + std::uint64_t(nx);
        if (std::isnan(dem[n])) continue;
        const bool lower = dem[n] < dem[i] || (dem[n] == dem[i] && n < i);
        if (!lower) continue;
        const double drop = (dem[i] - dem[n]) / (kRefDx[d] != 0 && kRefDy[d] != 0 ? std::sqrt(2.0) : 1.0);
        if (drop > best_drop) best = d, best_drop = drop;
      }
      codes[i] = best < 0 ? 0.0 : kRefCodes[best];
    }
  return codes;
}

// Random directions that never loop: each cell gets a random rank and flows to a random neighbour of
// lower rank, or off the raster, or into a nodata cell (a `holes` share of the cells); `outlets` of
// the cells have code 0.
inline std::vector<double> random_d8_forest(std::mt19937_64& rng, std::uint64_t w, std::uint64_t h, double holes,
                                            double outlets) {
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<double> rank(w * h), codes(w * h, 255.0);
  for (double& r : rank) r = unit(rng);
  for (std::uint64_t i = 0; i < w * h; ++i)
    if (unit(rng) < holes) rank[i] = std::nan("");
  for (std::uint64_t y = 0; y < h; ++y)
    for (std::uint64_t x = 0; x < w; ++x) {
      const std::uint64_t i = y * w + x;
      if (std::isnan(rank[i])) continue;
      int choices[8], n = 0;
      for (int d = 0; d < 8; ++d) {
        const std::int64_t nx = std::int64_t(x) + kRefDx[d], ny = std::int64_t(y) + kRefDy[d];
        const bool off = nx < 0 || ny < 0 || nx >= std::int64_t(w) || ny >= std::int64_t(h);
        if (off || std::isnan(rank[std::uint64_t(ny) * w + std::uint64_t(nx)]) ||
            rank[std::uint64_t(ny) * w + std::uint64_t(nx)] < rank[i])
          choices[n++] = d;
      }
      codes[i] = n == 0 || unit(rng) < outlets ? 0.0 : kRefCodes[choices[rng() % n]];
    }
  return codes;
}

// The cell that cell i's code points at inside the raster and valid, or -1 (the flow ends at i).
inline std::int64_t reference_downstream(const std::vector<double>& codes, std::uint64_t w, std::uint64_t h,
                                         std::uint64_t i) {
  const int d = reference_code_index(codes[i]);
  if (d < 0) return -1;
  const std::int64_t nx = std::int64_t(i % w) + kRefDx[d], ny = std::int64_t(i / w) + kRefDy[d];
  if (nx < 0 || ny < 0 || nx >= std::int64_t(w) || ny >= std::int64_t(h)) return -1;
  const std::uint64_t n = std::uint64_t(ny) * w + std::uint64_t(nx);
  return std::isnan(codes[n]) || codes[n] == 255 ? -1 : std::int64_t(n);
}

inline bool reference_valid(double code) { return !std::isnan(code) && code != 255; }

// Each valid cell's accumulation: the sum of amount[j] over the valid cells j whose path passes
// through it, itself included, by walking every cell's path to its end (amount empty: 1 each).
// Invalid cells: 0. The directions must not loop.
inline std::vector<std::int64_t> reference_flowacc(const std::vector<double>& codes, std::uint64_t w, std::uint64_t h,
                                                   const std::vector<std::int64_t>& amount = {}) {
  std::vector<std::int64_t> acc(codes.size(), 0);
  for (std::uint64_t j = 0; j < codes.size(); ++j) {
    if (!reference_valid(codes[j])) continue;
    const std::int64_t a = amount.empty() ? 1 : amount[j];
    for (std::int64_t c = std::int64_t(j); c >= 0; c = reference_downstream(codes, w, h, std::uint64_t(c)))
      acc[std::uint64_t(c)] += a;
  }
  return acc;
}

// The same by Kahn's algorithm over the whole raster (linear time, for the shipped DEMs, whose long
// paths make the walk slow); checked equal to reference_flowacc on the random rasters.
inline std::vector<std::int64_t> reference_flowacc_linear(const std::vector<double>& codes, std::uint64_t w,
                                                          std::uint64_t h) {
  std::vector<std::int64_t> acc(codes.size(), 0), down(codes.size(), -1);
  std::vector<std::uint8_t> in_degree(codes.size(), 0);
  std::vector<std::uint64_t> queue;
  for (std::uint64_t i = 0; i < codes.size(); ++i)
    if (reference_valid(codes[i])) {
      acc[i] = 1;
      down[i] = reference_downstream(codes, w, h, i);
      if (down[i] >= 0) ++in_degree[std::uint64_t(down[i])];
    }
  for (std::uint64_t i = 0; i < codes.size(); ++i)
    if (reference_valid(codes[i]) && in_degree[i] == 0) queue.push_back(i);
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::int64_t d = down[queue[head]];
    if (d < 0) continue;
    acc[std::uint64_t(d)] += acc[queue[head]];
    if (--in_degree[std::uint64_t(d)] == 0) queue.push_back(std::uint64_t(d));
  }
  return acc;
}

// Each valid cell's basin label: the cells whose paths end at the same cell share a basin, labelled
// 1..K in raster order of each basin's first cell; 0 at nodata. The directions must not loop.
inline std::vector<std::uint32_t> reference_watershed(const std::vector<double>& codes, std::uint64_t w,
                                                      std::uint64_t h) {
  std::vector<std::int64_t> outlet(codes.size(), -1);
  std::vector<std::uint64_t> walk;
  for (std::uint64_t i = 0; i < codes.size(); ++i) {
    if (!reference_valid(codes[i]) || outlet[i] >= 0) continue;
    walk.clear();
    std::uint64_t c = i;
    for (;;) {
      walk.push_back(c);
      const std::int64_t d = reference_downstream(codes, w, h, c);
      if (d < 0) break;
      c = std::uint64_t(d);
      if (outlet[c] >= 0) break;
    }
    const std::int64_t end = outlet[c] >= 0 ? outlet[c] : std::int64_t(c);
    for (const std::uint64_t v : walk) outlet[v] = end;
  }
  std::vector<std::uint32_t> label_of_outlet(codes.size(), 0), labels(codes.size(), 0);
  std::uint32_t next = 1;
  for (std::uint64_t i = 0; i < codes.size(); ++i) {
    if (outlet[i] < 0) continue;
    std::uint32_t& l = label_of_outlet[std::uint64_t(outlet[i])];
    if (l == 0) l = next++;
    labels[i] = l;
  }
  return labels;
}

// The basins of pour points (raster ids, any order): each valid cell's flow followed until it reaches
// a pour point (the cell itself may be one) gives that pour point's basin; a flow that never does
// gives 0, as nodata does. Basins labelled 1..K in raster order of their first cell. The directions
// must not loop.
inline std::vector<std::uint32_t> reference_pour_point_basins(const std::vector<double>& codes, std::uint64_t w,
                                                              std::uint64_t h,
                                                              const std::vector<std::uint64_t>& pour_points) {
  std::vector<std::uint8_t> is_pour(codes.size(), 0);
  for (const std::uint64_t p : pour_points) is_pour[p] = 1;
  std::vector<std::int64_t> reached(codes.size(), -2);  // -2 not known yet, -1 no pour point, else the pour point
  std::vector<std::uint64_t> walk;
  for (std::uint64_t i = 0; i < codes.size(); ++i) {
    if (!reference_valid(codes[i]) || reached[i] != -2) continue;
    walk.clear();
    std::int64_t c = std::int64_t(i), end = -1;
    while (c >= 0) {
      if (reached[std::uint64_t(c)] != -2) {
        end = reached[std::uint64_t(c)];
        break;
      }
      walk.push_back(std::uint64_t(c));
      if (is_pour[std::uint64_t(c)]) {
        end = c;
        break;
      }
      c = reference_downstream(codes, w, h, std::uint64_t(c));
    }
    for (const std::uint64_t v : walk) reached[v] = end;
  }
  std::vector<std::uint32_t> label_of(codes.size(), 0), labels(codes.size(), 0);
  std::uint32_t next = 1;
  for (std::uint64_t i = 0; i < codes.size(); ++i) {
    if (!reference_valid(codes[i]) || reached[i] < 0) continue;
    std::uint32_t& l = label_of[std::uint64_t(reached[i])];
    if (l == 0) l = next++;
    labels[i] = l;
  }
  return labels;
}

// The stream network of the cells whose accumulation (reference_flowacc_linear) is at least
// `threshold`, by its textbook definitions on the whole raster: a stream cell flows into its
// downstream cell when that one is a stream cell; its Strahler order is 1 without upstream stream
// cells, else the highest upstream order k, plus 1 when two or more upstream cells have order k
// (orders: 255 at nodata, 0 at other valid cells). Heads are stream cells with 0 or 2+ upstream stream
// cells; segment i + 1 starts at the i-th head in raster order and runs down to the cell before the
// next head (its junction) or to the network's end. The directions must not loop.
struct ReferenceStreams {
  struct Segment {
    std::uint8_t order = 0;
    std::uint64_t downstream = 0;  // 0: none
    std::vector<std::uint64_t> cells;
    std::int64_t junction = -1;
  };
  std::vector<std::uint8_t> orders;
  std::vector<Segment> segments;
  std::uint64_t stream_cells = 0;
  std::uint64_t max_order = 0;
};

inline ReferenceStreams reference_streams(const std::vector<double>& codes, std::uint64_t w, std::uint64_t h,
                                          std::int64_t threshold) {
  const std::vector<std::int64_t> acc = reference_flowacc_linear(codes, w, h);
  const std::uint64_t n = codes.size();
  std::vector<std::uint8_t> stream(n, 0);
  for (std::uint64_t i = 0; i < n; ++i) stream[i] = reference_valid(codes[i]) && acc[i] >= threshold;
  std::vector<std::int64_t> down(n, -1);
  std::vector<std::vector<std::uint64_t>> up(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    if (!stream[i]) continue;
    const std::int64_t d = reference_downstream(codes, w, h, i);
    if (d >= 0 && stream[std::uint64_t(d)]) down[i] = d, up[std::uint64_t(d)].push_back(i);
  }
  ReferenceStreams r;
  r.orders.assign(n, 0);
  // Orders by recursion made iterative: a cell is done once all its upstream cells are.
  std::vector<std::uint64_t> stack;
  for (std::uint64_t i = 0; i < n; ++i) {
    if (!reference_valid(codes[i])) r.orders[i] = 255;
    if (!stream[i] || r.orders[i] != 0) continue;
    stack.push_back(i);
    while (!stack.empty()) {
      const std::uint64_t c = stack.back();
      bool ready = true;
      for (const std::uint64_t u : up[c])
        if (r.orders[u] == 0) stack.push_back(u), ready = false;
      if (!ready) continue;
      stack.pop_back();
      int top = 0, count = 0;
      for (const std::uint64_t u : up[c]) top = std::max<int>(top, r.orders[u]);
      for (const std::uint64_t u : up[c]) count += r.orders[u] == top;
      r.orders[c] = static_cast<std::uint8_t>(up[c].empty() ? 1 : count >= 2 ? top + 1 : top);
    }
  }
  std::vector<std::uint64_t> id(n, 0);
  for (std::uint64_t i = 0; i < n; ++i) {
    if (!stream[i]) continue;
    ++r.stream_cells;
    r.max_order = std::max<std::uint64_t>(r.max_order, r.orders[i]);
    if (up[i].size() != 1) id[i] = r.segments.size() + 1, r.segments.emplace_back();
  }
  for (std::uint64_t i = 0; i < n; ++i) {
    if (!stream[i] || up[i].size() == 1) continue;
    ReferenceStreams::Segment& s = r.segments[id[i] - 1];
    s.order = r.orders[i];
    std::int64_t c = std::int64_t(i);
    do {
      s.cells.push_back(std::uint64_t(c));
      c = down[std::uint64_t(c)];
    } while (c >= 0 && up[std::uint64_t(c)].size() == 1);
    if (c >= 0) s.junction = c, s.downstream = id[std::uint64_t(c)];
  }
  return r;
}

}  // namespace terrazo::testing
