// kernels/common/text_case.h: ASCII upper and lower case of a string (option keys, codec names, file
// extensions), one definition for every file that compares them case-insensitively.
#pragma once
#include <cctype>
#include <string>

namespace terrazo {

inline std::string to_upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

inline std::string to_lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace terrazo
