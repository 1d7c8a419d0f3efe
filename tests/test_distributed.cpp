// tests/test_distributed.cpp: distributed runs (docs/distributed.md): the tile ownership (Z-order
// ranges balanced by weight), the one-rank communicator, and `mpirun -np K terrazo clump` and
// `... sssp` and `... mst` for K = 1..4: labels, --stats, costs, backlinks, allocations, MST edge
// rasters and edge lists byte for byte the one process's (cmp), equal to the in-memory oracles, on random rasters and a shipped DEM at several
// tile sizes; --min-size; a rank failing or killed mid-run ends the job non-zero with no output and
// no run directory left; bad input refused alike by every rank; every rank's VmHWM within its
// --memory + 64 MiB. The mpirun cases skip (never pass) where mpirun or the MPI build is absent.
// Open MPI refuses root unless told: the cases set OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM) and
// --oversubscribe (CI has 2 cores).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/clump/phases.h"
#include "kernels/sssp/backlink.h"
#include "engine/run/communicator.h"
#include "engine/run/tile_ownership.h"
#include "kernels/common/error.h"
#include "kernels/common/memory_budget.h"
#include "support/clump_reference.h"
#include "support/mst_reference.h"
#include "support/sssp_reference.h"
#include "support/store_patch.h"
#include "support/test_support.h"

namespace terrazo {
namespace {

using testing::CliRun;
using testing::read_raster_values;
using testing::run_cli;
using testing::TempDir;

// ---- the ownership -----------------------------------------------------------------------------

// Every tile has one owner; each rank's tiles are one contiguous Z-order range, in rank order; the
// weights are balanced within one tile's weight.
void expect_valid_ownership(const TileGrid& grid, int ranks, const std::vector<std::uint64_t>& weight) {
  const TileOwnership own(grid, ranks, weight.empty() ? nullptr : std::function<std::uint64_t(std::uint64_t)>(
                                                                      [&](std::uint64_t t) { return weight[t]; }));
  const std::vector<std::uint64_t> order = grid.z_order();
  std::vector<std::uint64_t> per_rank(ranks, 0);
  int last = 0;
  std::uint64_t total = 0, heaviest = 0;
  for (std::uint64_t z = 0; z < order.size(); ++z) {
    const int r = own.owner(order[z]);
    ASSERT_GE(r, last) << "Z position " << z;  // ranges in rank order: contiguous
    ASSERT_LT(r, ranks);
    ASSERT_GE(z, own.begin(r));
    ASSERT_LT(z, own.end(r));
    last = r;
    const std::uint64_t w = weight.empty() ? 1 : weight[order[z]];
    per_rank[r] += w, total += w, heaviest = std::max(heaviest, w);
  }
  std::uint64_t tiles = 0;
  for (int r = 0; r < ranks; ++r) {
    EXPECT_EQ(own.weight(r), per_rank[r]);
    tiles += own.tiles(r);
    if (total == 0) continue;
    // Rank r's weight is within one tile's weight of total / ranks.
    EXPECT_LE(per_rank[r] * ranks, total + heaviest * ranks) << "rank " << r << " of " << ranks;
    if (own.end(r) < order.size()) {
      EXPECT_GE((per_rank[r] + heaviest) * ranks + ranks, total) << "rank " << r;
    }
  }
  EXPECT_EQ(tiles, order.size());
}

TEST(TileOwnership, ContiguousZRangesBalancedByWeight) {
  std::mt19937_64 rng(32);
  for (int trial = 0; trial < 60; ++trial) {
    TileGrid grid;
    grid.tile = 16;
    grid.width = 1 + rng() % 400, grid.height = 1 + rng() % 400;
    const int ranks = 1 + static_cast<int>(rng() % 9);
    std::vector<std::uint64_t> weight;
    if (trial % 3 == 1) {  // present (1) or absent (0) tiles
      for (std::uint64_t t = 0; t < grid.tile_count(); ++t) weight.push_back(rng() % 4 != 0);
    } else if (trial % 3 == 2) {  // valid cells
      for (std::uint64_t t = 0; t < grid.tile_count(); ++t) weight.push_back(rng() % 257);
    }
    SCOPED_TRACE(std::to_string(grid.width) + "x" + std::to_string(grid.height) + ", " + std::to_string(ranks) + " ranks");
    expect_valid_ownership(grid, ranks, weight);
  }
}

TEST(TileOwnership, OneRankOwnsAllAndMoreRanksThanTilesLeavesSomeEmpty) {
  TileGrid grid;
  grid.tile = 64, grid.width = 100, grid.height = 70;  // 2 x 2 tiles
  const TileOwnership one(grid, 1);
  for (std::uint64_t t = 0; t < 4; ++t) EXPECT_EQ(one.owner(t), 0);
  const TileOwnership many(grid, 7);
  std::set<int> owners;
  for (std::uint64_t t = 0; t < 4; ++t) owners.insert(many.owner(t));
  EXPECT_EQ(owners.size(), 4u);
  std::uint64_t empty = 0;
  for (int r = 0; r < 7; ++r) empty += many.tiles(r) == 0;
  EXPECT_EQ(empty, 3u);
  // Absent tiles weigh nothing: the two ranks split the present ones.
  const TileOwnership two(grid, 2, [](std::uint64_t t) -> std::uint64_t { return t == 0 || t == 3; });
  EXPECT_EQ(two.weight(0), 1u);
  EXPECT_EQ(two.weight(1), 1u);
}

// ---- the one-rank communicator ------------------------------------------------------------------

TEST(Communicator, OneRankCollectivesAreIdentityAndAgreeRethrows) {
  const std::unique_ptr<Communicator> comm = make_single_communicator();
  EXPECT_FALSE(comm->distributed());
  EXPECT_EQ(comm->rank(), 0);
  std::uint64_t v[2] = {3, 5};
  comm->all_reduce(v, 2, ReduceOp::Sum);
  EXPECT_EQ(v[0], 3u);
  EXPECT_EQ(comm->exclusive_prefix_sum(9), 0u);
  EXPECT_EQ(comm->gather({1, 2, 3}, 0).size(), 1u);
  EXPECT_NO_THROW(comm->agree(nullptr, "stage"));
  EXPECT_THROW(comm->agree(std::make_exception_ptr(UsageError("bad")), "stage"), UsageError);
  EXPECT_FALSE(comm->failed_together());
  EXPECT_FALSE(launched_by_mpirun() && !built_with_mpi());
}

// ---- mpirun -np K terrazo clump ------------------------------------------------------------------

// Why the mpirun cases cannot run here ("" when they can).
std::string mpirun_missing() {
  if (std::system("mpirun --version > /dev/null 2>&1") != 0) return "mpirun is not installed (apt-get install openmpi-bin)";
  TempDir dir;
  const CliRun version = run_cli("--version", dir);
  if (version.out.find("MPI: built in") == std::string::npos) return "this terrazo was built without MPI (TERRAZO_MPI)";
  return "";
}

// `mpirun -np ranks terrazo ARGUMENTS`, as root too, oversubscribing CI's two cores.
CliRun run_mpi(int ranks, const std::string& arguments, const TempDir& dir, const std::string& env = "") {
  const std::string program = "timeout 300 env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 " +
                              env + " mpirun --oversubscribe --bind-to none -np " + std::to_string(ranks) + " " +
                              TERRAZO_BINARY;
  return testing::run_program(program, arguments, dir);
}

// The `ranks` summary's peak_rss_bytes, one per rank (empty when missing).
std::vector<std::uint64_t> ranks_peak_rss(const std::string& out) {
  std::vector<std::uint64_t> peaks;
  const auto key = out.find("\"peak_rss_bytes\":[");
  if (key == std::string::npos) return peaks;
  const std::string list = out.substr(key + 18, out.find(']', key) - key - 18);
  for (std::size_t at = 0; at < list.size();) {
    peaks.push_back(std::stoull(list.substr(at)));
    const auto comma = list.find(',', at);
    at = comma == std::string::npos ? list.size() : comma + 1;
  }
  return peaks;
}

// One summary line (rank 0's, counting the ranks when several), nothing from the other ranks.
void expect_rank_0_summary(const CliRun& r, int ranks) {
  if (ranks > 1) {
    EXPECT_NE(r.out.find("\"ranks\":{\"count\":" + std::to_string(ranks)), std::string::npos) << r.out;
  }
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
}

// The mpirun cases (MpiClump, MpiSssp, MpiMst): skipped (never passed) where mpirun or the MPI
// build is absent; each in a fresh directory.
class MpiCase : public ::testing::Test {
 protected:
  void SetUp() override {
    static const std::string why = mpirun_missing();
    if (!why.empty()) GTEST_SKIP() << why;
  }

