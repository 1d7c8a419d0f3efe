// tests/test_corridor.cpp: `terrazo corridor` (engine/commands/corridor.h): the sum of two cost surfaces from
// run_sssp, cell for cell, over several strips; its minimum is the A-to-B distance and every cell
// of the least-cost path from B back to A attains it (fixed point, exactly); thresholds; refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/commands/corridor.h"
#include "engine/commands/corridor_command.h"
#include "engine/commands/sssp.h"
#include "kernels/common/error.h"
#include "kernels/common/tile_geometry.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Surfaces {
  std::string a, b, back_b;
  double scale = 1;
  std::uint64_t ax = 0, ay = 0, bx = 0, by = 0;
};

// A random friction raster of w x h (more rows than one corridor strip) and the cost surfaces from
// two sources, B's with backlinks.
Surfaces make_surfaces(testing::TempDir& dir, std::uint64_t seed, std::uint64_t w, std::uint64_t h) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> values(w * h);
  for (auto& v : values) v = unit(rng) < 0.05 ? kNaN : 1.0 + std::floor(unit(rng) * 20.0);
  Surfaces s;
  s.ax = 3, s.ay = 4, s.bx = w - 5, s.by = h - 6;
  values[s.ay * w + s.ax] = 1.0;
  values[s.by * w + s.bx] = 1.0;
  const std::string input = dir.file("friction" + std::to_string(seed) + ".tif");
  testing::write_raster_values(input, w, h, values, CellType::Float32, -9999);
  SsspOptions o;
  RunSettings o_run;
  o.input = input;
  o.tile = 64;
  o.output = s.a = dir.file("a" + std::to_string(seed) + ".tif");
  o.sources = {parse_source_point(std::to_string(s.ax) + "," + std::to_string(s.ay))};
  MemoryBudget budget(128ull << 20);
  s.scale = terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent()).params.scale;
  o.output = s.b = dir.file("b" + std::to_string(seed) + ".tif");
  o.backlink = s.back_b = dir.file("back_b" + std::to_string(seed) + ".tif");
  o.sources = {parse_source_point(std::to_string(s.bx) + "," + std::to_string(s.by))};
  terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent());
  return s;
}

CorridorResult corridor(const std::string& a, const std::string& b, const std::string& out, double threshold = -1,
                        double percent = -1, std::uint64_t budget_bytes = 64ull << 20) {
  CorridorOptions o;
  RunSettings o_run;
  o.a = a;
  o.b = b;
  o.output = out;
  o.threshold = threshold;
  o.percent = percent;
  MemoryBudget budget(budget_bytes, MemoryBudget::kRaiseMemory);
  return terrazo::testing::run_with(run_corridor, o, o_run, budget, Progress::silent());
}

// Reproducer: corridor refused any budget below a whole strip (256 rows x 24 bytes a column, 48
// MiB at 8192 columns) plus 16 MiB of GDAL cache, so rasters wider than ~2000 columns could not
// run in 64M. Now a budget too small for whole strips cuts them into pieces of whole 256-column
// blocks: at 7M a 700-column raster runs in three pieces a strip, every cell as at 64M (one
// piece); below the least piece it is refused before any cell is read, naming the need.
TEST(Corridor, SmallBudgetCutsStripsIntoPiecesWithTheSameCells) {
  testing::TempDir dir;
  // Two random surfaces (5% nodata) of 700 x 300 Float64 cells in GeoTIFF blocks of 256.
  const std::uint64_t w = 700, h = kCorridorStripRows + 44;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Surfaces s;
  s.a = dir.file("a.tif");
  s.b = dir.file("b.tif");
  for (const std::string& path : {s.a, s.b}) {
    std::vector<double> values(w * h);
    for (auto& v : values) v = unit(rng) < 0.05 ? kNaN : std::floor(unit(rng) * 1000.0) / 8;
    testing::write_raster_values(path, w, h, values, CellType::Float64, -1);
  }
  const std::string whole = dir.file("whole.tif"), pieces = dir.file("pieces.tif");
  for (const double percent : {-1.0, 4.0}) {
    const CorridorResult w = corridor(s.a, s.b, whole, -1, percent);
    const CorridorResult p = corridor(s.a, s.b, pieces, -1, percent, 7ull << 20);
    EXPECT_EQ(p.valid_cells, w.valid_cells);
    EXPECT_EQ(p.corridor_cells, w.corridor_cells);
    EXPECT_EQ(p.min_sum, w.min_sum);
    EXPECT_EQ(p.max_sum, w.max_sum);
    EXPECT_EQ(p.threshold, w.threshold);
    const std::vector<double> a = testing::read_raster_values(whole), b = testing::read_raster_values(pieces);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_TRUE(a[i] == b[i] || (a[i] != a[i] && b[i] != b[i])) << "cell " << i << " percent " << percent;
    }
  }
  const std::string refused = dir.file("refused.tif");
  try {
    corridor(s.a, s.b, refused, -1, 4.0, 5ull << 20);
    ADD_FAILURE() << "5M was not refused";
  } catch (const BudgetError& e) {
    EXPECT_NE(std::string(e.what()).find("memory budget too small for corridor: a piece of 256 x 256 cells"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("raise --memory to "), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("--tile"), std::string::npos) << e.what();
  }
  for (const auto& name : testing::entries_of(dir)) EXPECT_EQ(name.rfind("refused.tif", 0), std::string::npos) << name;
}

