// store/run_directory.h: the scratch directory of one run.
//
// Every temporary file of a run (imported tile stores of GDAL inputs, distance stores, MST
// summaries and expansion records) lives in one directory made under --tmpdir (default $TMPDIR,
// else the output's directory), removed with its contents when the run ends, by RAII, also on
// errors and cancellation.
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

 private:
  std::string path_;
};

}  // namespace terrazo
