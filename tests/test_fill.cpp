// tests/test_fill.cpp: out-of-core depression filling (engine/flow/fill_phases.h) against the
// whole-raster Priority-Flood (tests/support/fill_reference.h), bit for bit: random rasters with pits,
// plateaus of equal values, nodata holes and absent tiles, every outlet mode, 4 and 8 neighbours,
// tiles of 8 to 64 and 1 to 3 threads; the shipped DEMs; the plan's refusal before any work.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/commands/fill_command.h"
#include "engine/flow/fill_phases.h"
#include "kernels/common/error.h"
#include "tests/support/fill_reference.h"
#include "tests/support/memory_tile_input.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

class MemorySink : public FillTileSink {
 public:
  MemorySink(std::uint64_t w, std::uint64_t h, std::uint32_t t) : w_(w), h_(h), t_(t), cells(w * h, -12345.0) {}
  void write_tile(std::uint32_t tx, std::uint32_t ty, const double* tile) override {
    EXPECT_EQ(std::uint64_t{ty} * ((w_ + t_ - 1) / t_) + tx, next_++) << "tiles out of row-major order";
    for (std::uint32_t y = 0; y < t_ && std::uint64_t{ty} * t_ + y < h_; ++y)
      for (std::uint32_t x = 0; x < t_ && std::uint64_t{tx} * t_ + x < w_; ++x)
        cells[(std::uint64_t{ty} * t_ + y) * w_ + std::uint64_t{tx} * t_ + x] = tile[std::size_t{y} * t_ + x];
  }
  std::uint64_t w_, h_;
  std::uint32_t t_;
  std::uint64_t next_ = 0;
  std::vector<double> cells;
};

// Terrain with pits and flats: smooth bumps plus noise, rounded to few distinct values (ties), with
// nodata blobs (and, sometimes, a whole nodata tile row to make absent tiles).
std::vector<double> random_dem(std::mt19937_64& rng, std::uint64_t w, std::uint64_t h, double holes) {
  std::uniform_real_distribution<double> unit(0, 1);
  const double fx = 0.05 + 0.3 * unit(rng), fy = 0.05 + 0.3 * unit(rng), steps = 2 + std::floor(30 * unit(rng));
  std::vector<double> dem(w * h);
  for (std::uint64_t y = 0; y < h; ++y)
    for (std::uint64_t x = 0; x < w; ++x) {
      const double v = std::sin(fx * x) * std::cos(fy * y) + 0.6 * unit(rng);
      dem[y * w + x] = std::round(v * steps) / steps * 100.0;
    }
  const int blobs = static_cast<int>(holes * w * h / 12);
  for (int b = 0; b < blobs; ++b) {
    const std::uint64_t cx = rng() % w, cy = rng() % h, r = 1 + rng() % 3;
    for (std::uint64_t y = cy >= r ? cy - r : 0; y <= cy + r && y < h; ++y)
      for (std::uint64_t x = cx >= r ? cx - r : 0; x <= cx + r && x < w; ++x) dem[y * w + x] = std::nan("");
  }
  return dem;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }

struct FillCase {
  std::uint64_t w, h;
  std::uint32_t t;
  unsigned threads;
  Connectivity connectivity;
  bool edge, nodata;
};

FillPhaseResult check_case(const std::vector<double>& dem, const FillCase& c, const std::string& what) {
  MemoryTileInput<double> input(dem, c.w, c.h, c.t);
  FillPhaseOptions o;
  o.connectivity = c.connectivity;
  o.edge_outlets = c.edge;
  o.nodata_outlets = c.nodata;
  o.threads = c.threads;
  MemoryBudget budget(256ull << 20);
  MemorySink sink(c.w, c.h, c.t);
  const FillPhaseResult r = run_fill_phases(input, o, budget, Progress::silent(), sink);
  const std::vector<double> want =
      testing::reference_fill(dem, c.w, c.h, c.connectivity == Connectivity::Eight, c.edge, c.nodata);
  std::uint64_t wrong = 0, first = 0, closed = 0, raised = 0;
  for (std::uint64_t i = 0; i < want.size(); ++i) {
    if (!same_bits(sink.cells[i], want[i]) && wrong++ == 0) first = i;
    closed += !std::isnan(dem[i]) && std::isnan(want[i]);
    raised += !std::isnan(want[i]) && want[i] > dem[i];
  }
  EXPECT_EQ(wrong, 0u) << what << ": first at (" << first % c.w << ", " << first / c.w << "): " << sink.cells[first]
                       << " for " << want[first];
  EXPECT_EQ(r.closed_cells, closed) << what;
  EXPECT_EQ(r.raised_cells, raised) << what;
  EXPECT_EQ(budget.reserved(), 0u) << what;
  return r;
}

