// tests/support/resident_fill_run.h: a whole raster through a resident fill solver
// (kernels/flow/resident_fill.h), as the engine drives it: written in windows of up to 37 x 23 cells
// (so windows cross the solver's tiles), solved, read back in windows of up to 29 x 41. GDAL-free:
// the CPU suites and the GPU tests share it.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/worker_pool.h"
#include "kernels/flow/resident_fill.h"

namespace terrazo::testing {

inline std::vector<double> run_resident_fill(Device device, const ResidentFillOptions& o, const std::vector<double>& dem,
                                             unsigned threads, ResidentFillStats* stats, ResidentFillCounts* counts) {
  WorkerPool pool(threads);
  auto solver = make_resident_fill_solver(device, o, pool);
  const std::uint64_t w = o.width, h = o.height;
  auto each_window = [&](std::uint64_t ww, std::uint64_t wh, auto visit) {
    std::vector<double> window;
    for (std::uint64_t y0 = 0; y0 < h; y0 += wh)
      for (std::uint64_t x0 = 0; x0 < w; x0 += ww) {
        const auto cw = static_cast<std::uint32_t>(std::min(ww, w - x0)), ch = static_cast<std::uint32_t>(std::min(wh, h - y0));
        window.resize(std::size_t{cw} * ch);
        visit(x0, y0, cw, ch, window);
      }
  };
  each_window(37, 23, [&](std::uint64_t x0, std::uint64_t y0, std::uint32_t cw, std::uint32_t ch, std::vector<double>& window) {
    for (std::uint32_t y = 0; y < ch; ++y)
      for (std::uint32_t x = 0; x < cw; ++x) window[std::size_t{y} * cw + x] = dem[(y0 + y) * w + x0 + x];
    solver->write_values(x0, y0, cw, ch, window.data());
  });
  *stats = solver->solve([](std::uint64_t, std::uint64_t) {});
  std::vector<double> filled(w * h);
  each_window(29, 41, [&](std::uint64_t x0, std::uint64_t y0, std::uint32_t cw, std::uint32_t ch, std::vector<double>& window) {
    solver->read_filled(x0, y0, cw, ch, window.data(), counts);
    for (std::uint32_t y = 0; y < ch; ++y)
      for (std::uint32_t x = 0; x < cw; ++x) filled[(y0 + y) * w + x0 + x] = window[std::size_t{y} * cw + x];
  });
  return filled;
}

// The cells read back of each kind, as `want` counts them.
inline void expect_same_counts(const ResidentFillCounts& got, const ResidentFillCounts& want, const std::string& what) {
  EXPECT_EQ(got.valid, want.valid) << what;
  EXPECT_EQ(got.raised, want.raised) << what;
  EXPECT_EQ(got.closed, want.closed) << what;
}

// The schedule's counts (rounds, solves, cells lowered, tiles solved), as `want`'s: the CUDA solver's
// against its CPU twin's on one raster.
inline void expect_same_schedule(const ResidentFillStats& got, const ResidentFillStats& want, const std::string& what) {
  EXPECT_EQ(got.rounds, want.rounds) << what;
  EXPECT_EQ(got.solves, want.solves) << what;
  EXPECT_EQ(got.cells_lowered, want.cells_lowered) << what;
  EXPECT_EQ(got.tiles_solved, want.tiles_solved) << what;
}

}  // namespace terrazo::testing
