// tests/test_watershed_streams.cpp: `terrazo watershed --streams` (engine/flow/stream_phases.h,
// engine/commands/watershed_streams.h) against the whole-raster reference_streams of
// tests/support/flow_reference.h: the Strahler chains' composition, the phases' raster and segments
// on random direction rasters and forests at every tile size and thread count, the gathered network's
// refusal past its share, the program's raster and GeoJSON at several tiles and budgets, the usage errors.
#include <gtest/gtest.h>
#include <gdal_priv.h>
#include <ogrsf_frmts.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "engine/commands/watershed_command.h"
#include "engine/flow/stream_phases.h"
#include "engine/flow/strahler.h"
#include "engine/flow/watershed_phases.h"
#include "io/gdal/gdal_session.h"
#include "kernels/common/error.h"
#include "tests/support/flow_reference.h"
#include "tests/support/flow_test_support.h"
#include "tests/support/memory_tile_input.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

// The segments a phase run hands over, as the reference holds them.
class RecordingSegments : public StreamSegmentSink {
 public:
  void begin(const StreamSegment& s) override {
    EXPECT_EQ(s.id, segments.size() + 1) << "segments out of order";
    testing::ReferenceStreams::Segment r;
    r.order = s.order;
    r.downstream = s.downstream;
    r.junction = s.junction == ~std::uint64_t{0} ? -1 : static_cast<std::int64_t>(s.junction);
    segments.push_back(r);
    cells = s.cells;
  }
  void cell(std::uint64_t id) override { segments.back().cells.push_back(id); }
  void end() override { EXPECT_EQ(segments.back().cells.size(), cells); }
  std::vector<testing::ReferenceStreams::Segment> segments;
  std::uint64_t cells = 0;
};

// The stream phases over `codes` (accumulation from the reference) at tile t, checked against
// reference_streams: the raster cell for cell, the segments one for one; the raster returned.
std::vector<std::uint8_t> check_streams(const std::vector<double>& codes, std::uint64_t w, std::uint64_t h,
                                        std::uint32_t t, unsigned threads, std::int64_t threshold,
                                        const std::string& what, std::uint64_t budget_bytes = 256ull << 20) {
  const std::vector<std::int64_t> acc = testing::reference_flowacc_linear(codes, w, h);
  std::vector<double> acc_values(codes.size());
  for (std::size_t i = 0; i < codes.size(); ++i)
    acc_values[i] = testing::reference_valid(codes[i]) ? static_cast<double>(acc[i]) : std::nan("");
  const MemoryTileInput<double> directions(codes, w, h, t), accumulation(acc_values, w, h, t);
  StreamPhaseOptions o;
  o.threads = threads;
  o.threshold = static_cast<double>(threshold);
  MemoryBudget budget(budget_bytes);
  testing::MemoryTileSink<std::uint8_t> raster(w, h, t, 77);
  RecordingSegments segments;
  const StreamPhaseResult r =
      run_stream_phases(directions, accumulation, o, budget, Progress::silent(), raster, &segments);
  EXPECT_EQ(budget.reserved(), 0u) << what;
  const testing::ReferenceStreams want = testing::reference_streams(codes, w, h, threshold);
  testing::expect_cells_match(raster.cells, want.orders, w, what,
                              [&](std::uint64_t i) { return raster.cells[i] == want.orders[i]; });
  EXPECT_EQ(r.stream_cells, want.stream_cells) << what;
  EXPECT_EQ(r.max_order, want.max_order) << what;
  EXPECT_EQ(r.segments, want.segments.size()) << what;
  EXPECT_EQ(segments.segments.size(), want.segments.size()) << what;
  for (std::size_t i = 0; i < std::min(segments.segments.size(), want.segments.size()); ++i) {
    const auto& g = segments.segments[i];
    const auto& e = want.segments[i];
    if (g.order == e.order && g.downstream == e.downstream && g.junction == e.junction && g.cells == e.cells) continue;
    ADD_FAILURE() << what << ": segment " << i + 1 << " differs: order " << int(g.order) << " / " << int(e.order)
                  << ", downstream " << g.downstream << " / " << e.downstream << ", cells " << g.cells.size() << " / "
                  << e.cells.size() << ", first " << (g.cells.empty() ? 0 : g.cells[0]) << " / " << e.cells[0];
    break;
  }
  return raster.cells;
}

