// engine/commands/network.cpp: minimum_spanning_tree and run_network (engine/commands/network.h).
#include "engine/commands/network.h"

#include <ogrsf_frmts.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <tuple>

#include "engine/commands/od_matrix_command.h"
#include "engine/commands/output_paths.h"
#include "engine/commands/path.h"
#include "engine/raster_inputs/raster_io.h"
#include "engine/raster_inputs/region_sites.h"
#include "engine/commands/sssp.h"
#include "kernels/common/error.h"
#include "kernels/common/timer.h"
#include "kernels/common/union_find.h"
#include "io/gdal/gdal_raster.h"
#include "io/gdal/gdal_session.h"
#include "io/store/atomic_output.h"
#include "io/store/run_directory.h"
#include "io/store/tile_store.h"

namespace terrazo {
namespace {

std::uint64_t find(std::vector<std::uint64_t>& parent, std::uint64_t v) {
  while (parent[v] != v) v = parent[v] = parent[parent[v]];
  return v;
}

std::string geojson_number(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

// Region masks and cost reads go in windows of 256 rows (the GeoTIFF blocks) by kWindowColumns.
constexpr std::uint32_t kWindowRows = 256, kWindowColumns = 4096;

// A Byte GeoTIFF of INPUT's grid with 1 on `cells` (ascending ids y * W + x) and 0 elsewhere: one
// region as an sssp --source-raster. Memory: one window (1 MiB) and 8 MiB of GDAL cache.
void write_region_mask(const std::string& path, const RasterInfo& info, const std::vector<std::uint64_t>& cells,
                       MemoryBudget& budget) {
  auto reservation = budget.reserve(static_cast<std::uint64_t>(kWindowRows) * kWindowColumns, "network region mask window");
  GdalCacheLimit cache(budget, 8ull << 20);
  GeoTiffWriter writer(path, info.width, info.height, CellType::UInt8, info, false, 0.0, 256);
  std::vector<std::uint8_t> window;
  for (std::uint64_t y0 = 0; y0 < info.height; y0 += kWindowRows)
    for (std::uint64_t x0 = 0; x0 < info.width; x0 += kWindowColumns) {
      const auto h = static_cast<std::uint32_t>(std::min<std::uint64_t>(kWindowRows, info.height - y0));
      const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(kWindowColumns, info.width - x0));
      window.assign(static_cast<std::size_t>(w) * h, 0);
      for (std::uint32_t y = 0; y < h; ++y) {
        const std::uint64_t row = (y0 + y) * info.width;
        for (auto it = std::lower_bound(cells.begin(), cells.end(), row + x0); it != cells.end() && *it < row + x0 + w; ++it)
          window[static_cast<std::size_t>(y) * w + (*it - row - x0)] = 1;
      }
      writer.write_window_u8(x0, y0, w, h, window.data());
    }
  writer.finish();
}

// The cell of `cells` (ascending ids y * W + x) with the least cost in COST.tif (Float64, cost units,
// nodata where unreached), in fixed point at `scale` (as the matrix): the lowest id among equal
// costs; *cost its fixed-point cost (kUnreached when none is reached). Reads only the windows
// holding cells. Memory: one window of doubles (8 MiB) and 8 MiB of GDAL cache.
std::uint64_t least_cost_cell(const std::string& cost_path, std::uint64_t width, const std::vector<std::uint64_t>& cells,
                              double scale, PathLength* cost, MemoryBudget& budget) {
  auto reservation = budget.reserve(static_cast<std::uint64_t>(kWindowRows) * kWindowColumns * 8, "network cost window");
  GdalCacheLimit cache(budget, 8ull << 20);
  auto reader = RasterReader::open(cost_path);
  std::vector<double> window;
  std::vector<char> touched((width + kWindowColumns - 1) / kWindowColumns);
  std::uint64_t best_cell = cells.front();
  PathLength best = kUnreached;
  for (std::size_t first = 0; first < cells.size();) {
    // The cells of one strip of kWindowRows rows (contiguous: the ids ascend), window by window.
    const std::uint64_t y0 = cells[first] / width / kWindowRows * kWindowRows;
    const std::uint64_t y1 = std::min(reader->info().height, y0 + kWindowRows);
    std::size_t end = first;
    while (end < cells.size() && cells[end] < y1 * width) ++end;
    std::fill(touched.begin(), touched.end(), 0);  // the window columns holding cells
    for (std::size_t i = first; i < end; ++i) touched[cells[i] % width / kWindowColumns] = 1;
    for (std::uint64_t column = 0; column < touched.size(); ++column) {
      if (!touched[column]) continue;
      const std::uint64_t x0 = column * kWindowColumns;
      const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(kWindowColumns, width - x0));
      const auto h = static_cast<std::uint32_t>(y1 - y0);
      window.resize(static_cast<std::size_t>(w) * h);
      reader->read_window(x0, y0, w, h, window.data());
      for (std::size_t i = first; i < end; ++i) {
        const std::uint64_t x = cells[i] % width, y = cells[i] / width;
        if (x < x0 || x >= x0 + w) continue;
        const double v = window[static_cast<std::size_t>(y - y0) * w + (x - x0)];
        if (v != v) continue;  // unreached or nodata
        const auto fixed = static_cast<PathLength>(std::llround(v * scale));
        if (fixed < best || (fixed == best && cells[i] < best_cell)) {
          best = fixed;
          best_cell = cells[i];
        }
      }
    }
    first = end;
  }
  *cost = best;
  return best_cell;
}

std::string site_id(const OdMatrixResult& m, std::uint32_t i) {
  return std::to_string(m.site_ids.empty() ? i + 1 : m.site_ids[i]);
}

}  // namespace

