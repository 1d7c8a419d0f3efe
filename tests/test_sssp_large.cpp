// tests/test_sssp_large.cpp: exactness of a `terrazo sssp` run on a raster too large for the
// in-memory reference, checked on a crop (4 G cells under --memory 1G, a crop of up to 64 M cells).
//
// Runs only on request (it needs the multi-GB input and output of such a run):
//
//   TERRAZO_SSSP_LARGE_STORE=g64k.tzs TERRAZO_SSSP_LARGE_COST=cost64k.tif test_sssp_large
//
// with cost64k.tif from `terrazo sssp --source 40000,30000 g64k.tzs cost64k.tif` (friction,
// 8-connected, one source). The store may also be a smaller top-left part of the run's input made
// by `terrazo gen` with the same options (a W x H terrain is the top-left crop of any larger one),
// as long as it holds the crop; then pass the run's scale (its statistics may differ).
// Optional, describing the run (defaults: the friction run above):
//   TERRAZO_SSSP_LARGE_SOURCE=x,y      the source inside the crop (default 40000,30000)
//   TERRAZO_SSSP_LARGE_CROP=x0,y0,side the crop (default 36000,26000,8192: 64 M cells, ~2.5 GiB resident)
//   TERRAZO_SSSP_LARGE_SCALE=S         the run's scale (JSON "scale"); default: the pipeline's own
//                                      default for friction (sssp_weight_params on the store's
//                                      statistics); required for walk and tobler
//   TERRAZO_SSSP_LARGE_MODEL=friction|walk|tobler   --weight friction or --model walk|tobler (the
//                                      latter with r.walk's default coefficients, no friction raster,
//                                      --distance map: the store's geotransform, a projected CRS)
//   TERRAZO_SSSP_LARGE_CONNECTIVITY=8|16
//   TERRAZO_SSSP_LARGE_INITIAL=C       the crop source's initial cost (per-source settings; cost units)
//   TERRAZO_SSSP_LARGE_MULTIPLIER=M    the crop source's cost multiplier (its group's; weights are
//                                      llround(M x w x scale), docs/sssp.md "Per-source settings")
//   TERRAZO_SSSP_LARGE_MAX_COST=C      its group's maximum cost (cost units)
// With several source groups the crop must be reached by the source's group alone (no other
// group's source within its maximum of the crop). docs/benchmarks.md has the 4 G-cell runs.
//
// The crop (x0, y0, side) must contain the source off its ring. The ring is the crop's outer cells
// that a step from outside the crop can enter: one cell wide with 8 neighbours, two with 16 (a
// knight's move jumps over the outer cells). Its cells' out-of-core distances D are read back from
// the Float64 cost raster in fixed point (llround(cost * scale), exact below 2^52). The in-memory
// reference Dijkstra (tests/support/sssp_reference.h, directed and knight's steps included) then
// runs on the crop alone, seeded with the source at its initial cost and every ring cell at D;
// every crop cell, ring included, must end with exactly D. That is: given the ring, every one of
// the side^2 cells holds the true shortest distance inside the crop (Bellman optimality of the
// whole crop), and no path through the crop improves a ring cell (the ring is not frozen: any edge
// (v, u) with D(u) > D(v) + w(v, u) into a ring cell u lowers it in the reference). Nodata input
// cells must be nodata in the cost raster, the source must hold its initial cost, and no other cell
// may hold 0 when every step weight is > 0.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/commands/sssp.h"
#include "engine/cost_models/step_lengths.h"
#include "engine/cost_models/weight_params.h"
#include "io/gdal/gdal_raster.h"
#include "io/store/tile_store.h"
#include "io/gdal/tile_store_reader.h"
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
  const auto env = [](const char* name, const char* fallback) {
    const char* value = std::getenv(name);
    return std::string(value && *value ? value : fallback);
  };
  const auto source = parse_list(env("TERRAZO_SSSP_LARGE_SOURCE", "40000,30000").c_str(), 2);
  const auto crop = parse_list(env("TERRAZO_SSSP_LARGE_CROP", "36000,26000,8192").c_str(), 3);
  const std::string model_name = env("TERRAZO_SSSP_LARGE_MODEL", "friction");
  const std::string connectivity_name = env("TERRAZO_SSSP_LARGE_CONNECTIVITY", "8");
  const double initial_cost = std::strtod(env("TERRAZO_SSSP_LARGE_INITIAL", "0").c_str(), nullptr);
  const double multiplier = std::strtod(env("TERRAZO_SSSP_LARGE_MULTIPLIER", "1").c_str(), nullptr);
  const double max_cost = std::strtod(env("TERRAZO_SSSP_LARGE_MAX_COST", "-1").c_str(), nullptr);
  const double run_scale = std::strtod(env("TERRAZO_SSSP_LARGE_SCALE", "0").c_str(), nullptr);
  ASSERT_EQ(source.size(), 2u) << "TERRAZO_SSSP_LARGE_SOURCE must be x,y";
  ASSERT_EQ(crop.size(), 3u) << "TERRAZO_SSSP_LARGE_CROP must be x0,y0,side";
  ASSERT_TRUE(model_name == "friction" || model_name == "walk" || model_name == "tobler")
      << "TERRAZO_SSSP_LARGE_MODEL must be friction, walk or tobler";
  ASSERT_TRUE(connectivity_name == "8" || connectivity_name == "16") << "TERRAZO_SSSP_LARGE_CONNECTIVITY must be 8 or 16";
  ASSERT_TRUE(initial_cost >= 0 && multiplier > 0) << "initial cost >= 0 and multiplier > 0";
  const WeightModel model = model_name == "walk"     ? WeightModel::Walk
                            : model_name == "tobler" ? WeightModel::Tobler
                                                     : WeightModel::Friction;
  const Connectivity connectivity = connectivity_name == "16" ? Connectivity::Sixteen : Connectivity::Eight;
  ASSERT_TRUE(model == WeightModel::Friction || run_scale > 0) << "walk and tobler need TERRAZO_SSSP_LARGE_SCALE";
  const std::uint64_t ring_width = connectivity == Connectivity::Sixteen ? 2 : 1;
  const std::uint64_t x0 = crop[0], y0 = crop[1], side = crop[2];
  ASSERT_GE(side, 2 * ring_width + 1);
  ASSERT_TRUE(source[0] >= x0 + ring_width && source[0] < x0 + side - ring_width && source[1] >= y0 + ring_width &&
              source[1] < y0 + side - ring_width)
      << "the source must lie inside the crop, off its ring";

  // Weights as the run's: friction at its scale (default: the pipeline's own from the store's
  // statistics), or walk/tobler at the given scale with map step lengths; the group's multiplier
  // scales the weights before rounding (the run's scale times the multiplier).
  const auto store = TileStore::open(store_path);
  const RasterInfo& info = store->info();
  ASSERT_TRUE(info.has_stats) << "the store's header has no statistics";
  ASSERT_LE(x0 + side, info.width);
  ASSERT_LE(y0 + side, info.height);
  WeightParams params;
  if (model == WeightModel::Friction) {
    params = sssp_weight_params(WeightModel::Friction, run_scale, info, connectivity);
  } else {
    params.model = model;
    params.scale = run_scale;
    params.steps = make_step_table(DistanceMode::Map, info).lengths;
  }
  const double scale = params.scale;  // the fixed point of distances, initial costs and maxima
  params.scale = scale * multiplier;
  std::printf("store %llu x %llu, values %g..%g, %s, %s neighbours, scale %g (weights x %g); crop [%llu, %llu) x "
              "[%llu, %llu), source %llu,%llu at %g\n",
              static_cast<unsigned long long>(info.width), static_cast<unsigned long long>(info.height), info.min,
              info.max, model_name.c_str(), connectivity_name.c_str(), scale, multiplier,
              static_cast<unsigned long long>(x0), static_cast<unsigned long long>(x0 + side),
              static_cast<unsigned long long>(y0), static_cast<unsigned long long>(y0 + side),
              static_cast<unsigned long long>(source[0]), static_cast<unsigned long long>(source[1]), initial_cost);

  const std::uint64_t n = side * side;
  auto t = Clock::now();
  std::vector<double> values(n);
  open_tile_store_reader(store_path)->read_window(x0, y0, static_cast<std::uint32_t>(side),
                                                  static_cast<std::uint32_t>(side), values.data());
  if (is_directed(model))  // the cells as engine/tile_inputs/walk_input.h packs them: elevation, no friction
    for (double& v : values)
      if (v == v) v = pack_walk_cell(static_cast<float>(v), 0.0f);
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
    dist = testing::fixed_distances(cost_values, scale);
  }
  std::printf("read the crop of both rasters: %.1f s\n", seconds_since(t));

  // Nodata stays nodata; the source holds its initial cost and, with every weight positive, no
  // other cell holds 0.
  const std::uint64_t s = (source[1] - y0) * side + (source[0] - x0);
  const PathLength source_cost = static_cast<PathLength>(std::llround(initial_cost * scale));
  ASSERT_TRUE(values[s] == values[s]) << "the source is on nodata";
  EXPECT_EQ(dist[s], source_cost) << "distance at the source";
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
  if (info.min > 0 || is_directed(model)) {  // walk and tobler: every step costs at least a x L > 0
    EXPECT_EQ(zeros, 0u) << "cells at distance 0 besides the source";
  }
  std::printf("crop: %llu cells, %llu nodata, %llu reached\n", static_cast<unsigned long long>(n),
              static_cast<unsigned long long>(nodata), static_cast<unsigned long long>(reached));
  EXPECT_GT(reached, n / 2) << "the crop should be mostly reached";

  // The reference on the crop: the source at its initial cost, the ring at its out-of-core distances.
  t = Clock::now();
  const auto on_ring = [&](std::uint64_t x, std::uint64_t y) {
    return x < ring_width || y < ring_width || x >= side - ring_width || y >= side - ring_width;
  };
  testing::SsspReferenceProblem p = testing::reference_problem(side, side, values.data(), params, connectivity);
  if (max_cost >= 0) p.max_cost = static_cast<PathLength>(std::llround(max_cost * scale));
  testing::set_reference_sources(p, {{s, 0}});
  p.dist[s] = source_cost;
  std::uint64_t ring_cells = 0, ring_seeds = 0;
  for (std::uint64_t y = 0; y < side; ++y)
    for (std::uint64_t x = 0; x < side; ++x) {
      if (!on_ring(x, y)) continue;
      const std::uint64_t u = y * side + x;
      p.dist[u] = dist[u];
      ++ring_cells;
      ring_seeds += dist[u] != kUnreached;
    }
  EXPECT_EQ(ring_cells, n - (side - 2 * ring_width) * (side - 2 * ring_width));
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
              static_cast<unsigned long long>(max_dist), static_cast<double>(max_dist) / scale);
  EXPECT_EQ(mismatches, 0u) << "first at crop cell " << (first % side) << "," << (first / side)
                            << ": out-of-core "
                            << (first < n ? static_cast<long long>(dist[first]) : 0) << ", reference "
                            << (first < n ? static_cast<long long>(p.dist[first]) : 0);
  EXPECT_EQ(ring_mismatches, 0u) << "a path through the crop improves a ring cell";
}

}  // namespace
}  // namespace terrazo
