// engine/render/colormaps.h: the colours of `terrazo render` (docs/render.md "Colours").
//  - viridis, magma: the perceptually uniform maps of [Smith2015] (matplotlib's default maps, CC0),
//    as 256-entry tables of 8-bit RGB (each channel round(255 v) of the published floats). A value v
//    in [lo, hi] takes entry min(255, floor(256 (v - lo) / (hi - lo))) (entry 0 when hi == lo).
//  - terrain: a hypsometric ramp (green lowlands, yellow-tan, brown, white peaks), linear between
//    five stops, for DEMs under a hillshade.
//  - categorical: the 12 colours of ColorBrewer "Paired" [Harrower2003], for allocation zones and
//    clump labels; label L takes entry (7 L) mod 12, so consecutive labels (neighbours, usually)
//    never share a colour.
//  - directions: one hue per backlink direction 0..7 (E, SE, S, SW, W, NW, N, NE), 45 degrees apart.
#pragma once
#include <cstdint>

#include "engine/render/image.h"

namespace terrazo {

enum class ColourMap { Viridis, Magma };

extern const Rgb kViridis[256];
extern const Rgb kMagma[256];

// Entry index of v in [lo, hi] (clamped): see above.
int colour_map_index(double v, double lo, double hi);
Rgb colour_map(ColourMap map, int index);
Rgb terrain_colour(double t);  // t in [0, 1] (clamped)
Rgb categorical_colour(std::uint64_t label);
// 0..7 (E, SE, ..., NE); a knight's move 8..15 (sssp --connectivity 16) halfway between the colours
// of the two directions it lies between.
Rgb direction_colour(int direction);

// c scaled by `factor` (0..1), each channel rounded: the hillshade's darkening.
Rgb shade(Rgb c, double factor);

}  // namespace terrazo
