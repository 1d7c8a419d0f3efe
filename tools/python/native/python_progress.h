// tools/python/native/python_progress.h: terrazo's Progress (kernels/common/progress.h) fed to a Python callable.
//
// The C++ run holds no GIL (the caller releases it); each progress event takes the GIL, checks for
// pending signals (PyErr_CheckSignals: Ctrl-C raises KeyboardInterrupt there) and calls
// `callback(phase, fraction)` when one was given. A Python exception in either, KeyboardInterrupt
// included, is kept and the event returns false: Progress::update throws terrazo::Cancelled, the
// run's RAII cleanup discards its partial outputs, and the binding raises the kept exception again
// (rethrow_if_failed). Events may come from any thread; the GIL serializes them.
#pragma once
#include <pybind11/pybind11.h>

#include <memory>

#include "kernels/common/progress.h"

namespace terrazo::python {

class PythonProgress {
 public:
  explicit PythonProgress(pybind11::object callback);  // None: signals only
  PythonProgress(const PythonProgress&) = delete;
  PythonProgress& operator=(const PythonProgress&) = delete;

  Progress& progress() { return progress_; }
  // With the GIL held: raises the Python exception that cancelled the run, if one did.
  void rethrow_if_failed();

 private:
  bool on_event(const ProgressEvent& event);  // called without the GIL

  pybind11::object callback_;
  std::unique_ptr<pybind11::error_already_set> error_;  // the first exception, GIL-guarded
  Progress progress_;
};

}  // namespace terrazo::python
