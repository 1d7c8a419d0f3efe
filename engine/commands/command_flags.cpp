// engine/commands/command_flags.cpp: the flags of every command, in usage order (engine/commands/flag_table.h).
//
// Each command's list is its `--help` Options (and other flag sections) in order: a flag of its own
// (value, switch_flag, repeated) with its help text, or a shared one (shared: flag_table.cpp's
// wording, the command's note, its default). The parser of a command reads only the flags listed here.
#include "engine/commands/flag_table.h"

#include <algorithm>
#include <map>

namespace terrazo {
namespace {

using Flags = std::vector<CommandFlag>;

// The shared flag `name`, with the command's `note` and its own default.
CommandFlag shared(const char* section, const char* name, const char* note = "", const char* default_text = nullptr) {
  return {section, shared_flag(name, note, default_text)};
}

// The shared flags `names` (separated by spaces), as the flag table words them.
Flags shared_run(const char* section, const std::string& names) {
  Flags flags;
  for (const std::string& name : split_text(names, ' ')) flags.push_back({section, shared_flag(name)});
  return flags;
}

// A flag that takes one value (the last one given wins).
CommandFlag value(const char* section, const char* name, FlagType type, const char* value_name,
                  const char* default_text, const char* help) {
  return {section, make_flag(name, type, value_name, default_text, help)};
}

CommandFlag switch_flag(const char* section, const char* name, const char* help) {
  return value(section, name, FlagType::Switch, "", "", help);
}

// A flag whose every value counts; `keyword`: the Python keyword taking a list ("sources"), "" for the name's.
CommandFlag repeated(const char* section, const char* name, FlagType type, const char* value_name, const char* keyword,
                     const char* help) {
  CommandFlag flag = value(section, name, type, value_name, "", help);
  flag.spec.repeatable = true;
  flag.spec.keyword = keyword;
  return flag;
}

CommandFlag with_alias(CommandFlag flag, const char* alias) {
  flag.spec.alias = alias;
  return flag;
}

void append(Flags& flags, CommandFlag flag) { flags.push_back(std::move(flag)); }
void append(Flags& flags, Flags more) {
  for (CommandFlag& flag : more) flags.push_back(std::move(flag));
}

// The flags `parts` (single flags and lists) in order: a command's usage order.
template <class... Parts>
Flags list(Parts... parts) {
  Flags flags;
  (append(flags, std::move(parts)), ...);
  return flags;
}

// --weight, --scale and --connectivity of the commands over a boundary-graph index (index, od-matrix).
Flags index_weight_flags() {
  return list(
      value("Options", "--weight", FlagType::Choice, "friction|absdiff|max", "",
        "edge weight model (default friction), as `terrazo sssp`"),
      value("Options", "--scale", FlagType::Number, "S", "",
        "fixed-point scale (default: the rule of docs/weights.md, as sssp)"),
      shared("Options", "--connectivity"));
}

Flags clump_flags() {
  return list(
      value("Options", "--by", FlagType::Choice, "value|valid|range:LO,HI", "",
        "what joins neighbours (default value for integer rasters; a\n"
        "floating-point raster needs --by):\n"
        "value        equal values (exact ==, so -0 = +0 on floats)\n"
        "valid        any two valid cells\n"
        "range:LO,HI  any two cells with LO <= value <= HI; others are nodata"),
      shared("Options", "--connectivity"),
      value("Options", "--min-size", FlagType::Integer, "N", "",
        "regions of fewer than N cells (N >= 1) are merged into the neighbour larger\n"
        "than them with which they share the longest border (neighbouring cell pairs;\n"
        "ties: the smallest label), as GDAL's sieve but by border; those with no larger\n"
        "neighbour stay; then the regions are numbered again 1..K' (docs/clump.md\n"
        "\"Small regions\"); not with --stats"),
      value("Options", "--min-size-action", FlagType::Choice, "merge|nodata", "",
        "merge (default) or make the small regions nodata"),
      value("Options", "--stats", FlagType::Path, "OUT.csv", "",
        "also write one line per region, in label order: label, cells, area (map\n"
        "units^2), value (--by value), col_min, row_min, col_max, row_max (cells,\n"
        "inclusive), x_min, y_min, x_max, y_max (map coordinates of the cell edges)"),
      shared("Options", "--co", "defaults: tiled, COMPRESS=ZSTD, ZSTD_LEVEL=1, PREDICTOR=1 (none), BIGTIFF=IF_SAFER, compression on --threads threads"),
      shared_run("Options", "--memory --band --threads"),
      shared("Options", "--device", "it runs the per-tile labelling, the same bits on either"),
      shared_run("Options", "--gpu-memory --tile --input-mode --tmpdir --json --quiet"));
}

Flags corridor_flags() {
  return list(
      value("Options", "--threshold", FlagType::Number, "C", "",
        "keep cells whose sum is <= C (cost units); others are nodata"),
      value("Options", "--percent", FlagType::Number, "P", "",
        "keep cells whose sum is <= m x (1 + P/100), m the smallest sum (the\n"
        "least-cost path's cost); reads both inputs twice"),
      value("Options", "--ot", FlagType::Choice, "Float64|Float32", "Float64",
        "cell type of CORRIDOR.tif"),
      shared("Options", "--co"),
      shared("Options", "--threads", "they compress the outputs"),
      shared_run("Options", "--memory --tmpdir --json --quiet"));
}

Flags export_flags() {
  return list(
      value("Options", "--block", FlagType::Integer, "B", "",
        "GeoTIFF block edge, a multiple of 16 up to 4096 (default: the store's tile, else 256)"),
      shared("Options", "--co", "defaults: COMPRESS=ZSTD, ZSTD_LEVEL=1, PREDICTOR 3 (floats), 2 (integers) or 1 (Byte), BIGTIFF=IF_SAFER"),
      shared("Options", "--threads", "they compress the outputs"),
      shared_run("Options", "--memory --band --tmpdir --json"),
      shared("Options", "--quiet", "no summary line either"));
}

Flags gen_flags() {
  return list(
      value("Options", "--width", FlagType::Integer, "W", "", "width in cells (required, >= 1)"),
      value("Options", "--height", FlagType::Integer, "H", "", "height in cells (required, >= 1)"),
      value("Options", "--seed", FlagType::Integer, "N", "1",
        "terrain seed"),
      value("Options", "--type", FlagType::Text, "TYPE", "",
        "Byte, Int16, UInt16, Int32, UInt32, Float32 (default) or Float64"),
      value("Options", "--relief", FlagType::Number, "METRES", "1000; 250 for Byte",
        "lowest valley to highest peak"),
      value("Options", "--base", FlagType::Number, "METRES", "0",
        "added to every cell, e.g. -500 for below-sea-level terrain"),
      value("Options", "--nodata-holes", FlagType::Number, "FRACTION", "0",
        "blob-shaped nodata holes covering about FRACTION of the cells"),
      switch_flag("Options", "--no-rivers",
        "no carved river valleys"),
      switch_flag("Options", "--no-pits",
        "no pits (closed depressions)"),
      value("Options", "--cell-size", FlagType::Number, "METRES", "30",
        "cell size of the geotransform"),
      value("Options", "--crs", FlagType::Text, "CRS", "",
        "EPSG:n, WKT or PROJ string (default EPSG:3857); none: no georeferencing"),
      shared("Options", "--tile", "also the GeoTIFF block edge", "256"),
      shared("Options", "--threads", "they make the tiles and compress them"),
      shared("Options", "--co", "it applies to OUTPUT.tif; defaults: tiled, COMPRESS=ZSTD, ZSTD_LEVEL=1, PREDICTOR 3 (floats), 2 (integers) or 1 (Byte)"),
      shared_run("Options", "--memory --tmpdir --json"),
      shared("Options", "--quiet", "no summary line either"));
}

Flags import_flags() {
  return list(
      shared("Options", "--tile", "", "256"),
      shared_run("Options", "--memory --band --tmpdir --json"),
      shared("Options", "--quiet", "no summary line either"));
}

Flags index_flags() {
  return list(
      index_weight_flags(),
      value("Options", "--distance", FlagType::Choice, "cells|map", "",
        "step lengths of --weight friction: cells 1 and sqrt 2 (default), map the\n"
        "geotransform's lengths (recorded; od-matrix and sssp --index must match;\n"
        "geodesic has no index: its lengths vary by row)"),
      shared("Options", "--tile", "the index tile, at most 1024: the matrices grow as (4N)^2 per N^2 cells, the build as N per cell, a query as the number of ring cells (4 / N per cell)", "64"),
      value("Options", "--leaf", FlagType::Integer, "4|8|16", "",
        "side of the nested dissection's leaf blocks (default 4 on the CPU, 8 on\n"
        "a GPU; tuning only, the matrices are the same)"),
      shared("Options", "--memory"),
      shared("Options", "--device", "it computes the matrices"),
      shared("Options", "--gpu-memory", "it holds a batch of tiles"),
      shared("Options", "--threads"),
      shared("Options", "--tmpdir", "it holds an import"),
      shared_run("Options", "--json --quiet"));
}

Flags info_flags() {
  return list(
      shared_run("Options", "--tmpdir --json --memory --band --quiet"));
}

Flags fill_flags() {
  return list(
      value("Options", "--outlets", FlagType::Choice, "both|edge|nodata", "both",
        "where water leaves: the raster's edge cells, the cells next to nodata, or both"),
      shared("Options", "--connectivity", "the paths and \"next to nodata\" alike"),
      shared("Options", "--co", "it applies to FILLED.tif; defaults: tiled, COMPRESS=ZSTD, ZSTD_LEVEL=1, BIGTIFF=IF_SAFER"),
      shared("Options", "--memory", "the floods of --threads tiles at once and 48 bytes per perimeter cell of every tile"),
      shared("Options", "--band"),
      shared("Options", "--device", "a GPU holds the raster (16 bytes a cell) and fills it in rounds of tile solves; the same bits"),
      shared("Options", "--gpu-memory", "the raster's 16 bytes a cell must fit it, else the tiles run on the CPU"),
      shared_run("Options", "--threads --tile --input-mode --tmpdir --json --quiet"));
}

Flags flowdir_flags() {
  return list(
      value("Options", "--outlets", FlagType::Choice, "both|edge|nodata", "both",
        "the outlets, as `terrazo fill`'s: the raster's edge cells, the cells next\n"
        "to nodata, or both; an outlet with no lower neighbour gets 0 (no flow)"),
      shared("Options", "--co", "it applies to FLOWDIR.tif; defaults: tiled, COMPRESS=ZSTD, ZSTD_LEVEL=1, BIGTIFF=IF_SAFER"),
      shared("Options", "--memory", "--threads tile windows (about 85 bytes a cell of a tile each) and 60 bytes per cell of the flats that cross tile borders"),
      shared("Options", "--band"),
      shared("Options", "--device", "cuda: the whole raster on the GPU (31 bytes a cell), the same bytes as the CPU's"),
      shared("Options", "--gpu-memory", "a raster it does not hold runs on the CPU, with a warning", "three quarters of the GPU's memory"),
      shared("Options", "--threads"),
      shared("Options", "--tile", "a larger tile keeps more flats inside one tile"),
      shared_run("Options", "--input-mode --tmpdir --json --quiet"));
}

Flags flowacc_flags() {
  return list(
      value("Options", "--weight", FlagType::Path, "RASTER", "",
        "sum this raster's values instead of counting cells (on DIRECTIONS' grid;\n"
        "a nodata weight counts 0); output Float64"),
      value("Options", "--scale", FlagType::Number, "S", "",
        "weights are summed exactly as 64-bit integers llround(w x S); default 1\n"
        "for an integer weight raster, else the largest power of 10 at which\n"
        "max|w| x valid cells x S <= 2^62 (no sum can overflow)"),
      value("Options", "--ot", FlagType::Choice, "auto|UInt32|Float64", "auto",
        "the counts' type: auto is UInt32 below 2^32 cells, else Float64"),
      shared("Options", "--co", "it applies to ACCUMULATION.tif; defaults: tiled, COMPRESS=ZSTD, ZSTD_LEVEL=1, BIGTIFF=IF_SAFER"),
      shared("Options", "--memory", "--threads tiles' work at once and 13 bytes per perimeter cell of every tile"),
      shared("Options", "--band"),
      shared("Options", "--device", "cuda: the whole raster on the GPU (13 bytes a cell), the same bytes as the CPU's"),
      shared("Options", "--gpu-memory", "a raster it does not hold runs on the CPU, with a warning", "three quarters of the GPU's memory"),
      shared_run("Options", "--threads --tile --input-mode --tmpdir --json --quiet"));
}

Flags watershed_flags() {
  return list(
      shared("Options", "--co", "it applies to BASINS.tif; defaults: tiled, COMPRESS=ZSTD, ZSTD_LEVEL=1, BIGTIFF=IF_SAFER"),
      shared("Options", "--memory", "--threads tiles' work at once, 13 bytes per perimeter cell of every tile and 4 per tile row; with --streams 30 more per perimeter cell"),
      shared("Options", "--band"),
      shared("Options", "--device", "cuda: the basins without pour points or streams with the whole raster on the GPU (21 bytes a cell), the same bytes as the CPU's; pour points and streams run on the CPU"),
      shared("Options", "--gpu-memory", "a raster it does not hold runs on the CPU, with a warning", "three quarters of the GPU's memory"),
      shared_run("Options", "--threads --tile --input-mode --tmpdir --json --quiet"),
      repeated("Pour points", "--outlet", FlagType::Point, "x,y", "outlets",
        "a pour point: column,row (0-based, row 0 at the top); repeatable. Only the\n"
        "cells draining to a pour point are labelled (the others 0)"),
      switch_flag("Pour points", "--map-coords",
        "--outlet values are map coordinates in DIRECTIONS' CRS"),
      value("Pour points", "--outlets-file", FlagType::Path, "FILE", "",
        "pour points from an OGR point layer, as sssp --sources-file: map\n"
        "coordinates in the file's CRS (a .csv: x,y or lon,lat columns, or WKT),\n"
        "after the --outlet points"),
      value("Pour points", "--snap", FlagType::Integer, "N", "",
        "move each pour point to the cell of largest --accumulation within the\n"
        "(2N+1) x (2N+1) cells around it (ties: the first in raster order;\n"
        "nodata passed over), as ArcGIS's Snap Pour Point"),
      value("Pour points", "--accumulation", FlagType::Path, "ACC.tif", "",
        "`terrazo flowacc`'s output on DIRECTIONS, which --snap reads (windows\n"
        "around the pour points only) and --streams (every tile)"),
      value("Streams", "--streams", FlagType::Integer, "THRESHOLD", "",
        "the stream network: the cells of --accumulation >= THRESHOLD (cells, >= 1),\n"
        "with Strahler orders; give --streams-raster and/or --streams-vector"),
      value("Streams", "--streams-raster", FlagType::Path, "FILE.tif", "",
        "UInt8 GeoTIFF: each stream cell's Strahler order, 0 elsewhere, 255 at nodata"),
      value("Streams", "--streams-vector", FlagType::Path, "FILE.geojson", "",
        "GeoJSON: a LineString per segment,\n"
        "from a source or a junction to the next junction, with properties segment,\n"
        "order, downstream (null: none) and cells; gathered in memory first (8 bytes\n"
        "per stream cell, 48 per piece of a segment in one tile)"));
}

Flags mst_flags() {
  return list(
      value("Options", "--weight", FlagType::Choice, "max|absdiff|friction", "",
        "edge weight model (default max):\n"
        "max      max(h(u), h(v)), minus the raster minimum when it is negative;\n"
        "         its tree holds the minimax (bottleneck) paths\n"
        "absdiff  |h(u) - h(v)|\n"
        "friction (c(u) + c(v)) / 2 x step length (1 or sqrt 2); costs must be >= 0"),
      value("Options", "--scale", FlagType::Number, "S", "",
        "fixed-point scale: weight = round(value x S) (default: 1 when every weight is\n"
        "an integer (integer raster, max or absdiff), else the largest power of 10\n"
        "keeping every weight <= 2^31; the rule of docs/weights.md)"),
      shared("Options", "--connectivity"),
      value("Options", "--edge-list", FlagType::Path, "FILE", "",
        "also write the tree as binary records: u64 a, u64 b, u32 weight (20 bytes,\n"
        "little-endian, a < b)"),
      shared("Options", "--co", "it applies to EDGES.tif; defaults: tiled, COMPRESS=ZSTD, ZSTD_LEVEL=1, BIGTIFF=IF_SAFER, compression on --threads threads"),
      shared_run("Options", "--memory --band"),
      shared("Options", "--device", "they run the block solvers"),
      value("Options", "--merge", FlagType::Choice, "auto|cpu|cpu-levels|cuda", "",
        "how the hierarchical merge of tile summaries runs; every mode\n"
        "gives the same tree, bit for bit (default auto: cuda when the block solvers run\n"
        "on the GPU, else cpu):\n"
        "cpu         post-order over the quadtree of tiles, subtrees in parallel on the\n"
        "            CPU threads; reads the tile summaries once\n"
        "cpu-levels  level by level: all merges of a level are packed as small graphs\n"
        "            into batches, solved by the CPU threads (the CPU twin of cuda);\n"
        "            writes and reads each level's summaries once more\n"
        "cuda        level by level, the batches solved on the GPU, the next one packed\n"
        "            while the GPU works; needs a CUDA device (an error without one)"),
      shared("Options", "--gpu-memory"),
      shared("Options", "--threads", "they run the block solvers"),
      shared_run("Options", "--tile --input-mode --tmpdir --json --quiet"));
}

Flags od_matrix_flags() {
  return list(
      repeated("Sites", "--site", FlagType::Point, "x,y", "sites",
        "a site cell: column,row (0-based, row 0 at the top); repeatable"),
      switch_flag("Sites", "--map-coords",
        "--site values are map coordinates in INPUT's CRS"),
      value("Sites", "--sites-file", FlagType::Path, "FILE", "",
        "an OGR vector file of points, in its layer's CRS (after the --site points;\n"
        "every feature a point; a .csv: a WKT column or x,y / lon,lat columns)"),
      switch_flag("Sites", "--skip-empty-features",
        "skip --sites-file features without geometry (null, empty) instead of\n"
        "refusing them; each leaves its id unused (the others keep their ids)"),
      value("Sites", "--sites-raster", FlagType::Path, "R", "",
        "region sites instead of points: a raster of INPUT's size whose cells hold\n"
        "region ids (positive integers; 0 and nodata: none), e.g. habitat patches;\n"
        "the cost between two regions is the least over their cells' pairs, ids\n"
        "in the CSV are the regions' ids (ascending); region cells on nodata are\n"
        "left out"),
      value("Options", "--index", FlagType::Path, "INDEX.tzi", "",
        "the index of INPUT (same --weight, --scale, --connectivity; checked, and\n"
        "its fingerprint against INPUT's cells: an index of another raster is an\n"
        "error)"),
      switch_flag("Options", "--skip-fingerprint-check",
        "with --index: do not check that it was built from INPUT's cells (for\n"
        "an INPUT known to hold them; docs/index.md \"Fingerprint\")"),
      index_weight_flags(),
      value("Options", "--distance", FlagType::Choice, "cells|map|geodesic", "",
        "step lengths of --weight friction, as `terrazo sssp`: cells 1 and\n"
        "sqrt 2 (default), map the geotransform's, geodesic metres on a lon/lat CRS\n"
        "(with --index: the index's mode; geodesic has no index)"),
      value("Options", "--max-cost", FlagType::Number, "C", "",
        "costs above C are reported unreachable (cost units)"),
      switch_flag("Options", "--wide",
        "write a K x K table (`from_id,1,2,...,K`) instead of the long form"),
      value("Options", "--geojson", FlagType::Path, "FILE", "",
        "also write one straight LineString per pair of sites i < j with a cost\n"
        "(cell centres, INPUT's CRS; properties from_id, to_id, cost); traced\n"
        "least-cost lines: `terrazo network`"),
      switch_flag("Options", "--transient-index",
        "build an index of INPUT first (as `terrazo index` with these --weight,\n"
        "--scale, --connectivity, --distance, --tile: 32 on the CPU, 64 on a\n"
        "GPU), query it, drop it; the default with --device cuda and no --index.\n"
        "On a GPU the matrices are built straight into the query's GPU memory;\n"
        "on the CPU into host memory (the index's compact records, about 32\n"
        "bytes a cell: give --memory that much and a third, e.g. 14G for 268 M\n"
        "cells), then the sweep (--exchange); a file in --tmpdir only when\n"
        "--memory or --gpu-memory cannot hold them. It pays for itself from the\n"
        "second site on a GPU, from about the 6th on the CPU (docs/index.md)"),
      shared("Options", "--device", "with an index (--index or --transient-index) it runs the build and the min-plus products; cuda without --index: a transient index built on the GPU; the same numbers every way"),
      shared("Options", "--gpu-memory", "it holds the index's matrices", "60% of the free memory"),
      value("Options", "--exchange", FlagType::Choice, "auto|queue|rounds|sweep", "",
        "with an index: the G' exchange; sweep (the CPU's auto when\n"
        "--memory holds the index): every source alone on a thread, tiles in\n"
        "Dijkstra order, the index in memory, each source stopped once the sites\n"
        "ranked after it are settled; queue: label-correcting, the sources in\n"
        "batches, the matrices through a cache; rounds: Bellman-Ford rounds over\n"
        "all tiles with the labels resident (on the GPU: matrices and labels in\n"
        "GPU memory; the GPU's auto when they fit in --gpu-memory, else queue);\n"
        "the same numbers every way"),
      shared("Options", "--memory"),
      shared("Options", "--threads", "they run the index build and the sweep's sources on the CPU, the in-tile solves without an index"),
      shared("Options", "--tile", "the exchange's without an index; a transient index's: 32 on the CPU, 64 on a GPU"),
      shared_run("Options", "--tmpdir --json --quiet"));
}

Flags path_flags() {
  return list(
      value("Options", "--backlink", FlagType::Path, "FILE", "",
        "backlink raster (Byte, 0..7 clockwise from east, 255 = none) from terrazo sssp"),
      value("Options", "--cost", FlagType::Path, "FILE", "",
        "cost raster from the same terrazo sssp run"),
      repeated("Options", "--dest", FlagType::Point, "x,y", "dests",
        "a destination cell: column,row (0-based); repeatable"),
      switch_flag("Options", "--map-coords",
        "--dest values are map coordinates in the rasters' CRS"),
      value("Options", "--dest-crs", FlagType::Text, "CRS", "",
        "--dest values are map coordinates in CRS (EPSG:4326, WKT, PROJ string)"),
      value("Options", "--mask", FlagType::Path, "FILE", "",
        "also write a Byte GeoTIFF: 1 on path cells, 0 elsewhere"),
      shared("Options", "--memory"),
      shared("Options", "--tmpdir", "it holds long paths' steps and the mask's cells"),
      shared_run("Options", "--json --quiet"));
}

Flags render_flags() {
  return list(
      value("Options", "--kind", FlagType::Text, "K", "auto",
        "auto|dem|cost|backlink|labels|edges"),
      value("Options", "--width", FlagType::Integer, "N", "",
        "picture width in pixels, 1..16384 (default 1024); the map's height follows\n"
        "the raster's aspect (round(N x rows / columns)); the legend adds 24 rows"),
      value("Options", "--terrain", FlagType::Path, "DEM", "",
        "a DEM of INPUT's size: its hillshade shades cost, backlink, labels, edges"),
      repeated("Options", "--paths", FlagType::Path, "FILE", "",
        "GeoJSON (any OGR file) of LineStrings in INPUT's CRS, e.g. from `terrazo\n"
        "path`; drawn red on a white halo; repeatable"),
      with_alias(repeated("Options", "--source", FlagType::Point, "x,y", "sources",
        "a source marker at column,row (0-based); repeatable (--sources alike)"), "--sources"),
      switch_flag("Options", "--map-coords",
        "--source values are map coordinates in INPUT's CRS"),
      value("Options", "--contours", FlagType::Integer, "N", "",
        "contour levels over the colour range (nice steps: 1, 2, 5 x 10^k);\n"
        "default 10 for cost, 0 (none) otherwise"),
      value("Options", "--range", FlagType::Text, "MIN,MAX", "",
        "colour map range (default: min and max of the values read)"),
      value("Options", "--colour-map", FlagType::Number, "M", "",
        "viridis|magma (cost; default viridis)"),
      switch_flag("Options", "--no-legend",
        "the map only, no panel"),
      shared_run("Options", "--band --memory --tmpdir --json --quiet"));
}

// sssp's Sources and Per-source settings.
Flags sssp_source_flags() {
  return list(
      repeated("Sources", "--source", FlagType::Point, "x,y", "sources",
        "a source cell: column,row (0-based, row 0 at the top); repeatable"),
      switch_flag("Sources", "--map-coords",
        "--source values are map coordinates in INPUT's CRS"),
      value("Sources", "--source-crs", FlagType::Text, "CRS", "",
        "--source values are map coordinates in CRS (EPSG:4326, WKT, PROJ string)"),
      value("Sources", "--sources-file", FlagType::Path, "FILE", "",
        "an OGR vector file of points (GeoJSON, GeoPackage, Shapefile, ...), in\n"
        "its layer's CRS (INPUT's when it has none); every feature a point (ids\n"
        "follow the file); a .csv: a WKT column or x,y / lon,lat columns"),
      switch_flag("Sources", "--skip-empty-features",
        "skip --sources-file features without geometry (null, empty) instead of\n"
        "refusing them; each leaves its id unused (the others keep their ids)"),
      value("Sources", "--source-raster", FlagType::Path, "FILE", "",
        "a mask raster of INPUT's size: cells not 0 and not nodata are sources,\n"
        "their value (a positive integer) is their id; cells on INPUT nodata are skipped"),
      with_alias(value("Per-source settings", "--source-initial-field", FlagType::Text, "FIELD", "",
        "initial cost of each --sources-file point from its numeric\n"
        "attribute FIELD (cost units, >= 0; null: --source-initial): the point's\n"
        "cost starts there (ArcGIS's initial accumulation, GRASS r.cost start\n"
        "values); --source-start FIELD is the same"), "--source-start"),
      value("Per-source settings", "--source-max-field", FlagType::Text, "FIELD", "",
        "maximum cost of each point (cost units, >= 0; null: none): the\n"
        "point reaches only cells where its cost is at most FIELD (and --max-cost)"),
      value("Per-source settings", "--source-multiplier-field", FlagType::Text, "FIELD", "",
        "cost multiplier of each point (> 0; null: --source-multiplier):\n"
        "its cost is initial + multiplier x path cost"),
      value("Per-source settings", "--source-initial", FlagType::Number, "C", "0",
        "initial cost of every source without its own"),
      value("Per-source settings", "--source-multiplier", FlagType::Number, "M", "1",
        "cost multiplier of every source without its own.\n"
        "A cell takes the cheapest source within that source's maximum, ties to the\n"
        "lower id. Sources of different (multiplier, maximum) run as groups, one\n"
        "pass each, merged cell by cell (JSON source_groups); --backlink is then\n"
        "refused (a traced path would cross other sources' zones)"));
}

// sssp's Index and Outputs.
Flags sssp_output_flags() {
  return list(
      value("Index", "--index", FlagType::Path, "INDEX.tzi", "",
        "distances from the boundary-graph index of `terrazo index` (same --weight,\n"
        "--scale, --connectivity; checked): one in-tile solve per source tile, the\n"
        "exchange over the tiles' boundaries, one in-tile solve per tile; the same\n"
        "costs; COST.tif only (docs/index.md). Its fingerprint is checked against\n"
        "INPUT's cells: an index of another raster is an error"),
      switch_flag("Index", "--skip-fingerprint-check",
        "with --index: do not check that it was built from INPUT's cells (for\n"
        "an INPUT known to hold them; docs/index.md \"Fingerprint\")"),
      value("Outputs", "--backlink", FlagType::Path, "FILE", "",
        "Byte GeoTIFF: direction to the predecessor on a least-cost path,\n"
        "0 E, 1 SE, 2 S, 3 SW, 4 W, 5 NW, 6 N, 7 NE; 255 at sources, nodata and\n"
        "unreached cells (input of `terrazo path`)"),
      value("Outputs", "--allocation", FlagType::Path, "FILE", "",
        "UInt32 GeoTIFF: id of the nearest source (the lowest id among equally\n"
        "near ones); 0 where unreached"),
      value("Outputs", "--ot", FlagType::Choice, "Float64|Float32", "",
        "cell type of COST.tif (default Float64; Float32 rounds each value to\n"
        "nearest, relative error <= 2^-24: docs/sssp.md \"Outputs\")"),
      shared("Outputs", "--co", "it applies to every output; defaults: tiled, COMPRESS=ZSTD, ZSTD_LEVEL=1, PREDICTOR=3 on COST.tif (2 on --allocation), BIGTIFF=IF_SAFER, compression on --threads threads (docs/benchmarks.md \"Output compression\")"));
}

// sssp's weight model, step lengths, cost models and barriers.
Flags sssp_weight_flags() {
  return list(
      value("Options", "--weight", FlagType::Choice, "friction|absdiff|max|unit|geometric", "",
        "edge weight model (default friction):\n"
        "friction  (c(u) + c(v)) / 2 x step length; costs >= 0 (cost per cell, per map\n"
        "          unit or per metre with --distance cells, map or geodesic)\n"
        "absdiff   |h(u) - h(v)|\n"
        "max       max(h(u), h(v)), minus the raster minimum when it is negative\n"
        "unit      1 per step: hop count (BFS levels) through the valid cells\n"
        "geometric the step length: distance through the valid cells, around\n"
        "          nodata and barriers (1 and sqrt 2, or --distance map|geodesic)"),
      value("Options", "--distance", FlagType::Choice, "cells|map|geodesic", "",
        "step length of friction and geometric (default cells):\n"
        "cells     1 orthogonal, sqrt 2 diagonal (as GRASS r.cost, scikit-image)\n"
        "map       the geotransform's |dx|, |dy|, sqrt(dx^2 + dy^2), in the CRS's\n"
        "          unit (refused on a lon/lat CRS: degrees are no length)\n"
        "geodesic  metres on the CRS's ellipsoid between the two cell centres\n"
        "          (lon/lat CRS only; every row has its own lengths; docs/weights.md)"),
      value("Options", "--model", FlagType::Choice, "walk|tobler", "",
        "directed (anisotropic) travel time over INPUT as elevation (docs/cost_models.md):\n"
        "walk      GRASS r.walk: a L + b dh uphill, a L + c dh moderate and a L + d dh\n"
        "          steep downhill (dh/L < --slope-factor), + lambda x friction x L\n"
        "tobler    Tobler's hiking function: 0.6 L exp(3.5 |dh/L + 0.05|) seconds\n"
        "          (6 km/h at dh/L = -0.05), + lambda x friction x L\n"
        "L in metres: --distance map on a projected CRS, geodesic on a lon/lat one\n"
        "(the default for these models; --distance cells takes 1 and sqrt 2)"),
      value("Options", "--friction", FlagType::Path, "FILE", "0",
        "walk/tobler: friction (seconds per metre, >= 0) on INPUT's grid"),
      value("Options", "--walk-coeff", FlagType::Text, "a,b,c,d", "0.72,6.0,1.9998,-1.9998, r.walk's",
        "walk: seconds per metre flat, per metre climbed, per metre descended moderately\n"
        "and steeply"),
      value("Options", "--lambda", FlagType::Number, "L", "1",
        "walk/tobler: weight of the friction term"),
      value("Options", "--slope-factor", FlagType::Number, "S", "-0.2125, tan 12 degrees",
        "walk: dh/L below which downhill is steep"),
      value("Options", "--direction", FlagType::Choice, "from|to", "",
        "walk/tobler: from = cost of travelling from the nearest source to each cell\n"
        "(the default, as r.walk); to = from each cell to its nearest source (ArcGIS's\n"
        "travel direction); no effect on symmetric weights"),
      value("Options", "--barrier-raster", FlagType::Path, "FILE", "",
        "a raster of INPUT's grid: cells not 0 and not nodata cannot be entered\n"
        "(as nodata cells; a source there is refused)"),
      value("Options", "--barrier-band", FlagType::Integer, "N", "",
        "read band N (1 = first) of a --barrier-raster of several bands (required\n"
        "then; --band chooses INPUT's band only)"),
      value("Options", "--scale", FlagType::Number, "S", "",
        "fixed-point scale: weight = round(value x S) (default: 1 when every weight is\n"
        "an integer (unit, or an integer raster with absdiff or max), else the\n"
        "largest power of 10 keeping every step weight <= 2^30; each step is exact\n"
        "to 0.5/S; the rule of docs/weights.md)"),
      value("Options", "--connectivity", FlagType::Choice, "8|4|16", "",
        "neighbours per cell (default 8); 16 adds the 8 knight's moves as GRASS\n"
        "r.cost -k (friction, geometric, unit; docs/sssp.md)"),
      value("Options", "--max-cost", FlagType::Number, "C", "",
        "stop at cost C: cells farther than C are unreached (cost units)"));
}

Flags sssp_flags() {
  return list(
      sssp_source_flags(), sssp_output_flags(), sssp_weight_flags(),
      shared_run("Options", "--memory --band"),
      shared("Options", "--device", "it runs the block solver (--backlink and --allocation use the CPU solver)"),
      shared("Options", "--gpu-memory", "it holds the CUDA solver's work; the resident exchange may use three quarters"),
      value("Options", "--exchange", FlagType::Choice, "auto|streamed|resident", "",
        "how tiles meet (default auto): streamed keeps a tile cache\n"
        "under --memory and works at any size; resident holds the whole raster on\n"
        "the solver's device (16 bytes per cell; distances only; 4, 8 or 16\n"
        "neighbours) and solves all pending tiles near the front per round;\n"
        "auto takes resident on a GPU that holds the raster when neither\n"
        "--backlink nor --allocation is given. Under mpirun each rank holds its\n"
        "part (its tiles and a one- or two-cell ring) on its own GPU or CPU"),
      value("Options", "--resident-tile", FlagType::Integer, "N", "64",
        "tile side of the resident exchange, 8..256"),
      value("Options", "--block-solver", FlagType::Choice, "auto|bfs|sweep", "",
        "how a tile is solved (default auto = sweep): bfs, the frontier\n"
        "BFS of --weight unit (on the CPU without --backlink/--allocation); sweep,\n"
        "the generic solvers (GPU relaxation sweeps, CPU Dijkstra), measured\n"
        "faster on terrain. Tuning only, the result is the same"),
      value("Options", "--resident-round", FlagType::Integer, "N", "",
        "tiles per round the resident exchange aims at (default 256 on a GPU,\n"
        "4 per thread on the CPU); tuning only, the result is the same"),
      shared("Options", "--threads", "they run the CPU solver"),
      shared_run("Options", "--tile --input-mode"),
      shared("Options", "--tmpdir", "it holds the distance store"),
      shared_run("Options", "--json --quiet"));
}

// network takes od-matrix's flags but the matrix's own (network_command.cpp refuses them by name).
Flags network_flags() {
  Flags flags;
  for (CommandFlag& flag : od_matrix_flags())
    if (flag.spec.name != "--max-cost" && flag.spec.name != "--wide" && flag.spec.name != "--geojson")
      flags.push_back(std::move(flag));
  return flags;
}

}  // namespace

const std::vector<CommandFlag>* command_flags(const std::string& command) {
  static const std::map<std::string, Flags> table = {
      {"clump", clump_flags()},   {"corridor", corridor_flags()}, {"export", export_flags()},
      {"gen", gen_flags()},       {"import", import_flags()},     {"index", index_flags()},
      {"info", info_flags()},     {"mst", mst_flags()},           {"fill", fill_flags()},           {"flowacc", flowacc_flags()},           {"network", network_flags()},
      {"flowdir", flowdir_flags()},
      {"od-matrix", od_matrix_flags()}, {"path", path_flags()},   {"render", render_flags()},
      {"sssp", sssp_flags()},     {"watershed", watershed_flags()},
  };
  const auto it = table.find(command);
  return it == table.end() ? nullptr : &it->second;
}

}  // namespace terrazo
