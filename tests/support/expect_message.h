// tests/support/expect_message.h: an error message checked for every piece it must name (the value,
// the cell, the flag, the remedy), one expectation per piece.
#pragma once
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

namespace terrazo::testing {

// Expects `message` to hold each of `parts`; a failure names the missing part and prints the message.
inline void expect_mentions(const std::string& message, std::initializer_list<std::string> parts) {
  for (const std::string& part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << "no '" << part << "' in: " << message;
}

}  // namespace terrazo::testing
