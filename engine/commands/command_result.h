// engine/commands/command_result.h: what a command's run returns, and the run of its library entry
// point in a run context of the common flags (docs/architecture.md "Commands").
//
// TERRAZO_COMMAND declares a command's entry points; its <Name>CommandResult derives from CommandResult
// and prints itself: summary(), the text printed without --json, and to_json(), one line, the --json
// summary. run_<name>_command checks its files, then returns run_in_context<<Name>CommandResult>(
// options, settings, progress, run): the library entry point `run` in a RunContext, with the options,
// the budget and the memory plan.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/output_paths.h"
#include "engine/cost_models/weight_params.h"
#include "engine/run/communicator.h"
#include "engine/run/run_context.h"
#include "io/store/raster_info.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

// `TextOnStdout`: the summary goes to stdout (else stderr); `QuietKeepsText`: -q prints it anyway.
template <class Options, class Result, bool TextOnStdout = false, bool QuietKeepsText = false>
struct CommandResult {
  Options options;
  Result result;
  std::uint64_t memory_budget_bytes = 0;
  std::vector<JsonObject> memory_plan;  // the run's memory plan (engine/run/memory_plan.h), --json "memory_plan"
  static constexpr bool kTextOnStdout = TextOnStdout, kQuietKeepsText = QuietKeepsText;
};

// The entry points of `terrazo <name>` (`Name`: its type prefix), over the library entry point taking
// `Options` and returning `Result`:
//   <Name>CommandOptions          `Options member` and the common flags (`common`: --memory, --json, ...);
//   parse_<name>_options(args)    the parser of the command line after the command name (the same for the
//                                 CLI, Python and the tests): UsageError naming the flag and the value as
//                                 typed; reads no file;
//   <name>_usage()                the help text;
//   <Name>CommandResult           the result, printing itself (`stdout_text`: its text goes to stdout);
//   run_<name>_command(options, progress)  checks the files (UsageError), then runs.
#define TERRAZO_COMMAND(name, Name, Options, member, Result, stdout_text)                                     \
  struct Name##CommandOptions {                                                                           \
    Options member;                                                                                       \
    CommonOptions common;                                                                                 \
  };                                                                                                      \
  Name##CommandOptions parse_##name##_options(const std::vector<std::string>& args);                      \
  const char* name##_usage();                                                                             \
  struct Name##CommandResult : CommandResult<Name##CommandOptions, Result, stdout_text> {                  \
    std::string to_json() const;                                                                          \
    std::string summary() const;                                                                          \
  };                                                                                                      \
  Name##CommandResult run_##name##_command(const Name##CommandOptions& options, Progress& progress)

// `run(context)` in a RunContext of `settings`; its result with `options`, the budget and the memory plan.
template <class CommandResultType, class Options, class Run>
CommandResultType run_in_context(const Options& options, const RunSettings& settings, Progress& progress, Run run) {
  RunContext context(settings, progress);
  CommandResultType command;
  command.options = options;
  command.result = run(context);
  command.memory_budget_bytes = context.budget().total();
  command.memory_plan = context.plan().to_json();
  return command;
}

// run_in_context of the library entry point `run` on the command's own options `o` (options.<member>),
// `budget_remedy` as run_settings.
template <class CommandResultType, class CommandOptions, class Options, class Result>
CommandResultType run_entry_point(const CommandOptions& options, Progress& progress,
                                  Result (*run)(const Options&, RunContext&), const Options& o,
                                  const std::string& budget_remedy = MemoryBudget::kRaiseMemoryOrLowerTile) {
  return run_in_context<CommandResultType>(options, run_settings(options.common, budget_remedy), progress,
                                           [&](RunContext& context) { return run(o, context); });
}

// run_entry_point of a command that runs on MPI ranks: the files checked first (check_run_files),
// on every rank, a failure on any one every rank's (`command` names the stage in messages).
template <class CommandResultType, class CommandOptions, class Options, class Result>
CommandResultType run_ranked_entry_point(const CommandOptions& options, Progress& progress,
                                         Result (*run)(const Options&, RunContext&), const Options& o,
                                         const std::string& command, const std::vector<std::string>& inputs,
                                         const std::vector<std::string>& outputs) {
  return run_in_context<CommandResultType>(options, run_settings(options.common), progress, [&](RunContext& context) {
    agreed_stage(context.comm(), command + ": checking the files", [&] { check_run_files(inputs, outputs); });
    return run(o, context);
  });
}

