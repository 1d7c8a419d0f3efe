// io/store/output_set.h: the outputs of one run, published together or not at all
// (docs/reliability.md "Atomic outputs").
//
//   OutputSet outputs;
//   AtomicOutput& cost = outputs.add("o/cost.tif", {".aux.xml"});   // before any work
//   AtomicOutput& back = outputs.add("o/back.tif", {".aux.xml"});
//   write and close cost.partial(), back.partial();                 // writers that do not publish
//   outputs.publish();                                               // every output, in the order added
//
// Contract:
//  - add() makes the output's partial file at once (AtomicOutput: a name of its own, locked), so a
//    directory that cannot hold it is an Error before any work. Empty paths are not outputs: add()
//    returns nullptr for them (add_if). Two outputs of one set on one path are an internal error
//    (the commands refuse them earlier as usage errors: engine/commands/output_paths.h).
//  - publish() is called once every output has been written and closed; nothing is published
//    before it, so a failure while writing any output (a full disk, a cancellation, an exception)
//    destroys the set unpublished and every partial file is removed: no output of the run appears.
//  - publish() first checks that every partial file is still there (a sweep or a user may have
//    removed one); a missing one is an IoError and nothing is published. Then it renames each
//    output onto its path in the order added. A rename is the only step that can still fail
//    (the directory made read-only, a directory made at the path meanwhile): then the outputs
//    before it are published (complete files of this run), that one and those after it are not
//    (their partial files removed, whatever stood at their paths untouched), and the IoError names
//    the output that failed and those already published. No rename can be undone atomically, so
//    this is the strongest promise a set of files on a POSIX file system allows without a lock
//    shared with the readers.
//  - Destroyed unpublished, every partial file (and its sidecars) is removed.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "io/store/atomic_output.h"

namespace terrazo {

class OutputSet {
 public:
  OutputSet() = default;
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;

  // The output of `path`, its partial file made now.
  AtomicOutput& add(const std::string& path, std::vector<std::string> sidecar_suffixes = {});
  // add(path) when `path` is not empty; nullptr otherwise (an output the run was not asked for).
  AtomicOutput* add_if(const std::string& path, std::vector<std::string> sidecar_suffixes = {});
  // The output added for `path`; nullptr when none was (or `path` is empty).
  AtomicOutput* find(const std::string& path) const;

  std::size_t size() const { return outputs_.size(); }
  bool published() const { return published_; }
  // Every output onto its path, in the order added (contract above).
  void publish();

 private:
  std::vector<std::unique_ptr<AtomicOutput>> outputs_;
  bool published_ = false;
};

}  // namespace terrazo
