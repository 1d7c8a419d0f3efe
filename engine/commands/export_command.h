// engine/commands/export_command.h: `terrazo export` as a library entry point (GDAL-utility style: docs/architecture.md
// "Commands"): an options struct, the parser of the command line (the same for the CLI and the tests),
// the help text, the run function (over run_export, engine/raster_inputs/raster_io.h) with the progress callback, and a result that prints itself.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/command_result.h"
#include "engine/raster_inputs/raster_io.h"
#include "kernels/common/progress.h"
#include "kernels/common/json_summary.h"

namespace terrazo {

// Checks the files (UsageError), then runs under a budget of --memory.
TERRAZO_COMMAND(export, Export, ExportOptions, export_, ExportResult, true);

}  // namespace terrazo
