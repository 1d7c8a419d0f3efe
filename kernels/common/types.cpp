#include "kernels/common/types.h"

#include "kernels/common/enum_names.h"

namespace terrazo {

namespace {
constexpr EnumName<WeightModel> kWeightModelNames[] = {
    {WeightModel::Max, "max"},   {WeightModel::AbsDiff, "absdiff"},     {WeightModel::Friction, "friction"},
    {WeightModel::Unit, "unit"}, {WeightModel::Geometric, "geometric"}, {WeightModel::Walk, "walk"},
    {WeightModel::Tobler, "tobler"}};
}  // namespace

const char* to_string(WeightModel model) { return name_of(kWeightModelNames, model); }

const char* to_string(Connectivity connectivity) {
  return connectivity == Connectivity::Four ? "4" : connectivity == Connectivity::Sixteen ? "16" : "8";
}

}  // namespace terrazo
