// The memory promise of import ( item 4, docs/memory_budget.md): importing a raster
// 16 times larger than --memory keeps the peak resident set (VmHWM) within budget + 64 MiB.
//
// The parent test writes a 256 MiB Float32 raster (8192 x 8192, raw ENVI, streamed row by row),
// then runs the import in a fresh child process (this test binary re-executed with a filter that
// selects ImportRssChild.DISABLED_Run), so the child's VmHWM measures the import alone: no memory of the
// parent's, no pages shared by fork. The child writes its VmHWM to a report file; the parent
// checks it and then checks the store against the generating function.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "engine/raster_inputs/raster_io.h"
#include "io/store/tile_store.h"
#include "tests/support/test_support.h"

extern char** environ;

using namespace terrazo;

namespace {

constexpr std::uint64_t kSide = 8192;             // 8192^2 Float32 cells = 256 MiB
constexpr std::uint64_t kBudget = 16ull << 20;    // 1/16 of the raster
constexpr float kNodata = -9999.0f;

// AddressSanitizer's shadow memory and quarantine of freed blocks inflate the resident set by
// design, so under it the import and the store are checked but VmHWM is not.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif

// The cell at (x, y): a deterministic ramp pattern; nodata in the top-left 1024 x 1024 block (so
// whole tiles are absent) and on every 97th diagonal.
float cell_value(std::uint64_t x, std::uint64_t y) {
  if ((x < 1024 && y < 1024) || (x + y) % 97 == 0) return kNodata;
  return static_cast<float>(((x * 7 + y * 13) % 1000)) * 0.5f - 100.0f;
}

void write_envi(const std::string& bil) {
  {
    std::ofstream hdr(bil.substr(0, bil.size() - 4) + ".hdr");
    hdr << "ENVI\nsamples = " << kSide << "\nlines = " << kSide
        << "\nbands = 1\nheader offset = 0\nfile type = ENVI Standard\ndata type = 4\ninterleave = bsq\n"
           "byte order = 0\ndata ignore value = -9999\n";
  }
  std::FILE* out = std::fopen(bil.c_str(), "wb");
  ASSERT_NE(out, nullptr);
  std::vector<float> row(kSide);
  for (std::uint64_t y = 0; y < kSide; ++y) {
    for (std::uint64_t x = 0; x < kSide; ++x) row[x] = cell_value(x, y);
    ASSERT_EQ(std::fwrite(row.data(), sizeof(float), kSide, out), kSide);
  }
  ASSERT_EQ(std::fclose(out), 0);
}

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

}  // namespace

// The child of ImportRss.SixteenTimesTheBudget, not a test of its own: disabled, so ctest never
// counts it (neither passed nor skipped); the parent runs it with --gtest_also_run_disabled_tests.
TEST(ImportRssChild, DISABLED_Run) {
  const std::string input = env("TERRAZO_RSS_INPUT"), output = env("TERRAZO_RSS_OUTPUT"), report = env("TERRAZO_RSS_REPORT");
  ASSERT_FALSE(input.empty()) << "runs as the child of ImportRss.SixteenTimesTheBudget";
  MemoryBudget budget(kBudget);
  ImportOptions options;
  options.input = input;
  options.output = output;
  options.tile = 256;
  const ImportResult result = run_import(options, budget, Progress::silent());
  std::ofstream(report) << peak_rss_bytes() << ' ' << budget.peak_reserved() << ' ' << result.present_tiles << ' '
                        << result.info.valid_cells << '\n';
}

TEST(ImportRss, SixteenTimesTheBudget) {
  terrazo::testing::TempDir dir;
  const std::string input = dir.file("big.bil"), output = dir.file("big.tzs"), report = dir.file("report.txt");
  write_envi(input);
  if (HasFatalFailure()) return;

  // The child: this binary, only the child test, with the paths in its environment.
  std::vector<std::string> env_strings = {"TERRAZO_RSS_INPUT=" + input, "TERRAZO_RSS_OUTPUT=" + output,
                                          "TERRAZO_RSS_REPORT=" + report};
  std::vector<char*> child_env;
  for (std::string& e : env_strings) child_env.push_back(e.data());
  for (char** e = environ; *e; ++e) child_env.push_back(*e);
  child_env.push_back(nullptr);
  std::string exe = "/proc/self/exe", filter = "--gtest_filter=ImportRssChild.DISABLED_Run",
              disabled = "--gtest_also_run_disabled_tests";
  char* argv[] = {exe.data(), filter.data(), disabled.data(), nullptr};
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv, child_env.data()), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child import failed, status " << status;

  std::uint64_t hwm = 0, peak_reserved = 0, present = 0, valid = 0;
  std::ifstream(report) >> hwm >> peak_reserved >> present >> valid;
  ASSERT_GT(hwm, 0u) << "child wrote no report";
  std::printf("import of %llu MiB with --memory %llu MiB: VmHWM %.1f MiB, peak reserved %.1f MiB, %.1f s\n",
              static_cast<unsigned long long>(kSide * kSide * 4 >> 20), static_cast<unsigned long long>(kBudget >> 20),
              hwm / 1048576.0, peak_reserved / 1048576.0, seconds);
  EXPECT_LE(peak_reserved, kBudget);
  if (kAddressSanitizer) std::printf("AddressSanitizer build: VmHWM not checked\n");
  else EXPECT_LE(hwm, kBudget + MemoryBudget::kFixedOverhead) << "VmHWM " << hwm << " over budget + 64 MiB";

  // The store holds what was generated.
  auto store = TileStore::open(output);
  std::uint64_t expected_valid = 0;
  for (std::uint64_t y = 0; y < kSide; ++y)
    for (std::uint64_t x = 0; x < kSide; ++x) expected_valid += cell_value(x, y) != kNodata;
  EXPECT_EQ(store->info().valid_cells, expected_valid);
  EXPECT_EQ(valid, expected_valid);
  EXPECT_EQ(store->present_tiles(), 32u * 32u - 16u);  // the 4 x 4 tiles of the nodata block are absent
  EXPECT_EQ(present, store->present_tiles());
  EXPECT_EQ(store->info().min, -100.0);
  EXPECT_EQ(store->info().max, 399.5);
  std::vector<double> tile(256 * 256);
  for (auto [tx, ty] : {std::pair<std::uint32_t, std::uint32_t>{0, 0}, {5, 3}, {31, 31}, {17, 30}}) {
    store->read_tile(tx, ty, tile.data());
    std::uint64_t wrong = 0;
    for (std::uint64_t r = 0; r < 256; ++r)
      for (std::uint64_t c = 0; c < 256; ++c) {
        const float want = cell_value(tx * 256ull + c, ty * 256ull + r);
        const double got = tile[r * 256 + c];
        wrong += want == kNodata ? !std::isnan(got) : got != static_cast<double>(want);
      }
    EXPECT_EQ(wrong, 0u) << "tile " << tx << "," << ty;
  }
}
