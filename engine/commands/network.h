// engine/commands/network.h: the least-cost network connecting K sites (`terrazo network`, docs/index.md
// "terrazo network"): the minimum spanning tree of the sites' exact cost matrix, each tree edge traced
// as a least-cost path. What "cost connectivity" / "optimal region connections" tools give.
//
// Contract: the matrix is run_od_matrix's (with --index or without: the same numbers); the tree is
// Kruskal's over the pairs i < j with a finite cost, ordered by (cost, i, j), so it is unique; sites
// that no path joins give a forest (one tree per connected group). Each tree edge (i, j), i < j, is
// traced from site j back to site i through the backlinks of a `terrazo sssp` run from site i
// (engine/commands/sssp.h, engine/commands/path.h: the documented tie-break), one run per distinct i.
// Region sites (od.sites_raster, engine/raster_inputs/region_sites.h): site i's sssp run starts from all its cells at
// cost 0 (a mask raster of them as --source-raster), and the edge is traced from the cell of region j
// where that run's cost is least (the matrix entry; the lowest cell id y * W + x among equal costs)
// back to the cell of region i where the backlinks end.
// Output: GeoJSON FeatureCollection "network", one LineString per tree edge in INPUT's CRS (cell
// centres), properties from_id, to_id (site ids, from < to: 1-based for points, the region ids for
// regions), cost (cost units, the matrix entry), length (map units), cells.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/run/run_context.h"
#include "engine/commands/index.h"

namespace terrazo {

struct NetworkOptions {
  OdMatrixOptions od;  // input, sites, weights, --index; od.output is the GeoJSON
};

struct NetworkEdge {
  std::uint32_t from = 0, to = 0;  // 0-based site indices, from < to
  PathLength cost = 0;             // fixed point
  double length = 0;
  std::uint64_t cells = 0;
  std::uint64_t from_cell = 0, to_cell = 0;  // the traced path's ends (y * W + x): its source cell, its target
};

struct NetworkResult {
  OdMatrixResult matrix;
  std::vector<NetworkEdge> edges;  // in Kruskal order
  double total_cost = 0;           // cost units
  std::uint64_t components = 0;    // trees of the forest
  double seconds_matrix = 0, seconds_paths = 0, seconds_total = 0;
  std::uint64_t peak_rss_bytes = 0;
};

// The tree of a K x K matrix (kUnreached = no edge): Kruskal by (cost, i, j).
std::vector<NetworkEdge> minimum_spanning_tree(const std::vector<PathLength>& costs, std::uint64_t k);

// Runs on `context`'s device, threads, budget, scratch directory and progress (engine/run/run_context.h).
NetworkResult run_network(const NetworkOptions& options, RunContext& context);

}  // namespace terrazo