// A chain's function against the chain itself: random chains of cells, each with random known
// inflows, composed by then() (which throws when a composition leaves its form) and applied to every
// entering order, equal to the orders computed cell by cell.
TEST(WatershedStreams, StrahlerChainsComposeExactly) {
  std::mt19937_64 rng(17);
  for (int chain = 0; chain < 20000; ++chain) {
    std::vector<StrahlerInflow> cells(1 + rng() % 8);
    for (StrahlerInflow& c : cells)
      for (std::uint64_t k = rng() % 4; k > 0; --k) c.add(static_cast<std::uint8_t>(1 + rng() % 7));
    StrahlerChain f;
    for (const StrahlerInflow& c : cells) f = f.then(c);
    for (std::uint8_t o = 1; o <= 12; ++o) {
      std::uint8_t want = o;
      for (StrahlerInflow c : cells) c.add(want), want = c.order();
      ASSERT_EQ(f.apply(o), want) << "chain " << chain << " entering order " << int(o);
    }
  }
}

TEST(WatershedStreams, RandomDemDirectionsMatchTheWholeRasterReference) {
  std::uint64_t most_order = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    const testing::DirectionCase d = testing::random_direction_case(seed);
    const std::int64_t threshold = 1 + static_cast<std::int64_t>(seed % 5) * (seed % 3);
    const std::vector<std::uint8_t> got = check_streams(d.codes, d.w, d.h, d.t, d.threads, threshold,
        "seed " + std::to_string(seed) + " " + std::to_string(d.w) + " x " + std::to_string(d.h) + " tile " +
            std::to_string(d.t) + " threshold " + std::to_string(threshold));
    for (const std::uint8_t o : got) most_order = std::max<std::uint64_t>(most_order, o == 255 ? 0 : o);
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GE(most_order, 4u);  // orders that need junctions of junctions
}

