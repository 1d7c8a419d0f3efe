// tests/test_sssp_large.cpp: exactness of a `terrazo sssp` run on a raster too large for the
// in-memory reference, checked on a crop (4 G cells under --memory 1G, 64 M-cell crop).
//
// Runs only on request (it needs the multi-GB input and output of such a run):
//
//   TERRAZO_SSSP_LARGE_STORE=g64k.tzs TERRAZO_SSSP_LARGE_COST=cost64k.tif test_sssp_large
//
// with cost64k.tif from `terrazo sssp --source 40000,30000 g64k.tzs cost64k.tif` (friction,
// 8-connected, one source). The store may also be a smaller top-left part of the run's input made
// by `terrazo gen` with the same options (a W x H terrain is the top-left crop of any larger one),
// as long as it holds the crop; then pass the run's scale (its statistics may differ).
// Optional: TERRAZO_SSSP_LARGE_SOURCE=x,y (default 40000,30000), TERRAZO_SSSP_LARGE_CROP=x0,y0,side
// (default 36000,26000,8192: 64 M cells, ~2.5 GiB resident), TERRAZO_SSSP_LARGE_SCALE=S, the run's
// scale (JSON "scale"; default: the pipeline's own default scale, sssp_weight_params on the
// store's statistics). docs/benchmarks.md has the 4 G-cell run.
//
// The crop (x0, y0, side) must contain the source. Its cells' out-of-core distances D are read
// back from the Float64 cost raster in fixed point (llround(cost * scale), exact below 2^52). The
// in-memory reference Dijkstra (tests/support/sssp_reference.h) then runs on the crop alone,
// seeded with the source at 0 and every cell of the crop's outer ring at D; every crop cell,
// ring included, must end with exactly D. That is: given the ring, every one of the side^2 cells
// holds the true shortest distance inside the crop (Bellman optimality of the whole crop), and no
// path through the crop improves a ring cell. The last point is also checked directly, edge by
// edge: D(u) <= D(v) + w(v, u) for every edge of the crop. Nodata input cells must be nodata in
// the cost raster, the source must be 0, and no other cell may be 0 when every friction is > 0.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "api/sssp.h"
#include "gdal/gdal_raster.h"
#include "store/tile_store.h"
#include "gdal/tile_store_reader.h"
#include "kernels/common/tile_geometry.h"
#include "tests/support/sssp_reference.h"

