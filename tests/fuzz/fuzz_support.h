// tests/fuzz/fuzz_support.h: what the fuzz targets share (docs/reliability.md "Fuzzing").
//
// Each tests/fuzz/fuzz_<target>.cpp defines LLVMFuzzerTestOneInput: it feeds the bytes to one
// reader or parser and accepts exactly two outcomes, a result or terrazo's own exceptions (Error,
// UsageError: a clear message). Anything else fails the run: a crash, a sanitizer report, another
// exception (std::bad_alloc from a size taken on trust, std::out_of_range, ...), which reaches
// LLVMFuzzerTestOneInput's caller and aborts.
// Built with libFuzzer (clang, -DTERRAZO_FUZZ=ON), or as plain executables with
// tests/fuzz/fuzz_driver.cpp (deterministic mutations of the seed corpus; the ctest `fuzz` label).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/common/error.h"
#include "io/store/run_directory.h"

namespace terrazo::fuzz {

// One scratch directory per process (RunDirectory: removed at exit).
inline const RunDirectory& scratch() {
  static const RunDirectory* dir = new RunDirectory();  // leaked on purpose: lives until exit
  return *dir;
}

// Writes `bytes` to `name` in the scratch directory; returns its path.
inline std::string write_file(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch().file(name);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) std::abort();
  return path;
}

// Runs `body`, accepting terrazo's own errors; returns whether it completed.
template <class Body>
bool accept_clear_errors(Body&& body) {
  try {
    body();
    return true;
  } catch (const Error&) {  // UsageError and Cancelled included
  }
  return false;
}

}  // namespace terrazo::fuzz
