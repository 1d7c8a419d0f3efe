// tests/test_reliability.cpp: the promises of docs/reliability.md, one regression test per
// reproducer there: atomic outputs of their own, strict readers, stored statistics checked,
// distinct output paths, backlinks validated (run directories owned and cleaned:
// tests/test_run_directory.cpp).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/error.h"
#include "engine/commands/output_paths.h"
#include "engine/raster_inputs/raster_io.h"
#include "engine/commands/sssp.h"
#include "io/gdal/gdal_raster.h"
#include "io/store/atomic_output.h"
#include "io/store/run_directory.h"
#include "io/store/tile_store.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/store_patch.h"
#include "tests/support/test_support.h"

namespace {

using namespace terrazo;
using namespace terrazo::testing;
namespace fs = std::filesystem;


std::vector<double> read_all(const std::string& path) {
  auto reader = RasterReader::open(path);
  const auto& info = reader->info();
  std::vector<double> cells(info.width * info.height);
  reader->read_window(0, 0, static_cast<std::uint32_t>(info.width), static_cast<std::uint32_t>(info.height),
                      cells.data());
  return cells;
}


// ---- 1. atomic outputs of their own ------------------------------------------------------------

TEST(AtomicOutput, PartialNameIsOwnAndInTheOutputDirectory) {
  TempDir dir;
  const std::string path = dir.file("c.tif");
  AtomicOutput a(path), b(path);
  EXPECT_NE(a.partial(), b.partial());
  const std::string prefix = path + ".partial-" + std::to_string(getpid()) + "-";
  EXPECT_EQ(a.partial().rfind(prefix, 0), 0u) << a.partial();
  EXPECT_EQ(a.partial().size(), prefix.size() + 16) << a.partial();
  EXPECT_EQ(fs::path(a.partial()).parent_path(), fs::path(path).parent_path());
  // It creates the partial file, empty and locked, and nothing else.
  EXPECT_TRUE(fs::exists(a.partial()));
  EXPECT_EQ(fs::file_size(a.partial()), 0u);
  EXPECT_FALSE(fs::exists(a.partial() + ".new"));
  const int fd = open(a.partial().c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  EXPECT_NE(flock(fd, LOCK_EX | LOCK_NB), 0);  // held by `a`
  close(fd);
}

TEST(AtomicOutput, PublishRenamesWithSidecarsAndUnpublishedIsRemoved) {
  TempDir dir;
  const std::string path = dir.file("o.tif");
  {
    AtomicOutput out(path, {".aux.xml"});
    spit(out.partial(), "raster");
    spit(out.partial() + ".aux.xml", "aux");
    out.publish();
    EXPECT_TRUE(out.published());
  }
  EXPECT_EQ(slurp(path), "raster");
  EXPECT_EQ(slurp(path + ".aux.xml"), "aux");
  EXPECT_TRUE(partial_files_of(path).empty());
  try {
    AtomicOutput out(path, {".aux.xml"});
    spit(out.partial(), "half");
    spit(out.partial() + ".aux.xml", "half aux");
    throw Error("failed half way");
  } catch (const Error&) {
  }
  EXPECT_TRUE(partial_files_of(path).empty());
  EXPECT_EQ(slurp(path), "raster");  // the published file is untouched
}

// Two writers of one path: `a` (all its cells written) finishes and publishes `first`; then `b`,
// given the rest of its cells by `write_rest_of_b`, finishes and publishes `second`. Each publishes
// a complete raster of its own and no partial file is left.
template <class Writer, class WriteRest>
void expect_each_publishes_its_own(const std::string& path, Writer& a, Writer& b, const std::vector<double>& first,
                                   const std::vector<double>& second, WriteRest write_rest_of_b) {
  a.finish();
  EXPECT_EQ(read_all(path), first);
  write_rest_of_b();
  ASSERT_NO_THROW(b.finish());
  EXPECT_EQ(read_all(path), second);
  EXPECT_TRUE(partial_files_of(path).empty());
}

// Reproducer: two runs writing out/c.tif at once; the first exited 0 with the second's half-written
// file, the second exited 1 ("cannot rename 'out/c.tif.partial'") yet published. Now each writer
// has its own partial file and each publishes a complete raster of its own.
TEST(AtomicOutput, TwoGeoTiffWritersOnOnePathEachPublishTheirOwn) {
  TempDir dir;
  const std::string path = dir.file("c.tif");
  RasterInfo georef;
  std::vector<double> first(64 * 64, 1.0), second(64 * 64, 2.0);
  GeoTiffWriter a(path, 64, 64, CellType::Float32, georef, false, 0.0, 16);
  GeoTiffWriter b(path, 64, 64, CellType::Float32, georef, false, 0.0, 16);
  a.write_window(0, 0, 64, 64, first.data());
  b.write_window(0, 0, 32, 64, second.data());
  expect_each_publishes_its_own(path, a, b, first, second, [&] { b.write_window(32, 0, 32, 64, second.data()); });
}

TEST(AtomicOutput, TwoTileStoreWritersOnOnePathEachPublishTheirOwn) {
  TempDir dir;
  const std::string path = dir.file("g.tzs");
  RasterInfo info;
  info.width = 16;
  info.height = 16;
  std::vector<double> first(256, 1.0), second(256, 2.0);
  TileStoreWriter a(path, info, 16);
  TileStoreWriter b(path, info, 16);
  a.write_tile(0, 0, first.data());
  expect_each_publishes_its_own(path, a, b, first, second, [&] { b.write_tile(0, 0, second.data()); });
}

TEST(AtomicOutput, EdgeListIsPublished) {
  TempDir dir;
  const std::string store = dir.file("in.tzs");
  ASSERT_EQ(run_terrazo({"gen", "-q", "--width", "64", "--height", "64", "--tile", "16", store}).code, 0);
  const std::string edges = dir.file("edges.bin");
  ASSERT_EQ(run_terrazo({"mst", "-q", "--edge-list", edges, store, dir.file("m.tif")}).code, 0);
  EXPECT_TRUE(fs::exists(edges));
  EXPECT_TRUE(partial_files_of(edges).empty());
  EXPECT_TRUE(partial_files_of(dir.file("m.tif")).empty());
}

// Reproducer (issue 15, item 11): SIGKILL left `c.tif.partial-<pid>-<hex>` (and GDAL's sidecar)
// that no later run removed. Now the partial file is locked while its writer lives, and the next
// output made in that directory removes the partial files whose lock is free, with their sidecars.
TEST(AtomicOutput, PartialOfAKilledWriterIsRemovedByTheNextOutput) {
  TempDir dir;
  const std::string path = dir.file("c.tif");
  const HoldingChild child = fork_holding([&] {
    auto* out = new AtomicOutput(path, {".aux.xml"});  // never destroyed: the process is killed
    spit(out->partial(), "half a raster");
    spit(out->partial() + ".aux.xml", "aux");
    return out->partial();
  });
  const std::string& stale = child.path;
  {
    // While its writer lives, another output of the directory leaves it alone.
    AtomicOutput other(dir.file("other.tif"));
    EXPECT_TRUE(fs::exists(stale));
    EXPECT_EQ(AtomicOutput::remove_stale_partials(dir.path()), 0u);
  }
  kill(child.pid, SIGKILL);
  int status = 0;
  waitpid(child.pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  ASSERT_TRUE(fs::exists(stale));
  ASSERT_TRUE(fs::exists(stale + ".aux.xml"));
  // Files that only look alike are not touched: another tool's, or not a partial name of terrazo.
  spit(dir.file("notes.partial-12-xyz"), "keep");
  spit(dir.file("c.tif.partial"), "keep");
  AtomicOutput next(dir.file("d.tif"));  // any output of the directory sweeps it
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_FALSE(fs::exists(stale + ".aux.xml"));
  EXPECT_TRUE(fs::exists(next.partial()));
  EXPECT_TRUE(fs::exists(dir.file("notes.partial-12-xyz")));
  EXPECT_TRUE(fs::exists(dir.file("c.tif.partial")));
}

// A fresh file killed between its creation and its rename (`NAME.partial-<pid>-<hex>.new`, unlocked)
// is swept too; a live writer's partial file survives other outputs' sweeps, also GDAL's, which
// opens the partial file again itself (the same inode, so the lock holds).
TEST(AtomicOutput, SweepsFreshLeftoversButNotLiveWriters) {
  TempDir dir;
  const std::string leftover = dir.file("c.tif.partial-99999-0123456789abcdef.new");
  spit(leftover, "");
  RasterInfo georef;
  GeoTiffWriter writer(dir.file("c.tif"), 64, 64, CellType::Float32, georef, false, 0.0, 16);
  EXPECT_FALSE(fs::exists(leftover));
  std::vector<double> cells(64 * 64, 3.0);
  writer.write_window(0, 0, 64, 64, cells.data());
  EXPECT_EQ(AtomicOutput::remove_stale_partials(dir.path()), 0u);
  AtomicOutput other(dir.file("e.tif"));
  EXPECT_EQ(partial_files_of(dir.file("c.tif")).size(), 1u);
  ASSERT_NO_THROW(writer.finish());
  EXPECT_EQ(read_all(dir.file("c.tif")), cells);
}

// `action` throws an E whose message holds every part of `parts`; else a failure saying `accepted`.
template <class E = Error>
void expect_error_holding(const std::function<void()>& action, const std::vector<std::string>& parts,
                          const std::string& accepted) {
  try {
    action();
    ADD_FAILURE() << accepted;
  } catch (const E& e) {
    for (const auto& part : parts) EXPECT_TRUE(contains(e.what(), part)) << "missing '" << part << "' in: " << e.what();
  }
}

// An output directory that cannot hold the partial file is an error naming it, before any work.
TEST(AtomicOutput, UncreatablePartialFileIsAnErrorNamingTheOutput) {
  TempDir dir;
  const std::string path = dir.file("missing/c.tif");
  expect_error_holding([&] { AtomicOutput out(path); }, {path}, "no error");
}

// ---- 2. GDAL's warnings are errors -----------------------------------------------------------

const std::string kReal = std::string(TERRAZO_DATASETS) + "/real";

// Reproducer: `head -c 3000 pysheds_dem.tif > t.tif; terrazo import t.tif t.tzs` exited 0 with
// garbage cells: GDAL only warned (every length from 2350 to 4075 bytes did).
TEST(StrictReaders, TruncatedGeoTiffIsAnErrorNamingTheFile) {
  TempDir dir;
  const std::string whole = slurp(kReal + "/pysheds_dem.tif");
  ASSERT_GT(whole.size(), 20000u);
  EXPECT_NO_THROW(read_all(kReal + "/pysheds_dem.tif"));  // the whole file reads
  for (std::size_t length : {2350u, 2600u, 3000u, 3500u, 4075u, 5000u, 20000u}) {
    const std::string cut = dir.file("t" + std::to_string(length) + ".tif");
    spit(cut, whole.substr(0, length));
    try {
      read_all(cut);
      ADD_FAILURE() << length << " bytes of the GeoTIFF were read without an error";
    } catch (const Error& e) {
      EXPECT_TRUE(contains(e.what(), cut)) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  }
  const std::string cut = dir.file("t3000.tif");
  const CliRun r = run_terrazo({"import", "-q", cut, dir.file("t.tzs")});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "t3000.tif")) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("t.tzs")));
}