  // An empty --tmpdir, to see which run directories a failed job leaves.
  std::string make_scratch() const {
    const std::string scratch = dir.file("scratch");
    EXPECT_EQ(std::system(("mkdir -p '" + scratch + "'").c_str()), 0);
    return scratch;
  }

  // Int16 cells with holes, 3000 x 2000: as doubles ~46 MiB, more than the budget cases' --memory.
  std::string make_budget_input() const {
    const std::string dem = dir.file("gen.tif");
    EXPECT_EQ(run_cli("gen -q --type Int16 --nodata-holes 0.1 --width 3000 --height 2000 --seed 5 " + dem, dir).code, 0);
    return dem;
  }

  // `mpirun -np 2 terrazo COMMAND ... --memory <mib>M ... ARGUMENTS`: each rank's VmHWM within its
  // --memory + 64 MiB.
  void expect_each_rank_within_budget(const std::string& command, std::uint64_t mib, const std::string& arguments) const {
    if (testing::kSanitizedBuild) GTEST_SKIP() << "VmHWM includes the sanitizer's shadow memory";
    const CliRun r = run_mpi(2, command + " -q --json --memory " + std::to_string(mib) + "M --tile 64 --threads 1 --tmpdir " +
                                    dir.path() + " " + arguments,
                             dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::vector<std::uint64_t> peaks = ranks_peak_rss(r.out);
    ASSERT_EQ(peaks.size(), 2u) << r.out;
    for (std::uint64_t peak : peaks) EXPECT_LE(peak, (mib << 20) + MemoryBudget::kFixedOverhead) << r.out;
  }

  TempDir dir;
};
using MpiClump = MpiCase;
using MpiSssp = MpiCase;
using MpiMst = MpiCase;

bool same_file(const std::string& a, const std::string& b) {
  return std::system(("cmp -s '" + a + "' '" + b + "'").c_str()) == 0;
}

// The labels raster against the oracle's labels (0 = nodata, read back as NaN).
void expect_oracle_labels(const std::string& input, const std::string& labels, Connectivity connectivity) {
  RasterInfo info;
  const std::vector<double> values = read_raster_values(input, &info);
  ClumpPhaseOptions o;
  o.connectivity = connectivity;
  const testing::ClumpReference expected = testing::clump_reference(values, info.width, info.height, o);
  const std::vector<double> got = read_raster_values(labels);
  ASSERT_EQ(got.size(), expected.labels.size());
  std::uint64_t differ = 0;
  for (std::size_t i = 0; i < got.size(); ++i) differ += (std::isnan(got[i]) ? 0u : static_cast<std::uint32_t>(got[i])) != expected.labels[i];
  EXPECT_EQ(differ, 0u) << labels;
}

// One process, then 1..4 ranks: the same labels and --stats bytes; the labels the oracle's.
void expect_ranks_match_one_process(const std::string& input, const std::string& flags, const TempDir& dir,
                                    Connectivity connectivity) {
  const std::string base = "clump -q --threads 1 --tmpdir " + dir.path() + " " + flags;
  const CliRun one = run_cli(base + " --stats " + dir.file("one.csv") + " " + input + " " + dir.file("one.tif"), dir);
  ASSERT_EQ(one.code, 0) << one.err;
  expect_oracle_labels(input, dir.file("one.tif"), connectivity);
  for (int ranks = 1; ranks <= 4; ++ranks) {
    SCOPED_TRACE(input + " " + flags + ", " + std::to_string(ranks) + " ranks");
    const std::string tif = dir.file("r" + std::to_string(ranks) + ".tif"), csv = dir.file("r" + std::to_string(ranks) + ".csv");
    const CliRun r = run_mpi(ranks, base + " --json --stats " + csv + " " + input + " " + tif, dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(same_file(dir.file("one.tif"), tif)) << "the labels differ from one process's";
    EXPECT_TRUE(same_file(dir.file("one.csv"), csv)) << "the --stats differ from one process's";
    expect_rank_0_summary(r, ranks);
  }
}

TEST_F(MpiClump, RandomRastersMatchOneProcessForOneToFourRanks) {
  // Odd sizes, nodata holes, few classes (regions crossing many tiles and ranks).
  const std::string a = dir.file("a.tif"), b = dir.file("b.tif");
  ASSERT_EQ(run_cli("gen -q --type Byte --relief 6 --nodata-holes 0.05 --width 301 --height 157 --seed 3 " + a, dir).code, 0);
  ASSERT_EQ(run_cli("gen -q --type Int16 --relief 40 --nodata-holes 0.2 --width 97 --height 211 --seed 8 " + b, dir).code, 0);
  expect_ranks_match_one_process(a, "--tile 16", dir, Connectivity::Eight);
  expect_ranks_match_one_process(a, "--tile 64 --connectivity 4", dir, Connectivity::Four);
  expect_ranks_match_one_process(b, "--tile 32", dir, Connectivity::Eight);
  // Tiles that are the GeoTIFF's blocks: the other ranks send them encoded (LZW here).
  expect_ranks_match_one_process(a, "--tile 256 --co COMPRESS=LZW", dir, Connectivity::Eight);
}

TEST_F(MpiClump, ShippedDemMatchesOneProcessForOneToFourRanks) {
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";
  expect_ranks_match_one_process(dem, "--tile 16", dir, Connectivity::Eight);
  expect_ranks_match_one_process(dem, "--tile 256", dir, Connectivity::Eight);
}

TEST_F(MpiClump, MinSizeMatchesOneProcess) {
  const std::string a = dir.file("a.tif");
  ASSERT_EQ(run_cli("gen -q --type Byte --relief 12 --nodata-holes 0.05 --width 203 --height 177 --seed 5 " + a, dir).code, 0);
  const std::string flags = "clump -q --tile 32 --min-size 9 --tmpdir " + dir.path() + " " + a + " ";
  ASSERT_EQ(run_cli(flags + dir.file("one.tif"), dir).code, 0);
  for (int ranks : {2, 3}) {
    const CliRun r = run_mpi(ranks, flags + dir.file("many.tif"), dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(same_file(dir.file("one.tif"), dir.file("many.tif"))) << ranks << " ranks";
  }
}

// A failure on one rank: every rank ends non-zero, the message names the rank, no output under
// its name, no partial file, and every rank's run directory (under --tmpdir) is gone.
void expect_failed_cleanly(const CliRun& r, const TempDir& dir, const std::string& output, const std::string& scratch) {
  EXPECT_NE(r.code, 0) << r.err;
  EXPECT_NE(r.code, 124) << "timed out: a rank hung";
  EXPECT_NE(r.err.find("rank 1"), std::string::npos) << r.err;
  EXPECT_NE(::access(output.c_str(), F_OK), 0) << output << " was published";
  EXPECT_TRUE(testing::partial_files_of(output).empty());
  EXPECT_EQ(std::system(("test -z \"$(ls -A '" + scratch + "')\"").c_str()), 0)
      << "run directories left: " << std::system(("ls -la '" + scratch + "' >&2").c_str());
  (void)dir;
}

// Rank 1 killed (SIGKILL): mpirun ends the others (their waits see SIGTERM and unwind), non-zero,
// no output, no partial file. The killed rank cannot clean up after itself: only the other ranks'
// run directories must be gone.
void expect_killed_cleanly(const CliRun& r, const TempDir& dir, const std::string& output, const std::string& scratch) {
  EXPECT_NE(r.code, 0) << r.err;
  EXPECT_NE(r.code, 124) << "timed out: a rank hung";
  EXPECT_NE(::access(output.c_str(), F_OK), 0) << output << " was published";
  EXPECT_TRUE(testing::partial_files_of(output).empty());
  const CliRun left = testing::run_program("ls", "-A " + scratch, dir);
  EXPECT_LE(std::count(left.out.begin(), left.out.end(), '\n'), 1) << left.out;
}

// The error of `terrazo COMMAND` on 3 ranks said once, by rank 0, not once per rank (mpirun adds
// its own lines).
bool said_once_by_rank_0(const CliRun& r, const std::string& command) {
  const std::string prefix = "terrazo " + command + ":";
  std::uint64_t said = 0;
  for (auto at = r.err.find(prefix); at != std::string::npos; at = r.err.find(prefix, at + 1)) ++said;
  return said == 1 && r.err.find("rank 0 of 3: error:") != std::string::npos;
}

TEST_F(MpiClump, ARankThatFailsOrIsKilledEndsTheJobWithNoOutput) {
  const std::string a = dir.file("a.tif");
  ASSERT_EQ(run_cli("gen -q --type Byte --relief 6 --width 400 --height 300 --seed 3 " + a, dir).code, 0);
  const std::string scratch = make_scratch();
  const std::string flags = "clump -q --tile 16 --tmpdir " + scratch + " " + a + " ";
  // An error in phase 1 (agreed: every rank unwinds, exit 1 everywhere, rank 0 names rank 1).
  CliRun r = run_mpi(3, flags + dir.file("thrown.tif"), dir, "TERRAZO_FAULT='1:clump: tile labels:throw'");
  expect_failed_cleanly(r, dir, dir.file("thrown.tif"), scratch);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("rank 1 of 3 (clump: tile labels): fault injected"), std::string::npos) << r.err;
  // An error in phase 3 (messages in flight: the failing rank unwinds, then MPI_Abort ends the others).
  r = run_mpi(3, flags + dir.file("aborted.tif"), dir, "TERRAZO_FAULT='1:clump: relabel:throw'");
  expect_failed_cleanly(r, dir, dir.file("aborted.tif"), scratch);
  // Rank 1 killed (SIGKILL) in phase 3.
  r = run_mpi(3, flags + dir.file("killed.tif"), dir, "TERRAZO_FAULT='1:clump: relabel:kill'");
  expect_killed_cleanly(r, dir, dir.file("killed.tif"), scratch);
}

TEST_F(MpiClump, BadInputIsRefusedByEveryRankBeforeWork) {
  // A missing input is a runtime error (exit 1) as in one process; a bad flag a usage error (exit 2).
  const CliRun flag = run_mpi(3, "clump -q --connectivity 5 in.tif " + dir.file("out.tif"), dir);
  EXPECT_EQ(flag.code, 2) << flag.err;
  const CliRun r = run_mpi(3, "clump -q " + dir.file("missing.tif") + " " + dir.file("out.tif"), dir);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(said_once_by_rank_0(r, "clump")) << r.err;
  EXPECT_NE(::access(dir.file("out.tif").c_str(), F_OK), 0);
}

// Each rank's VmHWM within its --memory + 64 MiB on a raster whose cells (as doubles) are ~2x it.
TEST_F(MpiClump, EachRanksPeakRssWithinItsBudget) {
  expect_each_rank_within_budget("clump", 24, make_budget_input() + " " + dir.file("labels.tif"));
}


// ---- mpirun -np K terrazo sssp -------------------------------------------------------------------

// The first valid cell at or after each (x, y) in raster order: sources that are never nodata.
std::vector<std::pair<std::uint64_t, std::uint64_t>> valid_sources(const std::vector<double>& values, std::uint64_t width,
                                                                   const std::vector<std::pair<std::uint64_t, std::uint64_t>>& near) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> cells;
  for (const auto& [x, y] : near) {
    std::uint64_t c = y * width + x;
    while (c < values.size() && std::isnan(values[c])) ++c;
    if (c < values.size()) cells.emplace_back(c % width, c / width);
  }
  return cells;
}

std::string source_flags(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& sources) {
  std::string flags;
  for (const auto& [x, y] : sources) flags += " --source " + std::to_string(x) + "," + std::to_string(y);
  return flags;
}

// The --json summary's "scale".
double json_scale(const std::string& out) {
  const auto key = out.find("\"scale\":");
  return key == std::string::npos ? 0 : std::stod(out.substr(key + 8));
}

// The costs, allocations and backlinks written against the oracle (friction, cells; source ids
// 1.. in the order given, as with --allocation).
void expect_sssp_oracle(const std::string& input, const std::vector<std::pair<std::uint64_t, std::uint64_t>>& sources,
                        Connectivity connectivity, double scale, const std::string& cost, const std::string& allocation,
                        const std::string& backlink) {
  RasterInfo info;
  const std::vector<double> values = read_raster_values(input, &info);
  WeightParams params;
  params.model = WeightModel::Friction;
  params.scale = scale;
  testing::SsspReferenceProblem p = testing::reference_problem(info.width, info.height, values.data(), params, connectivity);
  std::vector<std::pair<std::uint64_t, std::uint32_t>> seeds;
  for (std::size_t k = 0; k < sources.size(); ++k)
    seeds.emplace_back(sources[k].second * info.width + sources[k].first, static_cast<std::uint32_t>(k + 1));
  testing::set_reference_sources(p, seeds);
  ASSERT_TRUE(testing::sssp_reference(p));
  const std::vector<PathLength> dist = testing::fixed_distances(read_raster_values(cost), scale);
  ASSERT_EQ(dist.size(), p.dist.size());
  std::uint64_t differ = 0;
  for (std::size_t i = 0; i < dist.size(); ++i) differ += dist[i] != p.dist[i];
  EXPECT_EQ(differ, 0u) << cost << ": distances differ from the oracle's";
  if (!allocation.empty()) {
    const std::vector<double> ids = read_raster_values(allocation);
    differ = 0;
    for (std::size_t i = 0; i < ids.size(); ++i)
      differ += (std::isnan(ids[i]) ? 0u : static_cast<std::uint32_t>(ids[i])) != (p.dist[i] == kUnreached ? 0u : p.source[i]);
    EXPECT_EQ(differ, 0u) << allocation << ": allocations differ from the oracle's";
  }
  if (!backlink.empty()) {
    const std::vector<std::uint8_t> expected = testing::backlinks_reference(p);
    const std::vector<double> got = read_raster_values(backlink);
    differ = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
      differ += (std::isnan(got[i]) ? kNoBacklink : static_cast<std::uint8_t>(got[i])) != expected[i];
    EXPECT_EQ(differ, 0u) << backlink << ": backlinks differ from the oracle's";
  }
}

// One process, then 1..4 ranks: the same cost (and backlink and allocation) bytes; one process's
// equal to the oracle's. `labels`: with --backlink and --allocation.
void expect_sssp_ranks_match_one_process(const std::string& input, const std::string& flags, bool labels,
                                         const std::vector<std::pair<std::uint64_t, std::uint64_t>>& near,
                                         const TempDir& dir, Connectivity connectivity) {
  RasterInfo info;
  const std::vector<double> values = read_raster_values(input, &info);
  const auto sources = valid_sources(values, info.width, near);
  const std::string base = "sssp --threads 1 --tmpdir " + dir.path() + " " + flags + source_flags(sources);
  auto outputs = [&](const std::string& tag) {
    return labels ? " --backlink " + dir.file(tag + "_b.tif") + " --allocation " + dir.file(tag + "_a.tif") : std::string();
  };
  const CliRun one = run_cli(base + " -q --json" + outputs("one") + " " + input + " " + dir.file("one.tif"), dir);
  ASSERT_EQ(one.code, 0) << one.err;
  expect_sssp_oracle(input, sources, connectivity, json_scale(one.out), dir.file("one.tif"),
                     labels ? dir.file("one_a.tif") : "", labels ? dir.file("one_b.tif") : "");
  for (int ranks = 1; ranks <= 4; ++ranks) {
    SCOPED_TRACE(input + " " + flags + ", " + std::to_string(ranks) + " ranks");
    const std::string tag = "r" + std::to_string(ranks);
    const CliRun r = run_mpi(ranks, base + " -q --json" + outputs(tag) + " " + input + " " + dir.file(tag + ".tif"), dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(same_file(dir.file("one.tif"), dir.file(tag + ".tif"))) << "the costs differ from one process's";
    if (labels) {
      EXPECT_TRUE(same_file(dir.file("one_b.tif"), dir.file(tag + "_b.tif"))) << "the backlinks differ from one process's";
      EXPECT_TRUE(same_file(dir.file("one_a.tif"), dir.file(tag + "_a.tif"))) << "the allocations differ from one process's";
    }
    expect_rank_0_summary(r, ranks);
    if (flags.find("--exchange resident") != std::string::npos) {
      EXPECT_NE(r.out.find("\"exchange\":\"resident\""), std::string::npos) << r.out;
    }
  }
}

TEST_F(MpiSssp, RandomRastersMatchOneProcessAndTheOracleForOneToFourRanks) {
  // Odd sizes, nodata holes; tiles that do (16, 32 on 97 x 211: no) and do not divide the raster.
  const std::string a = dir.file("a.tif"), b = dir.file("b.tif");
  ASSERT_EQ(run_cli("gen -q --nodata-holes 0.05 --width 301 --height 157 --seed 3 " + a, dir).code, 0);
  ASSERT_EQ(run_cli("gen -q --nodata-holes 0.2 --width 97 --height 211 --seed 8 " + b, dir).code, 0);
  expect_sssp_ranks_match_one_process(a, "--tile 16", true, {{10, 10}, {250, 140}}, dir, Connectivity::Eight);
  expect_sssp_ranks_match_one_process(a, "--tile 32 --connectivity 4", true, {{150, 80}}, dir, Connectivity::Four);
  expect_sssp_ranks_match_one_process(a, "--tile 64 --connectivity 16", false, {{5, 150}, {290, 3}, {150, 70}}, dir,
                                      Connectivity::Sixteen);
  expect_sssp_ranks_match_one_process(b, "--tile 16", true, {{50, 100}, {3, 3}, {90, 200}}, dir, Connectivity::Eight);
}

TEST_F(MpiSssp, ShippedDemMatchesOneProcessAndTheOracleForOneToFourRanks) {
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";
  expect_sssp_ranks_match_one_process(dem, "--tile 32", true, {{17, 23}, {300, 200}}, dir, Connectivity::Eight);
  // Tiles that are the GeoTIFF's blocks (the block writer), compressed.
  expect_sssp_ranks_match_one_process(dem, "--tile 256 --co COMPRESS=DEFLATE", false, {{200, 150}}, dir,
                                      Connectivity::Eight);
}

// The resident exchange on ranks (its CPU twin; engine/sssp/resident_ranks.cpp): each rank's
// window, the shared cells traded every round. Tiles that do and do not divide the raster, so the
// windows start at odd rows and columns; 4, 8 and 16 neighbours; several sources.
TEST_F(MpiSssp, ResidentExchangeMatchesOneProcessAndTheOracleForOneToFourRanks) {
  const std::string a = dir.file("a.tif"), b = dir.file("b.tif");
  ASSERT_EQ(run_cli("gen -q --nodata-holes 0.05 --width 301 --height 157 --seed 13 " + a, dir).code, 0);
  ASSERT_EQ(run_cli("gen -q --nodata-holes 0.2 --width 97 --height 211 --seed 18 " + b, dir).code, 0);
  expect_sssp_ranks_match_one_process(a, "--exchange resident --tile 16 --resident-tile 8", false, {{10, 10}, {250, 140}},
                                      dir, Connectivity::Eight);
  expect_sssp_ranks_match_one_process(a, "--exchange resident --tile 32 --connectivity 4", false, {{150, 80}}, dir,
                                      Connectivity::Four);
  expect_sssp_ranks_match_one_process(a, "--exchange resident --tile 16 --connectivity 16 --resident-tile 16", false,
                                      {{5, 150}, {290, 3}, {150, 70}}, dir, Connectivity::Sixteen);
  expect_sssp_ranks_match_one_process(b, "--exchange resident --tile 16 --resident-tile 8", false,
                                      {{50, 100}, {3, 3}, {90, 200}}, dir, Connectivity::Eight);
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";
  expect_sssp_ranks_match_one_process(dem, "--exchange resident --tile 32", false, {{17, 23}, {300, 200}}, dir,
                                      Connectivity::Eight);
}

// Models whose weights depend on the row (geodesic step lengths: each rank's window counts rows
// from its own top) or on the direction of travel (walk), against one process.
TEST_F(MpiSssp, ResidentExchangeOnRanksKeepsRowAndDirectionDependentWeights) {
  const std::string a = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";  // 367 x 359, WGS 84
  for (const std::string flags : {"--distance geodesic", "--model walk", "--model tobler --connectivity 4"}) {
    const std::string base = "sssp -q --threads 1 --exchange resident --tile 32 --source 130,150 --source 300,10 " + flags +
                             " --tmpdir " + dir.path() + " " + a + " ";
    ASSERT_EQ(run_cli(base + dir.file("one.tif"), dir).code, 0) << flags;
    for (int ranks = 2; ranks <= 4; ++ranks) {
      SCOPED_TRACE(flags + ", " + std::to_string(ranks) + " ranks");
      const CliRun r = run_mpi(ranks, base + dir.file("r.tif"), dir);
      ASSERT_EQ(r.code, 0) << r.err;
      EXPECT_TRUE(same_file(dir.file("one.tif"), dir.file("r.tif"))) << "the costs differ from one process's";
    }
  }
}

TEST_F(MpiSssp, ARankThatFailsOrIsKilledEndsTheJobWithNoOutput) {
  const std::string a = dir.file("a.tif");
  ASSERT_EQ(run_cli("gen -q --width 400 --height 300 --seed 3 " + a, dir).code, 0);
  const std::string scratch = make_scratch();
  const std::string flags = "sssp -q --tile 16 --threads 1 --source 200,150 --tmpdir " + scratch + " --backlink " +
                            dir.file("b.tif") + " " + a + " ";
  // An error in the exchange and in the write phase (messages in flight: the failing rank unwinds,
  // then MPI_Abort ends the others).
  for (const std::string stage : {"sssp: exchange", "sssp: write"}) {
    SCOPED_TRACE(stage);
    const CliRun r = run_mpi(3, flags + dir.file("thrown.tif"), dir, "TERRAZO_FAULT='1:" + stage + ":throw'");
    expect_failed_cleanly(r, dir, dir.file("thrown.tif"), scratch);
    EXPECT_NE(r.err.find("fault injected at " + stage), std::string::npos) << r.err;
    EXPECT_NE(::access(dir.file("b.tif").c_str(), F_OK), 0);
  }
  // Rank 1 killed (SIGKILL) in the exchange.
  const CliRun r = run_mpi(3, flags + dir.file("killed.tif"), dir, "TERRAZO_FAULT='1:sssp: exchange:kill'");
  expect_killed_cleanly(r, dir, dir.file("killed.tif"), scratch);
  EXPECT_NE(::access(dir.file("b.tif").c_str(), F_OK), 0);
}

// A tile store's header statistics set the weight scale; on ranks each rank reads only its own
// tiles (and halos), so no rank sees every tile: the ranks' shares are merged and checked before
// any output (engine/raster_inputs/statistics_check.h). A store whose bound is looser than its data
// (checksums valid) is refused on every rank count as in one process; an exact one runs and gives
// the one-process bytes.
TEST_F(MpiSssp, HeaderStatisticsAreCheckedAcrossTheRanksOfEveryCommand) {
  const std::string exact = dir.file("exact.tzs"), loose = dir.file("loose.tzs");
  for (const std::string& store : {exact, loose})
    ASSERT_EQ(run_cli("gen -q --type Float64 --tile 16 --nodata-holes 0.05 --width 150 --height 110 --seed 9 " + store, dir).code,
              0);
  RasterInfo info;
  const std::vector<double> values = read_raster_values(exact, &info);
  double highest = 0;
  for (double v : values)
    if (!std::isnan(v)) highest = std::max(highest, v);
  testing::patch_header(loose, testing::kMaxOffset, testing::double_bytes(highest + 1000));
  const std::vector<std::string> commands = {"mst -q --threads 1", "clump -q --threads 1 --by range:0,50",
                                             "sssp -q --threads 1 --source 3,3 --max-cost 40",
                                             "sssp -q --threads 1 --source 3,3 --exchange resident"};
  for (const std::string& command : commands) {
    SCOPED_TRACE(command);
    const std::string one = dir.file("one.tif");
    ASSERT_EQ(run_cli(command + " " + exact + " " + one, dir).code, 0);
    EXPECT_EQ(run_cli(command + " " + loose + " " + dir.file("lied.tif"), dir).code, 1);
    for (int ranks : {2, 3}) {
      SCOPED_TRACE(ranks);
      const std::string out = dir.file("ranks.tif");
      CliRun r = run_mpi(ranks, command + " " + exact + " " + out, dir);
      ASSERT_EQ(r.code, 0) << r.err;
      EXPECT_EQ(testing::slurp(out), testing::slurp(one));
      r = run_mpi(ranks, command + " " + loose + " " + dir.file("lied.tif"), dir);
      EXPECT_EQ(r.code, 1) << r.err;
      EXPECT_NE(r.err.find("are not its tiles'"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("loose.tzs"), std::string::npos) << r.err;
      EXPECT_NE(::access(dir.file("lied.tif").c_str(), F_OK), 0);
    }
  }
}

TEST_F(MpiSssp, BadInputIsRefusedByEveryRankBeforeWork) {
  const std::string a = dir.file("a.tif");
  ASSERT_EQ(run_cli("gen -q --nodata-holes 0.2 --width 200 --height 150 --seed 8 " + a, dir).code, 0);
  RasterInfo info;
  const std::vector<double> values = read_raster_values(a, &info);
  const auto hole = std::find_if(values.begin(), values.end(), [](double v) { return std::isnan(v); }) - values.begin();
  ASSERT_LT(static_cast<std::size_t>(hole), values.size());
  const std::string out = " " + dir.file("out.tif");
  // A bad flag and a source on nodata (found by the rank owning its tile alone, refused by all) are
  // usage errors (exit 2), a missing input a runtime error (exit 1), as in one process.
  CliRun r = run_mpi(3, "sssp -q --tile 16 --connectivity 5 --source 1,1 " + a + out, dir);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(said_once_by_rank_0(r, "sssp")) << r.err;
  const std::string source = std::to_string(hole % info.width) + "," + std::to_string(hole / info.width);
  r = run_mpi(3, "sssp -q --tile 16 --source 1,1 --source " + source + " " + a + out, dir);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(said_once_by_rank_0(r, "sssp")) << r.err;
  EXPECT_NE(r.err.find("is on a nodata cell"), std::string::npos) << r.err;
  r = run_mpi(3, "sssp -q --source 1,1 " + dir.file("missing.tif") + out, dir);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(said_once_by_rank_0(r, "sssp")) << r.err;
  // What does not run on several ranks yet is refused, not run differently.
  r = run_mpi(2, "sssp -q --source-multiplier 2 --source 1,1 " + a + out, dir);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("do not run on several ranks yet"), std::string::npos) << r.err;
  EXPECT_NE(::access(dir.file("out.tif").c_str(), F_OK), 0);
}

// Each rank's VmHWM within its --memory + 64 MiB on a raster whose cells (as doubles) are ~2x it.
TEST_F(MpiSssp, EachRanksPeakRssWithinItsBudget) {
  const std::string dem = make_budget_input();
  RasterInfo info;
  const std::vector<double> values = read_raster_values(dem, &info);
  const auto sources = valid_sources(values, info.width, {{1500, 1000}, {100, 1900}});
  expect_each_rank_within_budget("sssp", 24, source_flags(sources) + " --backlink " + dir.file("b.tif") + " " + dem + " " +
                                                 dir.file("cost.tif"));
}

// ---- mpirun -np K terrazo mst ---------------------------------------------------------------------

// The --json summary's number under `key` (the first one), as written.
std::string json_number(const std::string& out, const std::string& key) {
  const auto at = out.find("\"" + key + "\":");
  if (at == std::string::npos) return "";
  const auto from = at + key.size() + 3;
  return out.substr(from, out.find_first_of(",}", from) - from);
}

// The edge raster against the Kruskal oracle (tests/support/mst_reference.h), with the weight
// parameters the run chose (its --json scale and offset).
void expect_mst_oracle(const std::string& input, const std::string& edges, const std::string& json, WeightModel model,
                       Connectivity connectivity) {
  RasterInfo info;
  const std::vector<double> values = read_raster_values(input, &info);
  WeightParams params;
  params.model = model;
  params.scale = std::stod(json_number(json, "scale"));
  params.offset = std::stod(json_number(json, "offset"));
  const testing::ReferenceMst ref = testing::reference_mst(values, info.width, info.height, params, connectivity);
  ASSERT_FALSE(ref.overflow);
  const std::vector<double> got = read_raster_values(edges);
  ASSERT_EQ(got.size(), ref.bits.size());
  std::uint64_t differ = 0;
  for (std::size_t i = 0; i < got.size(); ++i) differ += (std::isnan(got[i]) ? 255u : static_cast<unsigned>(got[i])) != ref.bits[i];
  EXPECT_EQ(differ, 0u) << edges << ": edges differ from the oracle's";
  EXPECT_EQ(json_number(json, "edges"), std::to_string(ref.edges));
  EXPECT_EQ(json_number(json, "total_weight"), std::to_string(ref.total_weight));
}

// One process (against the oracle), then 1..4 ranks: the same edge raster and edge list bytes, the
// same --json totals.
void expect_mst_ranks_match_one_process(const std::string& input, const std::string& flags, const TempDir& dir,
                                        WeightModel model, Connectivity connectivity) {
  const std::string base = "mst -q --json --threads 1 --tmpdir " + dir.path() + " " + flags;
  const CliRun one = run_cli(base + " --edge-list " + dir.file("one.bin") + " " + input + " " + dir.file("one.tif"), dir);
  ASSERT_EQ(one.code, 0) << one.err;
  expect_mst_oracle(input, dir.file("one.tif"), one.out, model, connectivity);
  for (int ranks = 1; ranks <= 4; ++ranks) {
    SCOPED_TRACE(input + " " + flags + ", " + std::to_string(ranks) + " ranks");
    const std::string tag = "r" + std::to_string(ranks);
    const CliRun r = run_mpi(ranks, base + " --threads 2 --edge-list " + dir.file(tag + ".bin") + " " + input + " " +
                                        dir.file(tag + ".tif"), dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(same_file(dir.file("one.tif"), dir.file(tag + ".tif"))) << "the edge rasters differ from one process's";
    EXPECT_TRUE(same_file(dir.file("one.bin"), dir.file(tag + ".bin"))) << "the edge lists differ from one process's";
    for (const char* key : {"total_weight", "edges", "vertices", "components", "summary_edges", "expansion_records"})
      EXPECT_EQ(json_number(r.out, key), json_number(one.out, key)) << key;
    expect_rank_0_summary(r, ranks);
  }
}

TEST_F(MpiMst, RandomRastersMatchOneProcessAndTheOracleForOneToFourRanks) {
  // Odd sizes, nodata holes, tiles 16 and 32 not dividing them; c's tiles divide it; tiles 256:
  // fewer tiles than ranks (ranks owning none) that are the GeoTIFF's blocks.
  const std::string a = dir.file("a.tif"), b = dir.file("b.tif"), c = dir.file("c.tif");
  ASSERT_EQ(run_cli("gen -q --type Int16 --relief 40 --nodata-holes 0.1 --width 301 --height 157 --seed 3 " + a, dir).code, 0);
  ASSERT_EQ(run_cli("gen -q --type Byte --relief 6 --nodata-holes 0.2 --width 97 --height 211 --seed 8 " + b, dir).code, 0);
  ASSERT_EQ(run_cli("gen -q --nodata-holes 0.05 --width 128 --height 96 --seed 4 " + c, dir).code, 0);
  expect_mst_ranks_match_one_process(a, "--tile 16", dir, WeightModel::Max, Connectivity::Eight);
  expect_mst_ranks_match_one_process(a, "--tile 32 --connectivity 4", dir, WeightModel::Max, Connectivity::Four);
  expect_mst_ranks_match_one_process(b, "--tile 16 --weight absdiff", dir, WeightModel::AbsDiff, Connectivity::Eight);
  expect_mst_ranks_match_one_process(c, "--tile 32", dir, WeightModel::Max, Connectivity::Eight);  // tiles divide it
  expect_mst_ranks_match_one_process(a, "--tile 256 --co COMPRESS=LZW", dir, WeightModel::Max, Connectivity::Eight);
}

TEST_F(MpiMst, ShippedDemMatchesOneProcessAndTheOracleForOneToFourRanks) {
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";
  expect_mst_ranks_match_one_process(dem, "--tile 32", dir, WeightModel::Max, Connectivity::Eight);
  expect_mst_ranks_match_one_process(dem, "--tile 256 --co COMPRESS=DEFLATE", dir, WeightModel::Max, Connectivity::Eight);
}

TEST_F(MpiMst, ARankThatFailsOrIsKilledEndsTheJobWithNoOutput) {
  const std::string a = dir.file("a.tif");
  ASSERT_EQ(run_cli("gen -q --width 400 --height 300 --seed 3 " + a, dir).code, 0);
  const std::string scratch = make_scratch();
  const std::string flags = "mst -q --tile 16 --threads 1 --tmpdir " + scratch + " --edge-list " + dir.file("e.bin") + " " + a + " ";
  // An error in phase 1 (agreed: every rank unwinds, exit 1, rank 0 names rank 1).
  CliRun r = run_mpi(3, flags + dir.file("thrown.tif"), dir, "TERRAZO_FAULT='1:mst: block-local:throw'");
  expect_failed_cleanly(r, dir, dir.file("thrown.tif"), scratch);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("rank 1 of 3 (mst: block-local): fault injected"), std::string::npos) << r.err;
  // Errors in the merge and the expansion (messages in flight: the failing rank unwinds, then
  // MPI_Abort ends the others).
  for (const std::string stage : {"mst: merge", "mst: expansion"}) {
    SCOPED_TRACE(stage);
    r = run_mpi(3, flags + dir.file("thrown.tif"), dir, "TERRAZO_FAULT='1:" + stage + ":throw'");
    expect_failed_cleanly(r, dir, dir.file("thrown.tif"), scratch);
    EXPECT_NE(r.err.find("fault injected at " + stage), std::string::npos) << r.err;
    EXPECT_NE(::access(dir.file("e.bin").c_str(), F_OK), 0);
  }
  // Rank 1 killed (SIGKILL) in the merge and in the expansion.
  for (const std::string stage : {"mst: merge", "mst: expansion"}) {
    SCOPED_TRACE(stage);
    r = run_mpi(3, flags + dir.file("killed.tif"), dir, "TERRAZO_FAULT='1:" + stage + ":kill'");
    expect_killed_cleanly(r, dir, dir.file("killed.tif"), scratch);
    EXPECT_NE(::access(dir.file("e.bin").c_str(), F_OK), 0);
    ASSERT_EQ(std::system(("rm -rf '" + scratch + "'/*").c_str()), 0);
  }
}

TEST_F(MpiMst, BadInputIsRefusedByEveryRankBeforeWork) {
  const std::string a = dir.file("a.tif"), out = " " + dir.file("out.tif");
  ASSERT_EQ(run_cli("gen -q --width 200 --height 150 --seed 8 " + a, dir).code, 0);
  // A bad flag, a scale at which the weights overflow: usage errors (exit 2); a missing input, a
  // budget too small for the merge: runtime errors (exit 1); as in one process, said once.
  for (const auto& [arguments, code] : std::vector<std::pair<std::string, int>>{
           {"--connectivity 5 " + a, 2}, {"--scale 1e12 " + a, 2}, {dir.file("missing.tif"), 1},
           {"--tile 16 --memory 2M " + a, 1}, {"--merge cpu-levels " + a, 2}}) {
    SCOPED_TRACE(arguments);
    const CliRun r = run_mpi(3, "mst -q " + arguments + out, dir);
    EXPECT_EQ(r.code, code) << r.err;
    EXPECT_TRUE(said_once_by_rank_0(r, "mst")) << r.err;
  }
  EXPECT_NE(::access(dir.file("out.tif").c_str(), F_OK), 0);
}

// Each rank's VmHWM within its --memory + 64 MiB on a raster whose cells (as doubles) exceed it.
TEST_F(MpiMst, EachRanksPeakRssWithinItsBudget) {
  expect_each_rank_within_budget("mst", 40, "--edge-list " + dir.file("e.bin") + " " + make_budget_input() + " " +
                                                dir.file("edges.tif"));
}

}  // namespace
}  // namespace terrazo
