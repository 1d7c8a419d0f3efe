// tests/support/test_support.cpp: the helpers of tests/support/test_support.h.
#include "tests/support/test_support.h"

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "store/atomic_output.h"

namespace terrazo::testing {

std::vector<std::string> partial_files_of(const std::string& path) {
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  fs::path directory = fs::path(path).parent_path();
  if (directory.empty()) directory = ".";
  const std::string prefix = fs::path(AtomicOutput::partial_prefix(path)).filename().string();
  std::error_code ec;
  for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, prefix.size(), prefix) == 0) found.push_back(it->path().string());
  }
  return found;
}

std::vector<std::string> entries_of(const TempDir& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    if (entry.path().filename() != RunDirectory::kOwnerFile) names.push_back(entry.path().filename().string());
  return names;
}

CliRun run_program(const std::string& program, const std::string& arguments, const TempDir& dir) {
  const std::string out = dir.file("stdout.txt"), err = dir.file("stderr.txt");
  const std::string command = program + " " + arguments + " > " + out + " 2> " + err;
  const int status = std::system(command.c_str());
  auto slurp = [](const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  };
  CliRun run;
  run.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = slurp(out);
  run.err = slurp(err);
  return run;
}

}  // namespace terrazo::testing
