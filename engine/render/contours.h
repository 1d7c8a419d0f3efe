// engine/render/contours.h: contour lines of a grid as a pixel mask.
//
// Levels are the multiples of `interval`; a valid cell is on a contour when its right or lower valid
// neighbour lies in another band floor(v / interval) (so each crossing marks the cell on its upper-left
// side, one pixel wide). nice_interval() picks 1, 2 or 5 x 10^k, the smallest such step that gives at
// most `count` levels over [lo, hi].
#pragma once
#include <cstdint>
#include <vector>

namespace terrazo {

double nice_interval(double lo, double hi, unsigned count);
std::vector<std::uint8_t> contour_mask(const std::vector<double>& v, std::uint32_t w, std::uint32_t h, double interval);

}  // namespace terrazo
