// io/gdal/geojson_lines.cpp: GeoJsonLines (io/gdal/geojson_lines.h).
#include "io/gdal/geojson_lines.h"

#include <cerrno>
#include <charconv>
#include <cstring>

#include "kernels/common/error.h"

namespace terrazo {

GeoJsonLines::GeoJsonLines(const std::string& path, const std::string& name, const std::string& collection,
                           const std::string& crs_urn)
    : name_(name) {
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) throw IoError("cannot create '" + name + "': " + std::strerror(errno));
  std::setvbuf(file_, nullptr, _IOFBF, 1 << 16);
  text("{\n\"type\": \"FeatureCollection\",\n\"name\": \"" + collection + "\",\n");
  if (!crs_urn.empty()) text("\"crs\": { \"type\": \"name\", \"properties\": { \"name\": \"" + crs_urn + "\" } },\n");
  text("\"features\": [\n");
}

GeoJsonLines::~GeoJsonLines() {
  if (file_) std::fclose(file_);
}

void GeoJsonLines::begin_feature(const std::vector<std::pair<const char*, std::string>>& properties) {
  text(features_++ ? ",\n" : "");
  text("{ \"type\": \"Feature\", \"properties\": { ");
  for (std::size_t i = 0; i < properties.size(); ++i)
    text(std::string(i ? ", " : "") + "\"" + properties[i].first + "\": " + properties[i].second);
  text(" }, \"geometry\": { \"type\": \"LineString\", \"coordinates\": [ ");
  points_ = 0;
}

void GeoJsonLines::point(double x, double y) {
  char line[80];
  char* p = line;
  if (points_++) *p++ = ',', *p++ = ' ';
  *p++ = '[', *p++ = ' ';
  p = std::to_chars(p, line + sizeof line, x).ptr;
  *p++ = ',', *p++ = ' ';
  p = std::to_chars(p, line + sizeof line, y).ptr;
  *p++ = ' ', *p++ = ']';
  write(line, static_cast<std::size_t>(p - line));
}

void GeoJsonLines::end_feature() { text(" ] } }"); }

void GeoJsonLines::finish() {
  text("\n]\n}\n");
  const bool failed = std::ferror(file_) != 0;
  const int closed = std::fclose(file_);
  file_ = nullptr;
  if (failed || closed != 0) throw IoError("cannot write '" + name_ + "': " + std::strerror(errno));
}

std::string GeoJsonLines::number(double v) {
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof text, v).ptr);
}

void GeoJsonLines::write(const char* data, std::size_t bytes) {
  if (std::fwrite(data, 1, bytes, file_) != bytes) throw IoError("cannot write '" + name_ + "': " + std::strerror(errno));
}

}  // namespace terrazo
