#include "io/store/raster_info.h"

#include "kernels/common/enum_names.h"

namespace terrazo {

namespace {
constexpr EnumName<CellType> kCellTypeNames[] = {
    {CellType::UInt8, "Byte"},   {CellType::Int16, "Int16"},     {CellType::UInt16, "UInt16"}, {CellType::Int32, "Int32"},
    {CellType::UInt32, "UInt32"}, {CellType::Float32, "Float32"}, {CellType::Float64, "Float64"}};
}  // namespace

const char* to_string(CellType type) { return name_of(kCellTypeNames, type); }

std::uint32_t cell_type_size(CellType type) {
  switch (type) {
    case CellType::UInt8: return 1;
    case CellType::Int16:
    case CellType::UInt16: return 2;
    case CellType::Int32:
    case CellType::UInt32:
    case CellType::Float32: return 4;
    case CellType::Float64: return 8;
  }
  return 0;
}

bool cell_type_is_integer(CellType type) { return type != CellType::Float32 && type != CellType::Float64; }

}  // namespace terrazo
