// tests/support/resident_flowdir_run.h: driving the resident flow directions
// (kernels/flow/resident_flowdir.h) on a whole in-memory raster, and the rasters with large flats its
// tests share (tests/test_flowdir.cpp: the CPU twin against the tile pipeline and the oracle;
// tests/gpu/test_resident_flowdir_gpu.cpp: CUDA against the twin). GDAL- and engine-free.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/worker_pool.h"
#include "kernels/flow/resident_flowdir.h"

namespace terrazo::testing {

struct ResidentFlowdirRun {
  std::vector<std::uint8_t> codes;  // w * h row-major
  ResidentFlowdirStats stats;
};

// The counts the resident solver and the tile pipeline both give (ResidentFlowdirStats,
// FlowdirPhaseResult), `got` against `want`.
inline void expect_same_flowdir_counts(const FlowdirCounts& got, const FlowdirCounts& want, const std::string& what) {
  EXPECT_EQ(got.valid_cells, want.valid_cells) << what;
  EXPECT_EQ(got.flat_cells, want.flat_cells) << what;
  EXPECT_EQ(got.outlet_cells, want.outlet_cells) << what;
  EXPECT_EQ(got.flats, want.flats) << what;
  EXPECT_EQ(got.undrained_flats, want.undrained_flats) << what;
  EXPECT_EQ(got.undrained_cells, want.undrained_cells) << what;
}

struct ResidentFlowdirCase {
  std::uint32_t t = 64;   // the windows written and read
  std::uint32_t g = 64;   // the BFS tiles
  unsigned threads = 2;   // the CPU twin's pool
  bool edge = true, nodata = true;
  std::uint64_t group_tiles = 0;
};

// The solver on `dem` (w x h, NaN nodata), written in windows of t x t from the last to the first (any
// order must do), each from a t-pitched buffer whose padding holds garbage; the codes read back in
// windows of t x t into a buffer whose padding must stay untouched.
inline ResidentFlowdirRun run_resident_flowdir(Device device, const std::vector<double>& dem, std::uint64_t w,
                                               std::uint64_t h, const ResidentFlowdirCase& c) {
  WorkerPool pool(c.threads);
  ResidentFlowdirOptions o;
  o.width = w;
  o.height = h;
  o.tile = c.t;
  o.g = c.g;
  o.edge_outlets = c.edge;
  o.nodata_outlets = c.nodata;
  o.group_tiles = c.group_tiles;
  const auto solver = make_resident_flowdir(device, o, pool);
  const std::uint32_t t = c.t;
  const std::uint64_t tiles_x = (w + t - 1) / t, tiles = tiles_x * ((h + t - 1) / t);
  std::vector<double> buffer(std::size_t{t} * t);
  for (std::uint64_t k = tiles; k-- > 0;) {
    const std::uint64_t x0 = k % tiles_x * t, y0 = k / tiles_x * t;
    const auto ww = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, w - x0));
    const auto wh = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, h - y0));
    std::fill(buffer.begin(), buffer.end(), -77.5);
    for (std::uint32_t y = 0; y < wh; ++y)
      for (std::uint32_t x = 0; x < ww; ++x) buffer[std::size_t{y} * t + x] = dem[(y0 + y) * w + x0 + x];
    solver->write_values(x0, y0, ww, wh, t, buffer.data());
  }
  ResidentFlowdirRun run;
  run.stats = solver->solve([](std::uint64_t, std::uint64_t) {});
  run.codes.assign(w * h, 77);
  std::vector<std::uint8_t> out(std::size_t{t} * t);
  for (std::uint64_t k = 0; k < tiles; ++k) {
    const std::uint64_t x0 = k % tiles_x * t, y0 = k / tiles_x * t;
    const auto ww = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, w - x0));
    const auto wh = static_cast<std::uint32_t>(std::min<std::uint64_t>(t, h - y0));
    std::fill(out.begin(), out.end(), 99);
    solver->read_codes(x0, y0, ww, wh, t, out.data());
    for (std::uint32_t y = 0; y < t; ++y)
      for (std::uint32_t x = 0; x < t; ++x) {
        if (y < wh && x < ww)
          run.codes[(y0 + y) * w + x0 + x] = out[std::size_t{y} * t + x];
        else if (out[std::size_t{y} * t + x] != 99)
          run.codes.assign(w * h, 88);  // the read wrote past its window: no comparison can pass
      }
  }
  return run;
}

// Terrain of a few waves quantised to `levels` steps (wide plateaus and terraces, flats across many
// tiles), with nodata blobs over about `holes` of the cells and, on some cells, -0, +0 and the
// infinities.
inline std::vector<double> random_flat_terrain(std::mt19937_64& rng, std::uint64_t w, std::uint64_t h, double holes,
                                               int levels) {
  std::uniform_real_distribution<double> unit(0, 1);
  double fx[3], fy[3], phase[3];
  for (int k = 0; k < 3; ++k) fx[k] = unit(rng) * 0.2, fy[k] = unit(rng) * 0.2, phase[k] = unit(rng) * 6.3;
  std::vector<double> dem(w * h);
  for (std::uint64_t y = 0; y < h; ++y)
    for (std::uint64_t x = 0; x < w; ++x) {
      double v = 0;
      for (int k = 0; k < 3; ++k) v += std::cos(fx[k] * static_cast<double>(x) + fy[k] * static_cast<double>(y) + phase[k]);
      dem[y * w + x] = std::floor((v + 3) / 6 * levels) - levels / 2;
    }
  for (double& v : dem) {
    const std::uint64_t r = rng() % 400;
    if (r == 0) v = v == 0 ? -0.0 : v;
    if (r == 1) v = rng() % 2 ? INFINITY : -INFINITY;
  }
  const auto blobs = static_cast<std::uint64_t>(holes * static_cast<double>(w * h) / 12);
  for (std::uint64_t b = 0; b < blobs; ++b) {
    const std::uint64_t cx = rng() % w, cy = rng() % h, r = 1 + rng() % 3;
    for (std::uint64_t y = cy >= r ? cy - r : 0; y <= cy + r && y < h; ++y)
      for (std::uint64_t x = cx >= r ? cx - r : 0; x <= cx + r && x < w; ++x) dem[y * w + x] = std::nan("");
  }
  return dem;
}

// A flat corridor of three rows winding through the w x h raster (corridors at 0 joined at alternate
// ends through a gap in the one-row walls at 9 between them), draining at its far end (a cell at -1):
// run without edge outlets, about the longest BFS a raster of that size holds (many rounds).
inline std::vector<double> serpentine_flat(std::uint64_t w, std::uint64_t h) {
  std::vector<double> dem(w * h, 0.0);
  std::uint64_t last = 0;  // the last corridor's first row
  for (std::uint64_t y = 0; y < h; ++y) {
    if (y % 4 != 3) {
      last = y - y % 4;
      continue;
    }
    for (std::uint64_t x = 0; x < w; ++x) dem[y * w + x] = 9;
    dem[y * w + ((y / 4) % 2 ? 0 : w - 1)] = 0;
  }
  dem[last * w + ((last / 4) % 2 ? 0 : w - 1)] = -1;
  return dem;
}

}  // namespace terrazo::testing
