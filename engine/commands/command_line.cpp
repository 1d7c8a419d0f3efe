// engine/commands/command_line.cpp: the option parser of engine/commands/command_line.h.
//
// Each accessor checks that the command declares its flag (flag_table.h), finds it among the
// arguments that are not yet used, marks the flag (and its value) used, and returns. Whatever is left
// when positionals() is called is either a positional (INPUT, OUTPUT) or an unknown flag. A lone "--" ends the flags:
// everything after it is positional, so a file named "-x.tif" can still be given.
#include "engine/commands/command_line.h"

#include <cstdarg>
#include <cstdio>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include "kernels/common/error.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {
namespace {

// "json" and "--json" name the same flag; "-q" stays as it is.
std::string normalize(const std::string& name) {
  if (!name.empty() && name[0] == '-') return name;
  return "--" + name;
}

bool is_help(const std::string& arg) { return arg == "-h" || arg == "--help"; }

// "--memory=1G" matches "--memory"; returns the position of '=' or npos.
bool matches(const std::string& arg, const std::string& flag, std::size_t* equals) {
  if (arg == flag) {
    *equals = std::string::npos;
    return true;
  }
  if (arg.size() > flag.size() && arg.compare(0, flag.size(), flag) == 0 && arg[flag.size()] == '=') {
    *equals = flag.size();
    return true;
  }
  return false;
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "'" : " '") + item + "'";
  return out;
}

}  // namespace

ArgParser::ArgParser(std::string command, std::vector<std::string> args)
    : command_(std::move(command)), flags_(command_flags(command_)), args_(std::move(args)), used_(args_.size(), false) {}

bool ArgParser::declares(const std::string& name) const {
  return !flags_ || find_flag(command_, normalize(name)) != nullptr;
}

const FlagSpec& ArgParser::declared(const std::string& flag_name, bool as_switch) const {
  static const FlagSpec any;
  if (!flags_) return any;
  const FlagSpec* spec = find_flag(command_, flag_name);
  if (!spec)
    throw std::logic_error("the parser of '" + command_ + "' reads " + flag_name +
                           ", which the flag table (engine/commands/command_flags.cpp) does not declare for it");
  if ((spec->type == FlagType::Switch) != as_switch)
    throw std::logic_error("the parser of '" + command_ + "' reads " + flag_name + (as_switch ? " as a switch" : " as a value") +
                           ", which the flag table declares otherwise");
  return *spec;
}

// Index of the "--" terminator, or args_.size().
static std::size_t flag_end(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i] == "--") return i;
  return args.size();
}

bool ArgParser::flag(const std::string& name) {
  const std::string flag_name = normalize(name);
  declared(flag_name, true);
  const std::size_t end = flag_end(args_);
  bool found = false;
  for (std::size_t i = 0; i < end; ++i) {
    std::size_t equals = 0;
    if (used_[i] || !matches(args_[i], flag_name, &equals)) continue;
    if (equals != std::string::npos)
      throw UsageError("flag " + flag_name + " takes no value (got '" + args_[i] + "')");
    used_[i] = true;
    found = true;
  }
  return found;
}

std::vector<std::string> ArgParser::values(const std::string& name) {
  const std::string flag_name = normalize(name);
  declared(flag_name, false);
  const std::size_t end = flag_end(args_);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < end; ++i) {
    std::size_t equals = 0;
    if (used_[i] || !matches(args_[i], flag_name, &equals)) continue;
    used_[i] = true;
    if (equals != std::string::npos) {
      out.push_back(args_[i].substr(equals + 1));
      continue;
    }
    // The value is the next argument; "--other" there means the value was forgotten
    // (a single leading '-' is allowed so negative numbers pass).
    if (i + 1 >= end || used_[i + 1] || args_[i + 1].compare(0, 2, "--") == 0)
      throw UsageError("flag " + flag_name + " needs a value, e.g. " + flag_name + " VALUE");
    used_[i + 1] = true;
    out.push_back(args_[i + 1]);
    ++i;
  }
  return out;
}

