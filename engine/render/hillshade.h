// engine/render/hillshade.h: analytical hillshading of a (decimated) elevation grid.
//
// Gradient by Horn's 3 x 3 weighted differences [Horn1981, eq. 4]; illumination as the cosine of
// the angle between the surface normal and the sun (azimuth 315 degrees, altitude 45 degrees)
// [Burrough1998, ch. 8]:
//   dz/dx = ((c + 2f + i) - (a + 2d + g)) / (8 dx),  dz/dy = ((g + 2h + i) - (a + 2b + c)) / (8 dy)
//   (a b c / d e f / g h i the 3 x 3 window, rows downwards), slope = atan(|grad z|),
//   aspect = atan2(dz/dy, -dz/dx), shade = cos(zen) cos(slope) + sin(zen) sin(slope) cos(az - aspect)
//   with zen = 45 degrees and az = 135 degrees (315 in compass terms, turned to math angles); clamped to [0, 1].
// A missing neighbour (outside the grid, or NaN) takes the centre's value; a NaN centre gives NaN.
#pragma once
#include <cstdint>
#include <vector>

namespace terrazo {

// `z`: w * h values, row-major; dx, dy: the spacing of the grid in the units of z (metres).
std::vector<float> hillshade(const std::vector<double>& z, std::uint32_t w, std::uint32_t h, double dx, double dy);

}  // namespace terrazo
