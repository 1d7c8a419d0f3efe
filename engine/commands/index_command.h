// engine/commands/index_command.h: `terrazo index` as a library entry point (docs/architecture.md "Commands"):
// options, the parser (the same for the CLI and the tests), the help text, the run function over
// run_index (engine/commands/index.h) and a result that prints itself.
#pragma once
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/command_result.h"
#include "engine/commands/index.h"
#include "kernels/common/progress.h"
#include "kernels/common/json_summary.h"

namespace terrazo {

TERRAZO_COMMAND(index, Index, IndexOptions, index, IndexResult, false);

// --weight, --scale, --connectivity and --distance of the commands over a boundary-graph index (index,
// od-matrix: command_flags.cpp's index_weight_flags) into `o` (IndexOptions, OdMatrixOptions).
template <class Options>
void parse_index_weight_options(ArgParser& args, Options& o) {
  if (auto weight = args.value("--weight")) o.weight = parse_weight_model(*weight);
  if (auto scale = parse_signed_double(args, "--scale", Sign::Positive, "a positive number, e.g. 1000")) o.scale = *scale;
  if (auto c = args.value("--connectivity")) o.connectivity = parse_connectivity(*c);
  if (auto distance = args.value("--distance")) o.distance = parse_distance_mode(*distance);
}

}  // namespace terrazo
