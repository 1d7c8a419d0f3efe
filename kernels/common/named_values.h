// kernels/common/named_values.h: an option whose values are a few names (--outlets both|edge|nodata,
// --ot auto|UInt32|Float64): one table of names and values per option serves its parser and its
// printing, and every bad value gets the same message.
#pragma once
#include <cstddef>
#include <string>

#include "kernels/common/error.h"
#include "kernels/common/text_case.h"

namespace terrazo {

template <class Value>
struct NamedValue {
  const char* name;
  Value value;
};

// The value named `text` (ASCII case ignored when `any_case`); else UsageError "invalid FLAG 'TEXT':
// expected A, B or C".
template <class Value, std::size_t N>
Value parse_named_value(const char* flag, const std::string& text, const NamedValue<Value> (&names)[N],
                        bool any_case = false) {
  std::string expected;
  for (std::size_t i = 0; i < N; ++i) {
    if (any_case ? to_lower(text) == to_lower(names[i].name) : text == names[i].name) return names[i].value;
    expected += (i == 0 ? "" : i + 1 == N ? " or " : ", ") + std::string(names[i].name);
  }
  throw UsageError("invalid " + std::string(flag) + " '" + text + "': expected " + expected);
}

// The name of `value` in `names` ("" when it has none).
template <class Value, std::size_t N>
const char* value_name(Value value, const NamedValue<Value> (&names)[N]) {
  for (const NamedValue<Value>& named : names)
    if (named.value == value) return named.name;
  return "";
}

}  // namespace terrazo
