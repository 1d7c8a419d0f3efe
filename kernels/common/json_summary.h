// kernels/common/json_summary.h: the small JSON object writer behind every `--json` summary.
//
// With --json, a command prints exactly one JSON object as the LAST line of stdout (README.md
// "Commands"), so scripts can do `terrazo mst --json ... | tail -n 1 | jq .total_weight`.
//
//   JsonObject summary;
//   summary.add("command", "mst").add("edges", edge_count).add("seconds", 12.5);
//   JsonObject phases;
//   phases.add("block_local", 3.1).add("merge", 2.0);
//   summary.add("phases", phases);
//   print_json_line(summary);   // {"command":"mst","edges":42,"seconds":12.5,"phases":{...}}
//
// Keys keep insertion order; adding a key again replaces its value in place. Integers are written
// exactly (64-bit, signed or unsigned), doubles in the shortest form that reads back to the same
// double, NaN and infinities as null. Strings are escaped per RFC 8259 (UTF-8 passes through).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace terrazo {

class JsonObject {
 public:
  JsonObject& add(std::string_view key, bool value);
  JsonObject& add(std::string_view key, double value);
  JsonObject& add(std::string_view key, std::string_view value);
  JsonObject& add(std::string_view key, const char* value) { return add(key, std::string_view(value)); }
  JsonObject& add(std::string_view key, const std::string& value) { return add(key, std::string_view(value)); }
  JsonObject& add(std::string_view key, const JsonObject& value);
  // Any integer type (int, std::uint64_t, ...), written exactly.
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  JsonObject& add(std::string_view key, T value) {
    if constexpr (std::is_signed_v<T>) return add_encoded(key, std::to_string(static_cast<long long>(value)));
    else return add_encoded(key, std::to_string(static_cast<unsigned long long>(value)));
  }
  // Arrays of any of the above: std::vector<double>, std::vector<std::string>, std::vector<JsonObject>...
  template <class T>
  JsonObject& add(std::string_view key, const std::vector<T>& values) {
    std::string encoded = "[";
    for (std::size_t i = 0; i < values.size(); ++i) {
      JsonObject element;
      element.add("", values[i]);
      if (i) encoded += ',';
      encoded += element.entries_.front().second;
    }
    return add_encoded(key, encoded + "]");
  }
  JsonObject& add_null(std::string_view key) { return add_encoded(key, "null"); }

  bool empty() const { return entries_.empty(); }
  // The object on one line, no trailing newline.
  std::string str() const;

 private:
  JsonObject& add_encoded(std::string_view key, std::string encoded);
  std::vector<std::pair<std::string, std::string>> entries_;  // key, encoded value
};

// "\"text\"" with JSON escapes.
std::string json_quote(std::string_view text);
// Shortest round-trip form of a double ("0.1", "3", "1e+300"); "null" for NaN and infinities.
std::string json_number(double value);

// Writes object.str() and a newline to stdout and flushes: the last line of a --json run.
void print_json_line(const JsonObject& object);

}  // namespace terrazo
