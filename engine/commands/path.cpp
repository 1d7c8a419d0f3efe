// engine/commands/path.cpp: run_path (engine/commands/path.h).
#include "engine/commands/path.h"
#include "engine/cost_models/step_lengths.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <list>
#include <memory>
#include <unordered_map>

#include <gdal_priv.h>
#include <ogr_spatialref.h>
#include <ogrsf_frmts.h>

#include "engine/commands/output_paths.h"
#include "kernels/common/error.h"
#include "io/gdal/gdal_raster.h"
#include "io/gdal/geojson_lines.h"
#include "io/gdal/gdal_session.h"
#include "kernels/common/tile_geometry.h"
#include "kernels/sssp/knight.h"
#include "io/store/atomic_output.h"
#include "io/store/output_set.h"
#include "io/store/external_sorter.h"
#include "io/store/posix_file.h"
#include "io/store/run_directory.h"

namespace terrazo {

namespace {

constexpr std::uint32_t kWindow = 256;
constexpr std::uint64_t kStepBuffer = 1ull << 20;  // one walk's steps in memory before they spill

// Backlink windows of kWindow x kWindow cells, LRU, as bytes (255 = none).
class BacklinkWindows {
 public:
  BacklinkWindows(RasterReader& reader, std::string path, std::uint64_t capacity_windows)
      : path_(std::move(path)), reader_(reader), capacity_(std::max<std::uint64_t>(1, capacity_windows)),
        // The largest window there is: a small raster's whole, not kWindow^2 cells zeroed per run.
        buffer_(static_cast<std::size_t>(std::min<std::uint64_t>(kWindow, reader.info().width) *
                                         std::min<std::uint64_t>(kWindow, reader.info().height))) {}

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
        // 0..7 a direction, 8..15 a knight's move (sssp --connectivity 16, kernels/sssp/knight.h);
        // 255 (the raster's nodata, read as NaN) none. Anything else is not a backlink: taken as
        // "none" it would end the walk as if at a source (engine/commands/path.h).
        const double v = buffer_[i];
        if (v != v || v == 255) {
          window.cells[i] = 255;
        } else if (v >= 0 && v <= 15 && v == std::floor(v)) {
          window.cells[i] = static_cast<std::uint8_t>(v);
        } else {
          throw Error("--backlink '" + path_ + "' holds " + number_text(v) + " at " + std::to_string(x0 + i % w) + "," +
                      std::to_string(y0 + i / w) + "; backlinks are 0..15 or 255: is it a backlink raster from terrazo sssp?");
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

// The steps of one walk (one backlink direction byte each, destination to source), in a buffer of
// `buffer_bytes` that spills to `spill_path` when full; replayed from the end (source first) as
// often as asked. Memory: the buffer alone, whatever the path's length.
class StepLog {
 public:
  StepLog(std::string spill_path, std::uint64_t buffer_bytes)
      : spill_path_(std::move(spill_path)), buffer_(static_cast<std::size_t>(buffer_bytes)) {}

  void clear() {
    used_ = 0;
    spilled_ = 0;
  }
  void push(std::uint8_t direction) {
    if (used_ == buffer_.size()) flush();
    buffer_[used_++] = direction;
  }
  std::uint64_t size() const { return spilled_ + used_; }
  std::uint64_t bytes_spilled() const { return bytes_spilled_; }
  // After the last push: the whole walk on disk when any of it is.
  void finish() {
    if (spilled_ > 0 && used_ > 0) flush();
  }
  // Calls visit(direction) for every step, last pushed first.
  template <class Visit>
  void replay_backwards(Visit&& visit) {
    if (spilled_ == 0) {
      for (std::size_t i = used_; i-- > 0;) visit(buffer_[i]);
      return;
    }
    std::uint64_t end = spilled_;
    while (end > 0) {
      const std::uint64_t begin = end > buffer_.size() ? end - buffer_.size() : 0;
      file_.read_exact(buffer_.data(), end - begin, begin);
      for (std::size_t i = static_cast<std::size_t>(end - begin); i-- > 0;) visit(buffer_[i]);
      end = begin;
    }
  }

 private:
  void flush() {
    if (!file_.is_open()) file_ = PosixFile(spill_path_, PosixFile::Mode::CreateReadWrite);
    file_.write_all(buffer_.data(), used_, spilled_);
    spilled_ += used_;
    bytes_spilled_ += used_;
    used_ = 0;
  }
  std::string spill_path_;
  std::vector<std::uint8_t> buffer_;
  std::size_t used_ = 0;
  std::uint64_t spilled_ = 0, bytes_spilled_ = 0;
  PosixFile file_;
};

}  // namespace

// "urn:ogc:def:crs:EPSG::<code>" when the CRS has an EPSG code (what OGR's GeoJSON driver writes), else "".
std::string crs_urn(const std::string& wkt) {
  if (wkt.empty()) return "";
  OGRSpatialReference srs;
  if (srs.importFromWkt(wkt.c_str()) != OGRERR_NONE) return "";
  srs.AutoIdentifyEPSG();
  const char* authority = srs.GetAuthorityName(nullptr);
  const char* code = srs.GetAuthorityCode(nullptr);
  if (!authority || !code || std::string(authority) != "EPSG") return "";
  return std::string("urn:ogc:def:crs:EPSG::") + code;
}

namespace {

// The flags a walk needs, and distinct input and output paths.
void check_path_options(const PathOptions& options) {
  if (options.dests.empty()) throw UsageError("no destination: give --dest x,y (repeatable)");
  if (options.backlink.empty()) throw UsageError("--backlink FILE is required");
  if (options.cost.empty()) throw UsageError("--cost FILE is required");
  if (options.output.empty()) throw UsageError("OUTPUT (the GeoJSON file) is missing");
  check_distinct_paths({{"--backlink", options.backlink}, {"--cost", options.cost}},
                       {{"OUTPUT", options.output}, {"--mask", options.mask}});
}

// What the walks share: the backlink windows, the cost raster, the step log of the current walk,
// the mask's cells (--mask; null: none), the geodesic of a geographic CRS (null: map units).
struct Walker {
  const PathOptions& options;
  const RasterInfo& info;
  RasterReader& cost;
  BacklinkWindows& windows;
  StepLog& steps;
  ExternalSorter* mask_cells;
  const GeodesicLine* geodesic;
};

// Walks the backlinks from destination `d` to its source, its steps into the step log (and its
// cells into the mask's sorter). Cycles in O(1) memory (Brent's cycle detection [Brent1980]):
// `saved` is the cell after 1, 2, 4, 8, ... steps; a walk that comes back to it is a cycle, found
// within mu + 2 lambda steps. The step count bound (the raster's cells) is a backstop.
TracedPath walk_to_source(const Walker& w, const SourceCell& d, std::size_t k, std::size_t count, Progress& progress) {
  const RasterInfo& info = w.info;
  TracedPath path;
  path.dest = d.text;
  path.x = d.cell % info.width;
  path.y = d.cell / info.width;
  double c = 0;
  w.cost.read_window(path.x, path.y, 1, 1, &c);
  if (c != c)
    throw UsageError(d.text + " is not reached by any source (the cost raster has nodata there)");
  path.cost = c;
  const std::uint64_t limit = info.width * info.height;
  w.steps.clear();
  std::uint64_t x = path.x, y = path.y;
  std::uint64_t saved_x = x, saved_y = y, power = 1, since_saved = 0;
  if (w.mask_cells) w.mask_cells->push({y * info.width + x, 0});
  for (;;) {
    const std::uint8_t b = w.windows.at(x, y);
    if (b == 255) break;
    const std::int64_t nx = static_cast<std::int64_t>(x) + kStepDx[b], ny = static_cast<std::int64_t>(y) + kStepDy[b];
    if (nx < 0 || ny < 0 || nx >= static_cast<std::int64_t>(info.width) || ny >= static_cast<std::int64_t>(info.height))
      throw Error("--backlink '" + w.options.backlink + "' leads out of the raster at " + std::to_string(x) + "," +
                  std::to_string(y) + "; is it a backlink raster from terrazo sssp?");
    x = static_cast<std::uint64_t>(nx);
    y = static_cast<std::uint64_t>(ny);
    w.steps.push(b);
    if (w.mask_cells) w.mask_cells->push({y * info.width + x, 0});
    if ((x == saved_x && y == saved_y) || w.steps.size() >= limit)
      throw Error("--backlink '" + w.options.backlink + "' has a cycle through " + std::to_string(x) + "," +
                  std::to_string(y) + "; is it a backlink raster from terrazo sssp?");
    if (++since_saved == power) {
      saved_x = x;
      saved_y = y;
      power *= 2;
      since_saved = 0;
    }
    if ((w.steps.size() & 0xfffff) == 0) progress.update("path", k, count);  // lets Ctrl-C in
  }
  w.steps.finish();
  path.source_x = x;
  path.source_y = y;
  path.cells = w.steps.size() + 1;
  return path;
}

// The walk's vertices, source first: the step log replayed backwards from the source.
template <typename Vertex>
void replay_walk(const TracedPath& path, StepLog& steps, Vertex&& vertex) {
  std::uint64_t vx = path.source_x, vy = path.source_y;
  vertex(vx, vy);
  steps.replay_backwards([&](std::uint8_t b) {
    vx -= kStepDx[b];
    vy -= kStepDy[b];
    vertex(vx, vy);
  });
}

// The walk's length (geodesic or map units, between cell centres) and its length in cells.
void measure_walk(const Walker& w, TracedPath& path) {
  bool first = true;
  double px = 0, py = 0;
  std::uint64_t qx = 0, qy = 0;
  replay_walk(path, w.steps, [&](std::uint64_t vx, std::uint64_t vy) {
    double mx, my;
    centre(w.info, vx, vy, &mx, &my);
    if (!first) {
      path.length += w.geodesic ? w.geodesic->distance(px, py, mx, my) : std::hypot(mx - px, my - py);
      // 1, sqrt 2 or (knight's move) sqrt 5: sqrt is correctly rounded, so sqrt(2.0) == kSqrt2.
      const std::uint64_t adx = vx > qx ? vx - qx : qx - vx, ady = vy > qy ? vy - qy : qy - vy;
      path.length_cells += std::sqrt(static_cast<double>(adx * adx + ady * ady));
    }
    first = false;
    px = mx;
    py = my;
    qx = vx;
    qy = vy;
  });
}

// The walk as a GeoJSON LineString feature (destination `k` counted from 1), its vertices the
// cell centres from the source.
void write_walk_feature(const Walker& w, const TracedPath& path, std::size_t k, GeoJsonLines& json) {
  json.begin_feature({{"dest_id", std::to_string(k + 1)},
                      {"dest_x", std::to_string(path.x)},
                      {"dest_y", std::to_string(path.y)},
                      {"cost", GeoJsonLines::number(path.cost)},
                      {"length", GeoJsonLines::number(path.length)},
                      {"length_cells", GeoJsonLines::number(path.length_cells)},
                      {"cells", std::to_string(path.cells)}});
  double mx = 0, my = 0;
  replay_walk(path, w.steps, [&](std::uint64_t vx, std::uint64_t vy) {
    centre(w.info, vx, vy, &mx, &my);
    json.point(mx, my);
  });
  if (path.cells == 1) json.point(mx, my);  // a LineString has two vertices at least
  json.end_feature();
}

// --mask: block rows of the mask, each written once, the path cells (sorted by cell id) set to 1.
void write_path_mask(ExternalSorter& mask_cells, AtomicOutput& mask_output, const RasterInfo& info,
                     MemoryBudget& budget, PathResult& result) {
  mask_cells.finish();
  const std::uint32_t rows = 256;
  auto strip_reservation = budget.reserve(info.width * rows, "path mask strip");
  std::vector<std::uint8_t> strip;
  GeoTiffWriter writer(mask_output, info.width, info.height, CellType::UInt8, info, false, 0.0, 256);
  SortRecord next{};
  bool more = mask_cells.next(&next);
  for (std::uint64_t y0 = 0; y0 < info.height; y0 += rows) {
    const auto h = static_cast<std::uint32_t>(std::min<std::uint64_t>(rows, info.height - y0));
    // Strips as windows of at most 2^31 cells' width: GeoTiffWriter takes 32-bit window sizes.
    strip.assign(info.width * h, 0);
    while (more && next.key < (y0 + h) * info.width) {
      strip[next.key - y0 * info.width] = 1;
      more = mask_cells.next(&next);
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
  result.bytes_spilled += mask_cells.bytes_written();
}

// The size of the published GeoJSON file (0 if it cannot be opened).
std::uint64_t file_bytes(const std::string& path) {
  std::uint64_t bytes = 0;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f) {
    std::fseek(f, 0, SEEK_END);
    bytes = static_cast<std::uint64_t>(std::ftell(f));
    std::fclose(f);
  }
  return bytes;
}

}  // namespace

PathResult run_path(const PathOptions& options, RunContext& context) {
  MemoryBudget& budget = context.budget();
  Progress& progress = context.progress();
  const auto start = std::chrono::steady_clock::now();
  check_path_options(options);
  // Every output's partial file is made before any work and all are published together at the end
  // (io/store/output_set.h), the GeoJSON last: a failure writing either publishes neither.
  OutputSet outputs;
  AtomicOutput* mask_output = outputs.add_if(options.mask, geotiff_sidecar_suffixes());
  AtomicOutput& output = outputs.add(options.output);
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

  // Bounded memory whatever the paths' lengths: each walk's steps go to a StepLog (1 MiB, then its
  // spill file), are replayed from the source twice (length, then vertices) into a streamed
  // GeoJSON, and the mask's cells go through an external sort.
  RunDirectory run(context.tmpdir());
  auto step_reservation = budget.reserve(kStepBuffer, "path step buffer");
  // A walk has fewer steps than the raster has cells (else it is a cycle, below): a buffer of that
  // many never spills, and a small raster's walks do not zero a whole megabyte each run.
  StepLog steps(run.path() + "/steps", std::min<std::uint64_t>(kStepBuffer, info.width * info.height));
  std::unique_ptr<ExternalSorter> mask_cells;
  if (!options.mask.empty()) {
    const std::uint64_t sort_bytes = std::max<std::uint64_t>(
        ExternalSorter::kMinimumBufferBytes, std::min<std::uint64_t>(budget.available() / 4, 16ull << 20));
    mask_cells = std::make_unique<ExternalSorter>(run.path() + "/mask-cells", budget, sort_bytes);
  }

  GeoJsonLines json(output.partial(), output.partial(), "paths", crs_urn(info.crs_wkt));

  PathResult result;
  // Lengths: metres on the ellipsoid on a geographic CRS, map units otherwise (engine/cost_models/step_lengths.h).
  std::unique_ptr<GeodesicLine> geodesic;
  if (crs_is_geographic(info.crs_wkt)) {
    geodesic = std::make_unique<GeodesicLine>(info.crs_wkt);
    result.length_unit = "metre";
  }
  const Walker walker{options, info, *cost, windows, steps, mask_cells.get(), geodesic.get()};
  progress.update("path", 0, dests.size());
  for (std::size_t k = 0; k < dests.size(); ++k) {
    TracedPath path = walk_to_source(walker, dests[k], k, dests.size(), progress);
    measure_walk(walker, path);
    write_walk_feature(walker, path, k, json);
    result.paths.push_back(path);
    progress.update("path", k + 1, dests.size());
  }
  json.finish();
  result.bytes_spilled = steps.bytes_spilled();  // all walks'
  if (mask_cells) write_path_mask(*mask_cells, *mask_output, info, budget, result);
  outputs.publish();

  result.window_reads = windows.reads();
  result.bytes_read = back->bytes_read() + cost->bytes_read();
  result.bytes_written += file_bytes(options.output);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.peak_rss_bytes = peak_rss_bytes();
  return result;
}

}  // namespace terrazo
