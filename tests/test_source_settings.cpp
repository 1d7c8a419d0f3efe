// tests/test_source_settings.cpp: sssp's per-source settings (initial cost, maximum cost, cost
// multiplier; docs/sssp.md "Per-source settings") against an oracle that computes the formula
// directly: one Dijkstra per source (tests/support/sssp_reference.h, weights at scale x multiplier,
// the source's own maximum), then per cell the smallest (cost, id) among the sources that reach it.
// Small random rasters with nodata holes, sources from a GeoJSON file and from flags, ties, unreachable
// cells, a source raster beside the points, the one-group case against today's outputs byte for
// byte, and the refusals.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine/commands/index.h"
#include "engine/commands/sssp.h"
#include "engine/commands/sssp_command.h"
#include "engine/raster_inputs/sssp_sources.h"
#include "kernels/common/error.h"
#include "kernels/common/tile_geometry.h"
#include "tests/support/sssp_output_check.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kX0 = 10.0, kY0 = 50.0, kCell = 0.01;  // the rasters' lon/lat grid (GeoJSON is WGS 84)

RasterInfo georef() { return testing::georef("EPSG:4326", kX0, kY0, kCell, -kCell); }

// A source as the oracle sees it. max < 0: none; NaN multiplier or max: the attribute is null.
struct Src {
  std::uint64_t x = 0, y = 0;
  double start = 0, max = -1, multiplier = 1;
  bool null_multiplier = false;
};

std::string number(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

// A GeoJSON file of the points with attributes init, max, mult (null where max < 0 or the
// multiplier is null).
void write_points(const std::string& path, const std::vector<Src>& points) {
  std::string json = "{\"type\":\"FeatureCollection\",\"features\":[";
  for (std::size_t k = 0; k < points.size(); ++k) {
    const Src& p = points[k];
    const double mx = kX0 + (static_cast<double>(p.x) + 0.5) * kCell, my = kY0 - (static_cast<double>(p.y) + 0.5) * kCell;
    json += std::string(k ? "," : "") + "{\"type\":\"Feature\",\"properties\":{\"init\":" + number(p.start) +
            ",\"max\":" + (p.max < 0 ? std::string("null") : number(p.max)) +
            ",\"mult\":" + (p.null_multiplier ? std::string("null") : number(p.multiplier)) +
            "},\"geometry\":{\"type\":\"Point\",\"coordinates\":[" + number(mx) + "," + number(my) + "]}}";
  }
  json += "]}";
  std::ofstream(path) << json;
}

// `points` written to `path` (write_points) as the sources of `o`, their attributes init, max and mult
// each group's start, maximum and multiplier.
void use_points(SsspOptions& o, const std::string& path, const std::vector<Src>& points) {
  write_points(path, points);
  o.sources_file = path;
  o.source_start = "init";
  o.source_max_field = "max";
  o.source_multiplier_field = "mult";
}

std::vector<double> random_values(std::mt19937_64& rng, std::uint64_t n, double holes) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> values(n);
  for (auto& v : values) v = unit(rng) < holes ? kNaN : 1.0 + std::floor(unit(rng) * 12.0) * 0.25;
  return values;
}

