// tests/test_input_trust.cpp: inputs that must not be taken for what they are not (docs/reliability.md
// "Reproducers"): sites and sources files whose features have no geometry or whose CSV columns are
// not coordinates, an index of another raster, an infinite cell of an imported raster, budget
// errors that suggest a flag the command lacks.
#include <gtest/gtest.h>

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "io/store/index_file.h"
#include "io/store/raster_info.h"
#include "io/store/tile_store.h"
#include "kernels/common/memory_budget.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace {

using namespace terrazo;
using namespace terrazo::testing;

// A W x H Float32 GeoTIFF of positive costs, georeferenced so that map x = column + 0.5 and
// map y = H - row - 0.5 at cell centres (origin at the lower left corner, cells of 1).
std::string write_costs(const terrazo::testing::TempDir& dir, const std::string& name, std::uint64_t w, std::uint64_t h,
                        const std::vector<std::pair<std::uint64_t, double>>& changes = {}) {
  std::vector<double> values(w * h);
  for (std::uint64_t i = 0; i < values.size(); ++i) values[i] = 1.0 + static_cast<double>((i * 7919) % 13);
  for (const auto& [cell, value] : changes) values[cell] = value;
  RasterInfo georef;
  georef.has_geotransform = true;
  georef.geotransform = {0.0, 1.0, 0.0, static_cast<double>(h), 0.0, -1.0};
  const std::string path = dir.file(name);
  terrazo::testing::write_raster_values(path, w, h, values, CellType::Float32, -9999, georef);
  return path;
}

