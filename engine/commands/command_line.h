// engine/commands/command_line.h: the option parser of the terrazo program, also used by the tests.
//
// GDAL-style flags: `--name value`, `--name=value`, boolean `--name`, repeatable flags, positional
// INPUT OUTPUT last. Parse, then validate in one place: every message names the flag and the bad
// value and throws UsageError (exit 2). The flags a command takes are those the flag table declares
// for it (flag_table.h): a parser reading another is a programming error (std::logic_error), a user
// giving another gets "unknown flag" (UsageError).
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/commands/flag_table.h"
#include "engine/run/run_context.h"
#include "kernels/common/device_choice.h"
#include "kernels/common/types.h"

namespace terrazo {

class ArgParser {
 public:
  // `command`: a name of the flag table, whose declarations the accessors are held to; any other
  // name (an ad-hoc parser) reads any flag.
  ArgParser(std::string command, std::vector<std::string> args);
  // Each accessor consumes its flag; all values of a flag given twice are returned by values().
  // Reading a flag the command does not declare, or a switch as a value (or the reverse), throws
  // std::logic_error.
  bool flag(const std::string& name);                                 // --json
  std::optional<std::string> value(const std::string& name);          // --memory 1G | --memory=1G (last wins)
  std::vector<std::string> values(const std::string& name);           // --source 1,2 --source 3,4
  // Parsed values; throw UsageError naming the flag on a malformed value.
  std::optional<std::uint64_t> size_value(const std::string& name);   // 512M, 2G
  std::optional<double> double_value(const std::string& name);
  std::optional<std::int64_t> int_value(const std::string& name);
  // Remaining arguments after all flags were consumed: any leftover --flag is "unknown flag";
  // fewer than `min` or more than `max` positionals is an error naming `what` ("INPUT OUTPUT").
  std::vector<std::string> positionals(std::size_t min, std::size_t max, const std::string& what);
  bool help_requested() const;  // -h / --help anywhere
  bool declares(const std::string& name) const;  // the command takes flag `name` (any, for an ad-hoc parser)
  const std::string& command() const { return command_; }

 private:
  const FlagSpec& declared(const std::string& flag_name, bool as_switch) const;

  std::string command_;
  const std::vector<CommandFlag>* flags_;  // the command's declarations; nullptr for an ad-hoc parser
  std::vector<std::string> args_;
  std::vector<bool> used_;
};

// The common flags (flag_table.cpp's shared ones); a command takes those its table lists: the run's
// resources (--memory, --gpu-memory, --device, --threads, --tmpdir) and these.
struct CommonOptions : RunResources {
  std::uint32_t tile = 0;                        // --tile (0: engine default), power of two 16..4096
  bool json = false;                             // --json
  bool quiet = false;                            // -q / --quiet
};
// Reads the common flags `args`'s command declares; the others keep their defaults.
CommonOptions parse_common_options(ArgParser& args);
// A command's options (<Name>CommandOptions) with the common flags of `args` read into `common`; the
// command then reads its own flags from `args`.
template <class CommandOptions>
CommandOptions parse_common(ArgParser& args) {
  CommandOptions parsed;
  parsed.common = parse_common_options(args);
  return parsed;
}
// The settings of the run context (engine/run/run_context.h) the common flags give; `budget_remedy`:
// how a budget error ends, in the flags of that command (MemoryBudget::kRaiseMemory without --tile).
RunSettings run_settings(const CommonOptions& common,
                         const std::string& budget_remedy = MemoryBudget::kRaiseMemoryOrLowerTile);

// --band N of the commands that read a GDAL raster (import, export, info, mst, sssp, clump): 0 when
// not given (a raster of several bands is then refused: RasterReader::open), else 1..65535.
// `flag`: another flag of the same form, e.g. sssp's --barrier-band.
std::uint32_t parse_band_option(ArgParser& args, const std::string& flag = "--band");

// `text`, the value of `flag`, as a finite double; UsageError echoing the text as typed otherwise
// (a value beyond the double range, e.g. 1e400, is not finite; 1e308 is).
double parse_finite_double(const std::string& flag, const std::string& text);

// The value of `flag`, when given, as a finite double >= 0 (`positive`: > 0); otherwise UsageError
// "invalid FLAG 'TEXT': expected EXPECTED", `expected` saying what, e.g. "a cost >= 0".
enum class Sign { NonNegative, Positive };
std::optional<double> parse_signed_double(ArgParser& args, const std::string& flag, Sign sign, const std::string& expected);

// The switch `flag`, which qualifies another flag (`needs`, e.g. "--index INDEX.tzi"; `given`: whether
// it was given); UsageError "FLAG applies to NEEDS only" when it is set without it.
bool parse_qualifying_switch(ArgParser& args, const std::string& flag, bool given, const std::string& needs);

// printf into a string, for the commands' summary lines (at most 1023 characters).
std::string format_line(const char* f, ...) __attribute__((format(printf, 1, 2)));

WeightModel parse_weight_model(const std::string& text);    // max|absdiff|friction|unit|geometric, UsageError otherwise
Connectivity parse_connectivity(const std::string& text);   // 4|8

}  // namespace terrazo
