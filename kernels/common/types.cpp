#include "kernels/common/types.h"

namespace terrazo {

const char* to_string(WeightModel model) {
  switch (model) {
    case WeightModel::Max: return "max";
    case WeightModel::AbsDiff: return "absdiff";
    case WeightModel::Friction: return "friction";
    case WeightModel::Unit: return "unit";
    case WeightModel::Geometric: return "geometric";
    case WeightModel::Walk: return "walk";
    case WeightModel::Tobler: return "tobler";
  }
  return "?";
}

const char* to_string(Connectivity connectivity) {
  return connectivity == Connectivity::Four ? "4" : connectivity == Connectivity::Sixteen ? "16" : "8";
}

}  // namespace terrazo
