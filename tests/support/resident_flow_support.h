// tests/support/resident_flow_support.h: driving the resident flow accumulation and watershed
// labelling (kernels/flow/resident_flowacc.h, resident_watershed.h) on a whole in-memory raster, and
// the random direction rasters and expectations their tests share (tests/test_flowacc.cpp and
// tests/test_watershed.cpp: the CPU twins against the references; tests/gpu/test_resident_*_gpu.cpp:
// CUDA against the twins). GDAL- and engine-free.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/worker_pool.h"
#include "kernels/flow/resident_flowacc.h"
#include "kernels/flow/resident_watershed.h"
#include "tests/support/flow_reference.h"

namespace terrazo::testing {

struct ResidentFlowRun {
  std::vector<double> values;  // w * h row-major, when the stats are exact
  ResidentFlowAccStats stats;
};

// The solver on `codes` (w x h, NaN or 255 nodata) and `weights` (null: counts), written in windows
// of t x t from the last to the first (any order must do), each from a t-pitched buffer whose padding
// holds garbage; the values read back in windows of t x t when the stats are exact.
inline ResidentFlowRun run_resident_flowacc(Device device, const std::vector<double>& codes, std::uint64_t w,
                                            std::uint64_t h, std::uint32_t t, unsigned threads,
                                            const std::vector<double>* weights = nullptr, double scale = 1) {
  WorkerPool pool(threads);
  ResidentFlowAccOptions o;
  o.width = w;
  o.height = h;
  o.tile = t;
  o.weighted = weights != nullptr;
  o.scale = scale;
  const auto solver = make_resident_flowacc(device, o, pool);
  std::vector<double> buffer(std::size_t{t} * t);
  const std::uint64_t tiles_x = (w + t - 1) / t, tiles = tiles_x * ((h + t - 1) / t);
  const auto window = [&](std::uint64_t tile, std::uint64_t* x0, std::uint64_t* y0, std::uint32_t* ww, std::uint32_t* wh) {
    *x0 = tile % tiles_x * t;
    *y0 = tile / tiles_x * t;
    *ww = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, w - *x0));
    *wh = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, h - *y0));
  };
  const auto fill = [&](const std::vector<double>& from, std::uint64_t x0, std::uint64_t y0, std::uint32_t ww, std::uint32_t wh) {
    std::fill(buffer.begin(), buffer.end(), 77.5);
    for (std::uint32_t y = 0; y < wh; ++y)
      for (std::uint32_t x = 0; x < ww; ++x) buffer[std::size_t{y} * t + x] = from[(y0 + y) * w + x0 + x];
  };
  for (std::uint64_t k = tiles; k-- > 0;) {
    std::uint64_t x0, y0;
    std::uint32_t ww, wh;
    window(k, &x0, &y0, &ww, &wh);
    fill(codes, x0, y0, ww, wh);
    solver->write_codes(x0, y0, ww, wh, t, buffer.data());
    if (weights) {
      fill(*weights, x0, y0, ww, wh);
      solver->write_weights(x0, y0, ww, wh, t, buffer.data());
    }
  }
  ResidentFlowRun run;
  run.stats = solver->accumulate();
  if (!run.stats.exact()) return run;
  run.values.assign(w * h, 0);
  for (std::uint64_t k = 0; k < tiles; ++k) {
    std::uint64_t x0, y0;
    std::uint32_t ww, wh;
    window(k, &x0, &y0, &ww, &wh);
    solver->read_values(x0, y0, ww, wh, t, buffer.data());
    for (std::uint32_t y = 0; y < wh; ++y)
      for (std::uint32_t x = 0; x < ww; ++x) run.values[(y0 + y) * w + x0 + x] = buffer[std::size_t{y} * t + x];
  }
  return run;
}

