// tests/support/test_support.h: helpers shared by the test suites.
#pragma once
#include "store/run_directory.h"

namespace terrazo::testing {

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it when destroyed: the
// engine's own scratch-directory class, so tests exercise the same clean-up the runs rely on.
using TempDir = RunDirectory;

}  // namespace terrazo::testing