TEST(WatershedStreams, RandomForestsAndThinRastersMatchTheWholeRasterReference) {
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    std::mt19937_64 rng(seed * 104729);
    const std::uint32_t tiles[] = {1, 2, 3, 8, 16};
    const bool thin = seed % 4 == 0;
    const std::uint64_t w = thin ? 1 : 1 + rng() % 60, h = thin ? 1 + rng() % 90 : 1 + rng() % 60;
    const std::uint64_t ww = seed % 8 == 0 ? h : w, hh = seed % 8 == 0 ? w : h;  // 1 x N and N x 1
    const std::uint32_t t = tiles[rng() % 5];
    const std::vector<double> codes = testing::random_d8_forest(rng, ww, hh, (seed % 4) * 0.05, (seed % 3) * 0.02);
    check_streams(codes, ww, hh, t, 1 + static_cast<unsigned>(rng() % 3), 1 + static_cast<std::int64_t>(rng() % 4),
                  "seed " + std::to_string(seed) + " " + std::to_string(ww) + " x " + std::to_string(hh) + " tile " +
                      std::to_string(t));
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(WatershedStreams, EveryTileSizeAndThreadCountGivesTheSameRaster) {
  std::mt19937_64 rng(4242);
  const std::uint64_t w = 123, h = 77;
  const std::vector<double> codes = testing::reference_d8(testing::random_unit_terrain(rng, w, h, 0.05), w, h);
  const std::vector<std::uint8_t> first = check_streams(codes, w, h, 8, 1, 3, "tile 8 threads 1");
  for (std::uint32_t t : {5u, 16u, 41u, 64u, 128u})
    for (unsigned threads : {1u, 3u}) {
      const std::string what = "tile " + std::to_string(t) + " threads " + std::to_string(threads);
      EXPECT_EQ(check_streams(codes, w, h, t, threads, 3, what), first) << what;
    }
  EXPECT_EQ(check_streams(codes, w, h, 16, 2, 3, "tile 16 at 3 MiB", 3ull << 20), first);  // a small budget
}

TEST(WatershedStreams, AGatheredNetworkPastItsShareIsRefused) {
  std::mt19937_64 rng(5);
  const std::uint64_t w = 300, h = 300;
  const std::vector<double> codes = testing::random_d8_forest(rng, w, h, 0.0, 0.01);
  const std::vector<double> acc(codes.size(), 1.0);
  const MemoryTileInput<double> directions(codes, w, h, 32), accumulation(acc, w, h, 32);
  StreamPhaseOptions o;
  o.threads = 1;
  MemoryBudget budget(3ull << 20);
  testing::MemoryTileSink<std::uint8_t> raster(w, h, 32, 0);
  RecordingSegments segments;
  EXPECT_THROW(run_stream_phases(directions, accumulation, o, budget, Progress::silent(), raster, &segments),
               BudgetError);
}

// The segments of a --streams-vector file as the reference holds them: each line's points back to
// cells through `info`'s geotransform; the last point is the junction when the segment has a
// downstream one (the repeated point of a one-cell segment dropped).
std::vector<testing::ReferenceStreams::Segment> read_segments(const std::string& path, const RasterInfo& info) {
  ensure_gdal();
  std::unique_ptr<GDALDataset> ds(
      static_cast<GDALDataset*>(GDALOpenEx(path.c_str(), GDAL_OF_VECTOR | GDAL_OF_READONLY, nullptr, nullptr, nullptr)));
  EXPECT_TRUE(ds) << "OGR cannot open " << path;
  if (!ds) return {};
  double inverse[6];
  EXPECT_TRUE(GDALInvGeoTransform(const_cast<double*>(info.geotransform.data()), inverse));
  std::vector<testing::ReferenceStreams::Segment> segments;
  for (auto& feature : *ds->GetLayer(0)) {
    testing::ReferenceStreams::Segment s;
    EXPECT_EQ(feature->GetFieldAsInteger64("segment"), static_cast<GIntBig>(segments.size() + 1));
    s.order = static_cast<std::uint8_t>(feature->GetFieldAsInteger("order"));
    const bool has_downstream = feature->IsFieldSetAndNotNull(feature->GetFieldIndex("downstream"));
    s.downstream = has_downstream ? static_cast<std::uint64_t>(feature->GetFieldAsInteger64("downstream")) : 0;
    const std::uint64_t count = static_cast<std::uint64_t>(feature->GetFieldAsInteger64("cells"));
    const OGRLineString* line = feature->GetGeometryRef()->toLineString();
    for (int i = 0; i < line->getNumPoints(); ++i) {
      const double px = inverse[0] + line->getX(i) * inverse[1] + line->getY(i) * inverse[2];
      const double py = inverse[3] + line->getX(i) * inverse[4] + line->getY(i) * inverse[5];
      s.cells.push_back(static_cast<std::uint64_t>(std::floor(py)) * info.width + static_cast<std::uint64_t>(std::floor(px)));
    }
    EXPECT_GE(s.cells.size(), 2u);
    if (has_downstream) s.junction = static_cast<std::int64_t>(s.cells.back());
    s.cells.resize(count);
    segments.push_back(s);
  }
  return segments;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A random DEM's directions and accumulation through the program at several tiles, threads and
// budgets: the Strahler raster and the GeoJSON's segments equal the reference's, the files the same bytes.
TEST(WatershedStreamsCommand, ProgramMatchesTheReferenceAtEveryTileAndBudget) {
  testing::TempDir dir;
  std::mt19937_64 rng(2024);
  const std::uint64_t w = 301, h = 233;
  RasterInfo info;
  info.has_geotransform = true;
  info.geotransform = {500000.0, 30.0, 0.0, 4100000.0, 0.0, -30.0};
  info.width = w, info.height = h;
  std::vector<double> codes = testing::reference_d8(testing::random_unit_terrain(rng, w, h, 0.03), w, h);
  const std::vector<std::int64_t> acc = testing::reference_flowacc_linear(codes, w, h);
  const testing::ReferenceStreams want = testing::reference_streams(codes, w, h, 12);
  std::vector<double> acc_values(codes.size());
  for (std::size_t i = 0; i < codes.size(); ++i) {
    acc_values[i] = codes[i] == 255 ? std::nan("") : static_cast<double>(acc[i]);
    if (codes[i] == 255) codes[i] = std::nan("");
  }
  const std::string d = dir.file("dir.tif"), a = dir.file("acc.tif");
  testing::write_raster_values(d, w, h, codes, CellType::UInt8, 255, info);
  testing::write_raster_values(a, w, h, acc_values, CellType::UInt32, 0, info);
  std::string first_raster, first_vector;
  for (const std::vector<std::string>& flags :
       {std::vector<std::string>{"--tile", "16", "--threads", "1"}, {"--tile", "64", "--threads", "3"},
        {"--tile", "32", "--threads", "2", "--memory", "24M"}}) {
    const std::string what = flags[1] + " " + flags[3];
    const std::string raster = dir.file("s" + flags[1] + ".tif"), vector = dir.file("s" + flags[1] + ".geojson");
    std::vector<std::string> args = {"watershed", "-q", "--json", "--streams", "12", "--accumulation", a,
                                     "--streams-raster", raster, "--streams-vector", vector};
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), {d, dir.file("b.tif")});
    const testing::CliRun r = testing::run_terrazo(args);
    ASSERT_EQ(r.code, 0) << what << ": " << r.err;
    for (const std::string& key : std::vector<std::string>{"\"streams\":12", "\"stream_cells\":" + std::to_string(want.stream_cells),
                                  "\"segments\":" + std::to_string(want.segments.size()),
                                  "\"max_order\":" + std::to_string(want.max_order)})
      EXPECT_TRUE(testing::contains(r.out, key)) << key << " in " << r.out;
    const std::vector<double> got = testing::read_raster_values(raster);
    testing::expect_cells_match(got, want.orders, w, what, [&](std::uint64_t i) {
      return want.orders[i] == 255 ? std::isnan(got[i]) : got[i] == want.orders[i];
    });
    const std::vector<testing::ReferenceStreams::Segment> segments = read_segments(vector, info);
    ASSERT_EQ(segments.size(), want.segments.size()) << what;
    for (std::size_t i = 0; i < segments.size(); ++i) {
      const auto& g = segments[i];
      const auto& e = want.segments[i];
      ASSERT_TRUE(g.order == e.order && g.downstream == e.downstream && g.junction == e.junction && g.cells == e.cells)
          << what << ": segment " << i + 1 << ": order " << int(g.order) << " / " << int(e.order) << ", downstream "
          << g.downstream << " / " << e.downstream << ", junction " << g.junction << " / " << e.junction << ", cells "
          << g.cells.size() << " / " << e.cells.size() << ", first " << g.cells[0] << " / " << e.cells[0];
    }
    const std::string raster_bytes = file_bytes(raster), vector_bytes = file_bytes(vector);
    if (first_raster.empty()) first_raster = raster_bytes, first_vector = vector_bytes;
    EXPECT_TRUE(raster_bytes == first_raster && vector_bytes == first_vector) << what << ": other bytes";
  }
  EXPECT_GE(want.max_order, 3u);
}

