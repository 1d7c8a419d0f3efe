#include "io/store/run_directory.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "kernels/common/error.h"

namespace terrazo {

void (*RunDirectory::before_lock_for_tests)(const std::string& lock_file) = nullptr;

RunDirectory::RunDirectory(const std::string& parent) {
  std::string base = parent;
  if (base.empty()) {
    const char* env = std::getenv("TMPDIR");
    base = env && *env ? env : "/tmp";
  }
  // Another run's sweep (remove_stale) may remove the directory in the instants before its lock
  // is taken (empty, or owner.pid.new not yet locked): then a step fails with ENOENT, or the lock
  // with EWOULDBLOCK (the sweep holds owner.pid.new's lock while it removes the directory; the
  // file was made here with O_EXCL, so no one else's lock is possible), and a new directory is made.
  for (int attempt = 0;; ++attempt) {
    std::string pattern = base + "/terrazo-run-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!mkdtemp(buffer.data()))
      throw IoError("cannot create a scratch directory in '" + base + "': " + std::strerror(errno) +
                  "; choose another with --tmpdir");
    path_ = buffer.data();
    // Locked under a temporary name, then renamed: whoever opens owner.pid finds it locked.
    const std::string owner = file(kOwnerFile), fresh = owner + ".new";
    lock_fd_ = ::open(fresh.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (lock_fd_ >= 0 && before_lock_for_tests) before_lock_for_tests(fresh);
    if (lock_fd_ >= 0 && ::flock(lock_fd_, LOCK_EX | LOCK_NB) == 0 && std::rename(fresh.c_str(), owner.c_str()) == 0)
      break;
    const int saved = errno;
    if (lock_fd_ >= 0) ::close(lock_fd_);
    lock_fd_ = -1;
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
    if ((saved == ENOENT || saved == EWOULDBLOCK) && attempt < 16) continue;
    throw IoError("cannot lock the scratch directory '" + path_ + "': " + std::strerror(saved) +
                "; choose another with --tmpdir");
  }
  const std::string pid = std::to_string(static_cast<long long>(::getpid())) + "\n";
  if (::write(lock_fd_, pid.data(), pid.size()) < 0) {
    // The pid is for people; the lock is what counts.
  }
  // Leftovers of runs that were killed (SIGKILL, a crash) in the same parent.
  remove_stale(base);
}

RunDirectory::~RunDirectory() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);  // still holding the lock: no one else removes it meanwhile
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

unsigned RunDirectory::remove_stale(const std::string& parent) {
  namespace fs = std::filesystem;
  unsigned removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("terrazo-run-", 0) != 0) continue;
    std::error_code type_ec;
    if (!it->is_directory(type_ec) || it->is_symlink(type_ec)) continue;
    const std::string owner = it->path().string() + "/" + kOwnerFile;
    int fd = ::open(owner.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    // A run killed while making its directory: the lock file still under its first name, or none
    // yet (an empty directory: rmdir removes nothing else).
    if (fd < 0) fd = ::open((owner + ".new").c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
      if (::rmdir(it->path().c_str()) == 0) ++removed;
      continue;  // not empty and no owner file: not ours to judge
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      std::error_code ignored;
      fs::remove_all(it->path(), ignored);
      ++removed;
    }
    ::close(fd);
  }
  return removed;
}

}  // namespace terrazo
