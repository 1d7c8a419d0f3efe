// engine/commands/generate_terrain.cpp: the terrain model of engine/commands/generate_terrain.h (TerrainGenerator).
#include "engine/commands/generate_terrain.h"

#include <cpl_error.h>
#include <ogr_spatialref.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/common/error.h"

namespace terrazo {
namespace {

// ---- hashing: SplitMix64 finalizer, keyed by (seed, layer) ---------------------------------------

inline std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

inline std::uint64_t lattice_hash(std::uint64_t key, std::uint64_t ix, std::uint64_t iy) {
  return mix64(mix64(key ^ ix) ^ (iy * 0xd1b54a32d192ed03ull));
}

// [0, 1) with 53 random bits.
inline double unit(std::uint64_t h) { return static_cast<double>(h >> 11) * 0x1.0p-53; }

// Layer identifiers: each layer of the terrain hashes with its own key.
enum Layer : std::uint64_t { kRelief = 1, kRivers = 2, kHoles = 3, kPits = 4, kHoleSamples = 5 };

std::uint64_t layer_key(std::uint64_t seed, Layer layer) { return mix64(mix64(seed) + layer); }

// ---- value-noise fBm ----------------------------------------------------------------------------

// One octave: lattice spacing 2^shift cells, values in [-1, 1) at lattice points, quintic-smoothed
// bilinear interpolation between them. fade[k] = s(k / 2^shift), s(t) = t^3 (t (6t - 15) + 10).
struct Octave {
  unsigned shift = 0;
  double amplitude = 0.0;
  std::uint64_t key = 0;
  std::vector<double> fade;

  double lattice(std::uint64_t ix, std::uint64_t iy) const { return 2.0 * unit(lattice_hash(key, ix, iy)) - 1.0; }
};

// Sum of octaves, amplitude multiplied by `gain` from each octave to the next and normalized to
// sum 1, so values lie in [-1, 1].
struct Fbm {
  std::vector<Octave> octaves;

  Fbm() = default;
  Fbm(std::uint64_t seed, Layer layer, unsigned first_shift, unsigned count, double gain) {
    double sum = 0.0;
    for (unsigned o = 0; o < count; ++o) sum += std::pow(gain, o);
    for (unsigned o = 0; o < count; ++o) {
      Octave octave;
      octave.shift = first_shift - o;
      octave.amplitude = std::pow(gain, o) / sum;
      octave.key = mix64(layer_key(seed, layer) + o);
      const std::uint64_t period = 1ull << octave.shift;
      octave.fade.resize(period);
      for (std::uint64_t k = 0; k < period; ++k) {
        const double t = static_cast<double>(k) / static_cast<double>(period);
        octave.fade[k] = t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
      }
      octaves.push_back(std::move(octave));
    }
  }

