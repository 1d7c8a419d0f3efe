#include "store/run_directory.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/error.h"

namespace terrazo {

RunDirectory::RunDirectory(const std::string& parent) {
  std::string base = parent;
  if (base.empty()) {
    const char* env = std::getenv("TMPDIR");
    base = env && *env ? env : "/tmp";
  }
  std::string pattern = base + "/terrazo-run-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (!mkdtemp(buffer.data()))
    throw Error("cannot create a scratch directory in '" + base + "': " + std::strerror(errno) +
                "; choose another with --tmpdir");
  path_ = buffer.data();
}

RunDirectory::~RunDirectory() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace terrazo