// Codes drawn at random from every code, 0 and nodata: loops aplenty; with `bad` of the cells a value
// that is no code (3, 1.5, -1, 256).
inline std::vector<double> random_any_codes(std::mt19937_64& rng, std::uint64_t w, std::uint64_t h, double bad) {
  std::uniform_real_distribution<double> unit(0, 1);
  const double wrong[] = {3, 1.5, -1, 256};
  std::vector<double> codes(w * h);
  for (double& c : codes) {
    const double u = unit(rng);
    c = u < bad ? wrong[rng() % 4] : u < bad + 0.05 ? std::nan("") : u < bad + 0.08 ? 0.0 : kRefCodes[rng() % 8];
  }
  return codes;
}

// Case k of the GPU tests' random forests (random_d8_forest, holes and off-raster flow growing with
// k): 1 x N every tenth case, N x 1 the next, sides up to 300 (up to 1500 from case `large_from`),
// windows of 8 to 256; `what` names the seed, the case, the size and the window.
struct ForestCase {
  std::uint64_t w = 0, h = 0;
  std::uint32_t t = 0;
  std::vector<double> codes;
  std::string what;
};
inline ForestCase random_forest_case(std::mt19937_64& rng, std::uint64_t seed, int k, int large_from) {
  static const std::uint32_t tiles[] = {8, 16, 64, 256};
  ForestCase c;
  c.w = k % 10 == 0 ? 1 : 1 + rng() % (k < large_from ? 300 : 1500);
  c.h = k % 10 == 1 ? 1 : 1 + rng() % (k < large_from ? 300 : 1500);
  c.t = tiles[rng() % 4];
  c.codes = random_d8_forest(rng, c.w, c.h, (k % 4) * 0.05, (k % 3) * 0.01);
  c.what = "seed " + std::to_string(seed) + " case " + std::to_string(k) + ": " + std::to_string(c.w) + " x " +
           std::to_string(c.h) + " t " + std::to_string(c.t);
  return c;
}

// One path through every cell of a w x h raster (a serpentine: rows alternately east and west, down at
// each row's end): the longest walk, and one basin.
inline std::vector<double> serpentine_codes(std::uint64_t w, std::uint64_t h) {
  std::vector<double> codes(w * h);
  for (std::uint64_t y = 0; y < h; ++y)
    for (std::uint64_t x = 0; x < w; ++x) {
      const bool east = y % 2 == 0;
      const bool turn = east ? x + 1 == w : x == 0;
      codes[y * w + x] = turn ? 4 : east ? 1 : 16;
    }
  return codes;
}

// What a fault test's check found in one raster: loops, values that are no code, neither.
struct FoundFaults {
  bool looped = false, bad = false, clean = false;
};