// ---- 3. one strict ESRI ASCII grid reader ------------------------------------------------------

// Writes `text` as `name` (plain) and `name.gz` (gzip) in `dir`; returns both paths.
std::vector<std::string> ascii_pair(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string plain = dir.file(name), gz = dir.file(name + ".gz");
  spit(plain, text);
  gzFile f = gzopen(gz.c_str(), "wb");
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
  return {plain, gz};
}

// `RasterReader::open(path)` fails with a message holding every part of `parts`.
void expect_refused(const std::string& path, const std::vector<std::string>& parts) {
  expect_error_holding([&] { auto reader = RasterReader::open(path); }, parts, path + " was accepted");
}

const std::string kHeader = "ncols 4\nnrows 3\nxllcorner 0\nyllcorner 0\ncellsize 10\nNODATA_value -9999\n";

// Reproducer: `1 nan 3 4 / 5 x 7 8 / 9 10 inf 12` made `terrazo info a.asc` say min 0.
TEST(StrictReaders, AsciiGridBadTokensNamedByLineAndColumn) {
  TempDir dir;
  for (const auto& path : ascii_pair(dir, "a.asc", kHeader + "1 nan 3 4\n5 x 7 8\n9 10 inf 12\n"))
    expect_refused(path, {path, "'nan'", "line 7, column 3"});
  for (const auto& path : ascii_pair(dir, "x.asc", kHeader + "1 2 3 4\n5 x 7 8\n9 10 11 12\n"))
    expect_refused(path, {"'x'", "line 8, column 3"});
  for (const auto& path : ascii_pair(dir, "i.asc", kHeader + "1 2 3 4\n5 6 7 8\n9 10 inf 12\n"))
    expect_refused(path, {"'inf'", "line 9, column 6"});
  for (const auto& path : ascii_pair(dir, "h.asc", kHeader + "1 2 3 4\n5 6 7 8\n9 10 0x1p3 12\n"))
    expect_refused(path, {"'0x1p3'"});
  // The control: the same grid with numbers only reads, plain and gzip alike.
  for (const auto& path : ascii_pair(dir, "ok.asc", kHeader + "1 -9999 3 4\n5 6 7 8\n9 10 1e1 12\n")) {
    const std::vector<double> cells = read_all(path);
    ASSERT_EQ(cells.size(), 12u);
    EXPECT_TRUE(std::isnan(cells[1]));
    EXPECT_EQ(cells[0], 1.0);
    EXPECT_EQ(cells[10], 10.0);
    EXPECT_EQ(cells[11], 12.0);
  }
}

