// io/store/run_directory.h: the scratch directory of one run.
//
// Every temporary file of a run (imported tile stores of GDAL inputs, distance stores, MST
// summaries and expansion records) lives in one directory made under --tmpdir (default $TMPDIR,
// else the output's directory), removed with its contents when the run ends, by RAII, also on
// errors and cancellation.
//
// Ownership (docs/reliability.md "What SIGKILL can leave"): the directory holds `owner.pid` (the
// owning process id, for people) locked with flock(LOCK_EX) for the object's lifetime; the kernel
// drops the lock when the process dies, however it dies. A SIGKILLed run cannot remove its
// directory, so every new RunDirectory first removes the `terrazo-run-*` directories in the same
// parent whose owner.pid it can lock (their owner is gone). A run killed while making its
// directory leaves it empty or with an unlocked `owner.pid.new`: both are removed too. A live run
// can lose its directory so, in the instants between making its `owner.pid.new` and locking it:
// the sweep removes the directory, and the run's lock (taken after the sweep's, EWOULDBLOCK while
// the sweep holds it) or its rename (ENOENT after) fails; either way it makes another directory.
// A directory with other files and no owner file is not terrazo's: it is left alone.
#pragma once
#include <string>

namespace terrazo {

class RunDirectory {
 public:
  // `parent` empty: $TMPDIR if set, else /tmp.
  explicit RunDirectory(const std::string& parent = "");
  ~RunDirectory();
  RunDirectory(const RunDirectory&) = delete;
  RunDirectory& operator=(const RunDirectory&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  // The lock file's name inside the directory.
  static constexpr const char* kOwnerFile = "owner.pid";
  // Removes the stale run directories under `parent` (their owner.pid lock is free); returns how many.
  static unsigned remove_stale(const std::string& parent);
  // Tests only (nullptr otherwise, set while no RunDirectory is being made): called with the lock
  // file's path between its creation under its first name (owner.pid.new) and its lock, the instant
  // another run's sweep can take that lock (tests/test_reliability.cpp, RunDirectories).
  static void (*before_lock_for_tests)(const std::string& lock_file);

 private:
  std::string path_;
  int lock_fd_ = -1;
};

}  // namespace terrazo
