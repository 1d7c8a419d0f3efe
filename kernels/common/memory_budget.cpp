#include "kernels/common/memory_budget.h"

#include <malloc.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "kernels/common/error.h"

namespace terrazo {

MemoryBudget::MemoryBudget(std::uint64_t total_bytes, std::string remedy)
    : total_(total_bytes), remedy_(std::move(remedy)) {}

MemoryBudget::Reservation::Reservation(Reservation&& other) noexcept
    : budget_(other.budget_), what_(std::move(other.what_)), bytes_(other.bytes_) {
  other.budget_ = nullptr;
  other.bytes_ = 0;
}

MemoryBudget::Reservation& MemoryBudget::Reservation::operator=(Reservation&& other) noexcept {
  if (this != &other) {
    release();
    budget_ = other.budget_;
    what_ = std::move(other.what_);
    bytes_ = other.bytes_;
    other.budget_ = nullptr;
    other.bytes_ = 0;
  }
  return *this;
}

MemoryBudget::Reservation::~Reservation() { release(); }

void MemoryBudget::Reservation::release() {
  if (budget_) budget_->give_back(what_, bytes_);
  budget_ = nullptr;
  bytes_ = 0;
}

MemoryBudget::Reservation MemoryBudget::reserve(std::uint64_t bytes, std::string_view what) {
  return reserve(bytes, what, remedy_);
}

MemoryBudget::Reservation MemoryBudget::reserve(std::uint64_t bytes, std::string_view what, std::string_view remedy) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (bytes > total_ - reserved_) {
    throw BudgetError("memory budget too small: " + std::string(what) + " needs " + format_size(bytes) +
                " but only " + format_size(total_ - reserved_) + " of --memory " + format_size(total_) +
                " is left; " + std::string(remedy));
  }
  reserved_ += bytes;
  if (reserved_ > peak_) peak_ = reserved_;
  holders_[std::string(what)] += bytes;
  return Reservation(this, std::string(what), bytes);
}

MemoryBudget::Reservation MemoryBudget::reserve_up_to(std::uint64_t bytes, std::uint64_t minimum,
                                                      std::string_view what) {
  std::uint64_t take;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::uint64_t left = total_ - reserved_;
    take = bytes < left ? bytes : left;
  }
  if (take < minimum) take = minimum;
  return reserve(take, what);
}

void MemoryBudget::give_back(const std::string& what, std::uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  reserved_ -= bytes;
  auto it = holders_.find(what);
  if (it != holders_.end()) {
    it->second -= bytes;
    if (it->second == 0) holders_.erase(it);
  }
}

std::uint64_t MemoryBudget::reserved() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reserved_;
}

std::uint64_t MemoryBudget::available() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return total_ - reserved_;
}

std::uint64_t MemoryBudget::peak_reserved() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return peak_;
}

std::string MemoryBudget::describe() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::ostringstream out;
  bool first = true;
  for (const auto& [what, bytes] : holders_) {
    out << (first ? "" : ", ") << what << ' ' << format_size(bytes);
    first = false;
  }
  if (first) out << "nothing reserved";
  out << " (of " << format_size(total_) << ")";
  return out.str();
}

std::uint64_t MemoryBudget::parse_size(std::string_view text) {
  const std::string original(text);
  std::string s;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) s += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (s.size() >= 2 && s.compare(s.size() - 2, 2, "IB") == 0) s.erase(s.size() - 2);  // 2GiB -> 2G
  else if (!s.empty() && s.back() == 'B') s.pop_back();                                  // 2GB -> 2G, 512B -> 512
  double multiplier = 1;
  if (!s.empty()) {
    switch (s.back()) {
      case 'K': multiplier = 1024.0; break;
      case 'M': multiplier = 1024.0 * 1024; break;
      case 'G': multiplier = 1024.0 * 1024 * 1024; break;
      case 'T': multiplier = 1024.0 * 1024 * 1024 * 1024; break;
      default: break;
    }
    if (multiplier != 1) s.pop_back();
  }
  std::size_t used = 0;
  double value = -1;
  try {
    value = std::stod(s, &used);
  } catch (...) {
    used = 0;
  }
  if (s.empty() || used != s.size() || !(value > 0) || !std::isfinite(value) || value * multiplier >= 1.8e19)
    throw UsageError("invalid size '" + original + "': expected a positive number with an optional K, M, G or T suffix, e.g. 512M or 2G");
  const auto bytes = static_cast<std::uint64_t>(value * multiplier);
  if (bytes == 0) throw UsageError("invalid size '" + original + "': must be at least 1 byte");
  return bytes;
}

std::string MemoryBudget::format_size(std::uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char buffer[32];
  if (unit == 0) std::snprintf(buffer, sizeof buffer, "%llu B", static_cast<unsigned long long>(bytes));
  else std::snprintf(buffer, sizeof buffer, "%.1f %s", value, units[unit]);
  return buffer;
}

static std::uint64_t read_status_kib(const char* key) {
  std::ifstream status("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(key) + ":";
  while (std::getline(status, line)) {
    if (line.compare(0, prefix.size(), prefix) == 0) {
      return std::stoull(line.substr(prefix.size())) * 1024ull;
    }
  }
  return 0;
}

std::uint64_t peak_rss_bytes() { return read_status_kib("VmHWM"); }
std::uint64_t current_rss_bytes() { return read_status_kib("VmRSS"); }

void return_freed_memory() { malloc_trim(0); }

}  // namespace terrazo
