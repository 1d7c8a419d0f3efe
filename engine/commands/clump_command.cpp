// engine/commands/clump_command.cpp: parse_clump_options, clump_usage, run_clump_command (engine/commands/clump_command.h).
#include "engine/commands/clump_command.h"

#include <cstdio>

#include "engine/commands/output_options.h"
#include "engine/commands/output_paths.h"
#include "kernels/common/error.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

void parse_clump_by(const std::string& text, ClumpOptions* options) {
  options->by_given = true;
  if (text == "value") {
    options->by = ClumpBy::Value;
  } else if (text == "valid") {
    options->by = ClumpBy::Valid;
  } else if (text.rfind("range:", 0) == 0) {
    const std::string body = text.substr(6);
    const auto comma = body.find(',');
    if (comma == std::string::npos || body.find(',', comma + 1) != std::string::npos)
      throw UsageError("invalid --by '" + text + "': expected range:LO,HI, e.g. range:100,250");
    options->by = ClumpBy::Range;
    options->range_lo = parse_finite_double("--by", body.substr(0, comma));
    options->range_hi = parse_finite_double("--by", body.substr(comma + 1));
    if (!(options->range_lo <= options->range_hi))
      throw UsageError("invalid --by '" + text + "': LO is above HI");
  } else {
    throw UsageError("invalid --by '" + text + "': expected value, valid or range:LO,HI");
  }
}

namespace {

// clump's own flags: --by, --connectivity, --min-size, --min-size-action, --stats.
void parse_clump_flags(ArgParser& args, ClumpOptions& options) {
  if (auto by = args.value("--by")) parse_clump_by(*by, &options);
  if (auto connectivity = args.value("--connectivity")) options.connectivity = parse_connectivity(*connectivity);
  if (auto min_size = args.int_value("--min-size")) {
    if (*min_size < 1) throw UsageError("invalid --min-size " + std::to_string(*min_size) + ": expected a cell count of at least 1");
    options.min_size_given = true;
    options.min_size = static_cast<std::uint64_t>(*min_size);
  }
  if (auto action = args.value("--min-size-action")) {
    if (*action == "merge") options.min_size_action = ClumpSmallAction::Merge;
    else if (*action == "nodata") options.min_size_action = ClumpSmallAction::Nodata;
    else throw UsageError("invalid --min-size-action '" + *action + "': expected merge or nodata");
    if (!options.min_size_given) throw UsageError("--min-size-action needs --min-size N");
  }
  if (auto stats = args.value("--stats")) {
    if (stats->empty()) throw UsageError("--stats needs a file name (OUT.csv)");
    options.stats = *stats;
  }
}

}  // namespace

ClumpCommandOptions parse_clump_options(const std::vector<std::string>& arguments) {
  return parse_raster_command("clump", arguments, &ClumpCommandOptions::clump, "INPUT LABELS.tif", parse_clump_flags);
}

ClumpCommandResult run_clump_command(const ClumpCommandOptions& options, Progress& progress) {
  const ClumpOptions& o = options.clump;
  return run_ranked_entry_point<ClumpCommandResult>(options, progress, run_clump, o, "clump", {o.input},
                                                   {o.output, o.stats});
}

std::string ClumpCommandResult::summary() const {
  const ClumpResult& c = result;
  return format_line("clump: %llu regions over %llu cells (largest %llu cells)",
                     static_cast<unsigned long long>(c.regions), static_cast<unsigned long long>(c.cells_labelled),
                     static_cast<unsigned long long>(c.largest_region)) +
         run_line_tail(c.seconds.total, c.peak_rss_bytes);
}

std::string ClumpCommandResult::to_json() const {
  const ClumpResult& r = result;
  const ClumpOptions& o = options.clump;
  JsonObject phases;
  phases.add("import", r.seconds.import)
      .add("tile_labels", r.seconds.tile_labels)
      .add("tile_labels_solve", r.seconds.tile_labels_solve)
      .add("tile_labels_borders", r.seconds.tile_labels_borders)
      .add("tile_labels_table", r.seconds.tile_labels_table)
      .add("merge", r.seconds.merge)
      .add("relabel", r.seconds.relabel)
      .add("relabel_solve", r.seconds.relabel_solve)
      .add("relabel_number", r.seconds.relabel_number)
      .add("relabel_write", r.seconds.relabel_write)
      .add("device_setup", r.seconds.device_setup)
      .add("device_busy", r.seconds.device_busy)
      .add("finish", r.seconds.finish)
      .add("stats", r.seconds.stats)
      .add("sieve", r.seconds.sieve);
  JsonObject summary = json_head("clump", o.input, o.output);
  add_raster_keys(summary, r)
      .add("device", r.device)
      .add("stats", o.stats)
      .add("by", to_string(r.by));
  if (r.by == ClumpBy::Range) {
    JsonObject range;
    range.add("lo", o.range_lo).add("hi", o.range_hi);
    summary.add("range", range);
  }
  summary.add("connectivity", static_cast<int>(o.connectivity))
      .add("regions", r.regions)
      .add("cells_labelled", r.cells_labelled)
      .add("largest_region", r.largest_region)
      .add("border_regions", r.border_regions)
      .add("merged_border_regions", r.merged_border_regions)
      .add("external_merge", r.external_merge);
  if (o.min_size > 0) {
    JsonObject sieve;
    sieve.add("min_size", o.min_size)
        .add("action", to_string(o.min_size_action))
        .add("regions_before", r.regions_before_sieve)
        .add("small_regions", r.small_regions)
        .add("merged", r.small_merged)
        .add("isolated", r.small_isolated);
    summary.add("min_size", sieve);
  }
  summary
      .add("phases", phases)
      .add("seconds", r.seconds.total);
  add_pipeline_totals(summary, *this);
  if (!r.ranks.empty()) summary.add("ranks", ranks_json(r.ranks));
  return summary.str();
}

}  // namespace terrazo
