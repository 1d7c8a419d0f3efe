#include "io/store/raster_info.h"

namespace terrazo {

const char* to_string(CellType type) {
  switch (type) {
    case CellType::UInt8: return "Byte";
    case CellType::Int16: return "Int16";
    case CellType::UInt16: return "UInt16";
    case CellType::Int32: return "Int32";
    case CellType::UInt32: return "UInt32";
    case CellType::Float32: return "Float32";
    case CellType::Float64: return "Float64";
  }
  return "?";
}

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
