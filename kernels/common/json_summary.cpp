// kernels/common/json_summary.cpp: JSON encoding for kernels/common/json_summary.h.
#include "kernels/common/json_summary.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace terrazo {

std::string json_quote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

JsonObject& JsonObject::add(std::string_view key, bool value) { return add_encoded(key, value ? "true" : "false"); }

JsonObject& JsonObject::add(std::string_view key, double value) { return add_encoded(key, json_number(value)); }

JsonObject& JsonObject::add(std::string_view key, std::string_view value) { return add_encoded(key, json_quote(value)); }

JsonObject& JsonObject::add(std::string_view key, const JsonObject& value) { return add_encoded(key, value.str()); }

JsonObject& JsonObject::add_encoded(std::string_view key, std::string encoded) {
  for (auto& entry : entries_) {
    if (entry.first == key) {
      entry.second = std::move(encoded);
      return *this;
    }
  }
  entries_.emplace_back(std::string(key), std::move(encoded));
  return *this;
}

std::string JsonObject::str() const {
  std::string out = "{";
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (i) out += ',';
    out += json_quote(entries_[i].first);
    out += ':';
    out += entries_[i].second;
  }
  out += '}';
  return out;
}

void print_json_line(const JsonObject& object) {
  const std::string line = object.str() + "\n";
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
}

}  // namespace terrazo