// The oracle: per source a Dijkstra at scale x multiplier from (start, id, 0) under its own maximum
// and --max-cost; per cell the smallest (dist, id). Checks the cost, the allocation, and that every
// backlink is a step of an optimal path of the cell's source (of some source at the cell's cost
// without --allocation).
void check_against_oracle(const SsspOptions& o, const SsspResult& r, const std::vector<double>& values,
                          std::uint64_t w, std::uint64_t h, const std::vector<Src>& sources, const std::string& what) {
  const double scale = r.params.scale;
  const std::uint64_t n = w * h;
  std::vector<std::vector<PathLength>> dists;
  std::vector<WeightParams> params;
  std::vector<PathLength> best(n, kUnreached);
  std::vector<std::uint32_t> best_id(n, 0);
  const PathLength global_max =
      o.max_cost >= 0 ? static_cast<PathLength>(std::floor(o.max_cost * scale)) : kUnreached;
  for (std::size_t k = 0; k < sources.size(); ++k) {
    const Src& s = sources[k];
    testing::SsspReferenceProblem ref = testing::reference_problem(w, h, values.data(), r.params, o.connectivity);
    ref.params.scale = scale * s.multiplier;
    ref.max_cost = global_max;
    if (s.max >= 0) ref.max_cost = std::min(ref.max_cost, static_cast<PathLength>(std::floor(s.max * scale)));
    ref.dist.assign(n, kUnreached);
    ref.source.assign(n, 0);
    ref.hops.assign(n, 0);
    const PathLength start = static_cast<PathLength>(std::nearbyint(s.start * scale));
    if (start <= ref.max_cost) ref.dist[s.y * w + s.x] = start;
    EXPECT_TRUE(testing::sssp_reference(ref)) << what;
    const auto id = static_cast<std::uint32_t>(k + 1);
    for (std::uint64_t i = 0; i < n; ++i)
      if (ref.dist[i] != kUnreached && std::make_pair(ref.dist[i], id) < std::make_pair(best[i], best_id[i])) {
        best[i] = ref.dist[i];
        best_id[i] = id;
      }
    dists.push_back(std::move(ref.dist));
    params.push_back(ref.params);
  }
  const std::vector<PathLength> dist = testing::fixed_distances(testing::read_raster_values(o.output), scale);
  ASSERT_TRUE(testing::equal_cells(dist, best, w)) << what << ": cost";
  std::uint64_t reached = 0;
  for (const PathLength d : best) reached += d != kUnreached;
  EXPECT_EQ(r.reached_cells, reached) << what;
  std::vector<std::uint32_t> alloc;
  if (!o.allocation.empty()) {
    alloc = testing::read_allocation(o.allocation);
    ASSERT_TRUE(testing::equal_cells(alloc, best_id, w)) << what << ": allocation";
  }
  if (o.backlink.empty()) return;
  const std::vector<double> back = testing::read_raster_values(o.backlink);
  for (std::uint64_t u = 0; u < n; ++u) {
    if (best[u] == kUnreached) continue;
    const int d = back[u] != back[u] ? 255 : static_cast<int>(back[u]);
    bool ok = false;
    for (std::size_t k = 0; k < sources.size() && !ok; ++k) {
      if (dists[k][u] != best[u] || (!alloc.empty() && k + 1 != best_id[u])) continue;
      const Src& s = sources[k];
      if (d == 255) {  // the source's own cell, at its initial cost
        ok = u == s.y * w + s.x;
        continue;
      }
      const std::int64_t vx = static_cast<std::int64_t>(u % w) + kDirDx[d], vy = static_cast<std::int64_t>(u / w) + kDirDy[d];
      if (vx < 0 || vy < 0 || vx >= static_cast<std::int64_t>(w) || vy >= static_cast<std::int64_t>(h)) continue;
      const std::uint64_t v = static_cast<std::uint64_t>(vy) * w + static_cast<std::uint64_t>(vx);
      if (dists[k][v] == kUnreached) continue;
      bool overflow = false;
      const double length = (kDirDx[d] != 0 && kDirDy[d] != 0) ? std::sqrt(2.0) : 1.0;
      const Weight step = weight_of_step(params[k], values[v], values[u], length, &overflow);
      ok = step != kNoEdge && dists[k][v] + step == dists[k][u];
    }
    if (!ok) {
      ADD_FAILURE() << what << ": backlink " << d << " at " << u % w << "," << u / w
                    << " is no step of an optimal path of its source";
      return;
    }
  }
}

SsspResult run(const SsspOptions& o, const RunSettings& o_run) {
  MemoryBudget budget(128ull << 20);
  return terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent());
}

