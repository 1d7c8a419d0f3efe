// tests/test_path.cpp: least-cost path tracing (engine/commands/path.h) on backlinks written by
// run_sssp: the GeoJSON opens in OGR, each path runs from a source to its destination through
// neighbouring cells, and the sum of its exact edge weights equals the distance at the destination.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gdal_priv.h>
#include <ogrsf_frmts.h>

#include "kernels/common/error.h"
#include "engine/commands/path.h"
#include "engine/commands/sssp.h"
#include "io/gdal/gdal_session.h"
#include "kernels/common/tile_geometry.h"
#include "engine/cost_models/step_lengths.h"
#include "tests/support/path_support.h"
#include "tests/support/sssp_output_check.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

struct Traced {
  std::vector<std::pair<std::int64_t, std::int64_t>> cells;  // pixel coordinates, source first
  double cost = 0, length = 0, length_cells = 0;
  std::int64_t dest_x = 0, dest_y = 0, count = 0;
};

std::vector<Traced> read_paths(const std::string& path, const RasterInfo& info) {
  ensure_gdal();
  std::unique_ptr<GDALDataset> ds(
      static_cast<GDALDataset*>(GDALOpenEx(path.c_str(), GDAL_OF_VECTOR | GDAL_OF_READONLY, nullptr, nullptr, nullptr)));
  EXPECT_TRUE(ds) << "OGR cannot open " << path;
  if (!ds) return {};
  EXPECT_EQ(ds->GetLayerCount(), 1);
  OGRLayer* layer = ds->GetLayer(0);
  double inverse[6];
  EXPECT_TRUE(GDALInvGeoTransform(const_cast<double*>(info.geotransform.data()), inverse));
  std::vector<Traced> paths;
  for (auto& feature : *layer) {
    Traced t;
    const OGRGeometry* g = feature->GetGeometryRef();
    EXPECT_TRUE(g && wkbFlatten(g->getGeometryType()) == wkbLineString);
    if (!g) continue;
    const OGRLineString* line = g->toLineString();
    for (int i = 0; i < line->getNumPoints(); ++i) {
      const double x = line->getX(i), y = line->getY(i);
      const double px = inverse[0] + x * inverse[1] + y * inverse[2];
      const double py = inverse[3] + x * inverse[4] + y * inverse[5];
      t.cells.push_back({static_cast<std::int64_t>(std::floor(px)), static_cast<std::int64_t>(std::floor(py))});
      EXPECT_NEAR(px - std::floor(px), 0.5, 1e-6);  // cell centres
    }
    t.cost = feature->GetFieldAsDouble("cost");
    t.length = feature->GetFieldAsDouble("length");
    t.length_cells = feature->GetFieldAsDouble("length_cells");
    t.dest_x = feature->GetFieldAsInteger64("dest_x");
    t.dest_y = feature->GetFieldAsInteger64("dest_y");
    t.count = feature->GetFieldAsInteger64("cells");
    paths.push_back(t);
  }
  return paths;
}

