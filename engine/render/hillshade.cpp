// engine/render/hillshade.cpp: hillshade (engine/render/hillshade.h).
#include "engine/render/hillshade.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace terrazo {

std::vector<float> hillshade(const std::vector<double>& z, std::uint32_t w, std::uint32_t h, double dx, double dy) {
  constexpr double kPi = 3.14159265358979323846;
  const double zenith = 45.0 * kPi / 180.0, azimuth = 135.0 * kPi / 180.0;
  std::vector<float> out(static_cast<std::size_t>(w) * h, std::numeric_limits<float>::quiet_NaN());
  for (std::uint32_t y = 0; y < h; ++y)
    for (std::uint32_t x = 0; x < w; ++x) {
      const double e = z[static_cast<std::size_t>(y) * w + x];
      if (std::isnan(e)) continue;
      auto at = [&](int ox, int oy) {
        const std::int64_t u = static_cast<std::int64_t>(x) + ox, v = static_cast<std::int64_t>(y) + oy;
        if (u < 0 || v < 0 || u >= w || v >= h) return e;
        const double value = z[static_cast<std::size_t>(v) * w + static_cast<std::size_t>(u)];
        return std::isnan(value) ? e : value;
      };
      const double a = at(-1, -1), b = at(0, -1), c = at(1, -1), d = at(-1, 0), f = at(1, 0), g = at(-1, 1),
                   hh = at(0, 1), i = at(1, 1);
      const double dzdx = ((c + 2 * f + i) - (a + 2 * d + g)) / (8 * dx);
      const double dzdy = ((g + 2 * hh + i) - (a + 2 * b + c)) / (8 * dy);
      const double slope = std::atan(std::sqrt(dzdx * dzdx + dzdy * dzdy));
      const double aspect = std::atan2(dzdy, -dzdx);
      const double s = std::cos(zenith) * std::cos(slope) + std::sin(zenith) * std::sin(slope) * std::cos(azimuth - aspect);
      out[static_cast<std::size_t>(y) * w + x] = static_cast<float>(std::clamp(s, 0.0, 1.0));
    }
  return out;
}

}  // namespace terrazo
