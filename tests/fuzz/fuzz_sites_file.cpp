// tests/fuzz/fuzz_sites_file.cpp: the sites and sources reader (engine/raster_inputs/sssp_sources.h
// read_source_points, shared by `od-matrix --sites-file` and `sssp --sources-file`) on any bytes,
// then the points located on a 1000 x 1000 georeferenced grid (locate_source_points, map coordinates).
// Byte 0 picks the form (low 2 bits), whether the per-source attribute fields are asked for (bit 2)
// and whether features without geometry are skipped (bit 3, --skip-empty-features). Forms: 0 a
// GeoJSON file, 1 a CSV file (GDAL's CSV driver with the x,y column names), 2 a shapefile whose
// next 4 bytes are the lengths of its .shp and .shx parts (16-bit little-endian each), the rest its
// .dbf, 3 a .json file (GDAL picks the driver that claims the bytes).
// Files live in /vsimem/ (no disk I/O).
#include <cpl_error.h>
#include <cpl_vsi.h>

#include <algorithm>

#include "engine/raster_inputs/sssp_sources.h"
#include "io/gdal/gdal_session.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

void put(const std::string& path, const std::uint8_t* data, std::size_t size) {
  VSILFILE* f = VSIFileFromMemBuffer(path.c_str(), const_cast<GByte*>(data), static_cast<vsi_l_offset>(size), FALSE);
  if (!f) std::abort();
  VSIFCloseL(f);
}

// The file to read: its path, the /vsimem/ files written (unlinked after the run).
std::string place(std::uint8_t form, const std::uint8_t* data, std::size_t size, std::vector<std::string>* files) {
  auto add = [&](const std::string& path, const std::uint8_t* bytes, std::size_t n) {
    put(path, bytes, n);
    files->push_back(path);
  };
  switch (form) {
    case 0: add("/vsimem/sites.geojson", data, size); return "/vsimem/sites.geojson";
    case 1: add("/vsimem/sites.csv", data, size); return "/vsimem/sites.csv";
    case 2: {
      const std::size_t shp = size >= 2 ? data[0] | (data[1] << 8) : 0, shx = size >= 4 ? data[2] | (data[3] << 8) : 0;
      const std::size_t at = std::min<std::size_t>(size, 4);
      const std::size_t a = std::min(shp, size - at), b = std::min(shx, size - at - a);
      add("/vsimem/sites.shp", data + at, a);
      add("/vsimem/sites.shx", data + at + a, b);
      add("/vsimem/sites.dbf", data + at + a + b, size - at - a - b);
      return "/vsimem/sites.shp";
    }
    default: add("/vsimem/sites.json", data, size); return "/vsimem/sites.json";
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace terrazo;
  if (size == 0) return 0;
  ensure_gdal();
  std::vector<std::string> files;
  const std::string path = place(data[0] & 3, data + 1, size - 1, &files);
  SourceFields fields;
  if (data[0] & 4) {
    fields.start = "start";
    fields.max_cost = "max";
    fields.multiplier = "multiplier";
  }
  fields.skip_empty_features = (data[0] & 8) != 0;
  RasterInfo grid;
  grid.width = grid.height = 1000;
  grid.has_geotransform = true;
  grid.geotransform = {0.0, 1.0, 0.0, 1000.0, 0.0, -1.0};
  CPLPushErrorHandler(CPLQuietErrorHandler);
  fuzz::accept_clear_errors([&] {
    std::string crs;
    const std::vector<SourcePoint> points = read_source_points(path, &crs, fields, "--sites-file");
    // A CRS of the file's own (GeoJSON's CRS84, a .prj) needs one on the grid: it has none here, so
    // such files end with a clear error; CRS-less ones are located.
    locate_source_points(points, grid, true, crs, 1, "--sites-file");
  });
  CPLPopErrorHandler();
  for (const std::string& f : files) VSIUnlink(f.c_str());
  return 0;
}
