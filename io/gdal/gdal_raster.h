// io/gdal/gdal_raster.h: reading any GDAL raster (and .asc/.asc.gz ESRI grids) by windows, and writing
// tiled, compressed GeoTIFF outputs window by window.
//
// Both keep GDAL's block cache inside a byte budget (GDALSetCacheMax64), so reading or writing a
// raster much larger than --memory stays within it. Writers publish atomically through
// io/store/atomic_output.h: they write a partial file of their own (`path.partial-<pid>-<hex>`) and
// rename it to `path` in finish(); destroyed unfinished they delete it. A run of several outputs
// gives them the outputs of its OutputSet (io/store/output_set.h) instead, which publishes them all.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/memory_budget.h"
#include "io/gdal/geotiff_options.h"
#include "io/gdal/tiff_block_writer.h"
#include "io/store/atomic_output.h"
#include "io/store/raster_info.h"

namespace terrazo {

// The files GDAL may write beside a GeoTIFF (what its tags cannot hold), published with it.
inline std::vector<std::string> geotiff_sidecar_suffixes() { return {".aux.xml"}; }

// Opens one band of a GDAL raster; ESRI ASCII grids, plain or gzip-compressed, through terrazo's
// strict reader (io/gdal/ascii_grid.h); and terrazo tile stores (one band each). Throws Error with the
// file name and GDAL's reason when it cannot. GDAL's messages never reach the terminal: they become
// the Error's text.
//
// Bands (docs/reliability.md "Bands"): `band` 0 means none was chosen: a raster of one band is
// read, a raster of several is a UsageError naming their count and `how_to_choose` (the caller's
// flag, e.g. "choose one with --band N"); a band outside 1..bands is a UsageError.
class RasterReader {
 public:
  // `budget`: a tile store's tile index is reserved from it (TileStore::open) for the reader's life.
  static std::unique_ptr<RasterReader> open(const std::string& path, std::uint32_t band = 0,
                                            const std::string& how_to_choose = kExtractBand,
                                            MemoryBudget* budget = nullptr);
  // The same, for a reader that only reads cells (a second reader of a file already opened, one per
  // thread): a GDAL raster's CRS is not read (info().crs_wkt is empty), which saves its PROJ
  // database look-ups (about 10 ms of CPU per reader).
  static std::unique_ptr<RasterReader> open_cells(const std::string& path, std::uint32_t band);
  // open() without the CRS of a GDAL raster (info().crs_wkt empty; read_crs_wkt gives it): the
  // first CRS look-up of a process costs 40-55 ms of PROJ database queries, which a caller can
  // overlap with reading the cells on other threads.
  // *crs_left_out: true when it was (a GDAL raster), false when info() has it (stores, ASCII grids, gzip).
  static std::unique_ptr<RasterReader> open_without_crs(const std::string& path, std::uint32_t band,
                                                        const std::string& how_to_choose, MemoryBudget* budget,
                                                        bool* crs_left_out);
  // The CRS (WKT, "" for none) of band `band` of `path` as open() reads it, through a dataset of its
  // own: safe while other threads read the raster through theirs.
  static std::string read_crs_wkt(const std::string& path, std::uint32_t band);
  static constexpr const char* kExtractBand = "extract one with `gdal_translate -b N`";
  static constexpr const char* kChooseBand = "choose one with --band N";
  virtual ~RasterReader() = default;
  // Size, type, nodata, geotransform, CRS. has_stats is false: statistics are computed, never trusted.
  virtual const RasterInfo& info() const = 0;
  // Cells [x0, x0+w) x [y0, y0+h) as doubles, row-major w*h; nodata cells become NaN.
  // An ASCII grid is parsed in one forward pass when windows come with non-decreasing y0 (as
  // import reads them); a row already passed parses the file again from the top.
  virtual void read_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, double* out) = 0;
  // Cells [x0, x0+w) x [y0, y0+h) as the file holds them: info().type, native byte order, nodata
  // not mapped; row r at `out` + r * line_cells cells. What the in-memory tiles of an integer raster
  // take without a round trip through doubles (engine/tile_inputs/in_memory_tile_input.h put_tile_cells).
  // False, and nothing read, where the reader has no such path (only GDAL rasters have).
  virtual bool read_window_cells(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, void* out,
                                 std::uint64_t line_cells) {
    (void)x0, (void)y0, (void)w, (void)h, (void)out, (void)line_cells;
    return false;
  }
  // The edge of the raster's blocks when they are square (a tiled GeoTIFF), else 0.
  virtual std::uint32_t square_block() const { return 0; }
  virtual std::uint64_t bytes_read() const = 0;
  // Memory the reader itself holds to serve windows up to `rows` rows high, GDAL's block cache
  // aside (GdalCacheLimit caps that): 0 for GDAL rasters, the parsed rows of a .asc.gz, one tile
  // for a tile store. Callers reserve it from the budget.
  virtual std::uint64_t resident_bytes(std::uint32_t rows) const {
    (void)rows;
    return 0;
  }
  // Bands of the raster, and the one this reader reads (docs/reliability.md "Bands").
  virtual std::uint32_t band_count() const { return 1; }
  virtual std::uint32_t band() const { return 1; }
  // The tile edge of a tile store, 0 for other rasters.
  virtual std::uint32_t store_tile() const { return 0; }
  // Format name for summaries: GDAL's driver ("GTiff", "AAIGrid", ...), "AAIGrid+gzip", "terrazo tile store".
  virtual std::string format() const { return "raster"; }
};

