// io/store/raster_info.h: what terrazo knows about a raster, whatever its container.
#pragma once
#include <array>
#include <cstdint>
#include <string>

namespace terrazo {

enum class CellType : std::uint32_t { UInt8 = 1, Int16 = 2, UInt16 = 3, Int32 = 4, UInt32 = 5, Float32 = 6, Float64 = 7 };

const char* to_string(CellType type);
std::uint32_t cell_type_size(CellType type);
bool cell_type_is_integer(CellType type);

struct RasterInfo {
  std::uint64_t width = 0, height = 0;
  CellType type = CellType::Float32;
  bool has_nodata = false;
  double nodata = 0.0;  // NaN allowed; NaN cells are nodata whether or not has_nodata is set
  bool has_geotransform = false;
  std::array<double, 6> geotransform{0, 1, 0, 0, 0, 1};  // GDAL order
  std::string crs_wkt;  // empty when none
  // Statistics computed from the data on import (never trusted from metadata):
  bool has_stats = false;
  double min = 0.0, max = 0.0;     // over valid cells
  std::uint64_t valid_cells = 0;   // cells that are not nodata

  std::uint64_t cells() const { return width * height; }
};

}  // namespace terrazo