std::size_t lines_of(const std::string& text) {
  std::size_t n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

// Reproducer: a GeoJSON of point, null, point gave a 2 x 2 matrix whose id 2 was the third feature.
TEST(SitesFiles, FeatureWithoutGeometryIsRefusedWithItsIndex) {
  terrazo::testing::TempDir dir;
  const std::string raster = write_costs(dir, "c.tif", 64, 64);
  auto feature = [](const std::string& geometry) {
    return "{\"type\":\"Feature\",\"properties\":{},\"geometry\":" + geometry + "}";
  };
  const std::string point_a = feature("{\"type\":\"Point\",\"coordinates\":[2.5,60.5]}");
  const std::string point_b = feature("{\"type\":\"Point\",\"coordinates\":[50.5,10.5]}");
  const std::vector<std::pair<std::string, std::string>> middles = {
      {"null", feature("null")},
      {"empty point", feature("{\"type\":\"Point\",\"coordinates\":[]}")},
      {"empty multipoint", feature("{\"type\":\"MultiPoint\",\"coordinates\":[]}")}};
  for (const auto& [what, middle] : middles) {
    SCOPED_TRACE(what);
    const std::string sites = dir.file("sites.geojson");
    spit(sites, "{\"type\":\"FeatureCollection\",\"features\":[" + point_a + "," + middle + "," + point_b + "]}");
    const CliRun od = run_terrazo({"od-matrix", "-q", "--sites-file", sites, raster, dir.file("od.csv")});
    EXPECT_EQ(od.code, 2) << od.err;
    EXPECT_TRUE(contains(od.err, "--sites-file") && contains(od.err, "feature 2") && contains(od.err, "no geometry"))
        << od.err;
    const CliRun sssp = run_terrazo({"sssp", "-q", "--sources-file", sites, raster, dir.file("cost.tif")});
    EXPECT_EQ(sssp.code, 2) << sssp.err;
    EXPECT_TRUE(contains(sssp.err, "--sources-file") && contains(sssp.err, "feature 2")) << sssp.err;
  }
  // A CSV's WKT column with POINT EMPTY, and x,y columns left blank: the same.
  const std::string wkt = dir.file("wkt.csv");
  spit(wkt, "id,WKT\n1,\"POINT (2.5 60.5)\"\n2,\"POINT EMPTY\"\n3,\"POINT (50.5 10.5)\"\n");
  const CliRun w = run_terrazo({"od-matrix", "-q", "--sites-file", wkt, raster, dir.file("od.csv")});
  EXPECT_EQ(w.code, 2) << w.err;
  EXPECT_TRUE(contains(w.err, "feature 2")) << w.err;
  const std::string blank = dir.file("blank.csv");
  spit(blank, "id,x,y\n1,2.5,60.5\n2,50.5,10.5\n3,,\n");
  const CliRun b = run_terrazo({"od-matrix", "-q", "--sites-file", blank, raster, dir.file("od.csv")});
  EXPECT_EQ(b.code, 2) << b.err;
  EXPECT_TRUE(contains(b.err, "feature 3")) << b.err;
}

// --skip-empty-features: a feature without geometry is skipped and its id left unused, so the
// others keep the ids of the file (od-matrix names the sites 1 and 3; sssp allocates to 1 and 3).
TEST(SitesFiles, SkipEmptyFeaturesKeepsTheIdsOfTheFile) {
  terrazo::testing::TempDir dir;
  const std::string raster = write_costs(dir, "c.tif", 64, 64);
  const std::string sites = dir.file("sites.csv");
  spit(sites, "id,WKT\n1,\"POINT (2.5 60.5)\"\n2,\"POINT EMPTY\"\n3,\"POINT (50.5 10.5)\"\n4,\n");
  const std::string out = dir.file("od.csv");
  const CliRun od = run_terrazo({"od-matrix", "-q", "--skip-empty-features", "--sites-file", sites, raster, out});
  ASSERT_EQ(od.code, 0) << od.err;
  const std::string matrix = slurp(out);
  EXPECT_EQ(lines_of(matrix), 1u + 4u) << matrix;
  EXPECT_TRUE(contains(matrix, "\n1,3,") && contains(matrix, "\n3,1,") && !contains(matrix, "\n2,")) << matrix;
  const std::string allocation = dir.file("a.tif");
  const CliRun sssp = run_terrazo({"sssp", "-q", "--skip-empty-features", "--sources-file", sites, "--allocation",
                                   allocation, raster, dir.file("cost.tif")});
  ASSERT_EQ(sssp.code, 0) << sssp.err;
  const std::vector<double> ids = terrazo::testing::read_raster_values(allocation);
  EXPECT_EQ(ids[3 * 64 + 2], 1.0);    // the first point's cell (map 2.5,60.5: column 2, row 3)
  EXPECT_EQ(ids[53 * 64 + 50], 3.0);  // the third feature's (map 50.5,10.5: column 50, row 53)
  std::vector<double> seen;
  for (double v : ids)
    if (std::find(seen.begin(), seen.end(), v) == seen.end()) seen.push_back(v);
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<double>{1.0, 3.0}));
  // The flag without a file is a usage error.
  EXPECT_EQ(run_terrazo({"sssp", "-q", "--skip-empty-features", "--source", "1,1", raster, dir.file("c2.tif")}).code, 2);
}

// Reproducer: a CSV of x,y columns said "needs at least 2 sites (got 0)".
TEST(SitesFiles, CsvCoordinateColumnsAreReadOrTheColumnsAreNamed) {
  terrazo::testing::TempDir dir;
  const std::string raster = write_costs(dir, "c.tif", 64, 64);
  for (const std::string header : {"id,x,y", "id,X,Y", "name,lon,lat", "name,Easting,Northing"}) {
    SCOPED_TRACE(header);
    const std::string sites = dir.file("sites.csv");
    spit(sites, header + "\n1,2.5,60.5\n2,50.5,10.5\n3,30.5,30.5\n");
    const std::string out = dir.file("od.csv");
    const CliRun r = run_terrazo({"od-matrix", "-q", "--sites-file", sites, raster, out});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(lines_of(slurp(out)), 1u + 9u);  // header + 3 x 3 pairs
  }
  const std::string other = dir.file("other.csv");
  spit(other, "id,a,b\n1,2.5,60.5\n2,50.5,10.5\n");
  const CliRun r = run_terrazo({"od-matrix", "-q", "--sites-file", other, raster, dir.file("od.csv")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "its columns are id, a, b") && contains(r.err, "WKT") && contains(r.err, "easting"))
      << r.err;
  EXPECT_FALSE(contains(r.err, "got 0")) << r.err;
}

