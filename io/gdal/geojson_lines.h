// io/gdal/geojson_lines.h: a GeoJSON FeatureCollection of LineStrings written as a stream, feature by
// feature and point by point (OGR's GeoJSON driver holds a whole feature, as JSON objects of ~100
// bytes a vertex, before it writes it: 10 GiB for a 16.7 M-cell path). The files of `terrazo path`
// and `terrazo watershed --streams-vector`; read back by io/gdal/vector_lines.h or any OGR reader.
//
// Contract. The file at `path` is made at construction: the collection `collection`, a "crs" member
// when `crs_urn` is not empty. begin_feature(properties) opens a feature with the properties in the
// order given (values as JSON text: number() for doubles), point() adds a vertex (shortest round-trip
// decimal, std::to_chars), end_feature() closes it; finish() closes the collection and the file.
// Every write error throws IoError naming `name` (the name the user knows the output by).
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace terrazo {

class GeoJsonLines {
 public:
  GeoJsonLines(const std::string& path, const std::string& name, const std::string& collection, const std::string& crs_urn);
  ~GeoJsonLines();
  GeoJsonLines(const GeoJsonLines&) = delete;
  GeoJsonLines& operator=(const GeoJsonLines&) = delete;

  void begin_feature(const std::vector<std::pair<const char*, std::string>>& properties);
  void point(double x, double y);
  void end_feature();
  void finish();
  static std::string number(double v);

 private:
  void text(const std::string& s) { write(s.data(), s.size()); }
  void write(const char* data, std::size_t bytes);

  std::string name_;
  std::FILE* file_ = nullptr;
  std::uint64_t features_ = 0, points_ = 0;
};

}  // namespace terrazo