TEST(StrictReaders, AsciiGridCountsHeaderAndCellSize) {
  TempDir dir;
  for (const auto& path : ascii_pair(dir, "more.asc", kHeader + "1 2 3 4\n5 6 7 8\n9 10 11 12\n13\n"))
    expect_refused(path, {"'13'", "line 10, column 1", "ncols x nrows = 12"});
  for (const auto& path : ascii_pair(dir, "less.asc", kHeader + "1 2 3 4\n5 6 7 8\n9 10 11\n"))
    expect_refused(path, {"11 values", "12"});
  for (const auto& path :
       ascii_pair(dir, "zero.asc", "ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 0\n1 2\n"))
    expect_refused(path, {"cellsize must be positive"});
  for (const auto& path :
       ascii_pair(dir, "neg.asc", "ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize -5\n1 2\n"))
    expect_refused(path, {"cellsize must be positive"});
  for (const auto& path : ascii_pair(dir, "norows.asc", "ncols 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n"))
    expect_refused(path, {"'nrows' is missing"});
  for (const auto& path : ascii_pair(dir, "nocell.asc", "ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\n1 2\n"))
    expect_refused(path, {"'cellsize' (or 'dx' and 'dy') is missing"});
  for (const auto& path : ascii_pair(dir, "noy.asc", "ncols 2\nnrows 1\nxllcorner 0\ncellsize 1\n1 2\n"))
    expect_refused(path, {"'yllcorner' (or 'yllcenter') is missing"});
  for (const auto& path : ascii_pair(dir, "twice.asc", "ncols 2\nnrows 1\nncols 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n"))
    expect_refused(path, {"'ncols' appears twice"});
  // The CLI: one line, exit 1.
  const auto paths = ascii_pair(dir, "cli.asc", kHeader + "1 nan 3 4\n5 x 7 8\n9 10 inf 12\n");
  for (const auto& path : paths) {
    const CliRun r = run_terrazo({"info", path});
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_TRUE(contains(r.err, "line 7, column 3")) << r.err;
  }
}

