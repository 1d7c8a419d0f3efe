// io/store/cell_values.h: cells of a raster's own type <-> doubles, and the nodata rule.
//
// The nodata rule, the same for every reader and writer of terrazo:
//  - a float cell that is NaN is nodata, whether or not the raster declares a nodata value;
//  - a cell equal to the declared nodata value *as the cell type holds it* is nodata: for Float32
//    the value rounded to float (as GDAL compares), for integer types only when the value is an
//    integer inside the type's range; a declared value the type cannot hold (e.g. -9999 on a Byte
//    band) matches no cell, and is kept as metadata only.
//  - writing a NaN stores the nodata value; a float raster without one stores NaN; an integer
//    raster without a representable nodata value cannot store a NaN (Error).
// Values written to integer types are rounded to nearest; a value outside the type's range is an
// Error, never clamped or wrapped.
#pragma once
#include <cstddef>
#include <cstdint>

#include "io/store/raster_info.h"

namespace terrazo {

class NodataRule {
 public:
  NodataRule(CellType type, bool has_nodata, double nodata);
  explicit NodataRule(const RasterInfo& info) : NodataRule(info.type, info.has_nodata, info.nodata) {}

  // True when `value` (a cell of the type, widened to double) is nodata.
  bool is_nodata(double value) const { return value != value || (matches_ && value == match_); }
  // Whether a NaN can be stored, and the value stored for it.
  bool can_store_nodata() const { return can_fill_; }
  double fill_value() const { return fill_; }
  // The value padding cells of edge tiles hold: fill_value() when storable, else 0.
  double padding_value() const { return can_fill_ ? fill_ : 0.0; }
  CellType type() const { return type_; }

 private:
  CellType type_;
  bool matches_ = false;  // some cell value equals the declared nodata
  double match_ = 0.0;    // that value, as the type holds it
  bool can_fill_ = false;
  double fill_ = 0.0;
};

// `n` cells of `rule.type()` at `raw` -> doubles, nodata -> NaN. Expanding in place is allowed:
// `raw` may be the last n * cell_size bytes of the n doubles at `out`.
void cells_to_doubles(const void* raw, std::size_t n, const NodataRule& rule, double* out);

// `n` doubles -> cells of `rule.type()` at `out`: NaN -> the nodata value, integers rounded to
// nearest. Throws Error naming the value and type on a value out of range or an unstorable NaN.
void doubles_to_cells(const double* values, std::size_t n, const NodataRule& rule, void* out);

// Valid-cell count and range of a set of cells.
struct CellStats {
  std::uint64_t valid = 0;
  double min = 0.0, max = 0.0;  // meaningful when valid > 0
  void add(double value) {
    if (valid == 0 || value < min) min = value;
    if (valid == 0 || value > max) max = value;
    ++valid;
  }
  void merge(const CellStats& other);
};

// Statistics of the rows x cols block of cells starting at `raw`, rows `stride` cells apart.
CellStats scan_cells(const void* raw, std::uint64_t rows, std::uint64_t cols, std::uint64_t stride,
                     const NodataRule& rule);
// The same over doubles (NaN = nodata).
CellStats scan_doubles(const double* values, std::uint64_t rows, std::uint64_t cols, std::uint64_t stride);

}  // namespace terrazo
