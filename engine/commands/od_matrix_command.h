// engine/commands/od_matrix_command.h: `terrazo od-matrix` as a library entry point (docs/architecture.md
// "Commands"): options, the parser (the same for the CLI and the tests), the help text, the run
// function over run_od_matrix (engine/commands/index.h), the CSV writer and a result that prints itself.
#pragma once
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/command_result.h"
#include "engine/commands/index.h"
#include "engine/commands/output_paths.h"
#include "kernels/common/progress.h"
#include "kernels/common/json_summary.h"

namespace terrazo {

// The CSV text of a result: long form `from_id,to_id,cost` (a header line, K x K rows, the cost in
// cost units, empty where unreachable), or with `wide` a K x K table (`from_id,1,2,...`).
std::string od_matrix_csv(const OdMatrixResult& result, bool wide);
// --geojson: one straight LineString per pair i < j with a finite cost (site cell centres through the
// geotransform; the CRS as an EPSG URN when it has one), properties from_id, to_id, cost.
std::string od_matrix_geojson(const OdMatrixResult& result);

// The input paths of od-matrix and network, named by their flags, for check_distinct_paths.
std::vector<NamedPath> od_matrix_input_paths(const OdMatrixOptions& options);

// Checks that INPUT, --index, --sites-file and --sites-raster (those given) are readable files (UsageError);
// returns their paths, for check_output_file.
std::vector<std::string> check_od_matrix_inputs(const OdMatrixOptions& options);

// Checks the files (an output on another output's or an input's path is a UsageError), makes the
// partial files of OUT.csv and --geojson, runs under a budget of --memory, then writes both and
// publishes them together (io/store/output_set.h).
TERRAZO_COMMAND(od_matrix, OdMatrix, OdMatrixOptions, od, OdMatrixResult, false);

}  // namespace terrazo