// Random rasters and sources with random multipliers, maxima and initial costs, from a GeoJSON file
// and --source flags (the whole run's --source-initial and --source-multiplier): several groups,
// each one pass, merged; streamed with backlinks and allocation, cost only, the resident CPU twin,
// 4-connectivity, --max-cost on top.
TEST(SourceSettings, RandomSourcesMatchOneDijkstraPerSource) {
  testing::TempDir dir;
  const double multipliers[] = {0.5, 1.0, 1.5, 2.0, 3.25, 0.3};
  const double maxima[] = {-1, -1, 6.0, 15.0};
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    const std::uint64_t w = 12 + rng() % 30, h = 12 + rng() % 30;
    const std::vector<double> values = random_values(rng, w * h, 0.08);
    const std::string input = dir.file("in" + std::to_string(seed) + ".tif");
    testing::write_raster_values(input, w, h, values, CellType::Float32, -9999, georef());
    auto valid_cell = [&]() {
      std::uint64_t c;
      do c = rng() % (w * h);
      while (values[c] != values[c]);
      return c;
    };
    SsspOptions o;
    RunSettings o_run;
    o.input = input;
    o.output = dir.file("cost" + std::to_string(seed) + ".tif");
    o.tile = 8;
    o_run.device = DeviceRequest::Cpu;
    o.source_initial = seed % 3 == 0 ? 1.5 : 0.0;
    o.source_multiplier = seed % 4 == 0 ? 2.0 : 1.0;
    std::vector<Src> sources;  // in id order: the --source points, then the file's
    const int flag_count = static_cast<int>(seed % 3);
    for (int k = 0; k < flag_count; ++k) {
      const std::uint64_t c = valid_cell();
      o.sources.push_back(parse_source_point(std::to_string(c % w) + "," + std::to_string(c / w)));
      sources.push_back(Src{c % w, c / w, o.source_initial, -1, o.source_multiplier});
    }
    std::vector<Src> file;
    const int count = 2 + static_cast<int>(rng() % 4);
    for (int k = 0; k < count; ++k) {
      const std::uint64_t c = valid_cell();
      Src s{c % w, c / w, static_cast<double>(rng() % 8) * 0.5, maxima[rng() % 4], multipliers[rng() % 6]};
      if (k == 1 && seed % 5 == 0) {  // a second point on the first's cell, another group
        s.x = file[0].x;
        s.y = file[0].y;
      }
      if (k == 2 && seed % 2 == 0) {  // a null multiplier: the run's
        s.null_multiplier = true;
        s.multiplier = o.source_multiplier;
      }
      file.push_back(s);
      sources.push_back(s);
    }
    use_points(o, dir.file("points" + std::to_string(seed) + ".geojson"), file);
    if (seed % 3 != 2) {
      o.allocation = dir.file("alloc" + std::to_string(seed) + ".tif");
    } else if (seed % 2 == 0) {
      o.exchange = "resident";
      o.resident_tile = 8;
    }
    if (seed % 6 == 1) o.connectivity = Connectivity::Four;
    if (seed % 4 == 3) o.max_cost = 12.0;
    const std::string what = "seed " + std::to_string(seed);
    const SsspResult r = run(o, o_run);
    std::set<std::pair<double, double>> groups;
    for (const Src& s : sources) groups.insert({s.multiplier, s.max < 0 ? 1e300 : s.max});
    EXPECT_EQ(r.source_groups, groups.size()) << what;
    EXPECT_EQ(r.sources, sources.size()) << what;
    check_against_oracle(o, r, values, w, h, sources, what);
    if (::testing::Test::HasFailure()) return;
  }
}

// Ties and unreachable cells: a flat raster cut by a nodata wall with a gap; two sources of
// different groups at the same cost from the middle column (the lower id wins), a cheap source
// whose maximum stops it where a dearer one continues, an island no source reaches.
TEST(SourceSettings, TiesMaximaAndUnreachableCells) {
  testing::TempDir dir;
  const std::uint64_t w = 21, h = 11;
  std::vector<double> values(w * h, 1.0);
  for (std::uint64_t y = 0; y < h; ++y) values[y * w + 17] = kNaN;  // column 17: the island 18..20
  const std::string input = dir.file("flat.tif");
  testing::write_raster_values(input, w, h, values, CellType::Float32, -9999, georef());
  // id 1 at (2,5) multiplier 2 start 0; id 2 at (12,5) multiplier 1 start 5 with maximum 10: both
  // cost 10 at (7,5) (2 x 5 and 5 + 5), the lower id takes it; id 2 stops at cost 10, id 1 goes on
  // through id 2's cells; id 3 at (4,1) start 3, maximum 3: its own cell only.
  const std::vector<Src> sources = {{2, 5, 0.0, -1, 2.0}, {12, 5, 5.0, 10.0, 1.0}, {4, 1, 3.0, 3.0, 1.5}};
  SsspOptions o;
  RunSettings o_run;
  o.input = input;
  o.output = dir.file("cost.tif");
  o.allocation = dir.file("alloc.tif");
  use_points(o, dir.file("points.geojson"), sources);
  o.tile = 8;
  o.connectivity = Connectivity::Four;
  SsspOptions with_backlinks = o;
  RunSettings with_backlinks_run = o_run;  // several groups: backlinks are refused, nothing written
  with_backlinks.output = dir.file("refused.tif");
  with_backlinks.backlink = dir.file("back.tif");
  EXPECT_THROW(run(with_backlinks, with_backlinks_run), UsageError);
  EXPECT_FALSE(std::filesystem::exists(with_backlinks.output));
  const SsspResult r = run(o, o_run);
  EXPECT_EQ(r.source_groups, 3u);
  check_against_oracle(o, r, values, w, h, sources, "flat");
  const std::vector<double> alloc = testing::read_raster_values(o.allocation);
  const std::vector<double> cost = testing::read_raster_values(o.output);
  EXPECT_EQ(cost[5 * w + 7], 10.0);
  EXPECT_EQ(alloc[5 * w + 7], 1.0);  // the tie: id 1 (2 x 5) against id 2 (5 + 5)
  EXPECT_EQ(alloc[5 * w + 16], 2.0);  // 5 + 4
  EXPECT_EQ(cost[5 * w + 16], 9.0);
  EXPECT_EQ(alloc[0 * w + 16], 1.0);  // beyond id 2's maximum (5 + 9): id 1 at 2 x 19
  EXPECT_EQ(cost[0 * w + 16], 38.0);
  EXPECT_EQ(alloc[1 * w + 4], 3.0);  // id 3: its own cell only (start 3 = its maximum)
  EXPECT_EQ(alloc[1 * w + 5], 1.0);
  for (std::uint64_t y = 0; y < h; ++y)
    for (std::uint64_t x = 17; x < w; ++x) EXPECT_TRUE(cost[y * w + x] != cost[y * w + x]) << x << "," << y;
}