namespace terrazo {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// "a,b" or "a,b,c" of unsigned integers.
std::vector<std::uint64_t> parse_list(const char* text, std::size_t count) {
  std::vector<std::uint64_t> out;
  const char* p = text;
  while (out.size() < count) {
    char* end = nullptr;
    out.push_back(std::strtoull(p, &end, 10));
    if (end == p) break;
    p = *end == ',' ? end + 1 : end;
  }
  return out;
}

TEST(SsspLarge, CropOfALargeRunEqualsTheReferenceOnRequest) {
  const char* store_path = std::getenv("TERRAZO_SSSP_LARGE_STORE");
  const char* cost_path = std::getenv("TERRAZO_SSSP_LARGE_COST");
  if (!store_path || !cost_path)
    GTEST_SKIP() << "set TERRAZO_SSSP_LARGE_STORE (input tile store) and TERRAZO_SSSP_LARGE_COST (its "
                    "`terrazo sssp` cost raster) to run; see the header of tests/test_sssp_large.cpp";
  const char* source_text = std::getenv("TERRAZO_SSSP_LARGE_SOURCE");
  const char* crop_text = std::getenv("TERRAZO_SSSP_LARGE_CROP");
  const char* scale_text = std::getenv("TERRAZO_SSSP_LARGE_SCALE");
  const auto source = parse_list(source_text ? source_text : "40000,30000", 2);
  const auto crop = parse_list(crop_text ? crop_text : "36000,26000,8192", 3);
  ASSERT_EQ(source.size(), 2u) << "TERRAZO_SSSP_LARGE_SOURCE must be x,y";
  ASSERT_EQ(crop.size(), 3u) << "TERRAZO_SSSP_LARGE_CROP must be x0,y0,side";
  const std::uint64_t x0 = crop[0], y0 = crop[1], side = crop[2];
  ASSERT_GE(side, 3u);
  ASSERT_TRUE(source[0] > x0 && source[0] < x0 + side - 1 && source[1] > y0 && source[1] < y0 + side - 1)
      << "the source must lie inside the crop, off its ring";

  // Weights: the pipeline's own default scale from the store's statistics (or the run's --scale).
  const auto store = TileStore::open(store_path);
  const RasterInfo& info = store->info();
  ASSERT_TRUE(info.has_stats) << "the store's header has no statistics";
  ASSERT_LE(x0 + side, info.width);
  ASSERT_LE(y0 + side, info.height);
  const double run_scale = scale_text ? std::strtod(scale_text, nullptr) : 0.0;
  const WeightParams params = sssp_weight_params(WeightModel::Friction, run_scale, info, Connectivity::Eight);
  std::printf("store %llu x %llu, values %g..%g, scale %g; crop [%llu, %llu) x [%llu, %llu), source %llu,%llu\n",
              static_cast<unsigned long long>(info.width), static_cast<unsigned long long>(info.height), info.min,
              info.max, params.scale, static_cast<unsigned long long>(x0),
              static_cast<unsigned long long>(x0 + side), static_cast<unsigned long long>(y0),
              static_cast<unsigned long long>(y0 + side), static_cast<unsigned long long>(source[0]),
              static_cast<unsigned long long>(source[1]));

  const std::uint64_t n = side * side;
  auto t = Clock::now();
  std::vector<double> values(n);
  open_tile_store_reader(store_path)->read_window(x0, y0, static_cast<std::uint32_t>(side),
                                                  static_cast<std::uint32_t>(side), values.data());
  std::vector<PathLength> dist;
  {
    const auto cost = RasterReader::open(cost_path);
    // The store is the run's input or a top-left part of it (a smaller `terrazo gen` with the same
    // options: the generator's crop property), so the run's input need not be kept.
    ASSERT_GE(cost->info().width, info.width);
    ASSERT_GE(cost->info().height, info.height);
    std::vector<double> cost_values(n);
    cost->read_window(x0, y0, static_cast<std::uint32_t>(side), static_cast<std::uint32_t>(side),
                      cost_values.data());
    for (double c : cost_values) ASSERT_TRUE(c != c || c >= 0.0) << "negative cost " << c;
    dist = testing::fixed_distances(cost_values, params.scale);
  }
  std::printf("read the crop of both rasters: %.1f s\n", seconds_since(t));

  // Nodata stays nodata; the source is 0 and, with every friction positive, the only 0.
  const std::uint64_t s = (source[1] - y0) * side + (source[0] - x0);
  ASSERT_TRUE(values[s] == values[s]) << "the source is on nodata";
  EXPECT_EQ(dist[s], 0u) << "distance at the source";
  std::uint64_t nodata = 0, reached = 0, nodata_with_distance = 0, zeros = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    if (values[i] != values[i]) {
      ++nodata;
      if (dist[i] != kUnreached) ++nodata_with_distance;
    }
    if (dist[i] != kUnreached) ++reached;
    if (dist[i] == 0 && i != s) ++zeros;
  }
  EXPECT_EQ(nodata_with_distance, 0u) << "nodata cells with a distance";
  if (info.min > 0) {
    EXPECT_EQ(zeros, 0u) << "cells at distance 0 besides the source";
  }
  std::printf("crop: %llu cells, %llu nodata, %llu reached\n", static_cast<unsigned long long>(n),
              static_cast<unsigned long long>(nodata), static_cast<unsigned long long>(reached));
  EXPECT_GT(reached, n / 2) << "the crop should be mostly reached";