std::vector<NetworkEdge> minimum_spanning_tree(const std::vector<PathLength>& costs, std::uint64_t k) {
  std::vector<std::tuple<PathLength, std::uint32_t, std::uint32_t>> pairs;
  for (std::uint32_t i = 0; i < k; ++i)
    for (std::uint32_t j = i + 1; j < k; ++j) {
      const PathLength c = std::min(costs[i * k + j], costs[j * k + i]);
      if (c != kUnreached) pairs.emplace_back(c, i, j);
    }
  std::sort(pairs.begin(), pairs.end());
  std::vector<std::uint64_t> parent(k);
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<NetworkEdge> tree;
  for (const auto& [c, i, j] : pairs) {
    const std::uint64_t a = find(parent, i), b = find(parent, j);
    if (a == b) continue;
    parent[a] = b;
    NetworkEdge e;
    e.from = i;
    e.to = j;
    e.cost = c;
    tree.push_back(e);
  }
  return tree;
}

namespace {

// The paths' sssp runs (costs and backlinks, in the tile of INPUT's store or kDefaultTile) come
// after the whole matrix: their write phase's fixed needs are planned first, so a budget too small
// for them fails before any work, naming the phase and the size.
void plan_network_paths(const OdMatrixOptions& od, RunContext& context) {
  MemoryBudget& budget = context.budget();
  SsspOptions probe;
  probe.output = "cost.tif";
  probe.backlink = "backlink.tif";
  const std::uint32_t t = TileStore::looks_like_tile_store(od.input) ? TileStore::open(od.input, &budget)->tile()
                                                                      : kDefaultTile;
  context.plan().need("network's paths", "their sssp write phase (GDAL block cache, output windows, output tile)",
                      sssp_write_phase_bytes(probe, t));
  context.plan().assign(budget);
}

// Region sites: their cells again (the matrix's copy is gone), reserved while the paths are traced;
// the regions must be the matrix's.
RegionSites reread_region_sites(const OdMatrixOptions& od, const OdMatrixResult& m, MemoryBudget& budget) {
  TileGrid grid;
  grid.width = m.width;
  grid.height = m.height;
  grid.tile = m.tile;
  RegionSites region_sites = read_region_sites(od.sites_raster, grid, budget);
  if (region_sites.ids != m.site_ids) throw Error("network: --sites-raster '" + od.sites_raster + "' changed during the run");
  return region_sites;
}

// What the tracing of the tree's edges shares: the matrix, the region sites (null: point sites),
// the edges, their GeoJSON geometries (filled by edge).
struct NetworkTrace {
  const OdMatrixOptions& od;
  RunContext& context;
  const OdMatrixResult& m;
  const RegionSites* regions;
  std::vector<NetworkEdge>& edges;
  std::vector<std::string>& geometries;
};

SourcePoint pixel_of(const OdMatrixResult& m, std::uint64_t cell) {
  return parse_source_point(std::to_string(cell % m.width) + "," + std::to_string(cell / m.width), "--site");
}

// The sssp run (cost and backlinks into the run directory) from site `from`: a point site's cell,
// or every cell of a region at cost 0. Returns its options (the rasters' paths).
SsspOptions run_sssp_from(const NetworkTrace& n, std::uint32_t from) {
  RunDirectory& run = n.context.run_directory();
  SsspOptions so;
  so.input = n.od.input;
  so.index.clear();
  so.output = run.file("cost.tif");
  so.backlink = run.file("backlink.tif");
  if (n.regions) {
    so.source_raster = run.file("sources.tif");
    write_region_mask(so.source_raster, n.m.info, n.regions->sites[from].cells, n.context.budget());
  } else {
    so.sources = {pixel_of(n.m, n.m.site_cells[from])};
  }
  so.weight = n.od.weight;
  so.scale = n.m.params.scale;
  so.connectivity = n.od.connectivity;
  so.distance = n.od.distance;
  RunContext::ProgressRedirect silent(n.context, Progress::silent());
  run_sssp(so, n.context);
  return so;
}

// The path options over `so`'s rasters, a destination per edge: a point site's cell, or the target
// region's cell where the cost from the source region is least (which must be the matrix's cost).
PathOptions path_options_for(const NetworkTrace& n, const SsspOptions& so, const std::vector<std::size_t>& edges) {
  const OdMatrixResult& m = n.m;
  PathOptions po;
  po.backlink = so.backlink;
  po.cost = so.output;
  po.output = n.context.run_directory().file("paths.geojson");
  for (std::size_t e : edges) {
    NetworkEdge& edge = n.edges[e];
    edge.to_cell = m.site_cells[edge.to];
    if (n.regions) {
      PathLength least = kUnreached;
      edge.to_cell = least_cost_cell(so.output, m.width, n.regions->sites[edge.to].cells, m.params.scale, &least,
                                     n.context.budget());
      if (least != edge.cost)
        throw Error("network: the least cost from region " + site_id(m, edge.from) + " to region " + site_id(m, edge.to) +
                    " in its cost raster (" + std::to_string(least) + ") is not the matrix's (" + std::to_string(edge.cost) +
                    "), fixed point at scale " + std::to_string(m.params.scale));
    }
    po.dests.push_back(pixel_of(m, edge.to_cell));
  }
  return po;
}

// The traced lines of `po.output`, in the order of the destinations, into the edges' geometries,
// lengths, cells and source cells.
void read_traced_paths(const NetworkTrace& n, const PathOptions& po, const PathResult& traced,
                       const std::vector<std::size_t>& edges) {
  reset_gdal_error();
  std::unique_ptr<GDALDataset> dataset(static_cast<GDALDataset*>(
      GDALOpenEx(po.output.c_str(), GDAL_OF_VECTOR | GDAL_OF_READONLY, nullptr, nullptr, nullptr)));
  if (!dataset || dataset->GetLayerCount() != 1) throw gdal_failure("network: cannot read the traced paths");
  OGRLayer* layer = dataset->GetLayer(0);
  std::size_t i = 0;
  layer->ResetReading();
  for (auto& feature : *layer) {
    if (i >= edges.size()) break;
    char* json = feature->GetGeometryRef() ? feature->GetGeometryRef()->exportToJson() : nullptr;
    n.geometries[edges[i]] = json ? json : "null";
    CPLFree(json);
    NetworkEdge& edge = n.edges[edges[i]];
    edge.length = traced.paths.at(i).length;
    edge.cells = traced.paths.at(i).cells;
    edge.from_cell = traced.paths.at(i).source_y * n.m.width + traced.paths.at(i).source_x;
    ++i;
  }
  if (i != edges.size()) throw Error("network: the traced paths are fewer than the tree edges");
}

// The tree's edges from site `from`: one sssp run, then their paths.
void trace_edges_from(const NetworkTrace& n, std::uint32_t from, const std::vector<std::size_t>& edges) {
  const SsspOptions so = run_sssp_from(n, from);
  const PathOptions po = path_options_for(n, so, edges);
  return_freed_memory();
  RunContext::ProgressRedirect silent(n.context, Progress::silent());
  const PathResult traced = run_path(po, n.context);
  return_freed_memory();
  read_traced_paths(n, po, traced, edges);
}

// OUT.geojson: a feature per tree edge (ids, cost, length, cells, the traced line), written whole
// to its partial file and published.
void write_network_geojson(const std::string& output, const std::string& crs_member, const OdMatrixResult& m,
                           const std::vector<std::string>& geometries, NetworkResult& result) {
  std::string text = "{\n\"type\": \"FeatureCollection\",\n\"name\": \"network\",\n" + crs_member + "\"features\": [\n";
  for (std::size_t e = 0; e < result.edges.size(); ++e) {
    const NetworkEdge& edge = result.edges[e];
    const double cost = static_cast<double>(edge.cost) / m.params.scale;
    result.total_cost += cost;
    text += std::string(e ? ",\n" : "") + "{ \"type\": \"Feature\", \"properties\": { \"from_id\": " + site_id(m, edge.from) +
            ", \"to_id\": " + site_id(m, edge.to) + ", \"cost\": " + geojson_number(cost) +
            ", \"length\": " + geojson_number(edge.length) + ", \"cells\": " + std::to_string(edge.cells) +
            " }, \"geometry\": " + geometries[e] + " }";
  }
  text += "\n]\n}\n";
  AtomicOutput out(output);
  std::FILE* f = std::fopen(out.partial().c_str(), "wb");
  if (!f) throw Error("cannot create '" + out.partial() + "'");
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) throw Error("cannot write '" + output + "' (disk full?)");
  out.publish();
}

}  // namespace

