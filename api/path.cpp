// api/path.cpp: run_path (api/path.h).
#include "api/path.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <list>
#include <memory>
#include <unordered_map>

#include <gdal_priv.h>
#include <ogr_spatialref.h>
#include <ogrsf_frmts.h>

#include "api/output_paths.h"
#include "core/error.h"
#include "gdal/gdal_raster.h"
#include "gdal/gdal_session.h"
#include "kernels/common/tile_geometry.h"
#include "store/atomic_output.h"

namespace terrazo {

namespace {

constexpr std::uint32_t kWindow = 256;

// Backlink windows of kWindow x kWindow cells, LRU, as bytes (255 = none).
class BacklinkWindows {
 public:
  BacklinkWindows(RasterReader& reader, std::string path, std::uint64_t capacity_windows)
      : path_(std::move(path)), reader_(reader), capacity_(std::max<std::uint64_t>(1, capacity_windows)),
        buffer_(static_cast<std::size_t>(kWindow) * kWindow) {}

  std::uint8_t at(std::uint64_t x, std::uint64_t y) {
    const std::uint64_t wx = x / kWindow, wy = y / kWindow;
    const std::uint64_t key = wy * ((reader_.info().width + kWindow - 1) / kWindow) + wx;
    auto found = windows_.find(key);
    if (found == windows_.end()) {
      if (windows_.size() >= capacity_) {
        windows_.erase(lru_.back());
        lru_.pop_back();
      }
      const std::uint64_t x0 = wx * kWindow, y0 = wy * kWindow;
      const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(kWindow, reader_.info().width - x0));
      const auto h = static_cast<std::uint32_t>(std::min<std::uint64_t>(kWindow, reader_.info().height - y0));
      reader_.read_window(x0, y0, w, h, buffer_.data());
      ++reads_;
      Window window;
      window.width = w;
      window.cells.resize(static_cast<std::size_t>(w) * h);
      for (std::size_t i = 0; i < window.cells.size(); ++i) {
        // 0..7 a direction; 255 (the raster's nodata, read as NaN) none. Anything else is not a
        // backlink: taken as "none" it would end the walk as if at a source (api/path.h).
        const double v = buffer_[i];
        if (v != v || v == 255) {
          window.cells[i] = 255;
        } else if (v >= 0 && v <= 7 && v == std::floor(v)) {
          window.cells[i] = static_cast<std::uint8_t>(v);
        } else {
          throw Error("--backlink '" + path_ + "' holds " + number_text(v) + " at " + std::to_string(x0 + i % w) + "," +
                      std::to_string(y0 + i / w) + "; backlinks are 0..7 or 255: is it a backlink raster from terrazo sssp?");
        }
      }
      lru_.push_front(key);
      window.lru = lru_.begin();
      found = windows_.emplace(key, std::move(window)).first;
    } else {
      lru_.splice(lru_.begin(), lru_, found->second.lru);
    }
    const Window& window = found->second;
    return window.cells[static_cast<std::size_t>(y - wy * kWindow) * window.width + (x - wx * kWindow)];
  }
  std::uint64_t reads() const { return reads_; }

 private:
  struct Window {
    std::uint32_t width = 0;
    std::vector<std::uint8_t> cells;
    std::list<std::uint64_t>::iterator lru;
  };
  static std::string number_text(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
  }
  std::string path_;
  RasterReader& reader_;
  std::uint64_t capacity_;
  std::vector<double> buffer_;
  std::unordered_map<std::uint64_t, Window> windows_;
  std::list<std::uint64_t> lru_;
  std::uint64_t reads_ = 0;
};

void centre(const RasterInfo& info, std::uint64_t x, std::uint64_t y, double* mx, double* my) {
  const auto& g = info.geotransform;
  const double px = static_cast<double>(x) + 0.5, py = static_cast<double>(y) + 0.5;
  *mx = g[0] + px * g[1] + py * g[2];
  *my = g[3] + px * g[4] + py * g[5];
}

}  // namespace

