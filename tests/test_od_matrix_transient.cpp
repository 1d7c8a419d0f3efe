// tests/test_od_matrix_transient.cpp: od-matrix's transient index (--transient-index) on the CPU,
// built into memory or, when the budget cannot hold it, into a file, against the Dijkstra oracle and
// an explicit index; and the index in memory (engine/index/index_in_memory.h) against the file. The
// other index and od-matrix suites: test_od_matrix.cpp.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine/commands/index.h"
#include "kernels/common/error.h"
#include "engine/index/index_in_memory.h"
#include "kernels/index/boundary_ring.h"
#include "io/store/index_file.h"
#include "tests/support/od_matrix_support.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

using namespace testing::od_matrix_suite;

// The transient-index cases: od-matrix --transient-index on generated terrain, on the CPU with 2
// threads and its run directory in `scratch`.
class OdMatrix : public ::testing::Test {
 protected:
  // Terrain of width x height from seed `terrain`, `sites` sites picked by a generator seeded with
  // `site_seed`, tiles of `tile`.
  void prepare(std::uint64_t width, std::uint64_t height, std::uint64_t terrain, std::uint64_t site_seed, int sites,
               std::uint32_t tile) {
    g = generated_terrain(dir, width, height, terrain);
    std::mt19937_64 rng(site_seed);
    cells = pick_sites(g.values, g.info.width, g.info.height, rng, sites);
    o.input = g.path;
    o.sites = points_of(cells, g.info.width);
    o.transient_index = true;
    o.tile = tile;
    o_run.device = DeviceRequest::Cpu;
    o_run.threads = 2;
    o_run.tmpdir = scratch.path();
  }

  testing::TempDir dir;
  testing::TempDir scratch{dir.path()};
  GeneratedTerrain g;
  std::vector<std::uint64_t> cells;
  OdMatrixOptions o;
  RunSettings o_run;
};

// --transient-index: an index built in the run directory, queried and deleted, gives the oracle's
// matrix (and the explicit index's) on generated terrain with nodata holes; nothing is left behind.
TEST_F(OdMatrix, TransientIndexEqualsTheOracleAndLeavesNothing) {
  prepare(200, 150, 11, 5, 6, 32);
  MemoryBudget budget(256ull << 20);
  const OdMatrixResult transient = terrazo::testing::run_with(run_od_matrix, o, o_run, budget, Progress::silent());
  EXPECT_EQ(transient.method, "transient index");
  EXPECT_EQ(transient.exchange, "sweep");  // on the CPU: built into memory, the sweep
  EXPECT_GT(transient.index_bytes, 0u);
  EXPECT_EQ(transient.tile, 32u);
  EXPECT_GT(transient.seconds_index, 0.0);
  const auto want = reference_matrix(g.values, g.info.width, g.info.height, transient.params, Connectivity::Eight, kUnreached, cells);
  expect_same(transient.costs, want, cells.size(), "transient index");
  const std::string index = dir.file("gen.tzi");
  build(g.path, index, WeightModel::Friction, Connectivity::Eight, 32, 8);
  const OdMatrixResult with = query(g.path, index, o.sites, WeightModel::Friction, Connectivity::Eight);
  EXPECT_EQ(with.costs, transient.costs);
  o.exchange = "queue";  // the index file in the run directory, the label-correcting queue
  const OdMatrixResult file = terrazo::testing::run_with(run_od_matrix, o, o_run, budget, Progress::silent());
  EXPECT_EQ(file.exchange, "queue");
  EXPECT_EQ(file.index_bytes, 0u);
  EXPECT_EQ(file.costs, transient.costs);
  EXPECT_EQ(budget.reserved(), 0u);
  const std::vector<std::string> left = testing::entries_of(scratch);
  EXPECT_TRUE(left.empty()) << left.size() << " entries left in the scratch directory, e.g. " << (left.empty() ? "" : left[0]);
}

// The transient index on the CPU under budgets from too small to ample, with 8-byte matrix entries
// (a scale that takes in-tile distances past 32 bits: the memory check counts 4-byte ones, so some
// budgets pass it and are overrun by the build, which then takes a file): every budget that runs
// gives the oracle's matrix, in memory (the sweep) or from a file, and reserves nothing after.
TEST_F(OdMatrix, TransientIndexUnderShrinkingBudgetsFallsBackToAFile) {
  prepare(160, 130, 3, 9, 5, 16);
  o.scale = 9e6;  // steps up to 4e9 (32-bit weights), in-tile distances past 2^32
  std::vector<PathLength> want;
  std::set<std::string> ways;
  for (std::uint64_t mib = 1; mib <= 64; mib *= 2)
    for (std::uint64_t eighth = 8; eighth < 16; eighth += 3) {
      MemoryBudget budget(mib * eighth * (1ull << 17));
      OdMatrixResult r;
      bool told = false;  // the progress says why the index goes to a file (its query may still be the sweep)
      Progress progress([&](const ProgressEvent& e) {
        told = told || e.phase.find("holds no index in memory") != std::string::npos;
        return true;
      });
      try {
        r = terrazo::testing::run_with(run_od_matrix, o, o_run, budget, progress);
      } catch (const BudgetError&) {
        EXPECT_EQ(budget.reserved(), 0u);
        continue;
      }
      if (want.empty())
        want = reference_matrix(g.values, g.info.width, g.info.height, r.params, Connectivity::Eight, kUnreached, cells);
      expect_same(r.costs, want, cells.size(), "budget " + MemoryBudget::format_size(budget.total()));
      EXPECT_LE(budget.peak_reserved(), budget.total());
      EXPECT_EQ(budget.reserved(), 0u);
      ways.insert(r.exchange);
      if (r.exchange == "queue") {
        EXPECT_TRUE(told) << "budget " << budget.total() << ": the file's slow path unannounced";
      }
      if (::testing::Test::HasFailure()) return;
    }
  EXPECT_EQ(ways.count("sweep"), 1u) << "no budget held the index in memory";
  EXPECT_EQ(ways.count("queue"), 1u) << "no budget sent the transient index to a file";
  EXPECT_TRUE(testing::entries_of(scratch).empty());
}

