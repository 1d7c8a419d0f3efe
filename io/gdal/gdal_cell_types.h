// io/gdal/gdal_cell_types.h: terrazo's cell types (io/store/raster_info.h) and GDAL's data types, both ways.
// One place for the mapping the GDAL reader and writer (io/gdal/gdal_raster.cpp) and the Python package's
// arrays (tools/python/native/raster_arrays.cpp) use.
#pragma once
#include <gdal.h>

#include "io/store/raster_info.h"

namespace terrazo {

// The cell type of a GDAL data type; false for the types terrazo does not read (complex, 64-bit
// integers, Int8, ...).
bool cell_type_of(GDALDataType gdal, CellType* type);

// The GDAL data type of a cell type.
GDALDataType gdal_type_of(CellType type);

}  // namespace terrazo
