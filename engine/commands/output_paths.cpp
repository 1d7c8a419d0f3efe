// engine/commands/output_paths.cpp: the path checks of engine/commands/output_paths.h.
#include "engine/commands/output_paths.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "kernels/common/error.h"

namespace terrazo {

namespace fs = std::filesystem;

void check_input_file(const std::string& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status))
    throw IoError("input '" + path + "' does not exist; check the path");
  if (fs::is_directory(status)) throw IoError("input '" + path + "' is a directory; give a raster file");
  if (access(path.c_str(), R_OK) != 0)
    throw IoError("cannot read input '" + path + "': " + std::strerror(errno) + "; check its permissions");
}

void check_run_files(const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
  for (const std::string& input : inputs)
    if (!input.empty()) check_input_file(input);
  std::vector<std::string> taken = inputs;
  for (const std::string& output : outputs) {
    if (output.empty()) continue;
    check_output_file(output, taken);
    taken.push_back(output);
  }
}

void check_output_file(const std::string& path, const std::vector<std::string>& inputs) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw IoError("output '" + path + "' is a directory; give a file name");
  for (const auto& input : inputs) {
    if (fs::exists(path, ec) && fs::equivalent(path, input, ec))
      throw UsageError("output '" + path + "' is the input '" + input + "'; choose another output name");
  }
  fs::path directory = fs::path(path).parent_path();
  if (directory.empty()) directory = ".";
  if (!fs::is_directory(directory, ec))
    throw IoError("cannot write output '" + path + "': directory '" + directory.string() +
                "' does not exist; create it or choose another path");
  if (access(directory.c_str(), W_OK | X_OK) != 0)
    throw IoError("cannot write output '" + path + "': directory '" + directory.string() + "' is not writable (" +
                std::strerror(errno) + "); choose another path");
}

namespace {

// The real path of the directory of `path` (lexical when it does not exist) plus its name.
std::string resolved_name(const std::string& path) {
  const fs::path p(path);
  fs::path directory = p.parent_path();
  if (directory.empty()) directory = ".";
  std::error_code ec;
  fs::path real = fs::canonical(directory, ec);
  if (ec) real = fs::absolute(directory, ec).lexically_normal();
  return (real / p.filename()).string();
}

}  // namespace

void check_distinct_paths(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs) {
  struct Key {
    std::string resolved;
    const NamedPath* named;
    bool is_input;
  };
  std::vector<Key> taken;
  for (const auto& input : inputs) {
    if (input.path.empty()) continue;
    taken.push_back({resolved_name(input.path), &input, true});
    std::error_code ec;
    const fs::path real = fs::canonical(input.path, ec);
    if (!ec) taken.push_back({real.string(), &input, true});
  }
  for (const auto& output : outputs) {
    if (output.path.empty()) continue;
    const std::string resolved = resolved_name(output.path);
    for (const auto& key : taken) {
      if (key.resolved != resolved) continue;
      const bool is_input = key.is_input;
      throw UsageError(output.role + " '" + output.path + "' is the same file as " + (is_input ? "input " : "") +
                       key.named->role + " '" + key.named->path + "'; give every output a path of its own" +
                       (is_input ? ", apart from the inputs" : ""));
    }
    taken.push_back({resolved, &output, false});
  }
}

std::string file_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

}  // namespace terrazo
