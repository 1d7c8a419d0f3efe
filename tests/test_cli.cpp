// tests/test_cli.cpp: the terrazo program as a user meets it, run as a subprocess (TERRAZO_BINARY):
// --help of every registered command, exit codes and one-line messages for bad flags and bad
// inputs, `gen` determinism across tile sizes and threads, gen -> info --json, import/export of a
// real DEM, --json and progress output, `mst --merge` modes, and no partial output after failures
// or Ctrl-C (suite Cli); sssp's one-line errors, --json summary and peak RSS under --memory
// (SsspCli); mst's --json summary against the library run and the reference, --help (MstCli).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/commands/mst.h"
#include "kernels/common/memory_budget.h"
#include "io/store/tile_store.h"
#include "kernels/common/cuda_device.h"
#include "tests/support/mst_reference.h"
#include "tests/support/sssp_reference.h"  // read_raster_values
#include "tests/support/test_support.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using namespace terrazo::testing;

struct RunResult {
  int exit_code = -1;
  std::string out, err;
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Starts terrazo with `args`, stdout and stderr into files of `dir`; returns the pid.
pid_t start(const std::vector<std::string>& args, const std::string& dir) {
  std::vector<std::string> argv_storage{TERRAZO_BINARY};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string out = dir + "/stdout.txt", err = dir + "/stderr.txt";
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error(std::string("cannot start ") + TERRAZO_BINARY + ": " + std::strerror(rc));
  return pid;
}

RunResult finish(pid_t pid, const std::string& dir) {
  int status = 0;
  waitpid(pid, &status, 0);
  RunResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = slurp(dir + "/stdout.txt");
  result.err = slurp(dir + "/stderr.txt");
  return result;
}

class Cli : public ::testing::Test {
 protected:
  RunResult run(const std::vector<std::string>& args) { return finish(start(args, logs_.path()), logs_.path()); }
  std::string file(const std::string& name) const { return work_.file(name); }
  // Files left in the work directory (outputs, partial outputs).
  std::vector<std::string> work_files() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(work_.path()))
      if (entry.path().filename() != terrazo::RunDirectory::kOwnerFile)  // the directory's own lock
        names.push_back(entry.path().filename().string());
    return names;
  }

  terrazo::testing::TempDir logs_, work_;
};

// What a failed run must look like: the exit code and ONE line, "terrazo CMD: error: ..." naming
// `parts`; a usage error (exit 2) ends with where the usage is.
void expect_error(const RunResult& r, int code, const std::string& command, const std::vector<std::string>& parts) {
  EXPECT_EQ(r.exit_code, code) << r.err;
  const auto lines = lines_of(r.err);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.size(), 1u) << r.err;
  EXPECT_EQ(lines[0].rfind("terrazo " + command + ": error: ", 0), 0u) << r.err;
  for (const auto& part : parts) EXPECT_TRUE(contains(lines[0], part)) << "missing '" << part << "' in: " << r.err;
  if (code == 2) {
    EXPECT_TRUE(contains(lines[0], "terrazo " + command + " --help")) << r.err;
  }
}

// The command names listed under "Commands:" by `terrazo --help`.
std::vector<std::string> listed_commands(const std::string& help) {
  std::vector<std::string> names;
  bool in_list = false;
  for (const auto& line : lines_of(help)) {
    if (line == "Commands:") {
      in_list = true;
      continue;
    }
    if (in_list) {
      if (line.empty()) break;
      std::istringstream words(line);
      std::string name;
      words >> name;
      names.push_back(name);
    }
  }
  return names;
}

std::string last_line(const std::string& text) {
  const auto lines = lines_of(text);
  return lines.empty() ? "" : lines.back();
}

}  // namespace

