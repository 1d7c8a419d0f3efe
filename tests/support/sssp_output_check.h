// tests/support/sssp_output_check.h: a raster compared cell for cell (the first differing cell named),
// and the output rasters of a cost-distance run against the solved oracle problem
// (test_cost_models.cpp, test_sssp_pipeline.cpp, test_source_settings.cpp, test_knight.cpp,
// test_od_matrix.cpp, test_walk.cpp).
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/commands/sssp.h"
#include "tests/support/sssp_reference.h"

namespace terrazo::testing {

// A cost-distance run's required arguments: INPUT, its --source points and OUTPUT; callers set the rest.
inline SsspOptions sssp_options(const std::string& input, const std::vector<SourcePoint>& sources,
                                const std::string& output) {
  SsspOptions o;
  o.input = input;
  o.sources = sources;
  o.output = output;
  return o;
}

// got == want, cell for cell, on a raster `width` cells wide; else a failure naming the first cell
// (x, y) that differs and both values. Use: ASSERT_TRUE(equal_cells(got, want, w)) << what.
template <typename T>
::testing::AssertionResult equal_cells(const std::vector<T>& got, const std::vector<T>& want, std::uint64_t width) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << got.size() << " cells, expected " << want.size();
  for (std::uint64_t i = 0; i < got.size(); ++i)
    if (!(got[i] == want[i]))
      return ::testing::AssertionFailure() << "cell " << i % width << "," << i / width << " is " << +got[i]
                                           << ", expected " << +want[i];
  return ::testing::AssertionSuccess();
}

// A backlink raster as codes (nodata: 255).
inline std::vector<std::uint8_t> read_backlinks(const std::string& path) {
  const std::vector<double> back = read_raster_values(path);
  std::vector<std::uint8_t> codes(back.size());
  for (std::size_t i = 0; i < back.size(); ++i) codes[i] = back[i] != back[i] ? 255 : static_cast<std::uint8_t>(back[i]);
  return codes;
}

// An allocation raster as source ids (nodata: 0).
inline std::vector<std::uint32_t> read_allocation(const std::string& path) {
  const std::vector<double> alloc = read_raster_values(path);
  std::vector<std::uint32_t> ids(alloc.size());
  for (std::size_t i = 0; i < alloc.size(); ++i) ids[i] = alloc[i] != alloc[i] ? 0u : static_cast<std::uint32_t>(alloc[i]);
  return ids;
}

// The allocation the solved problem gives: each reached cell's source id, 0 where unreached.
inline std::vector<std::uint32_t> allocation_reference(const SsspReferenceProblem& solved) {
  std::vector<std::uint32_t> ids(solved.dist.size());
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = solved.dist[i] == kUnreached ? 0u : solved.source[i];
  return ids;
}

// Seeds `problem` with the point sources of `o` (pixel coordinates), ids 1, 2, ... in order where
// `o` writes an allocation, else all 0. Returns the next id.
inline std::uint32_t set_point_sources(SsspReferenceProblem& problem, const SsspOptions& o) {
  std::vector<std::pair<std::uint64_t, std::uint32_t>> sources;
  std::uint32_t id = 1;
  for (const SourcePoint& p : o.sources)
    sources.push_back({static_cast<std::uint64_t>(p.y) * problem.width + static_cast<std::uint64_t>(p.x),
                       o.allocation.empty() ? 0u : id++});
  set_reference_sources(problem, sources);
  return id;
}

// The rasters run_sssp wrote for `o` (result `r`) against the solved problem: the cost through the
// fixed point (and r's count of reached cells), then the backlinks and the allocation where written.
// A failure names `what` and the output; the checks stop at the first output that differs.
inline void expect_outputs_match_reference(const SsspOptions& o, const SsspResult& r, const SsspReferenceProblem& solved,
                                           const std::string& what) {
  const std::vector<PathLength> dist = fixed_distances(read_raster_values(o.output), r.params.scale);
  const ::testing::AssertionResult same_dist = equal_cells(dist, solved.dist, solved.width);
  if (!same_dist) {
    ADD_FAILURE() << what << ": distance " << same_dist.message();
    return;
  }
  std::uint64_t reached = 0;
  for (const PathLength d : dist) reached += d != kUnreached;
  EXPECT_EQ(r.reached_cells, reached) << what;
  if (!o.backlink.empty()) {
    const ::testing::AssertionResult same = equal_cells(read_backlinks(o.backlink), backlinks_reference(solved), solved.width);
    if (!same) {
      ADD_FAILURE() << what << ": backlink " << same.message();
      return;
    }
  }
  if (!o.allocation.empty()) {
    EXPECT_TRUE(equal_cells(read_allocation(o.allocation), allocation_reference(solved), solved.width)) << what << ": allocation";
  }
}

}  // namespace terrazo::testing
