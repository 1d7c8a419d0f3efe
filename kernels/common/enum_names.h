// kernels/common/enum_names.h: an enum's values and their names in one table, read both ways: the
// name a value prints as (to_string, --json) and the value a flag's text names (the parsers).
//
//   constexpr EnumName<InputMode> kInputModeNames[] = {{InputMode::Auto, "auto"}, ...};
//   const char* to_string(InputMode mode) { return name_of(kInputModeNames, mode); }
//   if (auto mode = value_named(kInputModeNames, text)) return *mode;  // else the flag's UsageError
#pragma once
#include <cstddef>
#include <optional>
#include <string>

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

}  // namespace terrazo
