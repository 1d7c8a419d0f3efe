// tests/support/flow_test_support.h: what the flow suites share (test_fill.cpp, test_flowdir.cpp,
// test_flowacc.cpp, test_watershed.cpp): a sink gathering the phases' tiles, random terrain with
// pits, plateaus and nodata, the plan's refusal before any work, a command run on one input at
// several flag sets, a table of usage errors, and the --json of a run on the tile path.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/flow/flow_phase.h"
#include "kernels/common/error.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "tests/support/flow_reference.h"
#include "tests/support/memory_tile_input.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo::testing {

// The tiles a flow phase hands over (engine/flow/flow_phase.h) in one row-major w x h raster, `cells`;
// a cell no tile wrote keeps `unwritten`. A tile out of row-major order fails the test.
template <class Cell>
class MemoryTileSink : public TileSink<Cell> {
 public:
  MemoryTileSink(std::uint64_t w, std::uint64_t h, std::uint32_t t, Cell unwritten)
      : cells(w * h, unwritten), w_(w), h_(h), t_(t) {}
  void write_tile(std::uint32_t tx, std::uint32_t ty, const Cell* tile) override {
    EXPECT_EQ(std::uint64_t{ty} * ((w_ + t_ - 1) / t_) + tx, next_++) << "tiles out of row-major order";
    for (std::uint32_t y = 0; y < t_ && std::uint64_t{ty} * t_ + y < h_; ++y)
      for (std::uint32_t x = 0; x < t_ && std::uint64_t{tx} * t_ + x < w_; ++x)
        cells[(std::uint64_t{ty} * t_ + y) * w_ + std::uint64_t{tx} * t_ + x] = tile[std::size_t{y} * t_ + x];
  }
  std::vector<Cell> cells;

 private:
  std::uint64_t w_, h_;
  std::uint32_t t_;
  std::uint64_t next_ = 0;
};

// A flow phase run in memory: run(input, budget, sink) over `values` (w x h in tiles of t, a tile with
// no valid cell absent) under a budget of `budget_bytes`, all of which it must give back; the phases'
// result, and in `cells` what the sink gathered (`unwritten` where no tile wrote).
template <class Cell, class Run>
auto run_phases_in_memory(const std::vector<double>& values, std::uint64_t w, std::uint64_t h, std::uint32_t t,
                          Cell unwritten, std::vector<Cell>& cells, Run run, std::uint64_t budget_bytes = 256ull << 20) {
  const MemoryTileInput<double> input(values, w, h, t);
  MemoryBudget budget(budget_bytes);
  MemoryTileSink<Cell> sink(w, h, t, unwritten);
  const auto result = run(static_cast<const TileInput&>(input), budget, static_cast<TileSink<Cell>&>(sink));
  EXPECT_EQ(budget.reserved(), 0u) << "bytes of the budget still held after the phases";
  cells = std::move(sink.cells);
  return result;
}

// A flow command's output does not depend on which tiles its first pass kept for the write
// (engine/flow/kept_tiles.h). run(input, budget, sink) runs the phases (as run_phases_in_memory
// takes them) over `values` (w x h in tiles of t) and returns their result, whose `kept_tiles` counts
// the tiles reused. Over the budgets from `from` to `to` in steps of `step` (those the plan refuses
// skipped), EXPECTs every run's cells to hold the bytes of a run at 256 MiB, and the runs to have
// reused none and all of the raster's tiles, and some but not all unless `some_too` is false.
template <class Cell, class Run>
void expect_same_bytes_whichever_tiles_are_kept(const std::vector<double>& values, std::uint64_t w, std::uint64_t h,
                                                std::uint32_t t, Cell unwritten, Run run, std::uint64_t from,
                                                std::uint64_t to, std::uint64_t step, const std::string& what,
                                                bool some_too = true) {
  const std::uint64_t tiles = ((w + t - 1) / t) * ((h + t - 1) / t);
  std::vector<Cell> want;
  run_phases_in_memory(values, w, h, t, unwritten, want, run);
  bool none = false, some = false, all = false;
  for (std::uint64_t budget = from; budget <= to; budget += step) {
    std::vector<Cell> cells;
    std::uint64_t kept = 0;
    try {
      kept = run_phases_in_memory(values, w, h, t, unwritten, cells, run, budget).kept_tiles;
    } catch (const BudgetError&) {
      continue;
    }
    none |= kept == 0;
    some |= kept > 0 && kept < tiles;
    all |= kept == tiles;
    ASSERT_EQ(cells.size(), want.size()) << what;
    EXPECT_EQ(std::memcmp(cells.data(), want.data(), want.size() * sizeof(Cell)), 0)
        << what << ": other bytes at a budget of " << budget << " with " << kept << " of " << tiles << " tiles kept";
  }
  EXPECT_TRUE(none && (some || !some_too) && all) << what << ": the budgets did not span none, some and all tiles kept ("
                                                  << none << some << all << ")";
}

