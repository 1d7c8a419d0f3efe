// engine/commands/command_usage.cpp: the help text of every command, `terrazo <command> --help`: its
// synopsis, what it does, its files, the flag sections ("{flags SECTION}" lines, replaced by the lines
// of the command's flags in command_flags.cpp: engine/commands/flag_table.h), its --json keys and
// examples; and the <name>_usage() functions TERRAZO_COMMAND declares.
#include "engine/commands/clump_command.h"
#include "engine/commands/corridor_command.h"
#include "engine/commands/export_command.h"
#include "engine/commands/fill_command.h"
#include "engine/commands/gen_command.h"
#include "engine/commands/import_command.h"
#include "engine/commands/index_command.h"
#include "engine/commands/info_command.h"
#include "engine/commands/mst_command.h"
#include "engine/commands/network_command.h"
#include "engine/commands/od_matrix_command.h"
#include "engine/commands/path_command.h"
#include "engine/commands/render_command.h"
#include "engine/commands/sssp_command.h"
#include "engine/commands/flag_table.h"

namespace terrazo {
namespace {

// terrazo clump
const char kClumpUsage[] =
    "Usage: terrazo clump [options] INPUT LABELS.tif\n"
    "\n"
    "Connected regions of INPUT's grid graph, out of core (as GRASS r.clump): neighbouring cells with\n"
    "equal keys form one region. Regions are numbered 1..K in row-major order of their first cell, the\n"
    "same numbers whatever --tile, --threads and --memory; 0 is nodata.\n"
    "\n"
    "INPUT       any GDAL raster (GeoTIFF, .hgt, .bil, .asc, .asc.gz) or a terrazo tile store (.tzs)\n"
    "LABELS.tif  UInt32 GeoTIFF georeferenced like INPUT, nodata 0 (nodata cells, cells outside the\n"
    "            range); more than 2^32 - 2 regions is an error (exit 1)\n"
    "\n"
    "Options:\n"
    "{flags Options}\n"
    "\n"
    "JSON keys: regions, cells_labelled, largest_region (cells), border_regions, merged_border_regions,\n"
    "external_merge (true: the border regions did not fit --memory and were merged on disk),\n"
    "by, range, connectivity, tile, device, stats, min_size {min_size, action, regions_before, small_regions,\n"
    "merged, isolated} (with --min-size), phases {import, tile_labels, merge, relabel, stats, sieve, and\n"
    "the splits: tile_labels_solve, tile_labels_borders, tile_labels_table (solver, border records,\n"
    "table); relabel_solve, relabel_number, relabel_write (solver wait, numbering, writer); device_setup\n"
    "(device probe, solver buffers), device_busy (GPU copies and kernels, overlapped), finish (writer\n"
    "drain)}, seconds,\n"
    "memory_budget_bytes, memory_peak_reserved_bytes, peak_rss_bytes, bytes_read, bytes_written;\n"
    "under mpirun, ranks {count, tiles, weight, peak_rss_bytes, bytes_sent, bytes_received, phases}\n"
    "(one element per rank; docs/distributed.md).\n"
    "\n"
    "Example:\n"
    "  terrazo clump --json landcover.tif regions.tif\n"
    "  terrazo clump --by range:1000,1500 --connectivity 4 dem.tif bands.tif\n";

// terrazo corridor
const char kCorridorUsage[] =
    "Usage: terrazo corridor [--threshold C | --percent P] [options] A.tif B.tif CORRIDOR.tif\n"
    "\n"
    "The least-cost corridor between two sources: the sum of their two cost surfaces (two runs of\n"
    "`terrazo sssp` over the same friction, one from each source). A cell's sum is the cost of the\n"
    "cheapest path from source A to source B through that cell; the least-cost path is where the sum\n"
    "is smallest, and thresholding the sum keeps the cells of near-optimal routes (ArcGIS's Corridor;\n"
    "docs/corridor.md). Streamed strip by strip: rasters of any size under --memory.\n"
    "\n"
    "A.tif, B.tif   cost surfaces of the same grid (width, height, geotransform), nodata where unreached\n"
    "CORRIDOR.tif   Float64 GeoTIFF georeferenced like A.tif: A + B, nodata -1 where either is nodata\n"
    "               or the sum is above the threshold\n"
    "\n"
    "Options:\n"
    "{flags Options}\n"
    "\n"
    "JSON keys: width, height, valid_cells, corridor_cells, min_sum, max_sum, threshold (-1: none),\n"
    "seconds, peak_rss_bytes, bytes_read, bytes_written.\n"
    "\n"
    "Example:\n"
    "  terrazo sssp --source 10,20 friction.tif from_a.tif\n"
    "  terrazo sssp --source 900,750 friction.tif from_b.tif\n"
    "  terrazo corridor --percent 5 from_a.tif from_b.tif corridor.tif\n";

// terrazo export
const char kExportUsage[] =
    "Usage: terrazo export [options] INPUT OUTPUT.tif\n"
    "\n"
    "Writes a tile store (or any raster) as a tiled, compressed GeoTIFF with the input's\n"
    "cell type, nodata, geotransform and CRS, streaming tile rows within --memory.\n"
    "\n"
    "Options:\n"
    "{flags Options}\n"
    "\n"
    "Example:\n"
    "  terrazo export dem.tzs dem.tif\n";

// terrazo fill
const char kFillUsage[] =
    "Usage: terrazo fill [options] INPUT FILLED.tif\n"
    "\n"
    "Fills the depressions of the elevation raster INPUT, exactly and out of core: each cell is raised to\n"
    "the lowest level at which water on it can leave the raster, the least over paths to an outlet of the\n"
    "highest cell on the path (Priority-Flood by tiles and the spill graph of their labels, Barnes 2016).\n"
    "Cells on no depression keep their value bit for bit; the output is the same for every --tile,\n"
    "--threads and --device. On a GPU (--device cuda, or auto with one) the raster is held in GPU memory\n"
    "and filled by rounds of tile solves (docs/fill.md \"On the GPU\"); a raster too large for it runs\n"
    "the tiles on the CPU, with a warning.\n"
    "\n"
    "INPUT       any GDAL raster (GeoTIFF, .hgt, .bil, .asc, .asc.gz) or a terrazo tile store (.tzs)\n"
    "FILLED.tif GeoTIFF of INPUT's cell type, nodata and georeference; a region with no outlet (closed\n"
    "           by nodata when only the raster's edge drains) is nodata\n"
    "\n"
    "Options:\n"
    "{flags Options}\n"
    "\n"
    "JSON keys: width, height, tile, outlets, connectivity, device, path (tiles or resident), fallback\n"
    "(why a GPU run took the tiles), valid_cells, raised_cells, closed_cells; the tiles: graph_nodes,\n"
    "graph_edges, kept_tiles (tiles flooded once: their first flood kept for the write), phases {import,\n"
    "flood, graph, write}; resident: resident {tile, rounds, solves, tiles_solved, max_round_tiles,\n"
    "cells_lowered, sweeps, gpu_ms}, phases {import, load, solve, write}; then seconds,\n"
    "memory_budget_bytes, memory_plan, peak_rss_bytes, bytes_read, bytes_written.\n"
    "\n"
    "Example:\n"
    "  terrazo fill --memory 2G --json dem.tif filled.tif\n"
    "  terrazo fill --outlets edge --connectivity 4 dem.tzs filled.tif\n"
    "  terrazo fill --device cuda --gpu-memory 40G --json dem.tif filled.tif\n";

// terrazo gen
const char kGenUsage[] =
    "Usage: terrazo gen --width W --height H [options] OUTPUT\n"
    "\n"
    "Makes deterministic fractal terrain (value-noise fBm with river valleys and pits) of any size,\n"
    "tile by tile, straight into a terrazo tile store (OUTPUT.tzs) or a tiled GeoTIFF (OUTPUT.tif).\n"
    "The same options give identical cells whatever the tile size or thread count, and a W x H\n"
    "raster is the top-left crop of any larger one with the same seed.\n"
    "\n"
    "Options:\n"
    "{flags Options}\n"
    "\n"
    "Nodata is -9999 for float types, the lowest value for signed and the highest for unsigned integers.\n"
    "\n"
    "Example:\n"
    "  terrazo gen --width 65536 --height 65536 --seed 7 --nodata-holes 0.05 big.tzs\n";

// terrazo import
const char kImportUsage[] =
    "Usage: terrazo import [options] INPUT OUTPUT.tzs\n"
    "\n"
    "Converts any GDAL raster (GeoTIFF, SRTM .hgt, ENVI .bil, ESRI .asc and .asc.gz, ...) into a\n"
    "terrazo tile store: t x t tiles in Z-order, georeferencing and nodata kept, min/max computed\n"
    "from the data. One streaming pass; memory stays within --memory whatever the raster size.\n"
    "\n"
    "Options:\n"
    "{flags Options}\n"
    "\n"
    "Example:\n"
    "  terrazo import --memory 512M --tile 256 dem.tif dem.tzs\n";

// terrazo index
const char kIndexUsage[] =
    "Usage: terrazo index [options] INPUT INDEX.tzi\n"
    "\n"
    "Builds the boundary-graph index of INPUT (the graph G' of [Gerritsen2012, ch. 4]): for every tile,\n"
    "the exact cost distance between every pair of the tile's boundary cells over paths inside the tile,\n"
    "by nested dissection (16 or fewer cells a side by blocked Floyd-Warshall, then 2x2 merges up to the\n"
    "tile). Built once per terrain and weight model, it answers many-site queries fast:\n"
    "`terrazo od-matrix --index INDEX.tzi` (docs/index.md).\n"
    "\n"
    "INPUT       any GDAL raster or a terrazo tile store (.tzs), the cost surface\n"
    "INDEX.tzi   the index: per tile its ring values and the upper triangle of its (4t-4)^2 distance\n"
    "            matrix, 32-bit entries where they fit, else 64-bit; about 32 bytes per cell\n"
    "\n"
    "Options:\n"
    "{flags Options}\n"
    "\n"
    "JSON keys: width, height, tile, leaf, device, weight, connectivity, scale, offset, tiles,\n"
    "present_tiles, bytes, bytes_per_cell, matrices_per_second, phases {import, read, matrices, write},\n"
    "kernel_ms, seconds, fingerprint, peak_rss_bytes.\n"
    "\n"
    "Examples:\n"
    "  terrazo index dem.tif dem.tzi\n"
    "  terrazo index --weight absdiff --tile 128 --memory 4G dem.tif dem_absdiff.tzi\n";

// terrazo info
const char kInfoUsage[] =
    "Usage: terrazo info [options] INPUT\n"
    "\n"
    "Describes a tile store or any GDAL raster: size, cell type, tiles, nodata value and share,\n"
    "min and max (computed by reading every cell, never taken from metadata; this also verifies\n"
    "every tile checksum of a store), geotransform and CRS. A boundary-graph index (.tzi, `terrazo\n"
    "index`): its raster size and fingerprint, weights, tiles and size; every tile checksum verified.\n"
    "\n"
    "Options:\n"
    "{flags Options}\n"
    "\n"
    "Example:\n"
    "  terrazo info --json dem.tzs\n";

// terrazo mst
const char kMstUsage[] =
    "Usage: terrazo mst [options] INPUT EDGES.tif\n"
    "\n"
    "Minimum spanning tree (a forest where nodata splits the terrain) of the grid graph of INPUT, computed\n"
    "out of core: block-local MST per tile, hierarchical merge of tile summaries, expansion (Gerritsen 2012).\n"
    "The tree is unique: edges are ordered by (weight, smaller cell id, larger cell id), cell id = y*W + x.\n"
    "\n"
    "INPUT      any GDAL raster (GeoTIFF, .hgt, .bil, .asc, .asc.gz) or a terrazo tile store (.tzs)\n"
    "EDGES.tif  Byte GeoTIFF, georeferenced like INPUT: each cell's bits mark its tree edges,\n"
    "           bit 0 = E (x+1, y), bit 1 = SE (x+1, y+1), bit 2 = S (x, y+1), bit 3 = SW (x-1, y+1);\n"
    "           255 = nodata cell. Give '-' to write no raster (totals and --edge-list only).\n"
    "\n"
    "Options:\n"
    "{flags Options}\n"
    "\n"
    "JSON keys: total_weight (fixed-point units), total_weight_input_units, edges, vertices, components,\n"
    "scale, scale_given, step_error_bound (input units per weight; 0: exact), relative_error_bound (null:\n"
    "void), offset, weight, connectivity, tile, device, merge (the mode that ran), phases {import,\n"
    "block_local, merge, expansion}, seconds, gpu_kernel_seconds (phase 1), gpu_merge_kernel_seconds,\n"
    "merge_batches, peak_rss_bytes, bytes_read, bytes_written; under mpirun (--merge cpu only), ranks\n"
    "{count, tiles, weight, peak_rss_bytes, bytes_sent, bytes_received, phases} (docs/distributed.md).\n"
    "\n"
    "Example:\n"
    "  terrazo mst --memory 1G --json dem.tif mst_edges.tif\n"
    "  terrazo mst --weight absdiff --connectivity 4 --edge-list tree.bin dem.tzs -\n"
    "  terrazo mst --device cuda --merge cuda --json dem.tzs mst_edges.tif\n";

// terrazo network
const char kNetworkUsage[] =
    "Usage: terrazo network --site x,y --site x,y [...] | --sites-file FILE | --sites-raster R [options]\n"
    "                       INPUT OUT.geojson\n"
    "\n"
    "The least-cost network connecting K sites: the minimum spanning tree of the sites' exact cost matrix\n"
    "(`terrazo od-matrix`), each tree edge traced as a least-cost path (`terrazo sssp --backlink` from the\n"
    "lower site id, then `terrazo path`). Sites no path joins give a forest. docs/index.md.\n"
    "\n"
    "OUT.geojson  one LineString per tree edge (cell centres, INPUT's CRS), properties from_id, to_id,\n"
    "             cost (cost units), length (map units), cells\n"
    "\n"
    "Sites: points (--site, --sites-file), or regions: --sites-raster R, a raster of INPUT's size whose\n"
    "cells hold region ids (positive integers; 0 and nodata: none), e.g. habitat patches. The cost\n"
    "between two regions is the least over their cells' pairs; an edge's line runs from the cell of the\n"
    "higher region where that least cost is reached (lowest cell id on ties) back to the lower region;\n"
    "from_id and to_id are the region ids.\n"
    "\n"
    "Sites (at least 2; ids 1, 2, ... in the order given):\n"
    "{flags Sites}\n"
    "\n"
    "Options (those of `terrazo od-matrix` but --max-cost, --wide and --geojson):\n"
    "{flags Options}\n"
    "\n"
    "JSON keys: sites, edges, components, total_cost, method, phases {matrix, paths}, seconds, peak_rss_bytes.\n"
    "\n"
    "Example:\n"
    "  terrazo network --index dem.tzi --sites-file towns.gpkg dem.tif links.geojson\n"
    "  terrazo network --sites-raster patches.tif friction.tif corridors.geojson\n";

// terrazo od-matrix
const char kOdMatrixUsage[] =
    "Usage: terrazo od-matrix --site x,y --site x,y [...] | --sites-file FILE | --sites-raster R [options] INPUT OUT.csv\n"
    "\n"
    "The exact cost-distance matrix between K sites over the 8- (or 4-) connected grid graph of INPUT,\n"
    "the same numbers `terrazo sssp` gives at the sites. With --index, from the boundary-graph index of\n"
    "`terrazo index` (one in-tile solve per site, then an exchange over the tiles' boundaries whose tile\n"
    "re-solves are min-plus products, on the GPU with --device cuda); without, the same exchange with\n"
    "in-tile solves, the sites in batches, each tile read about once per batch (docs/index.md).\n"
    "\n"
    "INPUT      the cost surface: any GDAL raster or a terrazo tile store (.tzs)\n"
    "OUT.csv    `from_id,to_id,cost`: a header line, then one line per ordered pair of sites (K x K,\n"
    "           the diagonal 0), the cost in INPUT's cost units, empty where the target is unreachable\n"
    "           (or beyond --max-cost); --wide: a K x K table instead\n"
    "\n"
    "Sites (at least 2; ids 1, 2, ... in the order given):\n"
    "{flags Sites}\n"
    "\n"
    "Options:\n"
    "{flags Options}\n"
    "\n"
    "JSON keys: width, height, tile, method (index|exchange|transient index|index on the GPU), device,\n"
    "exchange (sweep, queue, rounds-cpu or rounds-gpu), weight, connectivity, scale, sites, pairs_reached,\n"
    "batch_sources, tile_solves, rounds, max_active, matrix_loads, gpu_uploads, kernel_ms\n"
    "(kernel_ms_select, _solve, _push: the GPU rounds' stages), due_sources (the (tile, source) pairs\n"
    "their solves multiplied), settled, stopped_early, max_live, index_bytes (the sweep: tiles settled,\n"
    "sources stopped early, the most label blocks of one source, the index in memory),\n"
    "index_kernel_ms (the index built on the GPU), cache_tiles,\n"
    "exchange_solves, phases {index (the transient index), import, sites, queries}, seconds, peak_rss_bytes.\n"
    "\n"
    "Examples:\n"
    "  terrazo index dem.tif dem.tzi\n"
    "  terrazo od-matrix --index dem.tzi --site 10,20 --site 300,40 --site 512,512 dem.tif od.csv\n"
    "  terrazo od-matrix --sites-file towns.gpkg --wide --max-cost 1e6 dem.tif od.csv\n";

// terrazo path
const char kPathUsage[] =
    "Usage: terrazo path --backlink BACK.tif --cost COST.tif --dest x,y [--dest ...] [options] PATHS.geojson\n"
    "\n"
    "Least-cost paths from destinations back to their nearest source, traced through the backlink raster\n"
    "of `terrazo sssp --backlink` (read window by window, so rasters larger than memory are fine).\n"
    "\n"
    "PATHS.geojson  one LineString per destination, source first, vertices at cell centres in the\n"
    "               rasters' CRS; properties dest_id, dest_x, dest_y, cost (COST.tif at the destination),\n"
    "               length (metres on the ellipsoid when the CRS is geographic, lon/lat; map units\n"
    "               otherwise; whatever sssp's --distance was), length_cells (1 per orthogonal, sqrt 2\n"
    "               per diagonal step), cells\n"
    "\n"
    "Options:\n"
    "{flags Options}\n"
    "\n"
    "JSON keys: length_unit (metre or map unit), paths [{dest, x, y, source_x, source_y, cost, length,\n"
    "length_cells, cells}], seconds, peak_rss_bytes,\n"
    "bytes_read, bytes_written, bytes_spilled.\n"
    "\n"
    "Example:\n"
    "  terrazo sssp --source 120,45 --backlink back.tif dem.tif cost.tif\n"
    "  terrazo path --backlink back.tif --cost cost.tif --dest 900,700 --dest 10,300 paths.geojson\n"
    "  ogrinfo -al paths.geojson\n";

// terrazo render
const char kRenderUsage[] =
    "Usage: terrazo render [options] INPUT OUT.png\n"
    "\n"
    "A quick-look picture of a terrazo input or output: a DEM, a cost surface, a backlink raster,\n"
    "allocation zones or clump labels, an MST edge raster; paths and sources drawn on top; a legend\n"
    "and a scale bar in a panel under the map. The raster is read at the picture's size (GDAL's\n"
    "decimated read, from overviews when the file has them: `gdaladdo` makes them), so rasters far\n"
    "larger than --memory draw quickly in memory proportional to the picture.\n"
    "\n"
    "Kinds (--kind; auto: UInt32 -> labels, Float with nodata -1 (what `terrazo sssp` writes) ->\n"
    "cost, Byte with nodata 255 -> choose backlink or edges, anything else -> dem):\n"
    "  dem       terrain colours under a hillshade (sun from the north-west, 45 degrees up)\n"
    "  cost      viridis colour map (perceptually uniform) and contour lines, over a hillshade of\n"
    "            --terrain when given\n"
    "  backlink  one colour per direction to the predecessor (E, SE, S, SW, W, NW, N, NE); a knight's\n"
    "            move (--connectivity 16) halfway between the two directions it lies between\n"
    "  labels    a 12-colour categorical palette: clump labels, sssp --allocation zones\n"
    "  edges     MST edge raster: tree edges as lines between cell centres (when the picture has a\n"
    "            pixel per cell or more), else the cells that own an edge\n"
    "Nodata is transparent.\n"
    "\n"
    "Options:\n"
    "{flags Options}\n"
    "\n"
    "Examples:\n"
    "  terrazo render dem.tif dem.png\n"
    "  terrazo render --terrain dem.tif --paths paths.geojson --source 120,45 cost.tif cost.png\n"
    "  terrazo render --kind edges --width 800 edges.tif edges.png\n"
    "  terrazo render --kind labels --terrain dem.tif nearest.tif zones.png\n";

// terrazo sssp
const char kSsspUsage[] =
    "Usage: terrazo sssp --source x,y [--source ...] [options] INPUT COST.tif\n"
    "       terrazo cost-distance ...   (the same command)\n"
    "\n"
    "Cumulative cost distance from one or more sources over the 8- (or 4-) connected grid graph of\n"
    "INPUT, exact, out of core: block-local Dijkstra per tile and a tile-level priority queue that\n"
    "pushes improved tile borders to the neighbouring tiles until nothing improves (docs/sssp.md).\n"
    "With the default friction weight the result is GRASS r.cost's and scikit-image MCP_Geometric's.\n"
    "\n"
    "INPUT      any GDAL raster (GeoTIFF, .hgt, .bil, .asc, .asc.gz) or a terrazo tile store (.tzs)\n"
    "COST.tif   Float64 GeoTIFF (--ot Float32: half the size, each value rounded to 24 bits), georeferenced\n"
    "           like INPUT: cost distance in INPUT's cost units;\n"
    "           nodata -1 where no source reaches (or beyond --max-cost). '-' writes none.\n"
    "\n"
    "Sources (at least one; ids 1, 2, ... in the order given, for --allocation):\n"
    "{flags Sources}\n"
    "\n"
    "Per-source settings (ArcGIS's source characteristics; docs/sssp.md \"Per-source settings\"):\n"
    "{flags Per-source settings}\n"
    "\n"
    "Index:\n"
    "{flags Index}\n"
    "\n"
    "Outputs:\n"
    "{flags Outputs}\n"
    "\n"
    "Options:\n"
    "{flags Options}\n"
    "\n"
    "JSON keys: cost_type, width, height, tile, device, exchange, block_solver, weight (walk or tobler\n"
    "with --model), distance, direction, length_unit, barrier_raster, barrier_band, barrier_cells,\n"
    "connectivity, scale, input_read,\n"
    "scale_given, step_error_bound (input units per step; 0: exact), relative_error_bound (of every\n"
    "path; null: void), offset, sources, source_start, source_max_field, source_multiplier_field,\n"
    "source_initial, source_multiplier, source_groups, sources_beyond_max_cost, reached_cells,\n"
    "max_distance, tiles, tiles_solved, solves,\n"
    "resolves, rounds, phases {import, load, sources, exchange, flush, write}, seconds,\n"
    "peak_rss_bytes, bytes_read, bytes_written, scratch_bytes; with the resident exchange also\n"
    "resident {tile, rounds, max_round_tiles, sweeps, gpu_ms, select_ms, solve_ms} (GPU counters;\n"
    "0 on the CPU).\n"
    "\n"
    "Examples:\n"
    "  terrazo sssp --source 120,45 --backlink back.tif dem.tif cost.tif\n"
    "  terrazo cost-distance --source-crs EPSG:4326 --source -71.30,44.27 --max-cost 5e6 dem.tif cost.tif\n"
    "  terrazo sssp --sources-file towns.gpkg --allocation nearest.tif --memory 2G --json friction.tif cost.tif\n"
    "  terrazo sssp --distance geodesic --source 10,10 friction_per_metre.tif cost.tif\n"
    "  terrazo sssp --weight unit --barrier-raster walls.tif --source 5,5 land.tif hops.tif\n"
    "  terrazo sssp --sources-file depots.gpkg --source-multiplier-field speed_factor --source-max-field range\n"
    "               --allocation served.tif friction.tif cost.tif\n"
    "  terrazo sssp --model walk --friction landcover_s_per_m.tif --source 10,10 dem_utm.tif minutes.tif\n";

}  // namespace

const char* clump_usage() { return usage_text("clump", kClumpUsage); }
const char* corridor_usage() { return usage_text("corridor", kCorridorUsage); }
const char* export_usage() { return usage_text("export", kExportUsage); }
const char* fill_usage() { return usage_text("fill", kFillUsage); }
const char* gen_usage() { return usage_text("gen", kGenUsage); }
const char* import_usage() { return usage_text("import", kImportUsage); }
const char* index_usage() { return usage_text("index", kIndexUsage); }
const char* info_usage() { return usage_text("info", kInfoUsage); }
const char* mst_usage() { return usage_text("mst", kMstUsage); }
const char* network_usage() { return usage_text("network", kNetworkUsage); }
const char* od_matrix_usage() { return usage_text("od-matrix", kOdMatrixUsage); }
const char* path_usage() { return usage_text("path", kPathUsage); }
const char* render_usage() { return usage_text("render", kRenderUsage); }
const char* sssp_usage() { return usage_text("sssp", kSsspUsage); }

}  // namespace terrazo
