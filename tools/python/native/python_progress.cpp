// tools/python/native/python_progress.cpp: PythonProgress (python_progress.h).
#include "tools/python/native/python_progress.h"

#include <utility>

namespace py = pybind11;

namespace terrazo::python {

PythonProgress::PythonProgress(py::object callback)
    : callback_(std::move(callback)), progress_([this](const ProgressEvent& event) { return on_event(event); }) {}

bool PythonProgress::on_event(const ProgressEvent& event) {
  py::gil_scoped_acquire gil;
  if (error_) return false;  // already cancelled; later events (other threads) say so again
  try {
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (!callback_.is_none()) callback_(event.phase, event.fraction());
  } catch (py::error_already_set& e) {
    error_ = std::make_unique<py::error_already_set>(std::move(e));
    return false;
  }
  return true;
}

void PythonProgress::rethrow_if_failed() {
  if (!error_) return;
  py::error_already_set e = std::move(*error_);
  error_.reset();
  throw e;
}

}  // namespace terrazo::python