// EXPECTs every cell i of `got` (w wide) to match `want` (ok(i)); the message names the first that
// does not, with both values. The count of cells that do not.
template <class Got, class Want, class Ok>
std::uint64_t expect_cells_match(const std::vector<Got>& got, const std::vector<Want>& want, std::uint64_t w,
                                 const std::string& what, Ok ok) {
  std::uint64_t wrong = 0, first = 0;
  for (std::uint64_t i = 0; i < got.size(); ++i)
    if (!ok(i) && wrong++ == 0) first = i;
  EXPECT_EQ(wrong, 0u) << what << ": first at (" << first % w << ", " << first / w << "): " << +got[first] << " for "
                       << +want[first];
  return wrong;
}

// Random terrain: sin(fx x) cos(fy y) + noise x u, fx and fy drawn in [least_frequency,
// least_frequency + 0.3), rounded to few levels (least_steps + floor(steps_span u) per unit: plateaus
// and pits), times `scale`.
struct TerrainShape {
  double least_frequency = 0.05, least_steps = 2, steps_span = 30, noise = 0.6, scale = 100;
};

// Nodata blobs (squares of radius 1 to 3) over about `holes` of the w x h cells of `dem`.
inline void add_nodata_blobs(std::mt19937_64& rng, std::vector<double>& dem, std::uint64_t w, std::uint64_t h, double holes) {
  const int blobs = static_cast<int>(holes * w * h / 12);
  for (int b = 0; b < blobs; ++b) {
    const std::uint64_t cx = rng() % w, cy = rng() % h, r = 1 + rng() % 3;
    for (std::uint64_t y = cy >= r ? cy - r : 0; y <= cy + r && y < h; ++y)
      for (std::uint64_t x = cx >= r ? cx - r : 0; x <= cx + r && x < w; ++x) dem[y * w + x] = std::nan("");
  }
}

// A w x h raster of `shape`, then nodata blobs over about `holes` of it.
inline std::vector<double> random_terrain(std::mt19937_64& rng, std::uint64_t w, std::uint64_t h, double holes,
                                          const TerrainShape& shape = {}) {
  std::uniform_real_distribution<double> unit(0, 1);
  const double fx = shape.least_frequency + 0.3 * unit(rng), fy = shape.least_frequency + 0.3 * unit(rng),
               steps = shape.least_steps + std::floor(shape.steps_span * unit(rng));
  std::vector<double> dem(w * h);
  for (std::uint64_t y = 0; y < h; ++y)
    for (std::uint64_t x = 0; x < w; ++x) {
      const double v = std::sin(fx * x) * std::cos(fy * y) + shape.noise * unit(rng);
      dem[y * w + x] = std::round(v * steps) / steps * shape.scale;
    }
  add_nodata_blobs(rng, dem, w, h, holes);
  return dem;
}

// The DEMs the direction suites draw their codes from (reference_d8): the default shape at scale 1.
inline std::vector<double> random_unit_terrain(std::mt19937_64& rng, std::uint64_t w, std::uint64_t h, double holes) {
  return random_terrain(rng, w, h, holes, TerrainShape{0.05, 2, 30, 0.6, 1});
}

// A band of nodata across the second row of tiles of t (rows t .. 2t - 1): absent tiles between present ones.
inline void blank_tile_row(std::vector<double>& dem, std::uint64_t w, std::uint64_t h, std::uint32_t t) {
  for (std::uint64_t y = t; y < std::min<std::uint64_t>(h, 2 * t); ++y)
    for (std::uint64_t x = 0; x < w; ++x) dem[y * w + x] = std::nan("");
}

// The random case `seed` of the direction suites (flowacc's and watershed's): 1..100 x 1..100 cells,
// tiles of 8 to 64, 1 to 3 threads, the D8 codes (reference_d8) of random_unit_terrain with nodata
// blobs (none every third seed) and, every seventh seed, blank_tile_row.
struct DirectionCase {
  std::uint64_t w = 0, h = 0;
  std::uint32_t t = 0;
  unsigned threads = 0;
  std::vector<double> codes;
};