  // acc[i] += value at (x0 + i, y), i < w. Each cell's value depends on (x, y) only: lattice columns
  // are interpolated along y first, then along x, in the same order wherever the row starts.
  void add_row(std::uint64_t y, std::uint64_t x0, std::uint32_t w, double* acc) const {
    for (const Octave& octave : octaves) {
      const unsigned shift = octave.shift;
      const std::uint64_t mask = (1ull << shift) - 1;
      const std::uint64_t iy = y >> shift;
      const double fy = octave.fade[y & mask];
      auto column = [&](std::uint64_t ix) {
        const double a = octave.lattice(ix, iy);
        const double b = octave.lattice(ix, iy + 1);
        return a + (b - a) * fy;
      };
      std::uint64_t ix = x0 >> shift;
      double c0 = column(ix);
      double c1 = column(ix + 1);
      for (std::uint32_t i = 0; i < w; ++i) {
        const std::uint64_t x = x0 + i;
        if ((x >> shift) != ix) {  // moved one lattice cell to the right
          ++ix;
          c0 = c1;
          c1 = column(ix + 1);
        }
        acc[i] += octave.amplitude * (c0 + (c1 - c0) * octave.fade[x & mask]);
      }
    }
  }
};

// ---- terrain constants (documented in the header) ---------------------------------------------------

constexpr unsigned kReliefFirstShift = 10, kReliefOctaves = 9;  // 1024 .. 4 cells
constexpr double kReliefGain = 0.6, kRiverGain = 0.5, kHoleGain = 0.5;
constexpr unsigned kRiverFirstShift = 10, kRiverOctaves = 3;     // 1024 .. 256
constexpr unsigned kHoleFirstShift = 6, kHoleOctaves = 3;        // 64 .. 16
constexpr double kValleyHalfWidth = 0.08, kValleyCarve = 0.6;
constexpr double kChannelHalfWidth = 0.01, kChannelDepth = 0.01;
constexpr unsigned kPitShift = 7;  // 128-cell pit lattice
constexpr std::uint64_t kPitMaxRadius = 12;
constexpr std::uint64_t kHoleSampleCount = 65536, kHoleSampleRegion = 8192;

struct Pit {
  bool present = false;
  double cx = 0, cy = 0, radius2 = 0, depth = 0;
};

Pit pit_at(std::uint64_t key, std::uint64_t px, std::uint64_t py) {
  const std::uint64_t h = lattice_hash(key, px, py);
  Pit pit;
  pit.present = (h & 3) == 0;
  if (!pit.present) return pit;
  const std::uint64_t cell = 1ull << kPitShift;
  const std::uint64_t span = cell - 2 * kPitMaxRadius;
  const double radius = 3.0 + static_cast<double>((h >> 2) % 10);  // 3 .. 12
  pit.cx = static_cast<double>(px * cell + kPitMaxRadius + (h >> 8) % span);
  pit.cy = static_cast<double>(py * cell + kPitMaxRadius + (h >> 24) % span);
  pit.radius2 = radius * radius;
  pit.depth = 0.01 + 0.03 * unit(mix64(h));  // 1 .. 4 % of the relief
  return pit;
}

// Valid range of each cell type with the nodata value (default_nodata) left out.
void cell_range(CellType type, double* lo, double* hi) {
  switch (type) {
    case CellType::UInt8: *lo = 0; *hi = 254; return;
    case CellType::Int16: *lo = -32767; *hi = 32767; return;
    case CellType::UInt16: *lo = 0; *hi = 65534; return;
    case CellType::Int32: *lo = -2147483647.0; *hi = 2147483647.0; return;
    case CellType::UInt32: *lo = 0; *hi = 4294967294.0; return;
    case CellType::Float32: *lo = -static_cast<double>(std::numeric_limits<float>::max());
                            *hi = static_cast<double>(std::numeric_limits<float>::max()); return;
    case CellType::Float64: *lo = -std::numeric_limits<double>::max(); *hi = std::numeric_limits<double>::max(); return;
  }
}

std::string crs_to_wkt(const std::string& crs) {
  OGRSpatialReference srs;
  CPLPushErrorHandler(CPLQuietErrorHandler);  // the UsageError below says it in one line
  const OGRErr parsed = srs.SetFromUserInput(crs.c_str());
  CPLPopErrorHandler();
  if (parsed != OGRERR_NONE)
    throw UsageError("invalid --crs '" + crs + "': expected e.g. EPSG:3857, a WKT or PROJ string, or none");
  char* wkt = nullptr;
  if (srs.exportToWkt(&wkt) != OGRERR_NONE || !wkt) {
    CPLFree(wkt);
    throw UsageError("invalid --crs '" + crs + "': GDAL cannot express it as WKT");
  }
  std::string out = wkt;
  CPLFree(wkt);
  return out;
}

}  // namespace

double default_nodata(CellType type) {
  switch (type) {
    case CellType::UInt8: return 255.0;
    case CellType::Int16: return -32768.0;
    case CellType::UInt16: return 65535.0;
    case CellType::Int32: return -2147483648.0;
    case CellType::UInt32: return 4294967295.0;
    case CellType::Float32:
    case CellType::Float64: return -9999.0;
  }
  return -9999.0;
}

struct TerrainGenerator::Layers {
  Fbm relief, rivers, holes;
  std::uint64_t pit_key = 0;
  double hole_threshold = std::numeric_limits<double>::infinity();
  double lo = 0, hi = 0;  // cell range of the type
};

TerrainGenerator::TerrainGenerator(const TerrainOptions& options) : options_(options), layers_(new Layers) {
  if (options_.width < 1 || options_.height < 1)
    throw UsageError("invalid size " + std::to_string(options_.width) + " x " + std::to_string(options_.height) +
                     ": --width and --height must be at least 1");
  if (options_.width > (1ull << 40) || options_.height > (1ull << 40))
    throw UsageError("invalid size: --width and --height must be at most 2^40");
  if (options_.relief == 0.0) options_.relief = options_.type == CellType::UInt8 ? 250.0 : 1000.0;
  if (!(options_.relief > 0.0) || !std::isfinite(options_.relief))
    throw UsageError("invalid --relief '" + std::to_string(options_.relief) + "': expected a positive number of metres");
  if (!std::isfinite(options_.base)) throw UsageError("invalid --base: expected a finite number");
  if (!(options_.nodata_holes >= 0.0 && options_.nodata_holes < 1.0))
    throw UsageError("invalid --nodata-holes '" + std::to_string(options_.nodata_holes) +
                     "': expected a fraction of cells from 0 up to (not including) 1, e.g. 0.05");
  if (!(options_.cell_size > 0.0) || !std::isfinite(options_.cell_size))
    throw UsageError("invalid --cell-size '" + std::to_string(options_.cell_size) + "': expected a positive number of metres");

  info_.width = options_.width;
  info_.height = options_.height;
  info_.type = options_.type;
  info_.has_nodata = true;
  info_.nodata = default_nodata(options_.type);
  if (options_.crs != "none") {
    info_.crs_wkt = crs_to_wkt(options_.crs);
    info_.has_geotransform = true;
    info_.geotransform = {500000.0, options_.cell_size, 0.0, 5000000.0, 0.0, -options_.cell_size};
  }

  Layers& layers = *layers_;
  layers.relief = Fbm(options_.seed, kRelief, kReliefFirstShift, kReliefOctaves, kReliefGain);
  if (options_.rivers) layers.rivers = Fbm(options_.seed, kRivers, kRiverFirstShift, kRiverOctaves, kRiverGain);
  if (options_.pits) layers.pit_key = layer_key(options_.seed, kPits);
  cell_range(options_.type, &layers.lo, &layers.hi);
  if (options_.nodata_holes > 0.0) {
    layers.holes = Fbm(options_.seed, kHoles, kHoleFirstShift, kHoleOctaves, kHoleGain);
    // The (1 - f) quantile of the hole field over hashed sample points of a fixed region.
    const std::uint64_t sample_key = layer_key(options_.seed, kHoleSamples);
    std::vector<double> samples(kHoleSampleCount);
    for (std::uint64_t i = 0; i < kHoleSampleCount; ++i) {
      const std::uint64_t h = mix64(sample_key + i);
      double value = 0.0;
      layers.holes.add_row((h >> 32) % kHoleSampleRegion, (h & 0xffffffffull) % kHoleSampleRegion, 1, &value);
      samples[i] = value;
    }
    std::sort(samples.begin(), samples.end());
    const double rank = (1.0 - options_.nodata_holes) * static_cast<double>(kHoleSampleCount);
    const auto index = static_cast<std::uint64_t>(rank);
    layers.hole_threshold = index >= kHoleSampleCount ? std::numeric_limits<double>::infinity()
                            : index == 0               ? -std::numeric_limits<double>::infinity()
                                                       : samples[index];
  }
}

TerrainGenerator::~TerrainGenerator() = default;

void TerrainGenerator::window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                              double* out) const {
  const Layers& layers = *layers_;
  std::vector<double> relief(w), rivers(w), holes(w);
  const bool integer = cell_type_is_integer(options_.type);
  for (std::uint32_t row = 0; row < h; ++row) {
    const std::uint64_t y = y0 + row;
    std::fill(relief.begin(), relief.end(), 0.0);
    layers.relief.add_row(y, x0, w, relief.data());
    if (options_.rivers) {
      std::fill(rivers.begin(), rivers.end(), 0.0);
      layers.rivers.add_row(y, x0, w, rivers.data());
    }
    if (options_.nodata_holes > 0.0) {
      std::fill(holes.begin(), holes.end(), 0.0);
      layers.holes.add_row(y, x0, w, holes.data());
    }
    std::uint64_t pit_column = ~0ull;
    Pit pit;
    double* out_row = out + static_cast<std::uint64_t>(row) * w;
    for (std::uint32_t i = 0; i < w; ++i) {
      const std::uint64_t x = x0 + i;
      if (options_.nodata_holes > 0.0 && holes[i] > layers.hole_threshold) {
        out_row[i] = std::numeric_limits<double>::quiet_NaN();
        continue;
      }
      const double e = std::clamp(0.5 + 0.8 * relief[i], 0.0, 1.0);
      double height = e * e;
      if (options_.rivers) {
        const double distance = std::fabs(rivers[i]);
        if (distance < kValleyHalfWidth) {
          const double closeness = 1.0 - distance / kValleyHalfWidth;
          height *= 1.0 - kValleyCarve * closeness * closeness;
        }
        if (distance < kChannelHalfWidth) height -= kChannelDepth * (1.0 - distance / kChannelHalfWidth);
      }
      if (options_.pits) {
        if ((x >> kPitShift) != pit_column) {
          pit_column = x >> kPitShift;
          pit = pit_at(layers.pit_key, pit_column, y >> kPitShift);
        }
        if (pit.present) {
          const double dx = static_cast<double>(x) - pit.cx, dy = static_cast<double>(y) - pit.cy;
          const double d2 = dx * dx + dy * dy;
          if (d2 < pit.radius2) height -= pit.depth * (1.0 - d2 / pit.radius2);
        }
      }
      double value = options_.base + options_.relief * std::max(height, 0.0);
      if (integer) value = std::nearbyint(value);
      value = std::clamp(value, layers.lo, layers.hi);
      if (options_.type == CellType::Float32) value = static_cast<double>(static_cast<float>(value));
      out_row[i] = value;
    }
  }
}

}  // namespace terrazo
