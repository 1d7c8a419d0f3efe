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

}  // namespace

RetainedFloods::RetainedFloods(std::uint32_t t, std::uint64_t cap_bytes) : t_(t), kept_(cap_bytes) {}

bool RetainedFloods::keep(std::uint64_t tile, const TileFlood& flood) {
  const std::uint64_t cells = std::uint64_t{t_} * t_;
  const bool floats = levels_are_floats(flood.level);
  const bool short_labels = flood.labels <= 65536;
  const std::uint64_t bytes = cells * ((floats ? 4 : 8) + (short_labels ? 2 : 4));
  return kept_.keep(tile, bytes, [&] {
    Compact c;
    // A float holds every level exactly here, and NaN stays NaN (nodata).
    if (floats)
      c.level32.assign(flood.level.begin(), flood.level.end());
    else
      c.level64 = flood.level;
    if (short_labels)
      c.label16.assign(flood.label.begin(), flood.label.end());
    else
      c.label32 = flood.label;
    return c;
  });
}

bool RetainedFloods::restore(std::uint64_t tile, TileFlood& flood) {
  std::optional<Compact> c = kept_.take(tile);
  if (!c) return false;
  if (!c->level32.empty())
    flood.level.assign(c->level32.begin(), c->level32.end());
  else
    flood.level.swap(c->level64);
  if (!c->label16.empty())
    flood.label.assign(c->label16.begin(), c->label16.end());
  else
    flood.label.swap(c->label32);
  return true;
}

}  // namespace terrazo
