// engine/commands/flag_table.cpp: the shared flags and the usage lines (engine/commands/flag_table.h).
// The flags of each command are declared in command_flags.cpp.
#include "engine/commands/flag_table.h"

#include <map>
#include <mutex>

#include "kernels/common/error.h"

namespace terrazo {
namespace {

// The usage layout: the help starts in this column, lines are wrapped at this width.
constexpr std::size_t kHelpColumn = 24;
constexpr std::size_t kLineWidth = 106;

// The flags several commands take, one wording each; a command adds its note (shared_flag).
const std::map<std::string, FlagSpec>& shared_flags() {
  static const std::map<std::string, FlagSpec> flags = [] {
    std::map<std::string, FlagSpec> table;
    auto add = [&table](FlagSpec flag) { table[flag.name] = std::move(flag); };
    add(make_flag("--memory", FlagType::Size, "SIZE", "1G",
             "host memory budget, e.g. 512M or 4G; the run's peak stays within it (under\n"
             "mpirun: each rank's own budget)"));
    add(make_flag("--gpu-memory", FlagType::Size, "SIZE", "a quarter of the free memory", "device memory for the GPU work"));
    add(make_flag("--device", FlagType::Choice, "auto|cpu|cuda", "auto",
             "where the work runs (auto: the GPU when there is one and the build has CUDA)"));
    add(make_flag("--threads", FlagType::Integer, "N", "0", "CPU threads, 0 for all cores"));
    add(make_flag("--tile", FlagType::Integer, "N", "the store's, else 256", "tile edge, a power of two 16..4096"));
    add(make_flag("--tmpdir", FlagType::Path, "DIR", "$TMPDIR or /tmp", "scratch directory"));
    add(make_flag("--json", FlagType::Switch, "", "", "print a JSON summary as the last line of stdout"));
    FlagSpec quiet = make_flag("--quiet", FlagType::Switch, "", "", "no progress on stderr");
    quiet.alias = "-q";
    add(quiet);
    add(make_flag("--band", FlagType::Integer, "N", "",
             "read band N (1 = first) of an INPUT of several bands (required then)"));
    FlagSpec co = make_flag("--co", FlagType::Text, "KEY=VALUE", "",
                       "GTiff creation option over terrazo's defaults (repeatable, as GDAL's -co), e.g.\n"
                       "COMPRESS=DEFLATE (for readers without ZSTD), ZSTD_LEVEL=9, NUM_THREADS=4");
    co.repeatable = true;
    add(co);
    add(make_flag("--input-mode", FlagType::Choice, "auto|memory|direct|import", "auto",
             "how a non-store INPUT is read: auto the first that\n"
             "applies; memory reads it once into tiles in memory (when they take at\n"
             "most a quarter of --memory), direct reads a tiled GeoTIFF whose blocks tile\n"
             "the tiles in place, import converts it to a tile store in --tmpdir first"));
    add(make_flag("--connectivity", FlagType::Choice, "8|4", "8", "neighbours per cell"));
    return table;
  }();
  return flags;
}

// Appends `line` to `out` starting at `column` (the cursor is there), wrapped at kLineWidth: the
// continuation lines start at kHelpColumn plus the line's own leading spaces.
void append_wrapped(std::string& out, const std::string& line, std::size_t column) {
  const std::size_t indent = kHelpColumn + (line.find_first_not_of(' ') == std::string::npos ? 0 : line.find_first_not_of(' '));
  std::string rest = line;
  while (column + rest.size() > kLineWidth) {
    const std::size_t room = kLineWidth - column;
    std::size_t cut = rest.rfind(' ', room);
    if (cut == std::string::npos || cut == 0 || rest.find_first_not_of(' ') >= cut) break;
    out += rest.substr(0, cut) + "\n" + std::string(indent, ' ');
    rest = rest.substr(cut + 1);
    column = indent;
  }
  out += rest;
}

std::string synopsis(const FlagSpec& flag) {
  std::string text = flag.alias.size() == 2 ? flag.alias + ", " + flag.name : flag.name;
  if (!flag.value_name.empty()) text += " " + flag.value_name;
  return text;
}

// "  --memory SIZE         host memory budget, ... (default 1G)\n"
std::string usage_lines(const FlagSpec& flag) {
  std::vector<std::string> help = split_text(flag.help, '\n');
  // "(default 1G)", "(default: the store's, else 256)"
  const bool words = flag.default_text.find(' ') != std::string::npos;
  if (!flag.default_text.empty()) help.back() += (words ? " (default: " : " (default ") + flag.default_text + ")";
  std::string out = "  " + synopsis(flag);
  if (out.size() + 2 <= kHelpColumn) out += std::string(kHelpColumn - out.size(), ' ');
  else out += "  ";
  for (std::size_t i = 0; i < help.size(); ++i) {
    if (i > 0) out += "\n" + std::string(kHelpColumn, ' ');
    append_wrapped(out, help[i], i == 0 ? out.size() : kHelpColumn);  // out holds the first line only
  }
  return out + "\n";
}

}  // namespace

const char* to_string(FlagType type) {
  switch (type) {
    case FlagType::Switch: return "switch";
    case FlagType::Size: return "size";
    case FlagType::Integer: return "integer";
    case FlagType::Number: return "number";
    case FlagType::Text: return "text";
    case FlagType::Choice: return "choice";
    case FlagType::Path: return "path";
    case FlagType::Point: return "point";
  }
  return "text";
}

std::vector<std::string> FlagSpec::choices() const {
  if (type != FlagType::Choice) return {};
  return split_text(value_name, '|');
}

std::vector<std::string> split_text(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

FlagSpec make_flag(const char* name, FlagType type, const char* value_name, const char* default_text, const char* help) {
  return FlagSpec{name, "", type, value_name, default_text, help, false, ""};
}

FlagSpec shared_flag(const std::string& name, const std::string& note, const char* default_text) {
  const auto it = shared_flags().find(name);
  if (it == shared_flags().end()) throw std::logic_error("flag table: no shared flag " + name);
  FlagSpec flag = it->second;
  if (!note.empty()) flag.help += "; " + note;
  if (default_text) flag.default_text = default_text;
  return flag;
}

const FlagSpec* find_flag(const std::string& command, const std::string& name) {
  const std::vector<CommandFlag>* flags = command_flags(command);
  if (!flags) return nullptr;
  for (const CommandFlag& flag : *flags)
    if (flag.spec.name == name || (!flag.spec.alias.empty() && flag.spec.alias == name)) return &flag.spec;
  return nullptr;
}

std::string usage_with_flags(const std::string& command, const std::string& usage_template) {
  const std::vector<CommandFlag>* flags = command_flags(command);
  if (!flags) throw std::logic_error("flag table: no command " + command);
  const std::string marker = "{flags ";
  std::string out;
  for (const std::string& line : split_text(usage_template, '\n')) {
    if (line.compare(0, marker.size(), marker) != 0 || line.back() != '}') {
      out += line + "\n";
      continue;
    }
    const std::string section = line.substr(marker.size(), line.size() - marker.size() - 1);
    for (const CommandFlag& flag : *flags)
      if (flag.section == section) out += usage_lines(flag.spec);
  }
  out.pop_back();  // split_text gave the text after the template's last '\n' as a line
  return out;
}

const char* usage_text(const std::string& command, const char* usage_template) {
  static std::mutex mutex;
  static std::map<std::string, std::string> texts;  // a map's elements stay where they are
  const std::lock_guard<std::mutex> lock(mutex);
  const auto [text, made] = texts.try_emplace(command);
  if (made) text->second = usage_with_flags(command, usage_template);
  return text->second.c_str();
}

}  // namespace terrazo
