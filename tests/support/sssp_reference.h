// tests/support/sssp_reference.h: the test oracle for cost distance: in-memory Dijkstra over a
// whole raster with std::priority_queue, plus the backlink rule written out plainly.
//
// Labels are (dist, source, hops), compared lexicographically (kernels/sssp/block_sssp.h): extending a
// path by an edge of weight w (kernels/common/edge_weight.h, the engine's exact integer weights) maps
// (d, s, h) to (d + w, s, h + 1). A label whose dist exceeds max_cost is never stored.
// Run with all source ids 0 to get the labels of a run without an allocation output.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/types.h"
#include "io/store/raster_info.h"
#include "kernels/common/edge_weight.h"

namespace terrazo::testing {

struct SsspReferenceProblem {
  std::uint64_t width = 0, height = 0;
  const double* values = nullptr;  // width*height, NaN = nodata
  WeightParams params;
  Connectivity connectivity = Connectivity::Eight;
  PathLength max_cost = kUnreached;
  // Initial labels, width*height each; cells with a finite dist (<= max_cost) are the seeds.
  std::vector<PathLength> dist;
  std::vector<std::uint32_t> source;
  std::vector<std::uint32_t> hops;
  // Optional, width*height: cells that keep their initial label and are never entered by a path
  // (they may still start one). Models a block solver's halo.
  std::vector<std::uint8_t> frozen;
  // Optional step lengths per raster row, written out plainly (independent of the engine's lookup):
  // row_lengths[3 y] east-west on row y, [3 y + 1] north-south between rows y and y + 1, [3 y + 2]
  // diagonal between them. Empty: params.steps.ew, ns, diag for every step (cells: 1, 1, sqrt 2).
  std::vector<double> row_lengths;
};

// The length of the step between cells (x, y) and (x + dx, y + dy) of `p`, as the oracle sees it.
double reference_step_length(const SsspReferenceProblem& p, std::uint64_t y, int dx, int dy);

// Runs Dijkstra in place on problem.dist/source/hops. Returns false when a weight overflowed.
bool sssp_reference(SsspReferenceProblem& problem);

// A problem over the width x height raster `values` with `params` and `connectivity`; no seeds yet.
inline SsspReferenceProblem reference_problem(std::uint64_t width, std::uint64_t height, const double* values,
                                              const WeightParams& params, Connectivity connectivity) {
  SsspReferenceProblem problem;
  problem.width = width;
  problem.height = height;
  problem.values = values;
  problem.params = params;
  problem.connectivity = connectivity;
  return problem;
}

// The problem of one block solve: the (t+2)^2 window `values` with initial labels `dist` (sources and
// hops zero), its one-cell halo ring frozen (seeds the block solvers read and never change).
SsspReferenceProblem block_window_problem(const double* values, std::uint32_t t, const WeightParams& params,
                                          Connectivity connectivity, std::vector<PathLength> dist);

// Sets up labels from sources: cell id -> (0, id, 0); a cell listed twice keeps the lowest id.
void set_reference_sources(SsspReferenceProblem& problem,
                           const std::vector<std::pair<std::uint64_t, std::uint32_t>>& cell_and_id);

// Backlink of every cell: 255 where unreached or hops == 0, else the lowest direction d (0..7,
// clockwise from east, kernels/common/tile_geometry.h; 8..15 the knight's moves with 16 neighbours,
// kernels/sssp/knight.h) whose neighbour v is reached with
// dist(v) + w(v, u) == dist(u), source(v) == source(u), hops(v) + 1 == hops(u).
std::vector<std::uint8_t> backlinks_reference(const SsspReferenceProblem& solved);

// Test helpers around the file-based pipeline.
// Band 1 of any raster RasterReader opens, whole, as doubles (nodata -> NaN).
std::vector<double> read_raster_values(const std::string& path, RasterInfo* info = nullptr);
// A north-up georeference: the top-left corner (x0, y0), cells of dx by dy map units (dy < 0), in
// `crs` (EPSG:n, WKT or PROJ string; "": none).
RasterInfo georef(const std::string& crs, double x0, double y0, double dx, double dy);
// Writes `values` (NaN = nodata) as a GeoTIFF of `type` with nodata `nodata`, georeferenced like `georef`.
void write_raster_values(const std::string& path, std::uint64_t width, std::uint64_t height,
                         const std::vector<double>& values, CellType type, double nodata,
                         const RasterInfo& georef = RasterInfo{});
// Fixed-point distances back from a cost raster written by run_sssp: llround(cost * scale), exact
// below 2^52; kUnreached where the raster has nodata.
std::vector<PathLength> fixed_distances(const std::vector<double>& cost, double scale);

}  // namespace terrazo::testing
