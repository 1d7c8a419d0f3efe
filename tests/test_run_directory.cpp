// tests/test_run_directory.cpp: docs/reliability.md's promise 7, run directories owned and their
// leftovers removed (io/store/run_directory.h): a killed run's directory is removed by the next run, and
// a run whose new lock file another run's sweep holds makes another directory.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <exception>
#include <filesystem>
#include <string>

#include "io/store/run_directory.h"
#include "tests/support/test_support.h"

namespace {

using namespace terrazo;
using namespace terrazo::testing;
namespace fs = std::filesystem;

// Reproducer: SIGKILL left terrazo-run-* directories that no later run removed.
TEST(RunDirectories, KilledRunsDirectoryIsRemovedByTheNextRun) {
  TempDir parent;
  const HoldingChild child = fork_holding([&] {
    auto* run = new RunDirectory(parent.path());  // never destroyed: the process is killed
    return run->path();
  });
  const std::string& stale = child.path;
  spit(stale + "/scratch.bin", "leftover");
  {
    // While its owner lives, nobody removes it.
    RunDirectory other(parent.path());
    EXPECT_TRUE(fs::exists(stale + "/scratch.bin"));
    EXPECT_EQ(std::stoll(slurp(stale + "/owner.pid")), static_cast<long long>(child.pid));
  }
  kill(child.pid, SIGKILL);
  int status = 0;
  waitpid(child.pid, &status, 0);
  ASSERT_TRUE(fs::exists(stale));
  // A directory with files and no owner file (not made by this terrazo) is left alone.
  fs::create_directory(parent.file("terrazo-run-foreign"));
  spit(parent.file("terrazo-run-foreign/data"), "not ours");
  // Runs killed while making their directory (the fault campaign found one): an empty directory,
  // or one whose lock file still has its first name, unlocked.
  fs::create_directory(parent.file("terrazo-run-empty1"));
  fs::create_directory(parent.file("terrazo-run-fresh1"));
  spit(parent.file("terrazo-run-fresh1/owner.pid.new"), "");
  spit(parent.file("terrazo-run-fresh1/scratch.bin"), "leftover");
  RunDirectory next(parent.path());
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(next.path()));
  EXPECT_TRUE(fs::exists(parent.file("terrazo-run-foreign/data")));
  EXPECT_FALSE(fs::exists(parent.file("terrazo-run-empty1")));
  EXPECT_FALSE(fs::exists(parent.file("terrazo-run-fresh1")));
}

// Reproducer: a run making its directory while another run's sweep took its unlocked owner.pid.new
// (the sweep holds that lock while it removes the directory) failed with "cannot lock the scratch
// directory ...: Resource temporarily unavailable" (once in a ctest -j2 run, two test processes
// making scratch directories in /tmp at once). The interleaving, forced: the hook is that sweep.
struct SweepAtTheLock {
  static int calls;
  static int held;  // the sweep's descriptor, locked
  static void sweep(const std::string& lock_file) {
    if (calls++ > 0) return;  // the first directory only
    held = ::open(lock_file.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(held, 0);
    ASSERT_EQ(::flock(held, LOCK_EX | LOCK_NB), 0);  // free: its maker has not locked it yet
    fs::remove_all(fs::path(lock_file).parent_path());  // as remove_stale does, the lock still held
  }
};
int SweepAtTheLock::calls = 0;
int SweepAtTheLock::held = -1;

TEST(RunDirectories, SweepHoldingTheNewLockFileMakesTheRunChooseAnotherDirectory) {
  TempDir parent;
  SweepAtTheLock::calls = 0;
  RunDirectory::before_lock_for_tests = &SweepAtTheLock::sweep;
  std::string made, error;
  try {
    RunDirectory run(parent.path());
    made = run.path();
    EXPECT_TRUE(fs::exists(run.file(RunDirectory::kOwnerFile)));
    spit(run.file("scratch.bin"), "mine");
    EXPECT_EQ(slurp(run.file("scratch.bin")), "mine");
  } catch (const std::exception& e) {
    error = e.what();
  }
  RunDirectory::before_lock_for_tests = nullptr;
  if (SweepAtTheLock::held >= 0) ::close(SweepAtTheLock::held);
  SweepAtTheLock::held = -1;
  EXPECT_EQ(error, "");
  EXPECT_EQ(SweepAtTheLock::calls, 2);  // the swept directory, then the one kept
  EXPECT_FALSE(made.empty());
  EXPECT_FALSE(fs::exists(made));  // removed by its destructor
  EXPECT_TRUE(entries_of(parent).empty());
}

}  // namespace
