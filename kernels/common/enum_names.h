// kernels/common/enum_names.h: an enum's values and their names in one table, read both ways: the
// name a value prints as (to_string, --json) and the value a flag's text names (the parsers).
//
//   constexpr EnumName<InputMode> kInputModeNames[] = {{InputMode::Auto, "auto"}, ...};
//   const char* to_string(InputMode mode) { return name_of(kInputModeNames, mode); }
//   InputMode parse_input_mode(const std::string& text) { return parse_named(kInputModeNames, "--input-mode", text); }
#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include "kernels/common/error.h"

namespace terrazo {

template <class Enum>
struct EnumName {
  Enum value;
  const char* name;
};

// The name of `value` in `names`; `unknown` when the table lacks it.
template <class Enum, std::size_t N>
const char* name_of(const EnumName<Enum> (&names)[N], Enum value, const char* unknown = "?") {
  for (const EnumName<Enum>& entry : names)
    if (entry.value == value) return entry.name;
  return unknown;
}

// The value named `text` (exactly) in `names`; std::nullopt when none is.
template <class Enum, std::size_t N>
std::optional<Enum> value_named(const EnumName<Enum> (&names)[N], const std::string& text) {
  for (const EnumName<Enum>& entry : names)
    if (text == entry.name) return entry.value;
  return std::nullopt;
}

// The value `flag`'s `text` names in `names`; UsageError "invalid FLAG 'TEXT': expected A, B or C"
// (the table's names in order) otherwise.
template <class Enum, std::size_t N>
Enum parse_named(const EnumName<Enum> (&names)[N], const std::string& flag, const std::string& text) {
  if (std::optional<Enum> value = value_named(names, text)) return *value;
  std::string expected;
  for (std::size_t i = 0; i < N; ++i) expected += std::string(i == 0 ? "" : i + 1 < N ? ", " : " or ") + names[i].name;
  throw UsageError("invalid " + flag + " '" + text + "': expected " + expected);
}

}  // namespace terrazo
