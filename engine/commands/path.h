// engine/commands/path.h: least-cost paths traced through a backlink raster, out of core
// (`terrazo path`). The library entry point; tools/cli/cmd_path.cpp is a thin main.
//
// Contract: from each destination cell, follow the backlink directions (kernels/sssp/backlink.h:
// 0..7 clockwise from east, 255 = none) until a cell with 255 (a source); the path is that cell
// sequence, written source first. Because `terrazo sssp` derives backlinks from final labels with
// strictly decreasing hop counts, every walk ends; a walk that comes back to a cell (a cycle, found
// in O(1) memory by Brent's cycle detection [Brent1980]), or one
// leaving the raster, or a cell of a backlink window the walk reads holding anything but 0..7 or
// 255 (8..254, a fraction) is an Error naming the cell (a backlink raster from elsewhere).
// Outputs:
//  - `output`: GeoJSON (streamed: a FeatureCollection "paths" as OGR's GeoJSON driver names it, the
//    CRS as an EPSG URN when it has an EPSG code), one LineString feature per destination, in the
//    backlink raster's CRS, vertices at cell centres (geotransform applied to x + 0.5, y + 0.5),
//    properties: dest_id (1-based destination order), dest_x, dest_y (pixel), cost (the cost raster at
//    the destination), length (sum of the step lengths between cell centres: metres on the CRS's
//    ellipsoid (geodesics, [Karney2013]) on a geographic CRS, map units otherwise, whatever the cost
//    model), length_cells (1 per orthogonal, sqrt 2 per diagonal, sqrt 5 per knight's step), cells (vertices). A destination
//    that is a source gives a two-vertex line of length 0.
//  - `mask` (optional): Byte GeoTIFF of the backlink raster's size: 1 on path cells, 0 elsewhere.
// Out of core: backlink windows of 256 x 256 cells are read through RasterReader into an LRU
// cache of at most `cache_bytes` (default min(budget / 4, 64 MiB)); a walk's steps (1 byte each) go
// to a 1 MiB buffer that spills to a file of the run directory under `tmpdir` and are replayed
// backwards from the source (twice: length, then vertices); the mask's cells go through an
// ExternalSorter of min(budget / 4, 16 MiB). So the budget holds for paths of any length (a
// 16.7 M-cell path at --memory 64M; docs/reliability.md).
// Errors: UsageError for a destination outside the raster or unreached (cost nodata / backlink
// 255 on a non-source), rasters of different sizes; Error for I/O and malformed backlinks.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/run/run_context.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "engine/raster_inputs/sssp_sources.h"

namespace terrazo {

struct PathOptions {
  std::string backlink;            // Byte raster from `terrazo sssp --backlink`
  std::string cost;                // cost raster from `terrazo sssp`
  std::string output;              // GeoJSON
  std::string mask;                // optional Byte GeoTIFF
  std::vector<SourcePoint> dests;  // parse_source_point ("x,y")
  bool map_coords = false;         // dests in the rasters' CRS
  std::string dest_crs;            // dests in this CRS (implies map coordinates)
  std::uint64_t cache_bytes = 0;   // backlink window cache; 0: min(budget / 4, 64 MiB)
};

struct TracedPath {
  std::string dest;                // as given
  std::uint64_t x = 0, y = 0;      // destination cell
  std::uint64_t source_x = 0, source_y = 0;  // where the walk ended
  double cost = 0;                 // cost raster at the destination
  double length = 0;               // metres on a geographic CRS, else map units (PathResult::length_unit)
  double length_cells = 0;         // 1 per orthogonal step, sqrt 2 per diagonal one, sqrt 5 per knight's
  std::uint64_t cells = 0;         // cells on the path, both ends included
};

struct PathResult {
  std::vector<TracedPath> paths;
  std::string length_unit = "map unit";  // of TracedPath::length: "metre" on a geographic CRS
  double seconds = 0;
  std::uint64_t bytes_read = 0, bytes_written = 0, peak_rss_bytes = 0;
  std::uint64_t bytes_spilled = 0;  // steps of long walks and mask cells written to the run directory
  std::uint64_t window_reads = 0;  // backlink windows read (cache misses)
};

// Runs on `context`'s device, threads, budget, scratch directory and progress (engine/run/run_context.h).
PathResult run_path(const PathOptions& options, RunContext& context);

// "urn:ogc:def:crs:EPSG::<code>" when the CRS (WKT) has an EPSG code (what OGR's GeoJSON driver
// writes), else "" (the GeoJSON outputs of path, od-matrix and network).
std::string crs_urn(const std::string& wkt);

}  // namespace terrazo