// Reproducer: an index of the same size and scale built from another raster (two cells changed far
// from the sites) gave a wrong matrix with exit 0.
TEST(IndexFingerprint, IndexOfAChangedRasterIsRefusedAndOfTheSameIsAccepted) {
  terrazo::testing::TempDir dir;
  const std::uint64_t w = 96, h = 80;
  const std::string raster = write_costs(dir, "c.tif", w, h);
  // Two cells far from the sites (1,1 and 10,12), the raster's extremes 1 and 13 kept.
  const std::string changed = write_costs(dir, "changed.tif", w, h, {{70 * w + 90, 2.0}, {5 * w + 80, 12.0}});
  const std::string index = dir.file("c.tzi");
  ASSERT_EQ(run_terrazo({"index", "-q", "--device", "cpu", "--tile", "16", raster, index}).code, 0);
  const std::vector<std::string> sites = {"--site", "1,1", "--site", "10,12"};
  auto od = [&](const std::string& input, const std::vector<std::string>& more) {
    std::vector<std::string> args = {"od-matrix", "-q", "--device", "cpu", "--index", index};
    args.insert(args.end(), sites.begin(), sites.end());
    args.insert(args.end(), more.begin(), more.end());
    args.push_back(input);
    args.push_back(dir.file("od.csv"));
    return run_terrazo(args);
  };
  const CliRun same = od(raster, {});
  EXPECT_EQ(same.code, 0) << same.err;
  const CliRun other = od(changed, {});
  EXPECT_EQ(other.code, 1) << other.err;
  EXPECT_TRUE(contains(other.err, "was built from another raster") && contains(other.err, "the index's fingerprint is") &&
              contains(other.err, "INPUT's is") && contains(other.err, "--skip-fingerprint-check"))
      << other.err;
  EXPECT_EQ(od(changed, {"--skip-fingerprint-check"}).code, 0);
  // sssp --index: a GeoTIFF this small is read into memory (no store: the values fingerprint).
  auto sssp = [&](const std::string& input) {
    return run_terrazo({"sssp", "-q", "--index", index, "--source", "1,1", input, dir.file("cost.tif")});
  };
  EXPECT_EQ(sssp(raster).code, 0);
  const CliRun s = sssp(changed);
  EXPECT_EQ(s.code, 1) << s.err;
  EXPECT_TRUE(contains(s.err, "was built from another raster")) << s.err;
  // The flag without --index is a usage error.
  EXPECT_EQ(run_terrazo({"od-matrix", "-q", "--skip-fingerprint-check", "--site", "1,1", "--site", "2,2", raster,
                         dir.file("od.csv")}).code, 2);
}

// The cheap path: an index built from a store records that store's content fingerprint, which a
// second import of the same raster reproduces and a changed cell does not.
TEST(IndexFingerprint, StoreFingerprintIsRecordedAndReproducedByTheSameImport) {
  terrazo::testing::TempDir dir;
  const std::uint64_t w = 40, h = 36;
  const std::string raster = write_costs(dir, "c.tif", w, h);
  const std::string changed = write_costs(dir, "changed.tif", w, h, {{30 * w + 35, 2.0}});
  const std::string a = dir.file("a.tzs"), b = dir.file("b.tzs"), c = dir.file("c.tzs"), index = dir.file("a.tzi");
  for (const auto& [from, to] : {std::pair{raster, a}, std::pair{raster, b}, std::pair{changed, c}})
    ASSERT_EQ(run_terrazo({"import", "-q", "--tile", "16", from, to}).code, 0);
  ASSERT_EQ(run_terrazo({"index", "-q", "--device", "cpu", "--tile", "16", a, index}).code, 0);
  MemoryBudget budget(64ull << 20);
  const std::uint64_t fa = TileStore::open(a)->content_fingerprint();
  EXPECT_EQ(IndexFile::open(index, budget)->header().store_fingerprint, fa);
  EXPECT_EQ(TileStore::open(b)->content_fingerprint(), fa);
  EXPECT_NE(TileStore::open(c)->content_fingerprint(), fa);
}