// sssp with backlinks, then paths to `dests`; checks every path against the cost raster.
void check_paths(const std::string& dem, const std::vector<SourcePoint>& sources, const std::vector<SourcePoint>& dests,
                 Connectivity connectivity, WeightModel weight) {
  testing::TempDir dir;
  SsspOptions o = testing::sssp_options(dem, sources, dir.file("cost.tif"));
  RunSettings o_run;
  o.backlink = dir.file("back.tif");
  o.connectivity = connectivity;
  o.weight = weight;
  o.tile = 64;
  MemoryBudget budget(256ull << 20);
  const SsspResult r = terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent());

  PathOptions p = testing::path_options_after(o);
  RunSettings p_run;
  p.output = dir.file("paths.geojson");
  p.mask = dir.file("mask.tif");
  p.dests = dests;
  p.cache_bytes = 3 * (256 * 256 * 9 + 256);  // a few windows: long paths evict
  MemoryBudget path_budget(64ull << 20);
  const PathResult traced = terrazo::testing::run_with(run_path, p, p_run, path_budget, Progress::silent());
  ASSERT_EQ(traced.paths.size(), dests.size());

  RasterInfo info;
  const std::vector<double> values = testing::read_raster_values(dem, &info);
  const std::vector<double> cost = testing::read_raster_values(o.output);
  const std::vector<PathLength> dist = testing::fixed_distances(cost, r.params.scale);
  std::set<std::pair<std::int64_t, std::int64_t>> source_cells;
  for (const SourcePoint& s : sources) source_cells.insert({static_cast<std::int64_t>(s.x), static_cast<std::int64_t>(s.y)});

  std::unique_ptr<GeodesicLine> geodesic;
  if (crs_is_geographic(info.crs_wkt)) geodesic = std::make_unique<GeodesicLine>(info.crs_wkt);
  EXPECT_EQ(traced.length_unit, geodesic ? "metre" : "map unit");
  const std::vector<Traced> paths = read_paths(p.output, info);
  ASSERT_EQ(paths.size(), dests.size());
  std::set<std::uint64_t> on_path;
  for (std::size_t k = 0; k < paths.size(); ++k) {
    const Traced& t = paths[k];
    ASSERT_FALSE(t.cells.empty());
    EXPECT_EQ(t.dest_x, static_cast<std::int64_t>(dests[k].x));
    EXPECT_EQ(t.dest_y, static_cast<std::int64_t>(dests[k].y));
    EXPECT_EQ(t.cells.back(), std::make_pair(t.dest_x, t.dest_y));
    EXPECT_TRUE(source_cells.count(t.cells.front())) << "path " << k << " does not start at a source";
    const std::uint64_t dest = static_cast<std::uint64_t>(t.dest_y) * info.width + static_cast<std::uint64_t>(t.dest_x);
    EXPECT_EQ(t.cost, cost[dest]);
    EXPECT_EQ(traced.paths[k].cost, cost[dest]);
    // Sum of the exact weights along the path = the distance at the destination.
    PathLength sum = 0;
    double length = 0, length_cells = 0;
    bool overflow = false;
    const std::size_t steps = t.count == 1 ? 0 : t.cells.size() - 1;
    EXPECT_EQ(static_cast<std::size_t>(t.count), t.count == 1 ? 1 : t.cells.size());
    for (std::size_t i = 0; i < steps; ++i) {
      const auto [ax, ay] = t.cells[i];
      const auto [bx, by] = t.cells[i + 1];
      const std::int64_t dx = bx - ax, dy = by - ay;
      ASSERT_TRUE(std::abs(dx) <= 1 && std::abs(dy) <= 1 && (dx || dy)) << "path " << k << " jumps at " << i;
      const bool diagonal = dx != 0 && dy != 0;
      if (connectivity == Connectivity::Four) {
        ASSERT_FALSE(diagonal);
      }
      const double va = values[static_cast<std::uint64_t>(ay) * info.width + static_cast<std::uint64_t>(ax)];
      const double vb = values[static_cast<std::uint64_t>(by) * info.width + static_cast<std::uint64_t>(bx)];
      const Weight w = edge_weight(r.params, va, vb, diagonal, &overflow);
      ASSERT_NE(w, kNoEdge);
      sum += w;
      length_cells += diagonal ? kSqrt2 : 1.0;
      if (geodesic) {  // metres between the two cell centres on a geographic CRS
        const auto& g = info.geotransform;
        length += geodesic->distance(g[0] + (ax + 0.5) * g[1], g[3] + (ay + 0.5) * g[5], g[0] + (bx + 0.5) * g[1],
                                     g[3] + (by + 0.5) * g[5]);
      } else {
        length += std::hypot(dx * info.geotransform[1], dy * info.geotransform[5]);
      }
    }
    EXPECT_NEAR(t.length_cells, length_cells, 1e-9 * std::max(1.0, length_cells));
    EXPECT_NEAR(traced.paths[k].length_cells, length_cells, 1e-9 * std::max(1.0, length_cells));
    EXPECT_EQ(sum, dist[dest]) << "path " << k;
    EXPECT_NEAR(t.length, length, 1e-9 * std::max(1.0, length));
    for (const auto& [x, y] : t.cells) on_path.insert(static_cast<std::uint64_t>(y) * info.width + static_cast<std::uint64_t>(x));
  }
  const std::vector<double> mask = testing::read_raster_values(p.mask);
  std::uint64_t ones = 0;
  for (std::uint64_t i = 0; i < mask.size(); ++i) {
    ones += mask[i] == 1;
    EXPECT_EQ(mask[i] == 1, on_path.count(i) == 1) << "mask at " << i;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_EQ(ones, on_path.size());
}

