// Tests of gdal/external_memory.h: an stxxl::vector much larger than its internal memory works, its
// disk file lives in the run's scratch directory (unlinked, so visible only through /proc/self/fd),
// nothing STXXL says reaches stdout, and the budget accounting holds.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <dirent.h>
#include <stxxl/vector>
#include <string>

#include "core/error.h"
#include "core/memory_budget.h"
#include "store/run_directory.h"
#include "gdal/external_memory.h"

using namespace terrazo;

namespace {

// Targets of this process's open file descriptors that contain `needle`.
std::vector<std::string> open_files_containing(const std::string& needle) {
  std::vector<std::string> found;
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return found;
  while (dirent* entry = readdir(dir)) {
    const std::string link = std::string("/proc/self/fd/") + entry->d_name;
    char target[4096];
    const ssize_t n = readlink(link.c_str(), target, sizeof target - 1);
    if (n <= 0) continue;
    target[n] = '\0';
    if (std::string(target).find(needle) != std::string::npos) found.push_back(target);
  }
  closedir(dir);
  return found;
}

}  // namespace

TEST(ExternalMemory, VectorLargerThanItsMemorySpillsIntoTheRunDirectory) {
  MemoryBudget budget(64ull << 20);
  RunDirectory run;
  // Pages of one 256 KiB block; 1 MiB of cache (4 pages) for 64 MiB of elements.
  using Vector = stxxl::VECTOR_GENERATOR<std::uint64_t, 1, 8, 256 * 1024>::result;
  static_assert(ExternalMemory::vector_page_bytes<Vector>() == 256 * 1024, "one 256 KiB block per page");
  const std::uint64_t kCache = 1ull << 20;

  ::testing::internal::CaptureStdout();
  ExternalMemory em(run.path(), budget, 4ull << 20);
  EXPECT_EQ(budget.reserved(), 4ull << 20);
  EXPECT_EQ(em.internal_bytes(), 4ull << 20);
  Vector v(Vector::size_type{0}, ExternalMemory::vector_pages<Vector>(em.take(kCache, "test vector")));
  EXPECT_EQ(ExternalMemory::vector_bytes(v), kCache);
  EXPECT_EQ(em.available(), 3ull << 20);
  EXPECT_THROW(em.take(4ull << 20, "too much"), Error);

  const std::uint64_t n = 8ull << 20;  // 64 MiB of uint64
  for (std::uint64_t i = 0; i < n; ++i) v.push_back(i * 2654435761u);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(out, "") << "STXXL printed to stdout";

  // Everything reads back, in order and at random.
  std::uint64_t mismatches = 0;
  for (std::uint64_t i = 0; i < n; ++i) mismatches += v[i] != i * 2654435761u;
  EXPECT_EQ(mismatches, 0u);
  EXPECT_EQ(v[n / 3], (n / 3) * 2654435761u);

  // The disk file: under the run directory that configured STXXL, already unlinked.
  EXPECT_EQ(ExternalMemory::disk_path(), run.path() + "/stxxl.disk");
  const auto open = open_files_containing(run.path() + "/stxxl.disk");
  ASSERT_FALSE(open.empty()) << "no open STXXL disk file under " << run.path();
  EXPECT_NE(open.front().find("(deleted)"), std::string::npos) << open.front();
  EXPECT_EQ(access((run.path() + "/stxxl.disk").c_str(), F_OK), -1) << "the disk file must be unlinked";
  EXPECT_TRUE(open_files_containing("/var/tmp/stxxl").empty());

  em.give_back(kCache);
  EXPECT_EQ(em.available(), em.internal_bytes());
}

TEST(ExternalMemory, ReservationComesFromTheBudget) {
  MemoryBudget budget(8ull << 20);
  RunDirectory run;
  {
    ExternalMemory em(run.path(), budget, 6ull << 20);
    EXPECT_EQ(budget.reserved(), 6ull << 20);
    EXPECT_THROW(ExternalMemory(run.path(), budget, 4ull << 20), Error);
  }
  EXPECT_EQ(budget.reserved(), 0u);
  EXPECT_EQ(ExternalMemory::sorter_minimum_bytes(1ull << 20), 8ull << 20);
}