// ---- 4. stored statistics and CRS checked ------------------------------------------------------

std::string make_store(const TempDir& dir, const std::string& name, CellType type, const std::string& crs = "") {
  RasterInfo info;
  info.width = 40;
  info.height = 24;
  info.type = type;
  info.crs_wkt = crs;
  const std::string path = dir.file(name);
  TileStoreWriter writer(path, info, 16);
  std::vector<double> cells(256);
  for (std::uint32_t ty = 0; ty < 2; ++ty)
    for (std::uint32_t tx = 0; tx < 3; ++tx) {
      for (std::size_t i = 0; i < cells.size(); ++i) cells[i] = static_cast<double>(10 + tx * 7 + ty * 3 + i % 5);
      writer.write_tile(tx, ty, cells.data());
    }
  writer.finish();
  return path;
}

void read_every_tile(const std::string& path) {
  auto store = TileStore::open(path);
  std::vector<double> tile(256);
  for (std::uint32_t ty = 0; ty < store->grid().tiles_y(); ++ty)
    for (std::uint32_t tx = 0; tx < store->grid().tiles_x(); ++tx) store->read_tile(tx, ty, tile.data());
}

// Reproducer: a .tzs whose header says max = 1e300 (checksums valid) gave all-zero results.
TEST(StoredStatistics, ImpossibleOrLooseBoundsAreRefused) {
  TempDir dir;
  const std::string f32 = make_store(dir, "f32.tzs", CellType::Float32);
  EXPECT_NO_THROW(read_every_tile(f32));
  patch_header(f32, kMaxOffset, double_bytes(1e300));
  expect_error_holding([&] { TileStore::open(f32); }, {"statistics", "f32.tzs"}, "max = 1e300 accepted in a Float32 store");
  // Float64 holds 1e300: the bounds are caught once every tile was read, before any output.
  const std::string f64 = make_store(dir, "f64.tzs", CellType::Float64);
  patch_header(f64, kMaxOffset, double_bytes(1e300));
  EXPECT_THROW(read_every_tile(f64), Error);
  const CliRun r = run_terrazo({"mst", "-q", f64, dir.file("m.tif")});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "statistics")) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("m.tif")));
  const CliRun s = run_terrazo({"sssp", "-q", "--source", "1,1", f32, dir.file("c.tif")});
  EXPECT_EQ(s.code, 1) << s.err;
  EXPECT_FALSE(fs::exists(dir.file("c.tif")));
}

