// io/store/atomic_output.h: one final output file, written under a name of its own and published by
// one atomic rename (docs/reliability.md "Atomic outputs").
//
//   AtomicOutput out("o/cost.tif", {".aux.xml"});
//   write everything to out.partial();     // "o/cost.tif.partial-<pid>-<16 hex digits>"
//   out.publish();                         // rename(partial, path): readers see the old file or the new one
//
// Contract:
//  - partial() is a fresh name in the directory of `path` (so the rename stays on one file
//    system), unique to this object: the process id and 64 random bits, and no file of that name
//    exists when it is chosen. Two runs writing the same path never share a partial file, so each
//    publishes a complete file of its own and the last rename wins.
//  - The object creates partial() as an empty file and holds an flock(LOCK_EX) on it until it is
//    published or removed (the file is made as `partial().new`, locked, then renamed, so it is never
//    seen unlocked under its partial name). Writers open partial() with O_TRUNC (GDAL's GTiff
//    driver, PosixFile, fopen "w"): the same inode, so the lock stays. A directory that cannot
//    hold the file is an Error here, before any work.
//  - publish() renames partial() + each sidecar suffix that exists (GDAL's ".aux.xml") to path() +
//    suffix, then partial() to path(); a failure is an Error naming both names.
//  - Destroyed unpublished (an exception, cancellation by SIGINT/SIGTERM through Cancelled), it
//    removes partial() and its sidecars. SIGKILL runs no code: it leaves the partial file, whose
//    lock the kernel drops with the process; the next AtomicOutput made in that directory removes
//    every `NAME.partial-<pid>-<16 hex>` whose lock it can take, with its sidecars
//    (docs/reliability.md "What SIGKILL can leave").
#pragma once
#include <string>
#include <vector>

namespace terrazo {

class AtomicOutput {
 public:
  explicit AtomicOutput(std::string path, std::vector<std::string> sidecar_suffixes = {});
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  const std::string& path() const { return path_; }
  const std::string& partial() const { return partial_; }
  bool published() const { return published_; }
  void publish();
  // Removes the partial file and its sidecars now (idempotent; nothing to publish afterwards).
  void discard();

  // The prefix every partial name of `path` starts with: path + ".partial-".
  static std::string partial_prefix(const std::string& path);
  // Removes the partial files (and files named partial + "." + anything: sidecars) in `directory`
  // whose lock is free: their writer is gone. Returns how many partial files it removed.
  static unsigned remove_stale_partials(const std::string& directory);

 private:
  void release_lock();
  std::string path_, partial_;
  std::vector<std::string> sidecars_;
  int lock_fd_ = -1;
  bool published_ = false, discarded_ = false;
};

}  // namespace terrazo