// Writes a tiled (block x block), compressed, BIGTIFF=IF_SAFER GeoTIFF of `type`, with the
// geotransform and CRS of `georef` (size from width/height, nodata from has_nodata/nodata). The
// creation options are terrazo's defaults with the user's --co on top (io/gdal/geotiff_options.h);
// compression runs on options.threads threads (0: all cores): terrazo's block writer for NONE, LZW,
// DEFLATE and ZSTD (io/gdal/tiff_block_writer.h: blocks in the order they complete, the same bytes
// for any thread count), GDAL's NUM_THREADS workers for other codecs (the order of blocks in the
// file may differ); cell values are the same either way.
//
// Publication: constructed from a path, the writer owns the output (an AtomicOutput) and finish()
// publishes it. Constructed from an AtomicOutput (one of a run's OutputSet, io/store/output_set.h),
// it writes that output's partial file and finish() only closes it: the set publishes every output
// of the run together. GDAL's sidecar (geotiff_sidecar_suffixes()) travels with the raster.
class GeoTiffWriter {
 public:
  GeoTiffWriter(const std::string& path, std::uint64_t width, std::uint64_t height, CellType type,
                const RasterInfo& georef, bool has_nodata, double nodata, std::uint32_t block = 256,
                const GeoTiffOptions& options = {});
  GeoTiffWriter(AtomicOutput& output, std::uint64_t width, std::uint64_t height, CellType type,
                const RasterInfo& georef, bool has_nodata, double nodata, std::uint32_t block = 256,
                const GeoTiffOptions& options = {});
  ~GeoTiffWriter();
  // Row-major w*h doubles; NaN is written as the nodata value, integers are rounded, a value the
  // type cannot hold is an Error. Windows may come in any order and must not overlap (each cell
  // written once). With the block writer (NONE/LZW/DEFLATE/ZSTD, io/gdal/tiff_block_writer.h) a
  // window's cells are only copied into their blocks here; a block is converted, encoded and
  // appended on the encoder threads once every cell of it inside the raster is written, so a value
  // the type cannot hold is reported by a later write_window or by finish(), and nothing is
  // published. On GDAL's path (other codecs) each block should be covered by one call (a block
  // filled by several calls may be compressed and stored more than once when GDAL's cache is small).
  // Memory: the blocks partly written (a window's edges), plus the encoders' blocks in flight,
  // within GDAL's cache limit (GdalCacheLimit).
  void write_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, const double* cells);
  void write_window_u8(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, const std::uint8_t* cells);
  // UInt32 cells as they are (no nodata mapping, no range check: for a UInt32 band, e.g. clump's labels).
  void write_window_u32(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, const std::uint32_t* cells);
  // Whole blocks handed over without a copy (the block writer's path only; takes_blocks() says so):
  // take_block() lends a buffer of one block of the file's type (block x block cells, row-major;
  // any thread may call it), which the caller fills completely (the cells beyond the raster's edge
  // with the nodata value, or 0) and gives back by write_block as block (bx, by), to be encoded as
  // it is (no nodata mapping or range check). A block goes either this way or through windows.
  bool takes_blocks() const;
  std::vector<std::uint8_t> take_block();
  void write_block(std::uint64_t bx, std::uint64_t by, std::vector<std::uint8_t> cells);
  // The block writer's format (null without one), and a block another process encoded with it
  // (encode_tiff_block(format, cells, true, &zstd): the same bytes the writer's threads make).
  const TiffBlockFormat* block_format() const;
  void write_encoded_block(std::uint64_t bx, std::uint64_t by, std::vector<std::uint8_t> encoded);
  // Every block written and the file closed; published when the writer owns its output.
  void finish();
  std::uint64_t bytes_written() const;  // size of the finished file
  struct Impl;

 private:
  static void start(Impl& w, std::uint64_t width, std::uint64_t height, CellType type, const RasterInfo& georef,
                    bool has_nodata, double nodata, std::uint32_t block, const GeoTiffOptions& options);
  static void create_with_gdal(Impl& w, const RasterInfo& georef, bool has_nodata, double nodata,
                               const std::vector<std::pair<std::string, std::string>>& creation_options,
                               bool block_writer);
  std::unique_ptr<Impl> impl_;
};

// Caps GDAL's block cache (bytes) and reserves it from the budget for the lifetime of the object.
class GdalCacheLimit {
 public:
  GdalCacheLimit(MemoryBudget& budget, std::uint64_t bytes);
  ~GdalCacheLimit();

 private:
  MemoryBudget::Reservation reservation_;
};

}  // namespace terrazo
