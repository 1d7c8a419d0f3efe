// tests/support/clump_reference.h: the in-memory oracles of `terrazo clump` (tests and the GPU check
// only): the regions, their statistics (--stats) and the sieve (--min-size), each by its plain
// formula over the whole raster (docs/clump.md). Used by tests/test_clump.cpp,
// tests/test_clump_sieve.cpp and tools/bench/gpu_checks/clump_gpu_check.cpp.
#pragma once
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "engine/clump/phases.h"
#include "engine/clump/sieve.h"

namespace terrazo::testing {

struct ClumpReference {
  std::vector<std::uint32_t> labels;  // W*H, 1.. in row-major order of each region's first cell; 0: no region
  std::uint64_t regions = 0, cells = 0, largest = 0;
};

// Keys as the phases define them (--by value|valid|range; NaN: no key), then flood fill from each
// unlabelled keyed cell in row-major order over `o.connectivity`. `values` row-major W*H, NaN = nodata.
ClumpReference clump_reference(const std::vector<double>& values, std::uint64_t w, std::uint64_t h,
                               const ClumpPhaseOptions& o);

// The statistics of each region of `r`, in label order (value: the first cell's with --by value,
// NaN otherwise).
std::vector<ClumpRegionStats> clump_reference_stats(const ClumpReference& r, const std::vector<double>& values,
                                                    std::uint64_t w, std::uint64_t h, ClumpBy by);

// The sieve on the labels of `r`: exact sizes, borders counted pair by pair in a map, each region of
// fewer than `n` cells merged into the neighbour of the longest shared border among those larger
// than it (or as large with a smaller label; ties: the smaller label), chains followed, groups
// renumbered by their smallest label; with ClumpSmallAction::Nodata the small regions become 0.
std::vector<std::uint32_t> sieve_reference(const ClumpReference& r, std::uint64_t w, std::uint64_t h, Connectivity c,
                                           std::uint64_t n, ClumpSmallAction action);

// `n` classes 0..distinct-1 drawn uniformly, each cell nodata (NaN) with probability `holes` (the
// random categorical rasters of tests/test_clump.cpp and tests/test_clump_sieve.cpp).
inline std::vector<double> random_classes(std::mt19937_64& rng, std::uint64_t n, int distinct, double holes) {
  std::uniform_int_distribution<int> value(0, distinct - 1);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng) < holes ? std::numeric_limits<double>::quiet_NaN() : value(rng);
  return v;
}

}  // namespace terrazo::testing
