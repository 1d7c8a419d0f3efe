// engine/clump/sieve.h: `terrazo clump --min-size N` (docs/clump.md "Small regions"): regions of
// fewer than N cells merged into a neighbour, or cleared to nodata, after the labelling, over the
// labels held in a scratch file (ClumpLabelFile, 4 bytes per cell, row-major), written again as
// windows to a ClumpWindowSink.
//
// Contract (the labels L of engine/clump/phases.h, regions 1..K; size(r) = cells of r; r is small
// when size(r) < N). border(a, b) = the number of neighbouring cell pairs (the --connectivity's
// neighbours: 4 or 8) with one cell in a and the other in b. "b is larger than a": size(b) > size(a),
// or equal sizes and b < a (a total order: b's first cell comes first).
//   action nodata: every small region's cells become nodata (0).
//   action merge (GDAL's sieve [GDAL-sieve], with the longest border instead of the largest
//     neighbour): each small region a picks target(a) = among its neighbours larger than a, the one
//     with the longest border(a, b); ties to the smallest label b. A small region with no larger
//     neighbour (an island of nodata or of smaller regions) keeps its cells. Targets are chosen
//     once, from the sizes before any merge (one pass, as GDAL), and followed: a's cells go to
//     the end of the chain a -> target(a) -> ... (it ends: every step goes to a larger region).
// Then the surviving regions are numbered 1..K' in row-major order of their first cell again (a
// merged region's first cell is the first of its members'), so the output keeps phases.h's
// numbering rule and is the same whatever the tile size, device, threads and budget.
// Plain formula (the tests' oracle): the above over in-memory arrays.
// Passes over the label file: 1 sizes (saturated at N), 2 borders of small regions (pairs of
// neighbouring rows) into an external sort of (a, b) keys (io/store/external_sorter.h), reduced to
// each small region's target, 3 the windows, relabelled.
// Memory: 8 bytes per region (sizes / numbers and targets, in memory: "clump --min-size region
// table"; an Error naming the regions when it does not fit), two rows of labels (8 W bytes), the
// sorter's buffer (min(a quarter of what is left, 64 MiB); tests lower it), one window (4 t^2).
#pragma once
#include <cstdint>
#include <string>

#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "kernels/common/types.h"
#include "engine/clump/phases.h"
#include "io/store/posix_file.h"

namespace terrazo {

enum class ClumpSmallAction { Merge, Nodata };
const char* to_string(ClumpSmallAction action);

// The labels as a row-major UInt32 scratch file (W x H x 4 bytes), written by phase 3's windows.
class ClumpLabelFile : public ClumpWindowSink {
 public:
  ClumpLabelFile(const std::string& path, std::uint64_t width, std::uint64_t height);
  void write_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                    const std::uint32_t* labels) override;
  void read_row(std::uint64_t y, std::uint32_t* labels) const;  // W labels
  void read_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, std::uint32_t* labels) const;
  std::uint64_t width() const { return width_; }
  std::uint64_t height() const { return height_; }
  std::uint64_t bytes_read() const { return bytes_read_; }
  std::uint64_t bytes_written() const { return bytes_written_; }

 private:
  PosixFile file_;
  std::uint64_t width_, height_;
  mutable std::uint64_t bytes_read_ = 0;
  std::uint64_t bytes_written_ = 0;
};

struct ClumpSieveOptions {
  std::uint64_t min_size = 0;  // N >= 1 (1: nothing is small)
  ClumpSmallAction action = ClumpSmallAction::Merge;
  Connectivity connectivity = Connectivity::Eight;
  std::uint32_t tile = 256;      // output windows: t x t, row-major tile order
  std::string scratch_dir;       // the sorter's runs
  std::uint64_t sort_buffer_bytes = 0;  // 0: min(a quarter of what is left, 64 MiB)
};

struct ClumpSieveResult {
  std::uint64_t regions = 0;         // K' after the sieve
  std::uint64_t small_regions = 0;   // regions of fewer than N cells before it
  std::uint64_t merged = 0;          // small regions merged into a larger neighbour (merge)
  std::uint64_t isolated = 0;        // small regions without a larger neighbour, kept (merge)
  std::uint64_t cells_labelled = 0;  // cells with a label after it
  std::uint64_t largest_region = 0;  // cells of the largest region after it (saturated at 2^32 - 1)
  std::uint64_t bytes_read = 0, bytes_written = 0;
};

// `regions`: K of the labels in `labels`. Throws UsageError for min_size 0.
ClumpSieveResult run_clump_sieve(const ClumpLabelFile& labels, std::uint64_t regions, const ClumpSieveOptions& options,
                                 MemoryBudget& budget, Progress& progress, ClumpWindowSink* sink);

}  // namespace terrazo
