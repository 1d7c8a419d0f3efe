// engine/commands/index_command.cpp: parse_index_options, index_usage, run_index_command (engine/commands/index_command.h).
#include "engine/commands/index_command.h"

#include "engine/commands/output_paths.h"
#include "kernels/common/error.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

IndexCommandOptions parse_index_options(const std::vector<std::string>& arguments) {
  ArgParser args("index", arguments);
  auto parsed = parse_common<IndexCommandOptions>(args);
  IndexOptions& o = parsed.index;
  parse_index_weight_options(args, o);
  if (auto leaf = args.int_value("--leaf")) {
    if (*leaf != 4 && *leaf != 8 && *leaf != 16) throw UsageError("invalid --leaf " + std::to_string(*leaf) + ": expected 4, 8 or 16");
    o.leaf = static_cast<std::uint32_t>(*leaf);
  }
  const std::vector<std::string> files = args.positionals(2, 2, "INPUT INDEX.tzi");
  o.input = files[0];
  o.output = files[1];
  const CommonOptions& common = parsed.common;
  if (common.tile != 0 && common.tile > 1024)
    throw UsageError("invalid --tile " + std::to_string(common.tile) + " for an index: expected a power of two from 16 to 1024");
  o.tile = common.tile;
  return parsed;
}

IndexCommandResult run_index_command(const IndexCommandOptions& options, Progress& progress) {
  check_run_files({options.index.input}, {options.index.output});
  return run_entry_point<IndexCommandResult>(options, progress, run_index, options.index);
}

std::string IndexCommandResult::summary() const {
  const IndexResult& r = result;
  return format_line("index: %llu x %llu cells, %llu tiles of %u (%llu with a boundary), %s (%.1f bytes per cell); "
                     "%.0f matrices/s",
                     static_cast<unsigned long long>(r.width), static_cast<unsigned long long>(r.height),
                     static_cast<unsigned long long>(r.tiles), r.tile, static_cast<unsigned long long>(r.present_tiles),
                     MemoryBudget::format_size(r.bytes).c_str(), r.bytes_per_cell, r.matrices_per_second) +
         run_line_tail(r.seconds_total, r.peak_rss_bytes);
}

std::string IndexCommandResult::to_json() const {
  const IndexResult& r = result;
  const IndexOptions& o = options.index;
  JsonObject phases;
  phases.add("import", r.seconds_import).add("read", r.seconds_read).add("matrices", r.seconds_matrices).add("write", r.seconds_write);
  JsonObject s = json_head("index", o.input, o.output);
  s.add("width", r.width)
      .add("height", r.height)
      .add("tile", r.tile)
      .add("leaf", r.leaf)
      .add("device", r.device)
      .add("weight", to_string(r.weights.params.model))
      .add("connectivity", static_cast<int>(o.connectivity))
      .add("distance", r.distance)
      .add("scale", r.weights.params.scale)
      .add("offset", r.weights.params.offset)
      .add("tiles", r.tiles)
      .add("present_tiles", r.present_tiles)
      .add("batch_tiles", r.batch_tiles)
      .add("bytes", r.bytes)
      .add("bytes_per_cell", r.bytes_per_cell)
      .add("matrices_per_second", r.matrices_per_second)
      .add("phases", phases)
      .add("kernel_ms", r.kernel_ms)
      .add("seconds", r.seconds_total)
      .add("fingerprint", r.fingerprint);
  add_run_totals(s, *this, {{"memory_peak_reserved_bytes", r.memory_peak_reserved},
                            {"peak_rss_bytes", r.peak_rss_bytes}});
  return s.str();
}

}  // namespace terrazo