// A budget too small for the transient index's query is refused by the plan before the build (it
// was found after building the whole index): a BudgetError naming the phase and the --memory that
// would do, with no progress of the build; the budget the message names runs.
TEST_F(OdMatrix, TransientIndexBudgetTooSmallIsRefusedBeforeTheBuild) {
  prepare(512, 384, 21, 4, 2, 16);
  std::uint64_t build_events = 0;
  Progress counting([&](const ProgressEvent& e) {
    build_events += e.phase.rfind("index", 0) == 0;
    return true;
  });
  MemoryBudget small(1ull << 20);
  std::string message;
  try {
    terrazo::testing::run_with(run_od_matrix, o, o_run, small, counting);
    FAIL() << "1 MiB ran a transient index of 768 tiles";
  } catch (const BudgetError& e) {
    message = e.what();
  }
  EXPECT_EQ(build_events, 0u) << message;
  EXPECT_NE(message.find("memory budget too small for od-matrix: query: it needs at least"), std::string::npos) << message;
  const std::size_t at = message.find("give --memory ");
  ASSERT_NE(at, std::string::npos) << message;
  const std::uint64_t named_mib = std::stoull(message.substr(at + 14));
  MemoryBudget named((named_mib + 1) << 20);  // one MiB more: the plan's parts are lower bounds
  const OdMatrixResult r = terrazo::testing::run_with(run_od_matrix, o, o_run, named, Progress::silent());
  expect_same(r.costs, reference_matrix(g.values, g.info.width, g.info.height, r.params, Connectivity::Eight, kUnreached, cells),
              cells.size(), "at the budget the refusal named");
}

// The index in memory: loaded from a file, every tile's ring values and stored triangle are
// read_tile's; built record by record under a budget, a budget short of the records is a BudgetError
// (the transient index then takes a file), one that holds them keeps every byte.
TEST(IndexInMemory, LoadEqualsTheFileAndTheBudgetBoundsIt) {
  testing::TempDir dir;
  const std::string path = dir.file("memory.tzi");
  MemoryBudget budget(64ull << 20);
  auto index = testing::hugo_site_index(path, budget);
  const std::uint32_t t = 16, b = ring_size(t);
  const auto memory = IndexInMemory::load(*index, 3);
  EXPECT_EQ(memory->present_tiles(), index->present_tiles());
  EXPECT_EQ(memory->bytes(), IndexInMemory::bytes_of(*index));
  std::vector<double> ring(b);
  std::vector<PathLength> matrix(static_cast<std::size_t>(b) * b);
  std::vector<std::uint64_t> present;
  for (std::uint64_t tile = 0; tile < index->header().grid().tile_count(); ++tile) {
    ASSERT_EQ(memory->present(tile), index->entry(tile).offset != 0) << "tile " << tile;
    if (!memory->present(tile)) continue;
    present.push_back(tile);
    index->read_tile(tile, ring.data(), matrix.data());
    for (std::uint32_t p = 0; p < b; ++p) {
      const double got = memory->ring(tile)[p];
      ASSERT_TRUE(got == ring[p] || (got != got && ring[p] != ring[p])) << "tile " << tile << " ring " << p;
    }
    std::uint64_t at = 0;
    for (std::uint32_t i = 0; i < b; ++i)
      for (std::uint32_t j = i; j < b; ++j, ++at) {
        PathLength v;
        if (memory->width(tile) == 4) {
          const std::uint32_t w = static_cast<const std::uint32_t*>(memory->triangle(tile))[at];
          v = w == 0xFFFFFFFFu ? kUnreached : w;
        } else {
          v = static_cast<const PathLength*>(memory->triangle(tile))[at];
        }
        ASSERT_EQ(v, matrix[static_cast<std::size_t>(i) * b + j]) << "tile " << tile << " entry " << i << "," << j;
      }
  }
  ASSERT_GT(present.size(), 8u);
  auto fill = [&](MemoryBudget& limited) {
    IndexInMemory built(index->header().grid(), &limited);
    IndexRecord record;
    for (std::uint64_t tile : present) {
      index->read_tile(tile, ring.data(), matrix.data());
      encode_index_record(t, ring.data(), matrix.data(), &record);
      built.write_record(tile, record, 0);
    }
    EXPECT_EQ(built.bytes(), memory->bytes());
    EXPECT_GE(limited.reserved(), built.bytes());
    for (std::uint64_t tile : present)
      EXPECT_EQ(std::memcmp(built.ring(tile), memory->ring(tile), index->entry(tile).bytes), 0) << "tile " << tile;
  };
  MemoryBudget short_budget(memory->bytes() / 2);
  EXPECT_THROW(fill(short_budget), BudgetError);
  EXPECT_EQ(short_budget.reserved(), 0u);
  MemoryBudget enough(memory->bytes() + (2ull << 20));
  fill(enough);
  EXPECT_EQ(enough.reserved(), 0u);
}

}  // namespace
}  // namespace terrazo