PathResult run_path(const PathOptions& options, MemoryBudget& budget, Progress& progress) {
  const auto start = std::chrono::steady_clock::now();
  if (options.dests.empty()) throw UsageError("no destination: give --dest x,y (repeatable)");
  if (options.backlink.empty()) throw UsageError("--backlink FILE is required");
  if (options.cost.empty()) throw UsageError("--cost FILE is required");
  if (options.output.empty()) throw UsageError("OUTPUT (the GeoJSON file) is missing");
  check_distinct_paths({{"--backlink", options.backlink}, {"--cost", options.cost}},
                       {{"OUTPUT", options.output}, {"--mask", options.mask}});
  ensure_gdal();

  auto back = RasterReader::open(options.backlink);
  auto cost = RasterReader::open(options.cost);
  const RasterInfo info = back->info();
  if (cost->info().width != info.width || cost->info().height != info.height)
    throw UsageError("--cost '" + options.cost + "' is " + std::to_string(cost->info().width) + " x " +
                     std::to_string(cost->info().height) + " cells and --backlink '" + options.backlink + "' " +
                     std::to_string(info.width) + " x " + std::to_string(info.height) + "; give the pair one sssp run wrote");

  const std::uint64_t window_bytes = static_cast<std::uint64_t>(kWindow) * kWindow * 9 + 256;
  const std::uint64_t cache_bytes =
      options.cache_bytes ? options.cache_bytes : std::min<std::uint64_t>(budget.available() / 4, 64ull << 20);
  auto cache_reservation = budget.reserve(std::max(cache_bytes, window_bytes), "path backlink window cache");
  GdalCacheLimit gdal_cache(budget, 8ull << 20);
  BacklinkWindows windows(*back, options.backlink, cache_bytes / window_bytes);

  std::string crs;
  if (!options.dest_crs.empty()) crs = crs_to_wkt(options.dest_crs, "--dest-crs");
  std::vector<SourceCell> dests =
      locate_source_points(options.dests, info, options.map_coords || !options.dest_crs.empty(), crs, 1, "--dest");

  // The GeoJSON layer.
  AtomicOutput output(options.output);
  const std::string& partial = output.partial();
  GDALDriver* driver = GetGDALDriverManager()->GetDriverByName("GeoJSON");
  if (!driver) throw Error("GDAL has no GeoJSON driver");
  reset_gdal_error();
  std::unique_ptr<GDALDataset> dataset(driver->Create(partial.c_str(), 0, 0, 0, GDT_Unknown, nullptr));
  if (!dataset) throw gdal_failure("cannot create '" + partial + "'");
  std::unique_ptr<OGRSpatialReference> srs;
  if (!info.crs_wkt.empty()) {
    srs = std::make_unique<OGRSpatialReference>();
    srs->importFromWkt(info.crs_wkt.c_str());
    srs->SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
  }
  OGRLayer* layer = dataset->CreateLayer("paths", srs.get(), wkbLineString, nullptr);
  if (!layer) throw gdal_failure("cannot create a layer in '" + partial + "'");
  for (const auto& [name, type] : std::vector<std::pair<const char*, OGRFieldType>>{
           {"dest_id", OFTInteger64}, {"dest_x", OFTInteger64}, {"dest_y", OFTInteger64}, {"cost", OFTReal},
           {"length", OFTReal}, {"cells", OFTInteger64}}) {
    OGRFieldDefn field(name, type);
    if (layer->CreateField(&field) != OGRERR_NONE) throw gdal_failure("cannot create the field " + std::string(name));
  }

  PathResult result;
  std::vector<std::uint64_t> mask_cells;
  const std::uint64_t limit = info.width * info.height;
  progress.update("path", 0, dests.size());
  for (std::size_t k = 0; k < dests.size(); ++k) {
    const SourceCell& d = dests[k];
    TracedPath path;
    path.dest = d.text;
    path.x = d.cell % info.width;
    path.y = d.cell / info.width;
    double c = 0;
    cost->read_window(path.x, path.y, 1, 1, &c);
    if (c != c)
      throw UsageError(d.text + " is not reached by any source (the cost raster has nodata there)");
    path.cost = c;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> cells{{path.x, path.y}};
    std::uint64_t x = path.x, y = path.y;
    for (;;) {
      const std::uint8_t b = windows.at(x, y);
      if (b == 255) break;
      const std::int64_t nx = static_cast<std::int64_t>(x) + kDirDx[b], ny = static_cast<std::int64_t>(y) + kDirDy[b];
      if (nx < 0 || ny < 0 || nx >= static_cast<std::int64_t>(info.width) || ny >= static_cast<std::int64_t>(info.height))
        throw Error("--backlink '" + options.backlink + "' leads out of the raster at " + std::to_string(x) + "," +
                    std::to_string(y) + "; is it a backlink raster from terrazo sssp?");
      x = static_cast<std::uint64_t>(nx);
      y = static_cast<std::uint64_t>(ny);
      cells.push_back({x, y});
      if (cells.size() > limit)
        throw Error("--backlink '" + options.backlink + "' has a cycle through " + std::to_string(x) + "," +
                    std::to_string(y) + "; is it a backlink raster from terrazo sssp?");
    }
    path.source_x = x;
    path.source_y = y;
    path.cells = cells.size();
    std::reverse(cells.begin(), cells.end());  // source first
    OGRLineString line;
    line.setNumPoints(static_cast<int>(std::max<std::size_t>(2, cells.size())));
    double px = 0, py = 0;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      double mx, my;
      centre(info, cells[i].first, cells[i].second, &mx, &my);
      line.setPoint(static_cast<int>(i), mx, my);
      if (i > 0) path.length += std::hypot(mx - px, my - py);
      px = mx;
      py = my;
    }
    if (cells.size() == 1) line.setPoint(1, px, py);
    OGRFeature feature(layer->GetLayerDefn());
    feature.SetField("dest_id", static_cast<GIntBig>(k + 1));
    feature.SetField("dest_x", static_cast<GIntBig>(path.x));
    feature.SetField("dest_y", static_cast<GIntBig>(path.y));
    feature.SetField("cost", path.cost);
    feature.SetField("length", path.length);
    feature.SetField("cells", static_cast<GIntBig>(path.cells));
    feature.SetGeometry(&line);
    if (layer->CreateFeature(&feature) != OGRERR_NONE) throw gdal_failure("cannot write a path to '" + partial + "'");
    if (!options.mask.empty())
      for (const auto& [cx, cy] : cells) mask_cells.push_back(cy * info.width + cx);
    result.paths.push_back(path);
    progress.update("path", k + 1, dests.size());
  }
  reset_gdal_error();
  dataset.reset();  // closes and flushes
  if (gdal_failed()) throw gdal_failure("cannot finish writing '" + partial + "'");

  if (!options.mask.empty()) {
    // Block rows of the mask, each written once: the path cells sorted by cell id.
    std::sort(mask_cells.begin(), mask_cells.end());
    mask_cells.erase(std::unique(mask_cells.begin(), mask_cells.end()), mask_cells.end());
    const std::uint32_t rows = 256;
    auto strip_reservation = budget.reserve(info.width * rows, "path mask strip");
    std::vector<std::uint8_t> strip;
    GeoTiffWriter writer(options.mask, info.width, info.height, CellType::UInt8, info, false, 0.0, 256);
    std::size_t next = 0;
    for (std::uint64_t y0 = 0; y0 < info.height; y0 += rows) {
      const auto h = static_cast<std::uint32_t>(std::min<std::uint64_t>(rows, info.height - y0));
      // Strips as windows of at most 2^31 cells' width: GeoTiffWriter takes 32-bit window sizes.
      strip.assign(info.width * h, 0);
      while (next < mask_cells.size() && mask_cells[next] < (y0 + h) * info.width) {
        strip[mask_cells[next] - y0 * info.width] = 1;
        ++next;
      }
      for (std::uint64_t x0 = 0; x0 < info.width; x0 += 1u << 30) {
        const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(1u << 30, info.width - x0));
        if (x0 == 0 && w == info.width) {
          writer.write_window_u8(0, y0, w, h, strip.data());
        } else {
          std::vector<std::uint8_t> part(static_cast<std::size_t>(w) * h);
          for (std::uint32_t r = 0; r < h; ++r)
            std::copy_n(&strip[r * info.width + x0], w, &part[static_cast<std::size_t>(r) * w]);
          writer.write_window_u8(x0, y0, w, h, part.data());
        }
      }
    }
    writer.finish();
    result.bytes_written += writer.bytes_written();
  }
  // Published after the mask: a run that fails writing the mask publishes neither.
  output.publish();

  result.window_reads = windows.reads();
  result.bytes_read = back->bytes_read() + cost->bytes_read();
  FILE* f = std::fopen(options.output.c_str(), "rb");
  if (f) {
    std::fseek(f, 0, SEEK_END);
    result.bytes_written += static_cast<std::uint64_t>(std::ftell(f));
    std::fclose(f);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.peak_rss_bytes = peak_rss_bytes();
  return result;
}

}  // namespace terrazo
