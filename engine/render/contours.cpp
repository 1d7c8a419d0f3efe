// engine/render/contours.cpp: nice_interval, contour_mask (engine/render/contours.h).
#include "engine/render/contours.h"

#include <cmath>

namespace terrazo {

double nice_interval(double lo, double hi, unsigned count) {
  if (!(hi > lo) || count == 0) return 0.0;
  const double raw = (hi - lo) / count;
  double step = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * step >= raw) return m * step;
  return 10.0 * step;
}

std::vector<std::uint8_t> contour_mask(const std::vector<double>& v, std::uint32_t w, std::uint32_t h, double interval) {
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(w) * h, 0);
  if (!(interval > 0)) return mask;
  auto band = [interval](double value) { return std::floor(value / interval); };
  for (std::uint32_t y = 0; y < h; ++y)
    for (std::uint32_t x = 0; x < w; ++x) {
      const std::size_t k = static_cast<std::size_t>(y) * w + x;
      if (std::isnan(v[k])) continue;
      const double b = band(v[k]);
      if (x + 1 < w && !std::isnan(v[k + 1]) && band(v[k + 1]) != b) mask[k] = 1;
      if (y + 1 < h && !std::isnan(v[k + w]) && band(v[k + w]) != b) mask[k] = 1;
    }
  return mask;
}

}  // namespace terrazo
