// kernels/flow/fill_rules.h: what a depression fill's outlets and neighbourhood are (docs/fill.md
// "Outlets and neighbours"), declared once for every level that takes them: the tile flood (tile_flood.h), the
// resident solvers (resident_fill.h, whose steps read it on the device) and the tile phases
// (engine/flow/fill_phases.h).
#pragma once
#include "kernels/common/types.h"

namespace terrazo {

struct FillRules {
  Connectivity connectivity = Connectivity::Eight;  // Eight or Four
  bool edge_outlets = true;    // the raster's edge cells are outlets
  bool nodata_outlets = true;  // cells beside nodata are outlets
};

}  // namespace terrazo