// A --source-raster beside file points of other groups: the mask's sources take the whole run's
// multiplier and initial cost; mask cells on nodata are skipped; a point on nodata is refused.
TEST(SourceSettings, SourceRasterBesidePointGroups) {
  testing::TempDir dir;
  std::mt19937_64 rng(99);
  const std::uint64_t w = 30, h = 25;
  std::vector<double> values = random_values(rng, w * h, 0.05);
  values[3 * w + 3] = kNaN;
  values[20 * w + 25] = 2.0;
  values[10 * w + 10] = 1.0;
  const std::string input = dir.file("in.tif");
  testing::write_raster_values(input, w, h, values, CellType::Float32, -9999, georef());
  std::vector<double> mask(w * h, 0.0);
  mask[3 * w + 3] = 7;    // on nodata: skipped
  mask[20 * w + 25] = 9;  // a source of id 9
  const std::string mask_path = dir.file("mask.tif");
  testing::write_raster_values(mask_path, w, h, mask, CellType::Float32, -9999, georef());
  const std::vector<Src> file = {{10, 10, 0.5, 20.0, 0.5}};
  SsspOptions o;
  RunSettings o_run;
  o.input = input;
  o.output = dir.file("cost.tif");
  use_points(o, dir.file("points.geojson"), file);
  o.source_raster = mask_path;
  o.source_multiplier = 1.5;
  o.source_initial = 2.0;
  o.tile = 16;
  const SsspResult r = run(o, o_run);
  EXPECT_EQ(r.source_groups, 2u);
  EXPECT_EQ(r.mask_cells_on_nodata, 1u);
  EXPECT_EQ(r.sources, 2u);
  // The oracle's ids: the file point is 1, the mask's source 9 (ids only break ties here).
  std::vector<Src> sources = file;
  for (int k = 2; k <= 8; ++k) sources.push_back(Src{25, 20, 1.0, 0.0, 1});  // ids 2..8: start beyond max, no seed
  sources.push_back(Src{25, 20, 2.0, -1, 1.5});
  check_against_oracle(o, r, values, w, h, sources, "mask");
  // A point on nodata is refused.
  write_points(o.sources_file, {{3, 3, 0, -1, 2.0}});
  o.source_raster.clear();
  EXPECT_THROW(run(o, o_run), UsageError);
}