// Issue 15 (the loose Float64 bound): a bound wider than the data but within [min, max] of every
// tile it read got through sssp when the run did not read every stored tile (--max-cost, here a
// source whose reach ends in its own tile): the scale came from a header that lied. Now sssp reads
// the tiles it skipped before it publishes, and the header must be the tiles' own, exactly.
TEST(StoredStatistics, LooseBoundIsCaughtWhenSsspReadsPartOfTheStore) {
  TempDir dir;
  const std::string exact = make_store(dir, "exact.tzs", CellType::Float64);
  const std::vector<std::string> near_source = {"sssp", "-q", "--max-cost", "0.5", "--source", "1,1"};
  auto sssp = [&](const std::string& store, const std::string& out) {
    std::vector<std::string> args = near_source;
    args.insert(args.end(), {store, out});
    return run_terrazo(args);
  };
  ASSERT_EQ(sssp(exact, dir.file("ok.tif")).code, 0);
  const std::string loose = make_store(dir, "loose.tzs", CellType::Float64);
  patch_header(loose, kMaxOffset, double_bytes(1000.0));  // the data's max is 31
  const CliRun r = sssp(loose, dir.file("c.tif"));
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "statistics")) << r.err;
  EXPECT_TRUE(contains(r.err, "loose.tzs")) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("c.tif")));
  // The store API: what a run skipped is read on demand, and only that.
  auto store = TileStore::open(exact);
  std::vector<double> tile(256);
  store->read_tile(0, 0, tile.data());
  EXPECT_EQ(store->read_unseen_tiles(), 5u);
  EXPECT_EQ(store->read_unseen_tiles(), 0u);
  auto lying = TileStore::open(loose);
  lying->read_tile(0, 0, tile.data());
  EXPECT_THROW(lying->read_unseen_tiles(), Error);
}

TEST(StoredStatistics, ValueOutsideTheBoundsNamesTheTile) {
  TempDir dir;
  const std::string path = make_store(dir, "narrow.tzs", CellType::Int16);
  patch_header(path, kMaxOffset, double_bytes(20.0));  // tile (1, 0) holds 17..21, tile (2, 0) 24..28
  auto store = TileStore::open(path);
  std::vector<double> tile(256);
  EXPECT_NO_THROW(store->read_tile(0, 0, tile.data()));
  expect_error_holding([&] { store->read_tile(2, 0, tile.data()); }, {"tile (2, 0)", "outside the statistics"},
                       "a value above the stored max was read");
  const std::string low = make_store(dir, "low.tzs", CellType::Int16);
  patch_header(low, kMinOffset, double_bytes(11.0));
  EXPECT_THROW(read_every_tile(low), Error);
}

TEST(StoredStatistics, CrsOfNulBytesIsRefused) {
  TempDir dir;
  const std::string path = make_store(dir, "crs.tzs", CellType::Float32, "LOCAL_CS[\"x\"]");
  EXPECT_EQ(TileStore::open(path)->info().crs_wkt, "LOCAL_CS[\"x\"]");
  const std::string file = slurp(path);
  const std::size_t at = file.find("LOCAL_CS");
  ASSERT_NE(at, std::string::npos);
  patch_header(path, at, std::string(14, '\0'));
  expect_error_holding([&] { TileStore::open(path); }, {"NUL"}, "a CRS of NUL bytes was accepted");
  RasterInfo info;
  info.width = info.height = 4;
  info.crs_wkt = std::string("GEOGCS\0", 7);
  EXPECT_THROW(TileStoreWriter(dir.file("w.tzs"), info, 16), Error);
}

