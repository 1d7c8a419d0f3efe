// engine/flow/retained_floods.cpp: RetainedFloods (engine/flow/retained_floods.h).
#include "engine/flow/retained_floods.h"

#include <cmath>

namespace terrazo {
namespace {

bool levels_are_floats(const std::vector<double>& level) {
  for (const double v : level)
    if (!std::isnan(v) && static_cast<double>(static_cast<float>(v)) != v) return false;
  return true;
}

template <class To, class From>
std::vector<To> narrowed(const std::vector<From>& values) {
  return std::vector<To>(values.begin(), values.end());
}

template <class From, class To>
void widen_into(const std::vector<From>& values, std::vector<To>& out) {
  out.assign(values.begin(), values.end());
}

}  // namespace

RetainedFloods::RetainedFloods(std::uint64_t tiles, std::uint32_t t, std::uint64_t cap_bytes)
    : t_(t), cap_(cap_bytes), tiles_(tiles) {}

bool RetainedFloods::keep(std::uint64_t tile, const TileFlood& flood) {
  const std::uint64_t cells = std::uint64_t{t_} * t_;
  const bool floats = levels_are_floats(flood.level);
  const bool short_labels = flood.labels <= 65536;
  const std::uint64_t bytes = cells * ((floats ? 4 : 8) + (short_labels ? 2 : 4)) + 64;
  if (used_ + bytes > cap_) return false;
  Kept& k = tiles_[tile];
  // A float holds every level exactly here, and NaN stays NaN (nodata).
  if (floats)
    k.level32 = narrowed<float>(flood.level);
  else
    k.level64 = flood.level;
  if (short_labels)
    k.label16 = narrowed<std::uint16_t>(flood.label);
  else
    k.label32 = flood.label;
  used_ += bytes;
  ++kept_tiles_;
  return true;
}

bool RetainedFloods::restore(std::uint64_t tile, TileFlood& flood) {
  Kept& k = tiles_[tile];
  if (k.level32.empty() && k.level64.empty()) return false;
  if (!k.level32.empty())
    widen_into(k.level32, flood.level);
  else
    flood.level.swap(k.level64);
  if (!k.label16.empty())
    widen_into(k.label16, flood.label);
  else
    flood.label.swap(k.label32);
  k = Kept{};
  return true;
}

}  // namespace terrazo
