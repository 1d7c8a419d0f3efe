// tests/test_output_set.cpp: a run's outputs published together or not at all (io/store/output_set.h,
// docs/reliability.md "Atomic outputs"), and every command refusing two outputs on one path or an
// output on an input (docs/reliability.md "Distinct output paths").
//
// The all-or-nothing cases (label `fault`) write one output of a run to a full tmpfs, as the issue's
// reproducers did: mounting one needs root (CAP_SYS_ADMIN); without it they report themselves skipped.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "io/store/output_set.h"
#include "kernels/common/error.h"
#include "tests/support/random_values.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace {

using namespace terrazo;
using namespace terrazo::testing;
namespace fs = std::filesystem;

std::vector<std::string> names_in(const std::string& directory) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(directory)) names.push_back(entry.path().filename().string());
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& n : names) text += n + " ";
  return text;
}

// ---- OutputSet ------------------------------------------------------------------------------------

TEST(OutputSet, PartialFilesUpFrontAndAllPublishedTogether) {
  TempDir dir;
  const std::string a = dir.file("a.tif"), b = dir.file("b.csv");
  OutputSet outputs;
  AtomicOutput& first = outputs.add(a, {".aux.xml"});
  EXPECT_EQ(outputs.add_if(""), nullptr);
  AtomicOutput* second = outputs.add_if(b);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(outputs.find(b), second);
  EXPECT_EQ(outputs.find(""), nullptr);
  EXPECT_THROW(outputs.add(a), Error);  // one output per path
  EXPECT_TRUE(fs::exists(first.partial()));
  EXPECT_TRUE(fs::exists(second->partial()));
  spit(first.partial(), "raster");
  spit(first.partial() + ".aux.xml", "sidecar");
  spit(second->partial(), "table");
  EXPECT_FALSE(fs::exists(a));
  EXPECT_FALSE(fs::exists(b));
  outputs.publish();
  EXPECT_TRUE(outputs.published());
  EXPECT_EQ(slurp(a), "raster");
  EXPECT_EQ(slurp(a + ".aux.xml"), "sidecar");
  EXPECT_EQ(slurp(b), "table");
  EXPECT_TRUE(partial_files_of(a).empty());
  EXPECT_TRUE(partial_files_of(b).empty());
}

// A run that fails before publish() (a write failed, a cancellation) destroys its set: no output
// appears and every partial file goes, outputs that were complete included.
TEST(OutputSet, DestroyedUnpublishedPublishesNoneAndRemovesEveryPartial) {
  TempDir dir;
  const std::string a = dir.file("a.tif"), b = dir.file("b.csv");
  spit(b, "previous");
  try {
    OutputSet outputs;
    spit(outputs.add(a, {".aux.xml"}).partial(), "complete");
    spit(outputs.find(a)->partial() + ".aux.xml", "sidecar");
    outputs.add(b);
    throw IoError("the second output could not be written");
  } catch (const IoError&) {
  }
  EXPECT_FALSE(fs::exists(a));
  EXPECT_EQ(slurp(b), "previous");
  for (const std::string& n : names_in(dir.path())) EXPECT_TRUE(n == "b.csv" || n == RunDirectory::kOwnerFile) << n;
  EXPECT_TRUE(partial_files_of(a).empty());
  EXPECT_TRUE(partial_files_of(b).empty());
}

// publish() checks every partial file before its first rename: one gone publishes none.
TEST(OutputSet, APartialFileGoneBeforePublicationPublishesNone) {
  TempDir dir;
  const std::string a = dir.file("a.csv"), b = dir.file("b.csv");
  OutputSet outputs;
  spit(outputs.add(a).partial(), "first");
  fs::remove(outputs.add(b).partial());
  try {
    outputs.publish();
    ADD_FAILURE() << "a set with a partial file gone was published";
  } catch (const IoError& e) {
    EXPECT_TRUE(contains(e.what(), b)) << e.what();
    EXPECT_TRUE(contains(e.what(), "no output of this run was published")) << e.what();
  }
  EXPECT_FALSE(fs::exists(a));
  EXPECT_FALSE(fs::exists(b));
}