// ---- 5. distinct output paths ------------------------------------------------------------------

// Reproducers: `sssp --backlink o/c.tif in.tzs o/c.tif` exited 1 leaving the backlink raster as
// o/c.tif; `--backlink o/b.tif --allocation o/b.tif` published both; `mst --edge-list o/m.tif
// in.tzs o/m.tif` left a non-TIFF. Now each is a usage error (exit 2) before any work.
TEST(DistinctOutputs, SamePathTwiceIsAUsageErrorBeforeAnyWork) {
  TempDir dir;
  const std::string store = dir.file("in.tzs");
  ASSERT_EQ(run_terrazo({"gen", "-q", "--width", "64", "--height", "64", "--tile", "16", store}).code, 0);
  fs::create_directory(dir.file("o"));
  fs::create_directory_symlink(dir.file("o"), dir.file("link"));
  const std::string c = dir.file("o/c.tif"), b = dir.file("o/b.tif"), m = dir.file("o/m.tif");
  const std::vector<std::vector<std::string>> runs = {
      {"sssp", "-q", "--source", "3,3", "--backlink", c, store, c},
      {"sssp", "-q", "--source", "3,3", "--backlink", b, "--allocation", b, store, c},
      {"sssp", "-q", "--source", "3,3", "--backlink", dir.file("link/c.tif"), store, c},
      {"sssp", "-q", "--source", "3,3", "--backlink", dir.file("o/../o/./c.tif"), store, c},
      {"mst", "-q", "--edge-list", m, store, m},
      {"mst", "-q", "--edge-list", dir.file("link/m.tif"), store, m},
  };
  for (const auto& args : runs) {
    const CliRun r = run_terrazo(args);
    EXPECT_EQ(r.code, 2) << args[0] << " " << args[args.size() - 1] << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "same file")) << r.err;
  }
  EXPECT_TRUE(fs::is_empty(dir.file("o")));
  // An input as output (the CLI's own check names an existing input first, exit 2 too; the library
  // entry point refuses it as a usage error).
  ImportOptions import;
  import.input = store;
  import.output = dir.file("link/../in.tzs");
  MemoryBudget budget(64ull << 20);
  EXPECT_THROW(run_import(import, budget, Progress::silent()), UsageError);
  // The controls: distinct names run.
  EXPECT_EQ(run_terrazo({"sssp", "-q", "--source", "3,3", "--backlink", b, store, c}).code, 0);
  EXPECT_EQ(run_terrazo({"mst", "-q", "--edge-list", dir.file("o/m.bin"), store, m}).code, 0);
}

TEST(DistinctOutputs, CheckResolvesLinksAndNamesBothRoles) {
  TempDir dir;
  spit(dir.file("dem.tif"), "x");
  fs::create_symlink(dir.file("dem.tif"), dir.file("alias.tif"));
  EXPECT_NO_THROW(check_distinct_paths({{"INPUT", dir.file("dem.tif")}}, {{"OUTPUT", dir.file("out.tif")}, {"--x", ""}}));
  expect_error_holding<UsageError>(
      [&] { check_distinct_paths({{"INPUT", dir.file("alias.tif")}}, {{"OUTPUT", dir.file("dem.tif")}}); },
      {"OUTPUT", "input INPUT"}, "an output over the file an input link names was accepted");
  EXPECT_THROW(check_distinct_paths({}, {{"OUTPUT", "a/b.tif"}, {"--mask", "a//b.tif"}}), UsageError);
  EXPECT_THROW(check_distinct_paths({{"--cost", dir.file("c.tif")}}, {{"--mask", dir.file("./c.tif")}}), UsageError);
}