std::optional<std::string> ArgParser::value(const std::string& name) {
  auto all = values(name);
  if (all.empty()) return std::nullopt;
  return all.back();
}

std::optional<std::uint64_t> ArgParser::size_value(const std::string& name) {
  auto text = value(name);
  if (!text) return std::nullopt;
  try {
    return MemoryBudget::parse_size(*text);
  } catch (const UsageError& e) {
    throw UsageError(normalize(name) + ": " + e.what());
  }
}

std::optional<double> ArgParser::double_value(const std::string& name) {
  auto text = value(name);
  if (!text) return std::nullopt;
  return parse_finite_double(normalize(name), *text);
}

double parse_finite_double(const std::string& flag, const std::string& text) {
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  const double parsed = std::strtod(begin, &end);
  // ERANGE also flags underflow (1e-400 -> 0 or a denormal): only an overflow is refused.
  if (text.empty() || end != begin + text.size() || !std::isfinite(parsed))
    throw UsageError("invalid " + flag + " '" + text + "': expected a finite number, e.g. 0.5");
  return parsed;
}

std::optional<std::int64_t> ArgParser::int_value(const std::string& name) {
  auto text = value(name);
  if (!text) return std::nullopt;
  const char* begin = text->c_str();
  char* end = nullptr;
  errno = 0;
  const long long parsed = std::strtoll(begin, &end, 10);
  if (text->empty() || end != begin + text->size() || errno == ERANGE)
    throw UsageError("invalid " + normalize(name) + " '" + *text + "': expected a whole number");
  return static_cast<std::int64_t>(parsed);
}

std::vector<std::string> ArgParser::positionals(std::size_t min, std::size_t max, const std::string& what) {
  const std::size_t end = flag_end(args_);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args_.size(); ++i) {
    if (i == end) continue;  // the "--" itself
    if (i < end && used_[i]) continue;
    const std::string& arg = args_[i];
    if (i < end && arg.size() > 1 && arg[0] == '-') {
      const std::string name = arg.substr(0, arg.find('='));
      throw UsageError("unknown flag '" + name + "' for '" + command_ + "'");
    }
    out.push_back(arg);
    if (i < used_.size()) used_[i] = true;
  }
  if (out.size() < min) {
    if (out.empty())
      throw UsageError("missing " + what + " (expected " + std::to_string(min) +
                       (min == 1 ? " argument)" : " arguments)"));
    throw UsageError("expected " + what + ", got " + std::to_string(out.size()) + " argument" +
                     (out.size() == 1 ? "" : "s") + ": " + quoted_list(out));
  }
  if (out.size() > max)
    throw UsageError("too many arguments: expected " + what + ", got " + std::to_string(out.size()) + ": " +
                     quoted_list(out));
  return out;
}

bool ArgParser::help_requested() const {
  const std::size_t end = flag_end(args_);
  for (std::size_t i = 0; i < end; ++i)
    if (is_help(args_[i])) return true;
  return false;
}

RunSettings run_settings(const CommonOptions& common, const std::string& budget_remedy) {
  RunSettings settings;
  static_cast<RunResources&>(settings) = common;
  settings.budget_remedy = budget_remedy;
  return settings;
}

namespace {

unsigned parse_threads(const std::string& flag, std::int64_t threads) {
  if (threads < 0 || threads > 65536)
    throw UsageError("invalid " + flag + " '" + std::to_string(threads) +
                     "': expected 0 (all cores) or a positive number of threads");
  return static_cast<unsigned>(threads);
}

std::uint32_t parse_tile(const std::string& flag, std::int64_t t) {
  if (t < 16 || t > 4096 || (t & (t - 1)) != 0)
    throw UsageError("invalid " + flag + " '" + std::to_string(t) + "': expected a power of two from 16 to 4096, e.g. 256");
  return static_cast<std::uint32_t>(t);
}

std::string parse_tmpdir(const std::string& flag, const std::string& tmpdir) {
  std::error_code ec;
  if (tmpdir.empty() || !std::filesystem::is_directory(tmpdir, ec))
    throw UsageError("invalid " + flag + " '" + tmpdir + "': not an existing directory");
  return tmpdir;
}

}  // namespace