// The contract for a rename that fails in the middle of publication (here: a directory made at the
// second output's path): the outputs before it are published, it and those after it are not (their
// partial files removed, what stood at their paths untouched), and the error names both.
TEST(OutputSet, RenameFailingMidwayKeepsTheEarlierOnesAndDropsTheRest) {
  TempDir dir;
  const std::string a = dir.file("a.csv"), b = dir.file("b.csv"), c = dir.file("c.csv");
  spit(c, "previous");
  {
    OutputSet outputs;
    spit(outputs.add(a).partial(), "first");
    spit(outputs.add(b).partial(), "second");
    spit(outputs.add(c).partial(), "third");
    fs::create_directory(b);
    spit(b + "/keep", "x");  // a non-empty directory: rename(2) onto it fails
    try {
      outputs.publish();
      ADD_FAILURE() << "a rename onto a directory succeeded";
    } catch (const IoError& e) {
      EXPECT_TRUE(contains(e.what(), b)) << e.what();
      EXPECT_TRUE(contains(e.what(), "published before the failure: '" + a + "'")) << e.what();
    }
    EXPECT_FALSE(outputs.published());
  }
  EXPECT_EQ(slurp(a), "first");
  EXPECT_TRUE(fs::is_directory(b));
  EXPECT_EQ(slurp(c), "previous");
  for (const std::string& p : {a, b, c}) EXPECT_TRUE(partial_files_of(p).empty()) << p;
}

// ---- finding 3: two outputs on one path, an output on an input: exit 2 before any work ----------

// Reproducer: `terrazo od-matrix -q --site 1,1 --site 50,50 --geojson o.csv g.tif o.csv` exited 0
// and the matrix was gone, replaced by the GeoJSON. Every command with several outputs now refuses
// two on one path, and every command an output on one of its inputs, with exit 2 before any work:
// nothing is written and the inputs are untouched.
TEST(DistinctOutputs, EveryCommandRefusesTwoOutputsOnOnePathOrAnOutputOnAnInput) {
  TempDir dir;
  const std::string g = dir.file("g.tif"), g2 = dir.file("g2.tif"), sites = dir.file("sites.csv");
  ASSERT_EQ(run_terrazo({"gen", "-q", "--width", "64", "--height", "64", g}).code, 0);
  ASSERT_EQ(run_terrazo({"gen", "-q", "--width", "64", "--height", "64", "--seed", "3", g2}).code, 0);
  ASSERT_EQ(run_terrazo({"render", "-q", g, dir.file("g.png")}).code, 0);
  spit(sites, "x,y\n1,1\n50,50\n");
  const std::string index = dir.file("g.tzi"), store = dir.file("g.tzs");
  ASSERT_EQ(run_terrazo({"index", "-q", g, index}).code, 0);
  ASSERT_EQ(run_terrazo({"import", "-q", g, store}).code, 0);
  fs::create_directory(dir.file("o"));
  const std::string o = dir.file("o/");
  const std::vector<std::vector<std::string>> runs = {
      // two outputs on one path
      {"sssp", "-q", "--source", "3,3", "--allocation", o + "c.tif", g, o + "c.tif"},
      {"mst", "-q", "--edge-list", o + "m.tif", g, o + "m.tif"},
      {"clump", "-q", "--by", "valid", "--stats", o + "l.tif", g, o + "l.tif"},
      {"od-matrix", "-q", "--site", "1,1", "--site", "50,50", "--geojson", o + "od.csv", g, o + "od.csv"},
      {"path", "-q", "--backlink", g, "--cost", g2, "--dest", "1,1", "--mask", o + "p.json", o + "p.json"},
      // an output on an input
      {"sssp", "-q", "--source", "3,3", "--backlink", g2, g2, o + "c.tif"},
      {"mst", "-q", "--edge-list", g2, g2, o + "m.tif"},
      {"clump", "-q", "--by", "valid", "--stats", g2, g2, o + "l.tif"},
      {"clump", "-q", "--by", "valid", g, g},
      {"od-matrix", "-q", "--site", "1,1", "--site", "50,50", g, g},
      {"od-matrix", "-q", "--site", "1,1", "--site", "50,50", "--geojson", g, g, o + "od.csv"},
      {"od-matrix", "-q", "--sites-file", sites, g, sites},
      {"od-matrix", "-q", "--site", "1,1", "--site", "50,50", "--index", index, g, index},
      {"network", "-q", "--site", "1,1", "--site", "50,50", g, g},
      {"network", "-q", "--sites-file", sites, g, sites},
      {"corridor", "-q", g, g2, g2},
      {"index", "-q", g, g},
      {"render", "-q", g, dir.file("g.png"), "--terrain", dir.file("g.png")},
      {"path", "-q", "--backlink", g, "--cost", g2, "--dest", "1,1", g2},
      {"path", "-q", "--backlink", g, "--cost", g2, "--dest", "1,1", "--mask", g, o + "p.json"},
      {"import", "-q", store, store},
      {"export", "-q", g, g},
  };
  const std::string g_bytes = slurp(g), g2_bytes = slurp(g2), sites_bytes = slurp(sites);
  for (const auto& args : runs) {
    const CliRun r = run_terrazo(args);
    std::string line;
    for (const auto& a : args) line += a + " ";
    EXPECT_EQ(r.code, 2) << line << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "same file") || contains(r.err, "is the input")) << line << ": " << r.err;
    EXPECT_TRUE(fs::is_empty(dir.file("o"))) << line << ": " << joined(names_in(dir.file("o")));
  }
  EXPECT_EQ(slurp(g), g_bytes);
  EXPECT_EQ(slurp(g2), g2_bytes);
  EXPECT_EQ(slurp(sites), sites_bytes);
  // The control: distinct paths run.
  EXPECT_EQ(run_terrazo({"od-matrix", "-q", "--site", "1,1", "--site", "50,50", "--geojson", o + "od.geojson", g,
                         o + "od.csv"})
                .code,
            0);
  EXPECT_TRUE(contains(slurp(o + "od.csv"), "from_id,to_id,cost"));
  EXPECT_TRUE(contains(slurp(o + "od.geojson"), "FeatureCollection"));
}

