// engine/commands/od_matrix_command.h: `terrazo od-matrix` as a library entry point (docs/architecture.md
// "Commands"): options, the parser (the same for the CLI and the tests), the help text, the run
// function over run_od_matrix (engine/commands/index.h), the CSV writer and a result that prints itself.
#pragma once
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/index.h"
#include "engine/commands/output_paths.h"
#include "kernels/common/progress.h"
#include "kernels/common/json_summary.h"

namespace terrazo {

struct OdMatrixCommandOptions {
  OdMatrixOptions od;
  CommonOptions common;
};

OdMatrixCommandOptions parse_od_matrix_options(const std::vector<std::string>& args);
const char* od_matrix_usage();

// The CSV text of a result: long form `from_id,to_id,cost` (a header line, K x K rows, the cost in
// cost units, empty where unreachable), or with `wide` a K x K table (`from_id,1,2,...`).
std::string od_matrix_csv(const OdMatrixResult& result, bool wide);
// --geojson: one straight LineString per pair i < j with a finite cost (site cell centres through the
// geotransform; the CRS as an EPSG URN when it has one), properties from_id, to_id, cost.
std::string od_matrix_geojson(const OdMatrixResult& result);

struct OdMatrixCommandResult {
  OdMatrixCommandOptions options;
  OdMatrixResult result;
  std::uint64_t memory_budget_bytes = 0;
  std::vector<JsonObject> memory_plan;  // the run's memory plan (engine/run/memory_plan.h), --json "memory_plan"
  std::string to_json() const;
  std::string summary() const;
  static constexpr bool kTextOnStdout = false, kQuietKeepsText = false;
};

// The input paths of od-matrix and network, named by their flags, for check_distinct_paths.
std::vector<NamedPath> od_matrix_input_paths(const OdMatrixOptions& options);

// Checks the files (an output on another output's or an input's path is a UsageError), makes the
// partial files of OUT.csv and --geojson, runs under a budget of --memory, then writes both and
// publishes them together (io/store/output_set.h).
OdMatrixCommandResult run_od_matrix_command(const OdMatrixCommandOptions& options, Progress& progress);

}  // namespace terrazo