// The CPU twins' fault tests: 150 rasters of random_any_codes (sides 1..40, a hundredth of the cells
// no code in every third), drawn from the seeds seed x `seed_factor`, each given to
// check(codes, w, h, seed) -> FoundFaults; then enough rasters with loops (> 50), with values that are
// no code (> 20) and with neither (> 5) that the checks could fail.
template <class Check>
void check_random_any_codes(std::uint64_t seed_factor, Check&& check) {
  std::uint64_t looped = 0, bad = 0, clean = 0;
  for (std::uint64_t seed = 1; seed <= 150; ++seed) {
    std::mt19937_64 rng(seed * seed_factor);
    const std::uint64_t w = 1 + rng() % 40, h = 1 + rng() % 40;
    const std::vector<double> codes = random_any_codes(rng, w, h, seed % 3 == 0 ? 0.01 : 0.0);
    const FoundFaults found = check(codes, w, h, seed);
    looped += found.looped;
    bad += found.bad;
    clean += found.clean;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(looped, 50u);
  EXPECT_GT(bad, 20u);
  EXPECT_GT(clean, 5u);
}

// The GPU tests' fault cases: 80 rasters of random_any_codes from `rng` (sides 1..200, 0.2% of the
// cells no code in every third), each given to check(codes, w, h, what) -> FoundFaults (`what` names
// `seed` and the case); how many had loops and how many values that are no code (the caller's floors).
struct FaultTotals {
  std::uint64_t looped = 0, bad = 0;
};
template <class Check>
FaultTotals check_gpu_any_codes(std::mt19937_64& rng, std::uint64_t seed, Check&& check) {
  FaultTotals totals;
  for (int k = 0; k < 80; ++k) {
    const std::uint64_t w = 1 + rng() % 200, h = 1 + rng() % 200;
    const std::vector<double> codes = random_any_codes(rng, w, h, k % 3 == 0 ? 0.002 : 0.0);
    const FoundFaults found = check(codes, w, h, "seed " + std::to_string(seed) + " case " + std::to_string(k));
    totals.looped += found.looped;
    totals.bad += found.bad;
    if (::testing::Test::HasFailure()) break;
  }
  return totals;
}

// What the resident solver must report for `codes`: valid cells, outlets, values that are no code,
// and cells on loops (valid cells Kahn's algorithm never reaches).
struct ExpectedFlowFaults {
  std::uint64_t valid = 0, outlets = 0, bad = 0, looped = 0;
};
inline ExpectedFlowFaults expected_flow_faults(const std::vector<double>& codes, std::uint64_t w, std::uint64_t h) {
  ExpectedFlowFaults e;
  std::vector<std::uint8_t> in_degree(codes.size(), 0);
  std::vector<std::uint64_t> queue;
  for (std::uint64_t i = 0; i < codes.size(); ++i) {
    if (!reference_valid(codes[i])) continue;
    ++e.valid;
    e.bad += codes[i] != 0 && reference_code_index(codes[i]) < 0;
    const std::int64_t d = reference_downstream(codes, w, h, i);
    if (d < 0)
      e.outlets += reference_code_index(codes[i]) >= 0 || codes[i] == 0;
    else
      ++in_degree[std::uint64_t(d)];
  }
  for (std::uint64_t i = 0; i < codes.size(); ++i)
    if (reference_valid(codes[i]) && in_degree[i] == 0) queue.push_back(i);
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::int64_t d = reference_downstream(codes, w, h, queue[head]);
    if (d >= 0 && --in_degree[std::uint64_t(d)] == 0) queue.push_back(std::uint64_t(d));
  }
  e.looped = e.valid - queue.size();
  return e;
}

// The accumulation as the solver writes it: reference_flowacc of `amount` (empty: counts) / scale,
// NaN at nodata.
inline std::vector<double> expected_flow_values(const std::vector<double>& codes, std::uint64_t w, std::uint64_t h,
                                                const std::vector<std::int64_t>& amount = {}, double scale = 1) {
  const std::vector<std::int64_t> acc = reference_flowacc(codes, w, h, amount);
  std::vector<double> values(codes.size());
  for (std::uint64_t i = 0; i < codes.size(); ++i)
    values[i] = !reference_valid(codes[i]) ? std::nan("")
                : scale == 1               ? static_cast<double>(acc[i])
                                           : static_cast<double>(acc[i]) / scale;
  return values;
}

// Random weights (a ninth NaN, some negative) and their fixed-point amounts llround(w x scale).
inline std::vector<double> random_flow_weights(std::mt19937_64& rng, std::uint64_t cells, double scale,
                                               std::vector<std::int64_t>& amount) {
  std::uniform_real_distribution<double> unit(-0.5, 2);
  std::vector<double> weights(cells);
  amount.assign(cells, 0);
  for (std::uint64_t i = 0; i < cells; ++i) {
    weights[i] = rng() % 9 == 0 ? std::nan("") : unit(rng);
    amount[i] = std::isnan(weights[i]) ? 0 : std::llround(weights[i] * scale);
  }
  return weights;
}

// Whether two value rasters hold the same bits (NaN = NaN).
inline bool same_flow_bits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
  return true;
}

