// tests/support/path_support.h: the path run that follows an sssp run (test_path.cpp, test_walk.cpp,
// test_knight.cpp, test_cost_models.cpp).
#pragma once
#include "engine/commands/path.h"
#include "engine/commands/sssp.h"

namespace terrazo::testing {

// Path options that trace back through what sssp run `o` wrote: its --backlink and cost rasters.
inline PathOptions path_options_after(const SsspOptions& o) {
  PathOptions p;
  p.backlink = o.backlink;
  p.cost = o.output;
  return p;
}

}  // namespace terrazo::testing
