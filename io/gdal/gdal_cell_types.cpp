// io/gdal/gdal_cell_types.cpp: terrazo's cell types and GDAL's data types (io/gdal/gdal_cell_types.h).
#include "io/gdal/gdal_cell_types.h"

namespace terrazo {

bool cell_type_of(GDALDataType gdal, CellType* type) {
  switch (gdal) {
    case GDT_Byte: *type = CellType::UInt8; return true;
    case GDT_Int16: *type = CellType::Int16; return true;
    case GDT_UInt16: *type = CellType::UInt16; return true;
    case GDT_Int32: *type = CellType::Int32; return true;
    case GDT_UInt32: *type = CellType::UInt32; return true;
    case GDT_Float32: *type = CellType::Float32; return true;
    case GDT_Float64: *type = CellType::Float64; return true;
    default: return false;
  }
}

GDALDataType gdal_type_of(CellType type) {
  switch (type) {
    case CellType::UInt8: return GDT_Byte;
    case CellType::Int16: return GDT_Int16;
    case CellType::UInt16: return GDT_UInt16;
    case CellType::Int32: return GDT_Int32;
    case CellType::UInt32: return GDT_UInt32;
    case CellType::Float32: return GDT_Float32;
    case CellType::Float64: return GDT_Float64;
  }
  return GDT_Unknown;
}

}  // namespace terrazo
