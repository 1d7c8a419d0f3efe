// io/store/output_set.cpp: OutputSet (io/store/output_set.h).
#include "io/store/output_set.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "kernels/common/error.h"

namespace terrazo {

AtomicOutput& OutputSet::add(const std::string& path, std::vector<std::string> sidecar_suffixes) {
  if (published_) throw Error("internal error: output '" + path + "' added to a published set");
  if (find(path)) throw Error("internal error: output '" + path + "' added twice to one run");
  outputs_.push_back(std::make_unique<AtomicOutput>(path, std::move(sidecar_suffixes)));
  return *outputs_.back();
}

AtomicOutput* OutputSet::add_if(const std::string& path, std::vector<std::string> sidecar_suffixes) {
  return path.empty() ? nullptr : &add(path, std::move(sidecar_suffixes));
}

AtomicOutput* OutputSet::find(const std::string& path) const {
  if (path.empty()) return nullptr;
  for (const auto& output : outputs_)
    if (output->path() == path) return output.get();
  return nullptr;
}

void OutputSet::publish() {
  if (published_) return;
  // Every partial file is checked before the first rename, so the common late failure (a partial
  // file removed by hand) publishes nothing.
  for (const auto& output : outputs_) {
    struct stat st;
    if (::lstat(output->partial().c_str(), &st) != 0)
      throw IoError("cannot publish '" + output->path() + "': its partial file '" + output->partial() +
                    "' is gone (" + std::strerror(errno) + "); no output of this run was published");
  }
  std::string done;
  for (const auto& output : outputs_) {
    try {
      output->publish();
    } catch (const Error& e) {
      // The outputs after this one are removed when the set is destroyed.
      throw IoError(std::string(e.what()) + (done.empty() ? "; no output of this run was published"
                                                          : "; published before the failure: " + done));
    }
    done += (done.empty() ? "'" : ", '") + output->path() + "'";
  }
  published_ = true;
}

}  // namespace terrazo