// Reproducer: run_sssp (the library entry point behind the command, the Python package and QGIS)
// with OUTPUT (or --backlink, --allocation) the --barrier-raster or the --index: the distinct-path
// check left those two inputs out, so the run went ahead and its output replaced the input; only the
// command line's own check (exit 1) stood in the way. Now a usage error naming both, before any work.
TEST(DistinctOutputs, SsspOutputOverTheBarrierRasterOrTheIndexIsAUsageError) {
  TempDir dir;
  const std::string dem = dir.file("dem.tif"), barrier = dir.file("barrier.tif"), index = dir.file("dem.tzi");
  terrazo::testing::write_raster_values(dem, 8, 8, std::vector<double>(64, 1.0), CellType::Float32, -9999);
  std::vector<double> walls(64, 0.0);
  for (int y = 0; y < 7; ++y) walls[y * 8 + 4] = 1;
  terrazo::testing::write_raster_values(barrier, 8, 8, walls, CellType::UInt8, 255);
  spit(index, "not read");
  const std::string barrier_bytes = slurp(barrier);
  for (const std::string& taken : {barrier, index, dir.file("./barrier.tif")})
    for (const char* role : {"OUTPUT", "--backlink", "--allocation"}) {
      SsspOptions o;
      RunSettings o_run;
      o.input = dem;
      o.sources.push_back(parse_source_point("1,1", "--source"));
      o.barrier_raster = barrier;
      o.index = index;
      o.output = dir.file("cost.tif");
      std::string* out = std::string(role) == "OUTPUT" ? &o.output : std::string(role) == "--backlink" ? &o.backlink : &o.allocation;
      *out = taken;
      MemoryBudget budget(64ull << 20);
      expect_error_holding<UsageError>([&] { terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent()); },
                                       {"same file", taken == index ? "--index" : "--barrier-raster"},
                                       std::string(role) + " '" + taken + "' over an input was accepted");
    }
  EXPECT_EQ(slurp(barrier), barrier_bytes);
  EXPECT_EQ(slurp(index), "not read");
  EXPECT_FALSE(fs::exists(dir.file("cost.tif")));
  // The control: distinct paths run, and the barrier closes its cells.
  SsspOptions o;
  RunSettings o_run;
  o.input = dem;
  o.sources.push_back(parse_source_point("1,1", "--source"));
  o.barrier_raster = barrier;
  o.output = dir.file("cost.tif");
  MemoryBudget budget(64ull << 20);
  EXPECT_EQ(terrazo::testing::run_with(run_sssp, o, o_run, budget, Progress::silent()).barrier_cells, 7u);
}

// ---- 6. backlinks validated --------------------------------------------------------------------

// Reproducer: `path` on a backlink raster holding 8..254 or a fraction took the cell as a source
// (exit 0, a one-cell path). 8..15 are knight's moves since `sssp --connectivity 16`
// (tests/test_knight.cpp traces them); 16..254 are not backlinks.
TEST(PathBacklinks, ValuesThatAreNotDirectionsAreErrorsWithTheCell) {
  TempDir dir;
  const std::string store = dir.file("in.tzs");
  ASSERT_EQ(run_terrazo({"gen", "-q", "--width", "64", "--height", "64", "--tile", "16", store}).code, 0);
  const std::string b = dir.file("b.tif"), c = dir.file("c.tif");
  ASSERT_EQ(run_terrazo({"sssp", "-q", "--source", "3,3", "--backlink", b, store, c}).code, 0);
  std::vector<double> links = read_all(b);
  // The control: the good raster traces a path of many cells.
  EXPECT_EQ(run_terrazo({"path", "-q", "--backlink", b, "--cost", c, "--dest", "60,60", dir.file("ok.geojson")})
                .code,
            0);
  RasterInfo georef;
  struct Case {
    std::string name;
    CellType type;
    double value;
  };
  for (const Case& k : {Case{"b16.tif", CellType::UInt8, 16.0}, Case{"b254.tif", CellType::UInt8, 254.0},
                        Case{"bf.tif", CellType::Float32, 2.5}}) {
    std::vector<double> bad = links;
    bad[60 * 64 + 60] = k.value;
    {
      GeoTiffWriter writer(dir.file(k.name), 64, 64, k.type, georef, true, 255.0, 16);
      writer.write_window(0, 0, 64, 64, bad.data());
      writer.finish();
    }
    const std::string out = dir.file(k.name + ".geojson");
    const CliRun r = run_terrazo({"path", "-q", "--backlink", dir.file(k.name), "--cost", c, "--dest", "60,60", out});
    EXPECT_EQ(r.code, 1) << k.name << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "60,60")) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
}

}  // namespace