TEST(WatershedStreamsCommand, UsageErrorsNameTheFlags) {
  testing::TempDir dir;
  const std::string d = dir.file("d.tif"), a = dir.file("a.tif");
  testing::write_raster_values(d, 3, 2, {1, 1, 0, 1, 1, 0}, CellType::UInt8, 255);
  testing::write_raster_values(a, 3, 2, {1, 2, 3, 1, 2, 3}, CellType::UInt32, 0);
  const testing::UsageErrorCases cases = {
      {{"--streams", "5", "--streams-raster", dir.file("s.tif")}, "give --accumulation ACC.tif"},
      {{"--streams", "5", "--accumulation", a}, "--streams THRESHOLD needs an output"},
      {{"--streams-raster", dir.file("s.tif")}, "give --streams THRESHOLD"},
      {{"--streams-vector", dir.file("s.geojson")}, "give --streams THRESHOLD"},
      {{"--streams", "0", "--accumulation", a, "--streams-raster", dir.file("s.tif")}, "invalid --streams 0"},
      {{"--streams", "2", "--accumulation", a, "--streams-raster", dir.file("b.tif")}, "b.tif"},
  };
  testing::expect_usage_errors("watershed", cases, d, dir.file("b.tif"));
  // Rows flowing east into a code 0 (accumulation 1, 2, 3): at threshold 2 each row's cells 1 and 2, one segment.
  const testing::CliRun ok = testing::run_terrazo({"watershed", "-q", "--json", "--streams", "2", "--accumulation", a,
                                                   "--streams-vector", dir.file("s.geojson"), d, dir.file("b.tif")});
  EXPECT_EQ(ok.code, 0) << ok.err;
  for (const char* key : {"\"stream_cells\":4", "\"segments\":2", "\"max_order\":1"})
    EXPECT_TRUE(testing::contains(ok.out, key)) << key << " in " << ok.out;
}

}  // namespace
}  // namespace terrazo