// An index of format version 1 (no store fingerprint) is refused with a message to rebuild it.
TEST(IndexFingerprint, IndexOfFormatVersionOneIsRefusedWithARebuildMessage) {
  terrazo::testing::TempDir dir;
  const std::string raster = write_costs(dir, "c.tif", 48, 48);
  const std::string index = dir.file("c.tzi");
  ASSERT_EQ(run_terrazo({"index", "-q", "--device", "cpu", "--tile", "16", raster, index}).code, 0);
  std::string bytes = slurp(index);
  ASSERT_GE(bytes.size(), 256u);
  const std::uint32_t one = 1;
  std::memcpy(&bytes[8], &one, 4);  // the version, after the magic
  const std::uint32_t crc = static_cast<std::uint32_t>(::crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), 252));
  std::memcpy(&bytes[252], &crc, 4);
  spit(index, bytes);
  const CliRun r = run_terrazo({"od-matrix", "-q", "--index", index, "--site", "1,1", "--site", "20,20", raster,
                                dir.file("od.csv")});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "format version 1") && contains(r.err, "rebuild it with `terrazo index`")) << r.err;
}

// Reproducer: an infinite cell of a GeoTIFF given to od-matrix was reported as a damaged scratch
// store; every command that imports names the cell as sssp does, and an imported store with an
// infinite cell opens.
TEST(Messages, InfiniteCellIsNamedByEveryCommandThatImports) {
  terrazo::testing::TempDir dir;
  const std::uint64_t w = 64, h = 64;
  std::vector<double> values(w * h, 1.0);
  values[10 * w + 20] = std::numeric_limits<double>::infinity();
  const std::string inf = dir.file("inf.tif");
  terrazo::testing::write_raster_values(inf, w, h, values, CellType::Float32, -9999);
  const std::vector<std::vector<std::string>> commands = {
      {"od-matrix", "-q", "--site", "1,1", "--site", "50,50", inf, dir.file("o.csv")},
      {"od-matrix", "-q", "--transient-index", "--device", "cpu", "--site", "1,1", "--site", "50,50", inf, dir.file("o.csv")},
      {"network", "-q", "--site", "1,1", "--site", "50,50", inf, dir.file("n.geojson")},
      {"index", "-q", "--device", "cpu", inf, dir.file("i.tzi")},
      {"sssp", "-q", "--source", "1,1", inf, dir.file("c.tif")}};
  for (const auto& args : commands) {
    SCOPED_TRACE(args[0]);
    const CliRun r = run_terrazo(args);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_TRUE(contains(r.err, "the value inf at cell 20,10")) << r.err;
    EXPECT_FALSE(contains(r.err, "damaged")) << r.err;
  }
  const std::string store = dir.file("inf.tzs");
  ASSERT_EQ(run_terrazo({"import", "-q", inf, store}).code, 0);
  const CliRun info = run_terrazo({"info", store});
  EXPECT_EQ(info.code, 0) << info.err;
  const CliRun od = run_terrazo({"od-matrix", "-q", "--site", "1,1", "--site", "50,50", store, dir.file("o.csv")});
  EXPECT_EQ(od.code, 2) << od.err;
  EXPECT_TRUE(contains(od.err, "at cell 20,10")) << od.err;
}

// Reproducer: the budget errors of corridor and render suggested "or lower --tile", a flag neither has.
TEST(Messages, BudgetErrorsSuggestOnlyTheCommandsOwnFlags) {
  terrazo::testing::TempDir dir;
  const std::string a = write_costs(dir, "a.tif", 256, 256), b = write_costs(dir, "b.tif", 256, 256);
  const std::vector<std::vector<std::string>> commands = {
      {"corridor", "-q", "--memory", "4K", "--percent", "5", a, b, dir.file("k.tif")},
      {"render", "-q", "--memory", "4K", a, dir.file("r.png")}};
  for (const auto& args : commands) {
    SCOPED_TRACE(args[0]);
    const CliRun r = run_terrazo(args);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_TRUE(contains(r.err, "memory budget too small") && contains(r.err, "raise --memory")) << r.err;
    EXPECT_FALSE(contains(r.err, "--tile")) << r.err;
  }
}

}  // namespace