// One group (every multiplier 1, no maximum) through the per-source path: the outputs are byte for
// byte today's; a multiplier of 2 everywhere equals the run on twice the friction (doubling is exact
// in floating point, so the rounded weights are the same).
TEST(SourceSettings, OneGroupCostsNothingAndMultiplierScalesTheFriction) {
  testing::TempDir dir;
  std::mt19937_64 rng(5);
  const std::uint64_t w = 40, h = 33;
  const std::vector<double> values = random_values(rng, w * h, 0.05);
  std::vector<double> doubled(values);
  for (double& v : doubled) v *= 2;
  const std::string input = dir.file("in.tif"), input2 = dir.file("in2.tif");
  testing::write_raster_values(input, w, h, values, CellType::Float64, -9999, georef());
  testing::write_raster_values(input2, w, h, doubled, CellType::Float64, -9999, georef());
  std::vector<Src> file;
  for (int k = 0; k < 3; ++k) {
    std::uint64_t c;
    do c = rng() % (w * h);
    while (values[c] != values[c]);
    file.push_back(Src{c % w, c / w, 0.0, -1, 1.0});
  }
  const std::string points = dir.file("points.geojson");
  write_points(points, file);
  auto slurp = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  SsspOptions o;
  RunSettings o_run;
  o.input = input;
  o.sources_file = points;
  o.tile = 16;
  o.scale = 1000;
  o.output = dir.file("plain.tif");
  o.backlink = dir.file("plain_back.tif");
  o.allocation = dir.file("plain_alloc.tif");
  run(o, o_run);
  SsspOptions g = o;
  RunSettings g_run = o_run;
  g.source_multiplier_field = "mult";
  g.source_max_field = "max";
  g.output = dir.file("group.tif");
  g.backlink = dir.file("group_back.tif");
  g.allocation = dir.file("group_alloc.tif");
  EXPECT_EQ(run(g, g_run).source_groups, 1u);
  EXPECT_EQ(slurp(o.output), slurp(g.output));
  EXPECT_EQ(slurp(o.backlink), slurp(g.backlink));
  EXPECT_EQ(slurp(o.allocation), slurp(g.allocation));
  // Multiplier 2 on the values = multiplier 1 on the doubled values, same scale.
  SsspOptions m = o;
  RunSettings m_run = o_run;
  m.source_multiplier = 2.0;
  m.output = dir.file("m2.tif");
  m.backlink = dir.file("m2_back.tif");
  m.allocation = dir.file("m2_alloc.tif");
  SsspOptions d = o;
  RunSettings d_run = o_run;
  d.input = input2;
  d.output = dir.file("d2.tif");
  d.backlink = dir.file("d2_back.tif");
  d.allocation = dir.file("d2_alloc.tif");
  run(m, m_run);
  run(d, d_run);
  auto same = [](const std::vector<double>& a, const std::vector<double>& b) {  // NaN (nodata) equals NaN
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!(a[i] == b[i] || (a[i] != a[i] && b[i] != b[i]))) return false;
    return true;
  };
  EXPECT_TRUE(same(testing::read_raster_values(m.output), testing::read_raster_values(d.output)));
  EXPECT_TRUE(same(testing::read_raster_values(m.backlink), testing::read_raster_values(d.backlink)));
  EXPECT_TRUE(same(testing::read_raster_values(m.allocation), testing::read_raster_values(d.allocation)));
}

