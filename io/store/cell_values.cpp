#include "io/store/cell_values.h"

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <type_traits>

#include "kernels/common/error.h"

namespace terrazo {

namespace {

// Calls f(T{}) with T the C++ type of `type`.
template <class F>
auto dispatch(CellType type, F&& f) {
  switch (type) {
    case CellType::UInt8: return f(std::uint8_t{});
    case CellType::Int16: return f(std::int16_t{});
    case CellType::UInt16: return f(std::uint16_t{});
    case CellType::Int32: return f(std::int32_t{});
    case CellType::UInt32: return f(std::uint32_t{});
    case CellType::Float32: return f(float{});
    case CellType::Float64: return f(double{});
  }
  throw Error("unknown cell type code " + std::to_string(static_cast<unsigned>(type)));
}

template <class T>
bool integer_holds(double value) {
  return std::nearbyint(value) == value && value >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
         value <= static_cast<double>(std::numeric_limits<T>::max());
}

std::string format_exact(double value) {  // 17 digits: the value read back exactly
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

}  // namespace

NodataRule::NodataRule(CellType type, bool has_nodata, double nodata) : type_(type) {
  dispatch(type, [&](auto zero) {
    using T = decltype(zero);
    if (std::is_floating_point<T>::value) {
      // Float types always store NaN; a declared value rounds to the type as GDAL compares it.
      can_fill_ = true;
      fill_ = std::numeric_limits<double>::quiet_NaN();
      if (has_nodata && !std::isnan(nodata)) {
        const bool fits = std::is_same<T, double>::value || std::isinf(nodata) || std::fabs(nodata) <= FLT_MAX;
        if (fits) {
          matches_ = true;
          match_ = static_cast<double>(static_cast<T>(nodata));
          fill_ = match_;
        }
      }
    } else if (has_nodata && integer_holds<T>(nodata)) {
      matches_ = true;
      match_ = nodata;
      can_fill_ = true;
      fill_ = nodata;
    }
    return 0;
  });
}

void cells_to_doubles(const void* raw, std::size_t n, const NodataRule& rule, double* out) {
  if (rule.type() == CellType::UInt8 && n >= 1024) {
    // Byte: the 256 values looked up (the same doubles as below, nodata NaN); forward, as below, so
    // the in-place expansion (raw in the last n bytes of out) reads each cell before it is overwritten.
    double table[256];
    for (int v = 0; v < 256; ++v)
      table[v] = rule.is_nodata(static_cast<double>(v)) ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(v);
    const auto* bytes = static_cast<const std::uint8_t*>(raw);
    for (std::size_t i = 0; i < n; ++i) out[i] = table[bytes[i]];
    return;
  }
  dispatch(rule.type(), [&](auto zero) {
    using T = decltype(zero);
    const auto* bytes = static_cast<const unsigned char*>(raw);
    // Forward order with memcpy reads keeps the in-place expansion safe (see header).
    for (std::size_t i = 0; i < n; ++i) {
      T cell;
      std::memcpy(&cell, bytes + i * sizeof(T), sizeof(T));
      const double value = static_cast<double>(cell);
      out[i] = rule.is_nodata(value) ? std::numeric_limits<double>::quiet_NaN() : value;
    }
    return 0;
  });
}

void doubles_to_cells(const double* values, std::size_t n, const NodataRule& rule, void* out) {
  dispatch(rule.type(), [&](auto zero) {
    using T = decltype(zero);
    auto* bytes = static_cast<unsigned char*>(out);
    for (std::size_t i = 0; i < n; ++i) {
      double value = values[i];
      if (std::isnan(value)) {
        if (!rule.can_store_nodata())
          throw Error(std::string("a nodata (NaN) cell cannot be stored in this ") + to_string(rule.type()) +
                      " raster: it has no nodata value the type can hold");
        value = rule.fill_value();
      }
      T cell;
      if (std::is_floating_point<T>::value) {
        if (std::is_same<T, float>::value && std::isfinite(value) && std::fabs(value) > FLT_MAX)
          throw Error("value " + format_exact(value) + " does not fit a Float32 cell");
        cell = static_cast<T>(value);
      } else {
        const double rounded = std::nearbyint(value);
        if (!(rounded >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
              rounded <= static_cast<double>(std::numeric_limits<T>::max())))
          throw Error("value " + format_exact(value) + " does not fit a " + to_string(rule.type()) + " cell");
        cell = static_cast<T>(rounded);
      }
      std::memcpy(bytes + i * sizeof(T), &cell, sizeof(T));
    }
    return 0;
  });
}

void CellStats::merge(const CellStats& other) {
  if (other.valid == 0) return;
  if (valid == 0 || other.min < min) min = other.min;
  if (valid == 0 || other.max > max) max = other.max;
  valid += other.valid;
}

CellStats scan_cells(const void* raw, std::uint64_t rows, std::uint64_t cols, std::uint64_t stride,
                     const NodataRule& rule) {
  if (rule.type() == CellType::UInt8) {
    // Byte: a histogram of the 256 values, then the valid ones in order (the same statistics).
    std::uint64_t count[256] = {};
    const auto* bytes = static_cast<const std::uint8_t*>(raw);
    for (std::uint64_t r = 0; r < rows; ++r)
      for (std::uint64_t c = 0; c < cols; ++c) ++count[bytes[r * stride + c]];
    CellStats stats;
    for (int v = 0; v < 256; ++v)
      if (count[v] && !rule.is_nodata(static_cast<double>(v))) {
        if (stats.valid == 0) stats.min = v;
        stats.max = v;
        stats.valid += count[v];
      }
    return stats;
  }
  return dispatch(rule.type(), [&](auto zero) {
    using T = decltype(zero);
    const auto* bytes = static_cast<const unsigned char*>(raw);
    CellStats stats;
    for (std::uint64_t r = 0; r < rows; ++r) {
      const unsigned char* row = bytes + r * stride * sizeof(T);
      for (std::uint64_t c = 0; c < cols; ++c) {
        T cell;
        std::memcpy(&cell, row + c * sizeof(T), sizeof(T));
        const double value = static_cast<double>(cell);
        if (!rule.is_nodata(value)) stats.add(value);
      }
    }
    return stats;
  });
}

CellStats scan_doubles(const double* values, std::uint64_t rows, std::uint64_t cols, std::uint64_t stride) {
  CellStats stats;
  for (std::uint64_t r = 0; r < rows; ++r) {
    const double* row = values + r * stride;
    for (std::uint64_t c = 0; c < cols; ++c)
      if (!std::isnan(row[c])) stats.add(row[c]);
  }
  return stats;
}

}  // namespace terrazo
