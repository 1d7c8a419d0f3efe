// engine/cost_models/walk_weights.h: the weight parameters of the directed models (sssp --model walk|tobler).
//
// Source: docs/cost_models.md "--model walk and tobler"; GRASS r.walk [GRASS-rwalk] and Tobler's
// hiking function [Tobler1993]; the fixed point of docs/weights.md.
// check_walk_params refuses (UsageError, exit 2) coefficients that make a weight negative, which
// Dijkstra cannot take: a < 0, b < 0, d > 0, slope_factor > 0, a + c x slope_factor < 0, lambda < 0, or
// any of them not finite. With the rest every walk weight is >= 0 (uphill a L + b dh; moderate downhill
// L (a + c s) >= L min(a, a + c sf); steep downhill L (a + d s) >= a L), and tobler's always is.
// choose_walk_weight_params reads every tile of the packed cells once and weighs every step inside a
// tile both ways (the E, SE, S, SW steps; also the unused ones with 4-connectivity), at scale 1: the
// largest weight L_w sets the default scale (the largest power of 10 with L_w x scale <= 2^30, the rule
// of docs/weights.md), the smallest w_min > 0 the relative bound 0.5 / (scale x w_min). A negative or
// non-finite friction and a weight that overflows at a given --scale are refused naming the cell.
// Steps across tile borders are not scanned: one steeper than every in-tile step by more than the
// headroom of 2^32 / 2^30 overflows in the solver instead (a runtime error naming --scale).
// The tiles are scanned on `threads` threads (0: one); the result, the cell named with the largest weight
// and the error on bad input (that of the first bad cell in tile, row, column order) are the serial
// scan's whatever the thread count.
// Memory: one tile of doubles per thread from `budget`.
#pragma once
#include "engine/cost_models/weight_params.h"
#include "engine/tile_inputs/tile_input.h"

namespace terrazo {

void check_walk_params(const WalkParams& walk);

WeightChoice choose_walk_weight_params(WeightModel model, const WalkParams& walk, double scale, const TileInput& cells,
                                       const StepLengths& steps, unsigned threads, MemoryBudget* budget);

}  // namespace terrazo