// ---- finding 5: a failed run publishes none of its outputs ---------------------------------------

// A tmpfs mounted at `path`, filled but for about `free_bytes`; unmounted when destroyed. mounted()
// is false where the process may not mount (not root, no CAP_SYS_ADMIN).
class FullTmpfs {
 public:
  FullTmpfs(const std::string& path, std::uint64_t free_bytes) : path_(path) {
    fs::create_directory(path_);
    if (::mount("tmpfs", path_.c_str(), "tmpfs", 0, "size=1m") != 0) {
      reason_ = std::string("cannot mount a tmpfs: ") + std::strerror(errno);
      return;
    }
    mounted_ = true;
    const std::string filler = path_ + "/filler";
    const int fd = ::open(filler.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const std::vector<char> block(4096, 'f');
    while (fd >= 0 && ::write(fd, block.data(), block.size()) > 0) {
    }
    if (fd >= 0) ::close(fd);
    fs::resize_file(filler, fs::file_size(filler) - free_bytes);
  }
  ~FullTmpfs() {
    if (mounted_) ::umount2(path_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  const std::string& reason() const { return reason_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  // What the run left there besides the filler.
  std::vector<std::string> left() const {
    std::vector<std::string> names;
    for (const std::string& n : names_in(path_))
      if (n != "filler") names.push_back(n);
    return names;
  }

 private:
  std::string path_, reason_;
  bool mounted_ = false;
};

struct SplitRun {
  std::string name;
  std::vector<std::string> args;  // "FULL/x" is an output on the full tmpfs, "OK/x" one in a plain directory
};

// Each run once with "FULL/" the full tmpfs: exit 1 naming the output that did not fit, nothing
// published in OK/ and no partial file anywhere; then with "FULL/" a plain directory (the control):
// exit 0, and the output that did not fit is larger than the room that was left.
void expect_all_or_nothing(const TempDir& dir, const SplitRun& run, const std::string& full_output) {
  constexpr std::uint64_t kRoom = 8 << 10;
  const std::string ok = dir.file(run.name + "-ok"), plain = dir.file(run.name + "-plain");
  fs::create_directory(ok);
  fs::create_directory(plain);
  FullTmpfs full(dir.file(run.name + "-full"), kRoom);
  if (!full.mounted()) GTEST_SKIP() << full.reason();
  const auto with = [&](const std::string& full_dir) {
    std::vector<std::string> args;
    for (const std::string& a : run.args) {
      if (a.rfind("FULL/", 0) == 0) args.push_back(full_dir + "/" + a.substr(5));
      else if (a.rfind("OK/", 0) == 0) args.push_back(ok + "/" + a.substr(3));
      else args.push_back(a);
    }
    return args;
  };
  const CliRun r = run_terrazo(with(dir.file(run.name + "-full")));
  EXPECT_EQ(r.code, 1) << run.name << ": " << r.err;
  EXPECT_TRUE(contains(r.err, full_output)) << run.name << ": " << r.err;
  EXPECT_TRUE(fs::is_empty(ok)) << run.name << " published: " << joined(names_in(ok));
  EXPECT_TRUE(full.left().empty()) << run.name << " left: " << joined(full.left());
  // The control.
  const CliRun control = run_terrazo(with(plain));
  ASSERT_EQ(control.code, 0) << run.name << ": " << control.err;
  EXPECT_GT(fs::file_size(plain + "/" + full_output), kRoom) << run.name;
  EXPECT_FALSE(fs::is_empty(ok)) << run.name;
}

class AllOrNothing : public ::testing::Test {
 protected:
  void SetUp() override {
    {
      const FullTmpfs probe(dir_.file("probe"), 4096);
      if (!probe.mounted()) GTEST_SKIP() << probe.reason() << " (the cases need root to mount one)";
    }
    // 200 x 200 cells: one 256-cell GeoTIFF block per output, so a raster's failed write shows at
    // its finish, after the other outputs are complete.
    std::mt19937_64 rng(34);
    terrazo::testing::write_raster_values(dem_, 200, 200, terrazo::testing::random_values(rng, 200 * 200, 0, 1, 9),
                                          CellType::Float32, -9999);
    terrazo::testing::write_raster_values(classes_, 200, 200, terrazo::testing::random_values(rng, 200 * 200, 0, 0, 4),
                                          CellType::Int16, -1);
  }
  TempDir dir_;
  const std::string dem_ = dir_.file("dem.tif"), classes_ = dir_.file("classes.tif");
};

// Reproducer: `clump --stats FULL/s.csv ... o/l.tif` with FULL a full tmpfs exited 1 and left
// o/l.tif published.
TEST_F(AllOrNothing, ClumpStatsThatCannotBeWrittenPublishesNoLabels) {
  expect_all_or_nothing(
      dir_, {"clump", {"clump", "-q", "--by", "value", "--stats", "FULL/s.csv", classes_, "OK/l.tif"}}, "s.csv");
}

// Reproducer: `od-matrix --geojson FULL/od.geojson ... o/od.csv` exited 1 and left o/od.csv published.
TEST_F(AllOrNothing, OdMatrixGeojsonThatCannotBeWrittenPublishesNoMatrix) {
  std::vector<std::string> args = {"od-matrix", "-q"};
  for (int k = 0; k < 24; ++k) {
    args.push_back("--site");
    args.push_back(std::to_string(5 + 8 * k) + "," + std::to_string(190 - 7 * k));
  }
  args.insert(args.end(), {"--geojson", "FULL/od.geojson", dem_, "OK/od.csv"});
  expect_all_or_nothing(dir_, {"od-matrix", args}, "od.geojson");
}

TEST_F(AllOrNothing, SsspBacklinkOrAllocationThatCannotBeWrittenPublishesNoCost) {
  expect_all_or_nothing(dir_, {"sssp-backlink", {"sssp", "-q", "--source", "3,3", "--source", "150,20", "--backlink",
                                                 "FULL/b.tif", dem_, "OK/c.tif"}},
                        "b.tif");
  // Uncompressed, so the allocation (two zones) is larger than the room left.
  expect_all_or_nothing(dir_,
                        {"sssp-allocation",
                         {"sssp", "-q", "--co", "COMPRESS=NONE", "--source", "3,3", "--source", "150,20", "--allocation",
                          "FULL/a.tif", "--backlink", "OK/b.tif", dem_, "OK/c.tif"}},
                        "a.tif");
}

TEST_F(AllOrNothing, MstRasterThatCannotBeWrittenPublishesNoEdgeList) {
  expect_all_or_nothing(dir_, {"mst", {"mst", "-q", "--edge-list", "OK/m.bin", dem_, "FULL/m.tif"}}, "m.tif");
}

TEST_F(AllOrNothing, PathGeojsonThatCannotBeWrittenPublishesNoMask) {
  const std::string cost = dir_.file("cost.tif"), back = dir_.file("back.tif");
  ASSERT_EQ(run_terrazo({"sssp", "-q", "--source", "3,3", "--backlink", back, dem_, cost}).code, 0);
  std::vector<std::string> args = {"path", "-q", "--backlink", back, "--cost", cost};
  for (int k = 0; k < 40; ++k) {
    args.push_back("--dest");
    args.push_back(std::to_string(190 - 4 * k) + "," + std::to_string(5 + 4 * k));
  }
  args.insert(args.end(), {"--mask", "OK/p.tif", "FULL/p.geojson"});
  expect_all_or_nothing(dir_, {"path", args}, "p.geojson");
}

}  // namespace
