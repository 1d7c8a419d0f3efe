// tests/support/test_support.cpp: the helpers of tests/support/test_support.h.
#include "tests/support/test_support.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "io/store/atomic_output.h"
#include "io/store/tile_store.h"

extern char** environ;

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

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

HoldingChild fork_holding(const std::function<std::string()>& make) {
  int channel[2];
  if (pipe(channel) != 0) throw std::runtime_error("pipe failed");
  HoldingChild child;
  child.pid = fork();
  if (child.pid < 0) throw std::runtime_error("fork failed");
  if (child.pid == 0) {
    const std::string path = make();
    if (write(channel[1], path.data(), path.size()) < 0) _exit(3);
    close(channel[1]);
    for (;;) pause();
  }
  close(channel[1]);
  char buffer[4096];
  const ssize_t got = read(channel[0], buffer, sizeof buffer);
  close(channel[0]);
  if (got <= 0) throw std::runtime_error("the child reported no path");
  child.path.assign(buffer, static_cast<std::size_t>(got));
  return child;
}

std::vector<double> read_store_cells(const std::string& path) {
  auto store = TileStore::open(path);
  const auto& info = store->info();
  const std::uint32_t t = store->tile();
  std::vector<double> cells(info.width * info.height), tile(static_cast<std::size_t>(t) * t);
  for (std::uint32_t ty = 0; ty < store->grid().tiles_y(); ++ty)
    for (std::uint32_t tx = 0; tx < store->grid().tiles_x(); ++tx) {
      store->read_tile(tx, ty, tile.data());
      for (std::uint32_t r = 0; r < t; ++r)
        for (std::uint32_t c = 0; c < t; ++c) {
          const std::uint64_t x = std::uint64_t{tx} * t + c, y = std::uint64_t{ty} * t + r;
          if (x < info.width && y < info.height) cells[y * info.width + x] = tile[std::size_t{r} * t + c];
        }
    }
  return cells;
}

bool same_cells(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) && std::isnan(b[i])) continue;
    if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0) return false;
  }
  return true;
}

CliRun run_program(const std::string& program, const std::string& arguments, const TempDir& dir) {
  const std::string out = dir.file("stdout.txt"), err = dir.file("stderr.txt");
  const std::string command = program + " " + arguments + " > " + out + " 2> " + err;
  const int status = std::system(command.c_str());
  CliRun run;
  run.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = slurp(out);
  run.err = slurp(err);
  return run;
}

CliRun run_argv(const std::vector<std::string>& argv) {
  TempDir logs;
  std::vector<std::string> storage(argv);
  std::vector<char*> pointers;
  for (auto& a : storage) pointers.push_back(a.data());
  pointers.push_back(nullptr);
  const std::string out = logs.file("stdout.txt"), err = logs.file("stderr.txt");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, pointers[0], &actions, nullptr, pointers.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + argv.at(0) + ": " + std::strerror(rc));
  int status = 0;
  waitpid(pid, &status, 0);
  CliRun run;
  run.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.out = slurp(out);
  run.err = slurp(err);
  return run;
}

}  // namespace terrazo::testing