NetworkResult run_network(const NetworkOptions& options, RunContext& context) {
  MemoryBudget& budget = context.budget();
  Progress& progress = context.progress();
  Stopwatch start;
  NetworkResult result;
  OdMatrixOptions od = options.od;
  const std::string output = od.output;
  check_distinct_paths(od_matrix_input_paths(od), {{"OUT.geojson", output}});
  plan_network_paths(od, context);
  result.matrix = run_od_matrix(od, context);
  return_freed_memory();
  result.seconds_matrix = start.seconds();
  const OdMatrixResult& m = result.matrix;
  const std::uint64_t k = m.sites;
  result.edges = minimum_spanning_tree(m.costs, k);
  result.components = k - result.edges.size();
  Stopwatch paths;
  const bool regions = !od.sites_raster.empty();
  RegionSites region_sites;
  if (regions) region_sites = reread_region_sites(od, m, budget);
  // One sssp run (cost and backlinks) per distinct lower end, then its paths.
  std::map<std::uint32_t, std::vector<std::size_t>> by_from;
  for (std::size_t e = 0; e < result.edges.size(); ++e) by_from[result.edges[e].from].push_back(e);
  std::vector<std::string> geometries(result.edges.size());
  const std::string urn = crs_urn(m.info.crs_wkt);
  const std::string crs_member =
      urn.empty() ? "" : "\"crs\": { \"type\": \"name\", \"properties\": { \"name\": \"" + urn + "\" } },\n";
  ensure_gdal();
  const NetworkTrace trace{od, context, m, regions ? &region_sites : nullptr, result.edges, geometries};
  std::uint64_t done = 0;
  progress.update("network: paths", 0, by_from.size());
  for (const auto& [from, edges] : by_from) {
    trace_edges_from(trace, from, edges);
    progress.update("network: paths", ++done, by_from.size());
  }
  result.seconds_paths = paths.seconds();
  write_network_geojson(output, crs_member, m, geometries, result);
  result.seconds_total = start.seconds();
  result.peak_rss_bytes = peak_rss_bytes();
  return result;
}

}  // namespace terrazo