// The t x t windows of a w x h raster, row-major: window(k, &x0, &y0, &ww, &wh).
struct RasterWindows {
  std::uint64_t w, h;
  std::uint32_t t;
  std::uint64_t count() const { return ((w + t - 1) / t) * ((h + t - 1) / t); }
  void window(std::uint64_t k, std::uint64_t* x0, std::uint64_t* y0, std::uint32_t* ww, std::uint32_t* wh) const {
    const std::uint64_t tiles_x = (w + t - 1) / t;
    *x0 = k % tiles_x * t;
    *y0 = k / tiles_x * t;
    *ww = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, w - *x0));
    *wh = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, h - *y0));
  }
};

struct ResidentBasinRun {
  std::vector<std::uint32_t> labels;  // w * h row-major, when the stats are exact
  ResidentWatershedStats stats;
};

// The watershed solver on `codes` (w x h, NaN or 255 nodata), written in windows of t x t from the
// last to the first from t-pitched buffers with garbage padding; labels read back when exact.
inline ResidentBasinRun run_resident_watershed(Device device, const std::vector<double>& codes, std::uint64_t w,
                                               std::uint64_t h, std::uint32_t t, unsigned threads) {
  WorkerPool pool(threads);
  ResidentWatershedOptions o;
  o.width = w;
  o.height = h;
  o.tile = t;
  const auto solver = make_resident_watershed(device, o, pool);
  const RasterWindows windows{w, h, t};
  std::vector<double> buffer(std::size_t{t} * t);
  for (std::uint64_t k = windows.count(); k-- > 0;) {
    std::uint64_t x0, y0;
    std::uint32_t ww, wh;
    windows.window(k, &x0, &y0, &ww, &wh);
    std::fill(buffer.begin(), buffer.end(), 77.5);
    for (std::uint32_t y = 0; y < wh; ++y)
      for (std::uint32_t x = 0; x < ww; ++x) buffer[std::size_t{y} * t + x] = codes[(y0 + y) * w + x0 + x];
    solver->write_codes(x0, y0, ww, wh, t, buffer.data());
  }
  ResidentBasinRun run;
  run.stats = solver->label();
  if (!run.stats.exact()) return run;
  run.labels.assign(w * h, 0);
  std::vector<std::uint32_t> labels(std::size_t{t} * t);
  for (std::uint64_t k = 0; k < windows.count(); ++k) {
    std::uint64_t x0, y0;
    std::uint32_t ww, wh;
    windows.window(k, &x0, &y0, &ww, &wh);
    solver->read_labels(x0, y0, ww, wh, t, labels.data());
    for (std::uint32_t y = 0; y < wh; ++y)
      for (std::uint32_t x = 0; x < ww; ++x) run.labels[(y0 + y) * w + x0 + x] = labels[std::size_t{y} * t + x];
  }
  return run;
}

// The valid cells whose flow never ends (on a loop or draining into one), as the watershed solver
// reports them: each path followed once, its cells marked as it resolves.
inline std::uint64_t expected_basin_looped(const std::vector<double>& codes, std::uint64_t w, std::uint64_t h) {
  enum : std::uint8_t { kUnknown, kWalking, kEnds, kLoops };
  std::vector<std::uint8_t> state(codes.size(), kUnknown);
  std::vector<std::uint64_t> path;
  std::uint64_t looped = 0;
  for (std::uint64_t i = 0; i < codes.size(); ++i) {
    if (!reference_valid(codes[i]) || state[i] != kUnknown) continue;
    path.clear();
    std::int64_t c = std::int64_t(i);
    while (c >= 0 && state[std::uint64_t(c)] == kUnknown) {
      state[std::uint64_t(c)] = kWalking;
      path.push_back(std::uint64_t(c));
      c = reference_downstream(codes, w, h, std::uint64_t(c));
    }
    const bool loops = c >= 0 && (state[std::uint64_t(c)] == kWalking || state[std::uint64_t(c)] == kLoops);
    for (const std::uint64_t v : path) state[v] = loops ? kLoops : kEnds;
    if (loops) looped += path.size();
  }
  return looped;
}

}  // namespace terrazo::testing