inline DirectionCase random_direction_case(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::uint32_t tiles[] = {8, 16, 32, 64};
  DirectionCase c;
  c.w = 1 + rng() % 100;
  c.h = 1 + rng() % 100;
  c.t = tiles[rng() % 4];
  c.threads = 1 + static_cast<unsigned>(rng() % 3);
  std::vector<double> dem = random_unit_terrain(rng, c.w, c.h, seed % 3 == 0 ? 0.0 : 0.05 + 0.1 * (seed % 2));
  if (seed % 7 == 0) blank_tile_row(dem, c.w, c.h, c.t);
  c.codes = reference_d8(dem, c.w, c.h);
  return c;
}

// run(progress) must be refused (BudgetError naming `message`) before any progress event: the plan's
// refusal comes before any work.
template <class Run>
void expect_refused_before_any_work(Run run, const std::string& message) {
  std::uint64_t events = 0;
  Progress counting([&](const ProgressEvent&) { return ++events, true; });
  try {
    run(counting);
    ADD_FAILURE() << "ran; expected a refusal naming: " << message;
  } catch (const BudgetError& e) {
    EXPECT_TRUE(contains(e.what(), message)) << e.what();
  }
  EXPECT_EQ(events, 0u);
}

// The flag sets the direction commands' shipped-DEM tests run at: tiles of 64, of 256 on one thread,
// of 32 through an imported store at a small budget.
inline const std::vector<std::vector<std::string>> kFlowFlagSets = {
    {"--tile", "64"}, {"--tile", "256", "--threads", "1"}, {"--tile", "32", "--memory", "24M", "--input-mode", "import"}};

// For each flag set: run(args), a command's run on arguments -q --threads 2 --tmpdir DIR, the set,
// `input` and OUTPUT (`name`.<the set's second word>.tif in DIR), returning its result; OUTPUT read
// back, of cell type `type`; then check(cells, result, what), `what` naming the run. Every OUTPUT
// must be the same file.
template <class Run, class Check>
void run_at_flag_sets(const TempDir& dir, const std::string& input, const std::string& name,
                      const std::vector<std::vector<std::string>>& sets, CellType type, Run run, Check check) {
  std::string first_bytes;
  for (const std::vector<std::string>& flags : sets) {
    const std::string output = dir.file(name + "." + flags[1] + ".tif");
    std::vector<std::string> args = {"-q", "--threads", "2", "--tmpdir", dir.path()};
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), {input, output});
    const std::string what = name + " " + flags[0] + " " + flags[1];
    const auto result = run(args);
    RasterInfo info;
    const std::vector<double> cells = read_raster_values(output, &info);
    EXPECT_EQ(info.type, type) << what;
    check(cells, result, what);
    if (first_bytes.empty()) first_bytes = slurp(output);
    else EXPECT_TRUE(slurp(output) == first_bytes) << what << " wrote another file";
  }
}

// A usage-error table: each case's flags, given as `command` -q FLAGS INPUT OUTPUT, must exit 2 with
// an error that contains its message.
using UsageErrorCases = std::vector<std::pair<std::vector<std::string>, std::string>>;
#ifdef TERRAZO_BINARY
inline void expect_usage_errors(const std::string& command, const UsageErrorCases& cases, const std::string& input,
                                const std::string& output) {
  for (const auto& [flags, message] : cases) {
    std::vector<std::string> args = {command, "-q"};
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), {input, output});
    const CliRun r = run_terrazo(args);
    EXPECT_EQ(r.code, 2) << message << ": " << r.err;
    EXPECT_TRUE(contains(r.err, message)) << message << " in " << r.err;
  }
}
#endif

// The --json of a `--device cpu` run (fill, flowdir): device cpu on the tile path, that path's key
// `tiles_key`, no resident rounds and no fallback.
inline void expect_tile_path_json(const std::string& json, const std::string& tiles_key) {
  EXPECT_NE(json.find("\"device\":\"cpu\",\"path\":\"tiles\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"" + tiles_key + "\""), std::string::npos) << json;
  EXPECT_EQ(json.find("\"resident\""), std::string::npos) << json;
  EXPECT_EQ(json.find("\"fallback\""), std::string::npos) << json;
}

}  // namespace terrazo::testing