// Bad input: one UsageError each (exit 2 through the CLI).
TEST(SourceSettings, BadInputIsRefused) {
  testing::TempDir dir;
  const std::uint64_t w = 16, h = 16;
  const std::vector<double> values(w * h, 1.0);
  const std::string input = dir.file("flat.tif");
  testing::write_raster_values(input, w, h, values, CellType::Float32, -9999, georef());
  const std::string points = dir.file("points.geojson");
  auto run_with = [&](const std::string& properties, const std::string& field_flag) {
    std::ofstream(points) << "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"properties\":{" +
                                 properties + "},\"geometry\":{\"type\":\"Point\",\"coordinates\":[10.025,49.975]}}]}";
    SsspOptions o;
    RunSettings o_run;
    o.input = input;
    o.output = dir.file("c.tif");
    o.sources_file = points;
    if (field_flag == "max") o.source_max_field = "v";
    if (field_flag == "mult") o.source_multiplier_field = "v";
    if (field_flag == "init") o.source_start = "v";
    return run(o, o_run);
  };
  EXPECT_THROW(run_with("\"v\":-2", "mult"), UsageError);
  EXPECT_THROW(run_with("\"v\":0", "mult"), UsageError);
  EXPECT_THROW(run_with("\"v\":\"fast\"", "mult"), UsageError);  // not numeric
  EXPECT_THROW(run_with("\"v\":-1", "max"), UsageError);
  EXPECT_THROW(run_with("\"v\":-1", "init"), UsageError);
  EXPECT_THROW(run_with("\"w\":2", "mult"), UsageError);  // no such attribute
  EXPECT_THROW(run_with("\"v\":1e12", "mult"), UsageError);  // the weights overflow
  EXPECT_NO_THROW(run_with("\"v\":null", "mult"));
  {  // exact integer weights (unit) and a fractional multiplier: refused at the default scale, run with --scale
    SsspOptions o;
    RunSettings o_run;
    o.input = input;
    o.output = dir.file("u.tif");
    o.sources = {parse_source_point("1,1"), parse_source_point("9,9")};
    o.weight = WeightModel::Unit;
    o.source_multiplier = 0.5;
    EXPECT_THROW(run(o, o_run), UsageError);
    o.source_multiplier = 3;
    EXPECT_NO_THROW(run(o, o_run));
    o.source_multiplier = 0.5;
    o.scale = 10;
    const SsspResult r = run(o, o_run);
    EXPECT_EQ(r.max_distance, 4.5);  // (15,0): 9 hops x 0.5 from (9,9), exactly
  }
  EXPECT_NO_THROW(run_with("\"v\":2.5", "max"));
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--source", "1,1", "--source-multiplier", "-1", "in.tif", "out.tif"},
        {"--source", "1,1", "--source-multiplier", "0", "in.tif", "out.tif"},
        {"--source", "1,1", "--source-multiplier", "nan", "in.tif", "out.tif"},
        {"--source", "1,1", "--source-initial", "-3", "in.tif", "out.tif"},
        {"--source", "1,1", "--source-max-field", "m", "in.tif", "out.tif"},
        {"--source", "1,1", "--source-multiplier-field", "m", "in.tif", "out.tif"},
        {"--sources-file", "p.json", "--source-start", "a", "--source-initial-field", "b", "in.tif", "out.tif"}})
    EXPECT_THROW(parse_sssp_options(args), UsageError) << args[2];
  const SsspCommandOptions parsed =
      parse_sssp_options({"--sources-file", "p.json", "--source-initial-field", "a", "--source-max-field", "b",
                          "--source-multiplier-field", "c", "--source-multiplier", "0.5", "--source-initial", "2",
                          "in.tif", "out.tif"});
  EXPECT_EQ(parsed.sssp.source_start, "a");
  EXPECT_EQ(parsed.sssp.source_max_field, "b");
  EXPECT_EQ(parsed.sssp.source_multiplier_field, "c");
  EXPECT_EQ(parsed.sssp.source_multiplier, 0.5);
  EXPECT_EQ(parsed.sssp.source_initial, 2.0);
  SsspOptions o;
  RunSettings o_run;  // --index has no multipliers
  o.input = input;
  o.output = dir.file("c.tif");
  o.sources = {parse_source_point("1,1")};
  o.source_multiplier = 2;
  o.index = dir.file("none.tzi");
  EXPECT_THROW(run(o, o_run), UsageError);
  {  // an index starts every source at 0: a real index with an initial cost is refused, without one it runs
    IndexOptions io;
    RunSettings io_run;
    io.input = input;
    io.output = dir.file("flat.tzi");
    io.tile = 16;
    io_run.device = DeviceRequest::Cpu;
    MemoryBudget budget(128ull << 20);
    terrazo::testing::run_with(run_index, io, io_run, budget, Progress::silent());
    o.index = io.output;
    o.source_multiplier = 1;
    o.source_initial = 2;
    EXPECT_THROW(run(o, o_run), UsageError);
    o.source_initial = 0;
    EXPECT_NO_THROW(run(o, o_run));
  }
}

// The command line: a bad attribute is one line on stderr and exit 2; the JSON counts the groups.
TEST(SourceSettings, CommandLineExitCodeAndJson) {
  testing::TempDir dir;
  const std::uint64_t w = 16, h = 16;
  const std::string input = dir.file("flat.tif");
  testing::write_raster_values(input, w, h, std::vector<double>(w * h, 1.0), CellType::Float32, -9999, georef());
  const std::string points = dir.file("points.geojson"), bad = dir.file("bad.geojson");
  write_points(points, {{2, 2, 0, -1, 2.0}, {12, 12, 1.0, 5.0, 1.0}});
  write_points(bad, {{2, 2, 0, -1, -2.0}});
  const std::string err = dir.file("err.txt"), out = dir.file("out.txt");
  auto terrazo = [&](const std::string& file) {
    const std::string command = std::string(TERRAZO_BINARY) + " sssp -q --json --sources-file " + file +
                                " --source-multiplier-field mult --source-max-field max " + input + " " +
                                dir.file("cost.tif") + " > " + out + " 2> " + err;
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  EXPECT_EQ(terrazo(bad), 2);
  const std::string message = slurp(err);
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 1) << message;
  EXPECT_NE(message.find("multipliers must be finite and > 0"), std::string::npos) << message;
  EXPECT_EQ(terrazo(points), 0) << slurp(err);
  EXPECT_NE(slurp(out).find("\"source_groups\":2"), std::string::npos) << slurp(out);
}

}  // namespace
}  // namespace terrazo