TEST_F(Cli, HelpListsCommandsAndEachHasUsageWithExample) {
  const RunResult help = run({"--help"});
  ASSERT_EQ(help.exit_code, 0) << help.err;
  const auto names = listed_commands(help.out);
  for (const char* expected : {"export", "gen", "import", "info"})
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected << " not in:\n" << help.out;
  for (const auto& name : names) {
    for (const char* flag : {"--help", "-h"}) {
      const RunResult usage = run({name, flag});
      EXPECT_EQ(usage.exit_code, 0) << name;
      EXPECT_TRUE(contains(usage.out, "Usage: terrazo ")) << name << ":\n" << usage.out;
      EXPECT_TRUE(contains(usage.out, name)) << name << ":\n" << usage.out;
      EXPECT_TRUE(contains(usage.out, "Example")) << name << " --help has no example:\n" << usage.out;
      EXPECT_TRUE(usage.err.empty()) << usage.err;
    }
    const RunResult via_help = run({"help", name});
    EXPECT_EQ(via_help.exit_code, 0);
    EXPECT_EQ(via_help.out, run({name, "--help"}).out);
  }
}

TEST_F(Cli, VersionAndDispatchErrors) {
  const RunResult version = run({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("terrazo ", 0), 0u) << version.out;

  const RunResult none = run({});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_TRUE(contains(none.err, "Usage: terrazo <command>"));

  const RunResult unknown = run({"inport", "a.tif", "b.tzs"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(contains(unknown.err, "unknown command 'inport'")) << unknown.err;
  EXPECT_TRUE(contains(unknown.err, "did you mean 'import'")) << unknown.err;
}

TEST_F(Cli, UnknownFlagsAreUsageErrors) {
  expect_error(run({"import", "--bogus", "a.tif", "b.tzs"}), 2, "import", {"unknown flag", "--bogus"});
  expect_error(run({"info", "--bogus=1", "a.tif"}), 2, "info", {"--bogus"});
  expect_error(run({"export", "-z", "a.tzs", "b.tif"}), 2, "export", {"-z"});
  expect_error(run({"gen", "--width", "8", "--height", "8", "--colour", "red", "g.tzs"}), 2, "gen", {"--colour"});
}

TEST_F(Cli, NonsenseValuesNameFlagAndValue) {
  const std::string out = file("g.tzs");
  expect_error(run({"gen", "--width", "abc", "--height", "8", out}), 2, "gen", {"--width", "abc"});
  expect_error(run({"gen", "--width", "0", "--height", "8", out}), 2, "gen", {"--width", "0"});
  expect_error(run({"gen", "--height", "8", out}), 2, "gen", {"--width"});
  expect_error(run({"gen", "--width", "8", "--height", "8", "--tile", "100", out}), 2, "gen", {"--tile", "100"});
  expect_error(run({"gen", "--width", "8", "--height", "8", "--nodata-holes", "1.5", out}), 2, "gen",
               {"--nodata-holes", "1.5"});
  expect_error(run({"gen", "--width", "8", "--height", "8", "--type", "Float16", out}), 2, "gen",
               {"--type", "Float16"});
  expect_error(run({"gen", "--width", "8", "--height", "8", "--threads", "-2", out}), 2, "gen", {"--threads", "-2"});
  expect_error(run({"gen", "--width", "8", "--height", "8", "--crs", "EPSG:nonsense", out}), 2, "gen",
               {"--crs", "EPSG:nonsense"});
  expect_error(run({"gen", "--width", "8", "--height", "8", file("g.png")}), 2, "gen", {"g.png", ".tzs"});
  expect_error(run({"import", "--memory", "12X", "a.tif", "b.tzs"}), 2, "import", {"--memory", "12X"});
  expect_error(run({"mst", "--device", "gpu", "a.tif", "b.tif"}), 2, "mst", {"--device", "gpu"});
  // A common flag the command does not take (engine/commands/command_flags.cpp) is unknown to it.
  expect_error(run({"import", "--device", "cpu", "a.tif", "b.tzs"}), 2, "import", {"unknown flag '--device'"});
  expect_error(run({"import", "--memory"}), 2, "import", {"--memory needs a value"});
  expect_error(run({"import", "a.tif"}), 2, "import", {"INPUT OUTPUT"});
  expect_error(run({"export", "a.tzs", "b.tif", "c.tif"}), 2, "export", {"too many arguments"});
  expect_error(run({"export", "--block", "100", "a.tzs", "b.tif"}), 2, "export", {"--block", "100"});
  EXPECT_TRUE(work_files().empty());
}

TEST_F(Cli, MissingAndBadInputsAreRuntimeErrors) {
  const std::string missing = file("missing.tif");
  expect_error(run({"info", missing}), 1, "info", {missing, "does not exist"});
  expect_error(run({"import", missing, file("out.tzs")}), 1, "import", {missing});
  expect_error(run({"export", missing, file("out.tif")}), 1, "export", {missing});

  const std::string text = file("not_a_raster.tif");
  std::ofstream(text) << "this is not a raster\n";
  expect_error(run({"info", text}), 1, "info", {"not_a_raster.tif"});
  expect_error(run({"import", text, file("out.tzs")}), 1, "import", {"not_a_raster.tif"});
  expect_error(run({"info", work_.path()}), 1, "info", {"directory"});

  // A truncated tile store.
  const std::string store = file("whole.tzs");
  ASSERT_EQ(run({"gen", "-q", "--width", "100", "--height", "100", "--tile", "32", store}).exit_code, 0);
  const std::string cut = file("cut.tzs");
  const std::string bytes = slurp(store);
  std::ofstream(cut, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
  expect_error(run({"info", cut}), 1, "info", {"cut.tzs"});
  expect_error(run({"export", cut, file("cut.tif")}), 1, "export", {"cut.tzs"});

  for (const auto& name : work_files()) {
    EXPECT_EQ(name.find(".partial"), std::string::npos) << name;  // the partial files too
    EXPECT_NE(name, "out.tzs");
    EXPECT_NE(name, "out.tif");
    EXPECT_NE(name, "cut.tif");
  }
}

TEST_F(Cli, UnwritableOutputsAreRuntimeErrors) {
  const std::string store = file("in.tzs");
  ASSERT_EQ(run({"gen", "-q", "--width", "40", "--height", "40", store}).exit_code, 0);
  expect_error(run({"gen", "--width", "8", "--height", "8", file("no/such/dir/g.tzs")}), 1, "gen", {"no/such/dir"});
  expect_error(run({"import", store, file("no/such/dir/g.tzs")}), 1, "import", {"no/such/dir"});
  expect_error(run({"export", store, file("no/such/dir/g.tif")}), 1, "export", {"no/such/dir"});
  expect_error(run({"export", store, work_.path()}), 2, "export", {});  // a directory: not a .tif name
  expect_error(run({"gen", "--width", "8", "--height", "8", "/proc/terrazo-test.tzs"}), 1, "gen", {"/proc"});
  if (geteuid() != 0) {  // root writes anywhere: permissions only bind other users
    const std::string locked = file("locked");
    fs::create_directory(locked);
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
    expect_error(run({"gen", "--width", "8", "--height", "8", locked + "/g.tzs"}), 1, "gen", {"not writable"});
    fs::permissions(locked, fs::perms::owner_all);
  }
  EXPECT_TRUE(terrazo::testing::partial_files_of("/proc/terrazo-test.tzs").empty());
}

TEST_F(Cli, GenIsDeterministicAcrossTilesAndThreads) {
  const std::vector<std::string> common{"gen", "-q", "--width", "333", "--height", "201", "--seed", "42",
                                        "--nodata-holes", "0.1", "--type", "Int16"};
  auto gen = [&](const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> args = common;
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(file(name));
    const RunResult r = run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.out.empty() && r.err.empty()) << "-q prints nothing: " << r.out << r.err;
  };
  gen("a.tzs", {"--tile", "32", "--threads", "1"});
  gen("b.tzs", {"--tile", "32", "--threads", "3"});
  gen("c.tzs", {"--tile", "128"});
  gen("d.tzs", {"--tile", "16", "--threads", "2"});
  EXPECT_EQ(slurp(file("a.tzs")), slurp(file("b.tzs"))) << "same seed and tile: byte-identical stores";
  const auto a = read_store_cells(file("a.tzs"));
  EXPECT_TRUE(same_cells(a, read_store_cells(file("c.tzs"))));
  EXPECT_TRUE(same_cells(a, read_store_cells(file("d.tzs"))));
  std::size_t holes = 0;
  for (double v : a) holes += std::isnan(v);
  EXPECT_GT(holes, 0u);

  std::vector<std::string> other = common;
  other[7] = "43";
  other.push_back(file("e.tzs"));
  ASSERT_EQ(run(other).exit_code, 0);
  EXPECT_FALSE(same_cells(a, read_store_cells(file("e.tzs"))));
}

TEST_F(Cli, GenThenInfoJsonReportsTheSize) {
  const std::string store = file("g.tzs");
  const RunResult gen = run({"gen", "--json", "--width", "157", "--height", "93", "--tile", "64", store});
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  const std::string gen_json = last_line(gen.out);
  EXPECT_EQ(gen_json.front(), '{');
  EXPECT_EQ(gen_json.back(), '}');
  EXPECT_TRUE(contains(gen_json, "\"command\":\"gen\""));
  EXPECT_TRUE(contains(gen_json, "\"width\":157"));
  EXPECT_TRUE(contains(gen_json, "\"height\":93"));
  // Progress is on stderr (plain lines: stderr is a file here), ending the phase at 100 %.
  EXPECT_TRUE(contains(gen.err, "gen: 100.0%")) << gen.err;

  const RunResult info = run({"info", "--json", store});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const std::string json = last_line(info.out);
  EXPECT_EQ(json.front(), '{') << info.out;
  EXPECT_EQ(json.back(), '}') << info.out;
  EXPECT_TRUE(contains(json, "\"width\":157")) << json;
  EXPECT_TRUE(contains(json, "\"height\":93")) << json;

  const RunResult text = run({"info", store});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "157 x 93")) << text.out;
  EXPECT_TRUE(contains(text.out, "Float32")) << text.out;
}

TEST_F(Cli, GenGeoTiffAndExportKeepSizeAndGeoreferencing) {
  const std::string tif = file("g.tif"), store = file("g.tzs"), back = file("back.tif");
  ASSERT_EQ(run({"gen", "-q", "--width", "90", "--height", "70", "--seed", "3", tif}).exit_code, 0);
  ASSERT_EQ(run({"gen", "-q", "--width", "90", "--height", "70", "--seed", "3", store}).exit_code, 0);
  const RunResult exported = run({"export", store, back});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_TRUE(contains(exported.out, back)) << "prints where the output went: " << exported.out;
  for (const auto& path : {tif, back}) {
    const RunResult info = run({"info", path});
    ASSERT_EQ(info.exit_code, 0) << info.err;
    EXPECT_TRUE(contains(info.out, "90 x 70")) << info.out;
    EXPECT_TRUE(contains(info.out, "3857")) << info.out;
  }
  // The generated GeoTIFF imported again holds the same cells as the generated store.
  const std::string again = file("again.tzs");
  ASSERT_EQ(run({"import", "-q", tif, again}).exit_code, 0);
  EXPECT_TRUE(same_cells(read_store_cells(again), read_store_cells(store)));
}

TEST_F(Cli, ImportInfoExportOfARealDem) {
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";
  const std::string store = file("dem.tzs"), tif = file("dem.tif");
  const RunResult imported = run({"import", "--json", "--memory", "64M", dem, store});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_TRUE(contains(last_line(imported.out), "\"command\":\"import\""));
  const RunResult info = run({"info", "--json", store});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const RunResult original = run({"info", "--json", dem});
  ASSERT_EQ(original.exit_code, 0) << original.err;
  const RunResult exported = run({"export", "-q", store, tif});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_TRUE(exported.out.empty());
  EXPECT_TRUE(fs::exists(tif));
  const RunResult round_trip = run({"info", tif});
  EXPECT_EQ(round_trip.exit_code, 0) << round_trip.err;
}

// `mst --merge`: the post-order and the level merge give the same edge list byte for byte and the
// same totals, the JSON names the merge that ran; a bad value is a usage error naming the flag;
// `cuda` without a GPU is a runtime error naming it (with one, the same tree again).
TEST_F(Cli, MstMergeModesGiveTheSameTree) {
  const std::string store = file("in.tzs");
  ASSERT_EQ(run({"gen", "-q", "--width", "300", "--height", "200", "--tile", "32", "--seed", "5", "--nodata-holes",
                 "0.1", store})
                .exit_code,
            0);
  auto field = [](const std::string& json, const std::string& key) {
    const std::size_t at = json.find("\"" + key + "\":");
    if (at == std::string::npos) return std::string("(missing)");
    const std::size_t start = at + key.size() + 3;
    return json.substr(start, json.find_first_of(",}", start) - start);
  };
  std::vector<std::string> modes = {"cpu", "cpu-levels"};
  if (terrazo::cuda_device().available) modes.push_back("cuda");
  std::vector<std::string> json;
  for (const std::string& mode : modes) {
    const RunResult r = run({"mst", "-q", "--json", "--merge", mode, "--memory", "256M", "--edge-list",
                             file(mode + ".bin"), "--tmpdir", work_.path(), store, "-"});
    ASSERT_EQ(r.exit_code, 0) << mode << ": " << r.err;
    json.push_back(last_line(r.out));
    EXPECT_EQ(field(json.back(), "merge"), "\"" + mode + "\"") << json.back();
    for (const char* key : {"gpu_merge_kernel_seconds", "merge_batches"})
      EXPECT_NE(field(json.back(), key), "(missing)") << key << " in " << json.back();
  }
  const std::string reference = slurp(file("cpu.bin"));
  EXPECT_GT(reference.size(), 20u * 50000);
  for (std::size_t i = 1; i < modes.size(); ++i) {
    EXPECT_EQ(slurp(file(modes[i] + ".bin")), reference) << modes[i];
    for (const char* key : {"total_weight", "edges", "components", "expansion_records", "merge_levels"})
      EXPECT_EQ(field(json[i], key), field(json[0], key)) << modes[i] << " " << key;
  }
  EXPECT_EQ(field(json[0], "merge_batches"), "0");
  EXPECT_NE(field(json[1], "merge_batches"), "0");

  expect_error(run({"mst", "--merge", "gpu", store, file("x.tif")}), 2, "mst", {"--merge", "gpu"});
  if (!terrazo::cuda_device().available) {
    expect_error(run({"mst", "--merge", "cuda", "--json", "--tmpdir", work_.path(), store, "-"}), 1, "mst",
                 {"--merge cuda"});
  }
}

TEST_F(Cli, InterruptLeavesNoOutput) {
  const std::string out = file("big.tzs");
  // Large enough to run for seconds on one thread; interrupted once its partial file exists.
  const pid_t pid = start({"gen", "--threads", "1", "--tile", "64", "--width", "16384", "--height", "16384", out},
                          logs_.path());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (terrazo::testing::partial_files_of(out).empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_FALSE(terrazo::testing::partial_files_of(out).empty()) << "the run never started writing";
  kill(pid, SIGINT);
  const RunResult r = finish(pid, logs_.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "terrazo gen: interrupted")) << r.err;
  EXPECT_TRUE(work_files().empty()) << "left: " << (work_files().empty() ? "" : work_files()[0]);
}

// ---- sssp and mst through the program (suites SsspCli, MstCli) --------------------------------

namespace terrazo {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Bad input: one clear line and a non-zero exit (2 for the user's choices, 1 for the data).
using testing::CliRun;
using testing::run_cli;

TEST(SsspCli, BadInputGetsOneClearLine) {
  testing::TempDir dir;
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";
  const std::string out = dir.file("cost.tif");
  struct Case {
    std::string args;
    int code;
    std::string needle;
  };
  // A raster with a nodata cell, one with negative values, one with nodata everywhere.
  std::vector<double> holes(100, 3.0);
  holes[55] = kNaN;
  testing::write_raster_values(dir.file("holes.tif"), 10, 10, holes, CellType::Float32, -9999);
  std::vector<double> negative(100, 3.0);
  negative[7] = -2;
  testing::write_raster_values(dir.file("negative.tif"), 10, 10, negative, CellType::Float32, -9999);
  testing::write_raster_values(dir.file("empty.tif"), 10, 10, std::vector<double>(100, kNaN), CellType::Float32, -9999);
  const std::vector<Case> cases = {
      {"sssp -q " + dem + " " + out, 2, "no source"},
      {"sssp -q --source 400,20 " + dem + " " + out, 2, "outside the raster"},
      {"sssp -q --source 5,5 " + dir.file("holes.tif") + " " + out, 2, "nodata"},
      {"sssp -q --source 1,1 " + dir.file("negative.tif") + " " + out, 2, "non-negative"},
      {"sssp -q --source 1,1 " + dir.file("empty.tif") + " " + out, 1, "nodata everywhere"},
      {"sssp -q --source 'ab,1' " + dem + " " + out, 2, "expected x,y"},
      {"cost-distance -q --source 400,20 " + dem + " " + out, 2, "outside the raster"},
  };
  for (const Case& c : cases) {
    const CliRun r = run_cli(c.args, dir);
    EXPECT_EQ(r.code, c.code) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find("error"), std::string::npos) << r.err;
    EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
    std::ifstream published(out);
    EXPECT_FALSE(published.good()) << "an output was published by a failed run: " << c.args;
  }
}

TEST(SsspCli, JsonSummaryIsTheLastLine) {
  testing::TempDir dir;
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";
  const std::string command = std::string(TERRAZO_BINARY) + " sssp -q --json --tile 64 --source 100,100 " + dem +
                              " " + dir.file("cost.tif") + " > " + dir.file("out.txt");
  ASSERT_EQ(std::system(command.c_str()), 0);
  std::ifstream f(dir.file("out.txt"));
  std::string line, last;
  while (std::getline(f, line))
    if (!line.empty()) last = line;
  EXPECT_EQ(last.front(), '{');
  EXPECT_EQ(last.back(), '}');
  for (const char* key : {"\"reached_cells\":131753", "\"tiles_solved\":", "\"resolves\":", "\"peak_rss_bytes\":",
                          "\"bytes_read\":", "\"phases\":{"})
    EXPECT_NE(last.find(key), std::string::npos) << key << " in " << last;
}

// VmHWM of a run on a raster whose cells (as doubles) are 10x the budget stays within the budget
// plus MemoryBudget::kFixedOverhead (docs/memory_budget.md); the child process reports it.
TEST(SsspCli, PeakRssWithinBudgetOnARasterLargerThanIt) {
  testing::TempDir dir;
  const std::string dem = dir.file("gen.tif");
  const std::string gen = std::string(TERRAZO_BINARY) + " gen -q --width 3000 --height 2000 --seed 5 " + dem;
  ASSERT_EQ(std::system(gen.c_str()), 0);
  const std::uint64_t budget = 24ull << 20;  // the raster holds 6 M cells = 46 MiB of doubles
  const std::string command = std::string(TERRAZO_BINARY) + " sssp -q --json --memory 24M --tile 64 --source 100,1900 " +
                              "--source 2900,50 --backlink " + dir.file("back.tif") + " " + dem + " " +
                              dir.file("cost.tif") + " > " + dir.file("out.txt");
  ASSERT_EQ(std::system(command.c_str()), 0);
  std::ifstream f(dir.file("out.txt"));
  std::string line, last;
  while (std::getline(f, line))
    if (!line.empty()) last = line;
  const auto key = last.find("\"peak_rss_bytes\":");
  ASSERT_NE(key, std::string::npos) << last;
  const std::uint64_t rss = std::stoull(last.substr(key + 17));
  EXPECT_NE(last.find("\"reached_cells\":6000000"), std::string::npos) << last;
  // Under AddressSanitizer its shadow memory and quarantine are in VmHWM: the run is checked, not VmHWM.
  if (!terrazo::testing::kSanitizedBuild) {
    EXPECT_LE(rss, budget + MemoryBudget::kFixedOverhead) << last;
  }
}

// mst: --json summary last on stdout (its values those of the library run and of the Kruskal
// reference), --help, a usage error.
TEST(MstCli, JsonSummaryAndExitCodes) {
  testing::TempDir dir;
  const std::string binary = TERRAZO_BINARY;
  const std::string input = std::string(TERRAZO_DATASETS) + "/real/hugo_site.asc";
  const std::string out = dir.file("stdout.txt");
  const std::string command = binary + " mst --json -q --memory 128M --tmpdir " + dir.path() + " " + input + " " +
                              dir.file("edges.tif") + " > " + out;
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(out);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  EXPECT_EQ(last.front(), '{');
  EXPECT_EQ(last.back(), '}');
  for (const char* key : {"\"total_weight\":", "\"edges\":", "\"vertices\":", "\"components\":", "\"phases\":",
                          "\"peak_rss_bytes\":", "\"bytes_read\":", "\"bytes_written\":"})
    EXPECT_NE(last.find(key), std::string::npos) << key << " in " << last;
  EXPECT_TRUE(std::filesystem::exists(dir.file("edges.tif")));
  // The values: the library's run on the same input and the in-memory reference.
  auto json_number = [&](const std::string& key) -> std::uint64_t {
    const auto at = last.find("\"" + key + "\":");
    if (at == std::string::npos) return ~std::uint64_t{0};
    return std::stoull(last.substr(at + key.size() + 3));
  };
  MstOptions options;
  RunSettings options_run;
  options.input = input;
  options_run.tmpdir = dir.path();
  MemoryBudget budget(128ull << 20);
  const MstResult library = terrazo::testing::run_with(run_mst, options, options_run, budget, Progress::silent());
  RasterInfo info;
  const std::vector<double> values = testing::read_raster_values(input, &info);
  const auto ref = testing::reference_mst_totals(values, info.width, info.height, library.params, Connectivity::Eight);
  EXPECT_EQ(json_number("width"), info.width);
  EXPECT_EQ(json_number("height"), info.height);
  EXPECT_EQ(json_number("total_weight"), ref.total_weight);
  EXPECT_EQ(json_number("edges"), ref.edges);
  EXPECT_EQ(json_number("vertices"), ref.vertices);
  EXPECT_EQ(json_number("components"), ref.components);
  EXPECT_EQ(json_number("total_weight"), library.total_weight);
  EXPECT_NE(last.find("\"device\":\"cpu\""), std::string::npos) << last;

  EXPECT_EQ(std::system((binary + " mst --help > " + out).c_str()), 0);
  std::ifstream help(out);
  const std::string text((std::istreambuf_iterator<char>(help)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("Example"), std::string::npos);
  const int status = std::system((binary + " mst --weight bogus " + input + " " + dir.file("x.tif") + " 2>/dev/null").c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
}

}  // namespace
}  // namespace terrazo
