// tests/test_error_kinds.cpp: the kinds of kernels/common/error.h that say more than Error: IoError (a file
// cannot be opened, read, written, created or renamed) and BudgetError (--memory too small), thrown
// by the commands' library entry points where the Python package maps them to OSError and
// MemoryError (docs/python.md "Errors"); still Errors to the CLI (exit 1).
#include <gtest/gtest.h>

#include <string>

#include "engine/commands/index_command.h"
#include "engine/commands/mst_command.h"
#include "engine/commands/network_command.h"
#include "engine/commands/sssp_command.h"
#include "kernels/common/error.h"
#include "kernels/common/memory_budget.h"
#include "io/store/posix_file.h"
#include "tests/support/test_support.h"

namespace {

using namespace terrazo;
using terrazo::testing::TempDir;

const std::string kDem = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";

// The kind a call throws, as a word (a gtest message names it when it is not the expected one).
template <class F>
std::string kind_of(F&& call) {
  try {
    call();
  } catch (const UsageError&) {
    return "UsageError";
  } catch (const IoError&) {
    return "IoError";
  } catch (const BudgetError&) {
    return "BudgetError";
  } catch (const Cancelled&) {
    return "Cancelled";
  } catch (const Error&) {
    return "Error";
  }
  return "none";
}

std::string sssp_kind(const std::vector<std::string>& args) {
  return kind_of([&] { run_sssp_command(parse_sssp_options(args), Progress::silent()); });
}

TEST(ErrorKinds, MissingInputIsIoError) {
  TempDir dir;
  EXPECT_EQ(sssp_kind({"--source", "1,1", dir.file("none.tif"), dir.file("c.tif")}), "IoError");
  EXPECT_EQ(kind_of([&] { PosixFile file(dir.file("none.bin"), PosixFile::Mode::Read); }), "IoError");
}

TEST(ErrorKinds, UnwritableOutputIsIoError) {
  TempDir dir;
  EXPECT_EQ(sssp_kind({"--source", "1,1", kDem, dir.file("no/such/dir/c.tif")}), "IoError");
}

TEST(ErrorKinds, BudgetTooSmallIsBudgetError) {
  TempDir dir;
  EXPECT_EQ(sssp_kind({"--source", "1,1", "--memory", "64K", kDem, dir.file("c.tif")}), "BudgetError");
  EXPECT_EQ(kind_of([&] {
              run_mst_command(parse_mst_options({"--memory", "64K", kDem, dir.file("e.tif")}), Progress::silent());
            }),
            "BudgetError");
  MemoryBudget budget(1024);
  EXPECT_EQ(kind_of([&] { const MemoryBudget::Reservation r = budget.reserve(4096, "a test buffer"); }), "BudgetError");
}

// Budget failures of the later pipelines' own checks (not MemoryBudget::reserve's) are BudgetErrors
// too: the index build's one-tile minimum (the clump border table no longer fails: it goes external,
// tests/test_clump.cpp ClumpPipeline.BorderTableOverBudgetGoesExternal). The CLI exits 1 with the message.
TEST(ErrorKinds, IndexBuildBudgetTooSmallIsBudgetError) {
  TempDir dir;
  std::string message;
  const std::string kind = kind_of([&] {
    try {
      run_index_command(parse_index_options({"--memory", "2M", kDem, dir.file("d.tzi")}), Progress::silent());
    } catch (const Error& e) {
      message = e.what();
      throw;
    }
  });
  EXPECT_EQ(kind, "BudgetError") << message;
  EXPECT_NE(message.find("memory budget too small for the index build"), std::string::npos) << message;
}

// network's paths run sssp after the whole cost matrix: a budget too small for sssp's write phase is
// found before the matrix (it was found after it), a BudgetError naming the phase and the size,
// with no progress event of the matrix.
TEST(ErrorKinds, NetworkBudgetTooSmallForItsPathsIsFoundBeforeTheMatrix) {
  TempDir dir;
  std::string message;
  std::uint64_t events = 0;
  Progress counting([&](const ProgressEvent&) {
    ++events;
    return true;
  });
  const std::string kind = kind_of([&] {
    try {
      run_network_command(parse_network_options({"--memory", "16M", "--site", "10,10", "--site", "300,300", kDem,
                                                 dir.file("n.geojson")}),
                          counting);
    } catch (const Error& e) {
      message = e.what();
      throw;
    }
  });
  EXPECT_EQ(kind, "BudgetError") << message;
  EXPECT_NE(message.find("memory budget too small for network's paths: it needs at least"), std::string::npos)
      << message;
  EXPECT_EQ(events, 0u) << message;
}

TEST(ErrorKinds, BadFlagIsUsageErrorAndOtherFailuresStayError) {
  TempDir dir;
  EXPECT_EQ(sssp_kind({"--source", "1,1", "--connectivity", "6", kDem, dir.file("c.tif")}), "UsageError");
  EXPECT_EQ(sssp_kind({"--source", "1000,1", kDem, dir.file("c.tif")}), "UsageError");  // outside the raster
  // Cancellation is neither an I/O nor a budget failure.
  Progress cancel([](const ProgressEvent&) { return false; });
  EXPECT_EQ(kind_of([&] { run_sssp_command(parse_sssp_options({"--source", "1,1", kDem, dir.file("c.tif")}), cancel); }),
            "Cancelled");
}

}  // namespace