// `run(budget)` under a plain budget (the commands without a memory plan: import, export, info).
template <class CommandResultType, class Options, class Run>
CommandResultType run_in_budget(const Options& options, MemoryBudget& budget, Run run) {
  CommandResultType command;
  command.options = options;
  command.result = run(budget);
  command.memory_budget_bytes = budget.total();
  return command;
}

// The keys a --json summary ends with: memory_budget_bytes, memory_plan, then `totals` in order
// (those of memory_peak_reserved_bytes, peak_rss_bytes, bytes_read, bytes_written the command has).
template <class Command>
JsonObject& add_run_totals(JsonObject& summary, const Command& command,
                           std::initializer_list<std::pair<const char*, std::uint64_t>> totals) {
  summary.add("memory_budget_bytes", command.memory_budget_bytes).add("memory_plan", command.memory_plan);
  for (const auto& [key, value] : totals) summary.add(key, value);
  return summary;
}

// add_run_totals with the four totals of a pipeline over a tiled raster (its Result's
// memory_peak_reserved, peak_rss_bytes, bytes_read, bytes_written).
template <class Command>
JsonObject& add_pipeline_totals(JsonObject& summary, const Command& command) {
  const auto& r = command.result;
  return add_run_totals(summary, command, {{"memory_peak_reserved_bytes", r.memory_peak_reserved},
                                           {"peak_rss_bytes", r.peak_rss_bytes}, {"bytes_read", r.bytes_read},
                                           {"bytes_written", r.bytes_written}});
}

// The keys of the raster a pipeline read: width, height, tile and input_read (PipelineInput::how()).
template <class Result>
JsonObject& add_raster_keys(JsonObject& summary, const Result& r) {
  return summary.add("width", r.width).add("height", r.height).add("tile", r.tile).add("input_read", r.input_read);
}

// The keys of a run's fixed-point weights (engine/cost_models/weight_params.h): scale, scale_given,
// step_error_bound, relative_error_bound, offset.
inline JsonObject& add_scale_keys(JsonObject& summary, const WeightParams& params, const WeightChoice& weights) {
  summary.add("scale", params.scale).add("scale_given", weights.scale_given);
  summary.add("step_error_bound", weights.step_error_bound).add("relative_error_bound", weights.relative_error_bound);
  return summary.add("offset", params.offset);
}

// The first keys of a command's --json: command, input, output.
inline JsonObject json_head(const char* command, const std::string& input, const std::string& output) {
  JsonObject summary;
  summary.add("command", command).add("input", input).add("output", output);
  return summary;
}

// "; S s, peak RSS SIZE": the end of a command's summary line (`seconds` to 0.1 s, the peak RSS as
// MemoryBudget::format_size writes it).
inline std::string run_line_tail(double seconds, std::uint64_t peak_rss_bytes) {
  return format_line("; %.1f s, peak RSS %s", seconds, MemoryBudget::format_size(peak_rss_bytes).c_str());
}

// The --json of a command copying one raster into another (import, export): `head` is command, input,
// output, the raster's width, height and cell type; `add_copy_totals` ends it with the bytes read,
// written and buffered, --memory, the seconds and the peak RSS.
inline JsonObject copy_json_head(const char* command, const std::string& input, const std::string& output,
                                 const RasterInfo& info) {
  JsonObject summary = json_head(command, input, output);
  summary.add("width", info.width).add("height", info.height).add("type", to_string(info.type));
  return summary;
}

template <class Command>
JsonObject& add_copy_totals(JsonObject& summary, const Command& command) {
  summary.add("bytes_read", command.result.bytes_read).add("bytes_written", command.result.bytes_written);
  summary.add("buffer_bytes", command.result.buffer_bytes).add("memory_bytes", command.options.common.memory_bytes);
  return summary.add("seconds", command.result.seconds).add("peak_rss_bytes", peak_rss_bytes());
}

}  // namespace terrazo
