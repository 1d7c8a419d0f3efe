// io/gdal/vector_lines.h: the line strings of an OGR vector file (the GeoJSON of `terrazo path`, or any
// file OGR reads), as lists of (x, y) vertices in the layer's CRS; MultiLineStrings are split into
// their parts; other geometries are skipped (counted).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace terrazo {

struct VectorLines {
  std::vector<std::vector<std::pair<double, double>>> lines;
  std::string crs_wkt;          // of the first layer; empty when none
  std::uint64_t skipped = 0;    // features that were not (multi)line strings
};

// Throws UsageError naming `flag` when the file cannot be opened as a vector file.
VectorLines read_vector_lines(const std::string& path, const std::string& flag);

}  // namespace terrazo