  // Every edge of the crop is relaxed: D(u) <= D(v) + w(v, u). On the ring this says that no
  // neighbour inside the crop improves a ring cell.
  t = Clock::now();
  const auto on_ring = [&](std::uint64_t x, std::uint64_t y) { return x == 0 || y == 0 || x == side - 1 || y == side - 1; };
  std::uint64_t ring_cells = 0, ring_edges = 0, violations = 0, ring_violations = 0;
  bool overflow = false;
  for (std::uint64_t y = 0; y < side; ++y)
    for (std::uint64_t x = 0; x < side; ++x) {
      const std::uint64_t u = y * side + x;
      const bool ring = on_ring(x, y);
      ring_cells += ring;
      for (int d = 0; d < 8; ++d) {
        const std::int64_t vx = static_cast<std::int64_t>(x) + kDirDx[d];
        const std::int64_t vy = static_cast<std::int64_t>(y) + kDirDy[d];
        if (vx < 0 || vy < 0 || vx >= static_cast<std::int64_t>(side) || vy >= static_cast<std::int64_t>(side)) continue;
        const std::uint64_t v = static_cast<std::uint64_t>(vy) * side + static_cast<std::uint64_t>(vx);
        if (dist[v] == kUnreached) continue;
        const Weight w = edge_weight(params, values[v], values[u], is_diagonal(d), &overflow);
        if (w == kNoEdge) continue;
        ring_edges += ring;
        if (dist[u] > dist[v] + w) {
          ++violations;
          ring_violations += ring;
        }
      }
    }
  ASSERT_FALSE(overflow);
  EXPECT_EQ(ring_cells, 4 * side - 4);
  EXPECT_EQ(violations, 0u) << "edges (v, u) of the crop with D(u) > D(v) + w";
  EXPECT_EQ(ring_violations, 0u) << "of which into ring cells";
  std::printf("edge check: %llu ring cells, %llu edges into them, %llu violations (%llu on the ring), %.1f s\n",
              static_cast<unsigned long long>(ring_cells), static_cast<unsigned long long>(ring_edges),
              static_cast<unsigned long long>(violations), static_cast<unsigned long long>(ring_violations),
              seconds_since(t));

  // The reference on the crop: the source at 0, the ring at its out-of-core distances.
  t = Clock::now();
  testing::SsspReferenceProblem p;
  p.width = side;
  p.height = side;
  p.values = values.data();
  p.params = params;
  p.connectivity = Connectivity::Eight;
  testing::set_reference_sources(p, {{s, 0}});
  std::uint64_t ring_seeds = 0;
  for (std::uint64_t y = 0; y < side; ++y)
    for (std::uint64_t x = 0; x < side; ++x) {
      if (!on_ring(x, y)) continue;
      const std::uint64_t u = y * side + x;
      p.dist[u] = dist[u];
      ring_seeds += dist[u] != kUnreached;
    }
  ASSERT_TRUE(testing::sssp_reference(p)) << "weight overflow in the reference";
  std::uint64_t mismatches = 0, ring_mismatches = 0, first = n;
  PathLength max_dist = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    if (p.dist[i] != dist[i]) {
      ++mismatches;
      ring_mismatches += on_ring(i % side, i / side);
      if (first == n) first = i;
    }
    if (dist[i] != kUnreached && dist[i] > max_dist) max_dist = dist[i];
  }
  std::printf("reference on the crop (%llu ring seeds + the source): %.1f s, %llu mismatches (%llu on the ring), "
              "largest distance in the crop %llu (%.6f cost units)\n",
              static_cast<unsigned long long>(ring_seeds), seconds_since(t),
              static_cast<unsigned long long>(mismatches), static_cast<unsigned long long>(ring_mismatches),
              static_cast<unsigned long long>(max_dist), static_cast<double>(max_dist) / params.scale);
  EXPECT_EQ(mismatches, 0u) << "first at crop cell " << (first % side) << "," << (first / side)
                            << ": out-of-core "
                            << (first < n ? static_cast<long long>(dist[first]) : 0) << ", reference "
                            << (first < n ? static_cast<long long>(p.dist[first]) : 0);
  EXPECT_EQ(ring_mismatches, 0u);
}

}  // namespace
}  // namespace terrazo