SourcePoint at(std::uint64_t x, std::uint64_t y) { return parse_source_point(std::to_string(x) + "," + std::to_string(y), "--dest"); }

TEST(Path, PathsOnPyshedsDemCostEqualsDistance) {
  check_paths(std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif", {at(100, 100)},
              {at(300, 300), at(0, 0), at(366, 358), at(100, 100), at(366, 0), at(101, 100)}, Connectivity::Eight,
              WeightModel::Friction);
}

TEST(Path, PathsAroundNodataWithTwoSourcesAndFourConnectivity) {
  // Mandakini: ~45% nodata; absdiff on integer-ish elevations has many zero-weight ties.
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/Mandakini.bil";
  RasterInfo info;
  const std::vector<double> values = testing::read_raster_values(dem, &info);
  std::vector<SourcePoint> valid;
  for (std::uint64_t y = 0; y < info.height; y += 37)
    for (std::uint64_t x = 0; x < info.width; x += 41)
      if (values[y * info.width + x] == values[y * info.width + x]) valid.push_back(at(x, y));
  ASSERT_GT(valid.size(), 20u);
  const std::vector<SourcePoint> sources = {valid[3], valid[valid.size() - 5]};
  std::vector<SourcePoint> dests(valid.begin() + 6, valid.begin() + 16);
  // Only destinations a source reaches (the valley is not one component).
  testing::TempDir dir;
  SsspOptions o = testing::sssp_options(dem, sources, dir.file("c.tif"));
  RunSettings o_run;
  o.weight = WeightModel::AbsDiff;
  o.connectivity = Connectivity::Four;
  MemoryBudget budget(256ull << 20);
  terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent());
  const std::vector<double> cost = testing::read_raster_values(o.output);
  std::vector<SourcePoint> reached;
  for (const SourcePoint& d : dests)
    if (cost[static_cast<std::uint64_t>(d.y) * info.width + static_cast<std::uint64_t>(d.x)] ==
        cost[static_cast<std::uint64_t>(d.y) * info.width + static_cast<std::uint64_t>(d.x)])
      reached.push_back(d);
  ASSERT_GT(reached.size(), 3u);
  check_paths(dem, sources, reached, Connectivity::Four, WeightModel::AbsDiff);
  check_paths(dem, sources, reached, Connectivity::Eight, WeightModel::AbsDiff);
}

TEST(Path, DestinationErrors) {
  testing::TempDir dir;
  std::vector<double> values(64, 1.0);
  values[9] = std::numeric_limits<double>::quiet_NaN();
  const std::string dem = dir.file("dem.tif");
  testing::write_raster_values(dem, 8, 8, values, CellType::Float32, -9999);
  SsspOptions o;
  RunSettings o_run;
  o.input = dem;
  o.sources = {at(0, 0)};
  o.output = dir.file("cost.tif");
  o.backlink = dir.file("back.tif");
  MemoryBudget budget(64ull << 20);
  terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent());
  PathOptions p = testing::path_options_after(o);
  RunSettings p_run;
  p.output = dir.file("paths.geojson");
  p.dests = {at(8, 2)};
  EXPECT_THROW(terrazo::testing::run_with(run_path, p, p_run, budget, Progress::silent()), UsageError);
  p.dests = {at(1, 1)};  // nodata: unreached
  EXPECT_THROW(terrazo::testing::run_with(run_path, p, p_run, budget, Progress::silent()), UsageError);
  std::FILE* f = std::fopen(p.output.c_str(), "r");
  EXPECT_EQ(f, nullptr) << "a failed run left its output";
  if (f) std::fclose(f);
  p.dests = {at(7, 7)};
  EXPECT_EQ(terrazo::testing::run_with(run_path, p, p_run, budget, Progress::silent()).paths.size(), 1u);
}

}  // namespace
}  // namespace terrazo