TEST(Fill, RandomRastersMatchTheWholeRasterPriorityFlood) {
  std::uint64_t raised = 0, closed = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    std::mt19937_64 rng(seed);
    const std::uint32_t tiles[] = {8, 16, 32, 64};
    FillCase c{20 + rng() % 90, 20 + rng() % 90, tiles[rng() % 4], 1 + static_cast<unsigned>(rng() % 3),
               rng() % 3 == 0 ? Connectivity::Four : Connectivity::Eight, rng() % 4 != 0, rng() % 4 != 1};
    if (!c.edge && !c.nodata) c.edge = true;
    std::vector<double> dem = random_dem(rng, c.w, c.h, seed % 3 == 0 ? 0.0 : 0.05 + 0.1 * (seed % 2));
    if (seed % 7 == 0)  // a band of nodata across a row of tiles: absent tiles between present ones
      for (std::uint64_t y = c.t; y < std::min<std::uint64_t>(c.h, 2 * c.t); ++y)
        for (std::uint64_t x = 0; x < c.w; ++x) dem[y * c.w + x] = std::nan("");
    const FillPhaseResult r = check_case(dem, c,
                                         "seed " + std::to_string(seed) + " " + std::to_string(c.w) + " x " +
                                             std::to_string(c.h) + " tile " + std::to_string(c.t) + " threads " +
                                             std::to_string(c.threads) + (c.edge ? " edge" : "") +
                                             (c.nodata ? " nodata" : "") + " outlets, " +
                                             std::to_string(static_cast<int>(c.connectivity)) + " neighbours");
    raised += r.raised_cells;
    closed += r.closed_cells;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(raised, 1000u);  // the cases fill pits
  EXPECT_GT(closed, 0u);     // and some regions have no outlet (edge or nodata outlets alone)
}

// The same raster at every tile size and thread count: the same bits (the oracle's).
TEST(Fill, EveryTileSizeAndThreadCountGivesTheSameBits) {
  std::mt19937_64 rng(99);
  const std::uint64_t w = 131, h = 97;
  const std::vector<double> dem = random_dem(rng, w, h, 0.08);
  for (std::uint32_t t : {8u, 16u, 32u, 64u, 128u})
    for (unsigned threads : {1u, 2u, 4u})
      check_case(dem, FillCase{w, h, t, threads, Connectivity::Eight, true, true},
                 "tile " + std::to_string(t) + " threads " + std::to_string(threads));
}

// `terrazo fill` on the shipped DEMs (one with 49% nodata), by the command's own parser and entry
// point: the whole-raster Priority-Flood's values in INPUT's type, the same file bytes at tiles of 64
// and 256, and the closed cells only where the outlets leave none.
TEST(FillCommand, ShippedDemsMatchTheWholeRasterPriorityFlood) {
  testing::TempDir dir;
  const std::string real = std::string(TERRAZO_DATASETS) + "/real/";
  std::uint64_t raised = 0;
  for (const std::string name : {"N44W072.hgt", "Mega_divide.bil", "pysheds_dem.tif", "rhine_elv0.tif", "nz_elev.tif"}) {
    RasterInfo info;
    const std::vector<double> dem = testing::read_raster_values(real + name, &info);
    for (const std::string outlets : {"both", "edge"}) {
      const std::vector<double> want = testing::reference_fill(dem, info.width, info.height, true, true, outlets == "both");
      std::string first_bytes;
      for (const std::string tile : {"64", "256"}) {
        const std::string out = dir.file(name + "." + outlets + "." + tile + ".tif");
        const FillCommandResult r = run_fill_command(
            parse_fill_options({"-q", "--threads", "2", "--tile", tile, "--outlets", outlets, "--tmpdir", dir.path(),
                                real + name, out}),
            Progress::silent());
        RasterInfo out_info;
        const std::vector<double> got = testing::read_raster_values(out, &out_info);
        EXPECT_EQ(out_info.type, info.type) << name;
        std::uint64_t wrong = 0;
        for (std::size_t i = 0; i < want.size(); ++i) wrong += !same_bits(got[i], want[i]);
        EXPECT_EQ(wrong, 0u) << name << " --outlets " << outlets << " --tile " << tile;
        raised += r.result.raised_cells;
        if (first_bytes.empty()) first_bytes = testing::slurp(out);
        else EXPECT_TRUE(testing::slurp(out) == first_bytes) << name << ": tiles of 64 and 256 wrote different files";
      }
    }
  }
  EXPECT_GT(raised, 100000u);
}

// A budget that cannot hold a batch of tile floods beside the perimeters is refused before any work.
TEST(Fill, TooSmallABudgetIsRefusedBeforeAnyWork) {
  std::mt19937_64 rng(3);
  const std::vector<double> dem = random_dem(rng, 300, 200, 0.05);
  MemoryTileInput<double> input(dem, 300, 200, 64);
  FillPhaseOptions o;
  o.threads = 2;
  MemoryBudget budget(256ull << 10);
  MemorySink sink(300, 200, 64);
  std::uint64_t events = 0;
  Progress counting([&](const ProgressEvent&) { return ++events, true; });
  try {
    run_fill_phases(input, o, budget, counting, sink);
    FAIL() << "256 KiB ran";
  } catch (const BudgetError& e) {
    EXPECT_NE(std::string(e.what()).find("memory budget too small for fill: "), std::string::npos) << e.what();
  }
  EXPECT_EQ(events, 0u);
}

}  // namespace
}  // namespace terrazo