TEST(Corridor, SumOfTwoSurfacesAndItsMinimumIsTheLeastCostPath) {
  testing::TempDir dir;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const std::uint64_t w = 90 + seed * 17, h = kCorridorStripRows + 40 + seed * 23;
    const Surfaces s = make_surfaces(dir, seed, w, h);
    const std::string out = dir.file("corridor" + std::to_string(seed) + ".tif");
    const CorridorResult r = corridor(s.a, s.b, out);
    const std::vector<double> a = testing::read_raster_values(s.a), b = testing::read_raster_values(s.b);
    const std::vector<double> c = testing::read_raster_values(out);
    std::uint64_t valid = 0;
    for (std::uint64_t i = 0; i < c.size(); ++i) {
      const double want = a[i] + b[i];
      if (want != want) {
        ASSERT_TRUE(c[i] != c[i]) << "cell " << i;
        continue;
      }
      ++valid;
      ASSERT_EQ(c[i], want) << "cell " << i;
    }
    EXPECT_EQ(r.valid_cells, valid);
    EXPECT_EQ(r.corridor_cells, valid);
    // The corridor's minimum is the A-to-B distance, attained along B's least-cost path to A.
    const std::vector<PathLength> fa = testing::fixed_distances(a, s.scale), fb = testing::fixed_distances(b, s.scale);
    const PathLength d_ab = fa[s.by * w + s.bx];
    ASSERT_NE(d_ab, kUnreached);
    EXPECT_EQ(fb[s.ay * w + s.ax], d_ab);  // symmetric weights
    EXPECT_NEAR(r.min_sum, static_cast<double>(d_ab) / s.scale, 1e-9 * r.min_sum);
    const std::vector<double> back = testing::read_raster_values(s.back_b);
    std::uint64_t x = s.ax, y = s.ay, steps = 0;
    for (;;) {
      const std::uint64_t i = y * w + x;
      EXPECT_EQ(fa[i] + fb[i], d_ab) << "path cell " << x << "," << y;
      const double code = back[i];
      if (code != code || code == 255) break;
      x += kDirDx[static_cast<int>(code)];
      y += kDirDy[static_cast<int>(code)];
      ASSERT_LT(++steps, w * h);
    }
    EXPECT_EQ(x, s.bx);
    EXPECT_EQ(y, s.by);
    // Thresholds: --threshold C and --percent P keep exactly the cells with sum <= T.
    for (const double percent : {-1.0, 0.0, 3.0}) {
      const double threshold = percent < 0 ? r.min_sum * 1.02 : -1;
      const std::string cut = dir.file("cut.tif");
      const CorridorResult t = corridor(s.a, s.b, cut, threshold, percent);
      const double limit = percent < 0 ? threshold : r.min_sum * (1 + percent / 100) * (1 + kCorridorPercentSlack);
      EXPECT_EQ(t.threshold, limit);
      const std::vector<double> kept = testing::read_raster_values(cut);
      std::uint64_t count = 0;
      for (std::uint64_t i = 0; i < kept.size(); ++i) {
        const double sum = a[i] + b[i];
        const bool in = sum == sum && sum <= limit;
        ASSERT_EQ(kept[i] == kept[i], in) << "cell " << i << " percent " << percent;
        if (in) {
          ASSERT_EQ(kept[i], sum);
        }
        count += in;
      }
      EXPECT_EQ(t.corridor_cells, count);
      EXPECT_GE(count, steps + 1);  // at least the least-cost path
    }
  }
}

TEST(Corridor, BadInputIsRefused) {
  testing::TempDir dir;
  const std::vector<double> v(20 * 30, 1.0);
  const std::string a = dir.file("a.tif"), b = dir.file("b.tif"), shifted = dir.file("s.tif");
  testing::write_raster_values(a, 20, 30, v, CellType::Float64, -1);
  testing::write_raster_values(b, 30, 20, v, CellType::Float64, -1);
  RasterInfo moved;
  moved.has_geotransform = true;
  moved.geotransform = {5, 1, 0, 30, 0, -1};
  testing::write_raster_values(shifted, 20, 30, v, CellType::Float64, -1, moved);
  RasterInfo base;
  base.has_geotransform = true;
  base.geotransform = {0, 1, 0, 30, 0, -1};
  testing::write_raster_values(a, 20, 30, v, CellType::Float64, -1, base);
  EXPECT_THROW(corridor(a, b, dir.file("o.tif")), UsageError);
  EXPECT_THROW(corridor(a, shifted, dir.file("o.tif")), UsageError);
  EXPECT_THROW(parse_corridor_options({"--threshold", "5", "--percent", "2", "a.tif", "b.tif", "o.tif"}), UsageError);
  EXPECT_THROW(parse_corridor_options({"--percent", "-2", "a.tif", "b.tif", "o.tif"}), UsageError);
  EXPECT_THROW(parse_corridor_options({"a.tif", "b.tif"}), UsageError);
  const CorridorCommandOptions ok = parse_corridor_options({"--percent", "2.5", "a.tif", "b.tif", "o.tif"});
  EXPECT_EQ(ok.corridor.percent, 2.5);
  EXPECT_EQ(ok.corridor.threshold, -1);
  EXPECT_NO_THROW(corridor(a, a, dir.file("o.tif")));
}

}  // namespace
}  // namespace terrazo
