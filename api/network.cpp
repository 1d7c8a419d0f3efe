// api/network.cpp: minimum_spanning_tree and run_network (api/network.h).
#include "api/network.h"

#include <ogrsf_frmts.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <tuple>

#include "api/path.h"
#include "api/raster_io.h"
#include "api/sssp.h"
#include "core/error.h"
#include "core/timer.h"
#include "core/union_find.h"
#include "gdal/gdal_session.h"
#include "store/atomic_output.h"
#include "store/run_directory.h"
#include "store/tile_store.h"

namespace terrazo {
namespace {

std::uint64_t find(std::vector<std::uint64_t>& parent, std::uint64_t v) {
  while (parent[v] != v) v = parent[v] = parent[parent[v]];
  return v;
}

std::string json_number(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
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

NetworkResult run_network(const NetworkOptions& options, MemoryBudget& budget, Progress& progress) {
  Stopwatch start;
  NetworkResult result;
  OdMatrixOptions od = options.od;
  const std::string output = od.output;
  {
    // The paths' sssp runs (costs and backlinks, in the tile of INPUT's store or kDefaultTile) come
    // after the whole matrix: their write phase's fixed needs are checked first, so a budget too
    // small for them fails before any work, naming the phase and the size.
    SsspOptions probe;
    probe.output = "cost.tif";
    probe.backlink = "backlink.tif";
    const std::uint32_t t = TileStore::looks_like_tile_store(od.input) ? TileStore::open(od.input, &budget)->tile()
                                                                        : kDefaultTile;
    const std::uint64_t need = sssp_write_phase_bytes(probe, t);
    if (need > budget.available())
      throw BudgetError("memory budget too small for network's paths: their sssp write phase needs " +
                        MemoryBudget::format_size(need) + " (GDAL block cache, output windows, output tile) but only " +
                        MemoryBudget::format_size(budget.available()) + " of --memory " +
                        MemoryBudget::format_size(budget.total()) + " is free; raise --memory to " +
                        MemoryBudget::format_size(budget.reserved() + need) + " at least");
  }
  result.matrix = run_od_matrix(od, budget, progress);
  result.seconds_matrix = start.seconds();
  const OdMatrixResult& m = result.matrix;
  const std::uint64_t k = m.sites;
  result.edges = minimum_spanning_tree(m.costs, k);
  result.components = k - result.edges.size();
  Stopwatch paths;
  RunDirectory run(od.tmpdir);
  // One sssp run (cost and backlinks) per distinct lower end, then its paths.
  std::map<std::uint32_t, std::vector<std::size_t>> by_from;
  for (std::size_t e = 0; e < result.edges.size(); ++e) by_from[result.edges[e].from].push_back(e);
  auto pixel_of = [&](std::uint64_t cell) {
    return parse_source_point(std::to_string(cell % m.width) + "," + std::to_string(cell / m.width), "--site");
  };
  std::vector<std::string> geometries(result.edges.size());
  const std::string urn = crs_urn(m.info.crs_wkt);
  const std::string crs_member =
      urn.empty() ? "" : "\"crs\": { \"type\": \"name\", \"properties\": { \"name\": \"" + urn + "\" } },\n";
  ensure_gdal();
  std::uint64_t done = 0;
  progress.update("network: paths", 0, by_from.size());
  for (const auto& [from, edges] : by_from) {
    SsspOptions so;
    so.input = od.input;
    so.index.clear();
    so.output = run.file("cost.tif");
    so.backlink = run.file("backlink.tif");
    so.sources = {pixel_of(m.site_cells[from])};
    so.weight = od.weight;
    so.scale = m.params.scale;
    so.connectivity = od.connectivity;
    so.threads = od.threads;
    so.tmpdir = run.path();
    so.device = "cpu";
    run_sssp(so, budget, Progress::silent());
    PathOptions po;
    po.backlink = so.backlink;
    po.cost = so.output;
    po.output = run.file("paths.geojson");
    po.tmpdir = run.path();
    for (std::size_t e : edges) po.dests.push_back(pixel_of(m.site_cells[result.edges[e].to]));
    const PathResult traced = run_path(po, budget, Progress::silent());
    // The traced lines, in the order of the destinations.
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
      geometries[edges[i]] = json ? json : "null";
      CPLFree(json);
      result.edges[edges[i]].length = traced.paths.at(i).length;
      result.edges[edges[i]].cells = traced.paths.at(i).cells;
      ++i;
    }
    if (i != edges.size()) throw Error("network: the traced paths are fewer than the tree edges");
    progress.update("network: paths", ++done, by_from.size());
  }
  result.seconds_paths = paths.seconds();
  // The GeoJSON.
  std::string text = "{\n\"type\": \"FeatureCollection\",\n\"name\": \"network\",\n" + crs_member + "\"features\": [\n";
  for (std::size_t e = 0; e < result.edges.size(); ++e) {
    const NetworkEdge& edge = result.edges[e];
    const double cost = static_cast<double>(edge.cost) / m.params.scale;
    result.total_cost += cost;
    text += std::string(e ? ",\n" : "") + "{ \"type\": \"Feature\", \"properties\": { \"from_id\": " + std::to_string(edge.from + 1) +
            ", \"to_id\": " + std::to_string(edge.to + 1) + ", \"cost\": " + json_number(cost) +
            ", \"length\": " + json_number(edge.length) + ", \"cells\": " + std::to_string(edge.cells) +
            " }, \"geometry\": " + geometries[e] + " }";
  }
  text += "\n]\n}\n";
  AtomicOutput out(output);
  std::FILE* f = std::fopen(out.partial().c_str(), "wb");
  if (!f) throw Error("cannot create '" + out.partial() + "'");
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) throw Error("cannot write '" + output + "' (disk full?)");
  out.publish();
  result.seconds_total = start.seconds();
  result.peak_rss_bytes = peak_rss_bytes();
  return result;
}

}  // namespace terrazo