CommonOptions parse_common_options(ArgParser& args) {
  if (!args.declares("--memory") || !args.declares("--json") || !args.declares("--quiet"))
    throw std::logic_error("every command takes --memory, --json and -q; '" + args.command() + "' does not declare them");
  CommonOptions options;
  if (auto memory = args.size_value("--memory")) options.memory_bytes = *memory;
  auto taken = [&args](const char* flag) { return args.declares(flag); };
  if (taken("--gpu-memory"))
    if (auto gpu_memory = args.size_value("--gpu-memory")) options.gpu_memory_bytes = *gpu_memory;
  if (taken("--device"))
    if (auto device = args.value("--device")) options.device = parse_device_request(*device);
  if (taken("--threads"))
    if (auto threads = args.int_value("--threads")) options.threads = parse_threads("--threads", *threads);
  if (taken("--tile"))
    if (auto tile = args.int_value("--tile")) options.tile = parse_tile("--tile", *tile);
  if (taken("--tmpdir"))
    if (auto tmpdir = args.value("--tmpdir")) options.tmpdir = parse_tmpdir("--tmpdir", *tmpdir);
  options.json = args.flag("--json");
  const bool quiet_short = args.flag("-q");
  const bool quiet_long = args.flag("--quiet");
  options.quiet = quiet_short || quiet_long;
  return options;
}

std::uint32_t parse_band_option(ArgParser& args, const std::string& flag) {
  const auto text = args.value(flag);
  if (!text) return 0;
  std::uint32_t band = 0;
  bool digits = !text->empty() && text->size() <= 5;
  for (char c : *text) digits = digits && c >= '0' && c <= '9';
  if (digits) band = static_cast<std::uint32_t>(std::stoul(*text));
  if (!digits || band < 1 || band > 65535)
    throw UsageError("invalid " + flag + " '" + *text + "': expected a band number from 1 (the first band) to 65535");
  return band;
}

std::optional<double> parse_signed_double(ArgParser& args, const std::string& flag, Sign sign, const std::string& expected) {
  const auto text = args.value(flag);
  if (!text) return std::nullopt;
  const double value = parse_finite_double(flag, *text);
  if (sign == Sign::Positive ? !(value > 0) : !(value >= 0))
    throw UsageError("invalid " + flag + " '" + *text + "': expected " + expected);
  return value;
}

bool parse_qualifying_switch(ArgParser& args, const std::string& flag, bool given, const std::string& needs) {
  const bool set = args.flag(flag);
  if (set && !given) throw UsageError(flag + " applies to " + needs + " only");
  return set;
}

WeightModel parse_weight_model(const std::string& text) {
  for (WeightModel model :
       {WeightModel::Max, WeightModel::AbsDiff, WeightModel::Friction, WeightModel::Unit, WeightModel::Geometric})
    if (text == to_string(model)) return model;
  throw UsageError("invalid --weight '" + text + "': expected max, absdiff, friction, unit or geometric");
}

Connectivity parse_connectivity(const std::string& text) {
  if (text == "4") return Connectivity::Four;
  if (text == "8") return Connectivity::Eight;
  if (text == "16")
    throw UsageError("--connectivity 16 (knight's moves) is sssp's only; this command takes 4 or 8");
  throw UsageError("invalid --connectivity '" + text + "': expected 4 or 8");
}

std::string format_line(const char* f, ...) {
  char line[1024];
  va_list args;
  va_start(args, f);
  std::vsnprintf(line, sizeof line, f, args);
  va_end(args);
  return line;
}

}  // namespace terrazo
