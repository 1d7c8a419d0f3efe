// tests/support/sssp_capture_sink.h: the SSSP pipeline's output phase captured into whole-raster
// arrays, each cell checked to be written once (and unreached cells at kUnreached).
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <vector>

#include "engine/sssp/output.h"

namespace terrazo::testing {

class CaptureSink : public SsspResultSink {
 public:
  CaptureSink(std::uint64_t width, std::uint64_t height)
      : width_(width), dist(width * height, 0), source(width * height, 0), backlink(width * height, 0) {}
  void write_tile(const SsspTileResult& r) override {
    for (std::uint32_t y = 0; y < r.height; ++y)
      for (std::uint32_t x = 0; x < r.width; ++x) {
        const std::uint64_t i = (r.y0 + y) * width_ + r.x0 + x;
        const std::size_t l = static_cast<std::size_t>(y) * r.stride + x;
        ASSERT_EQ(++written_[i], 1) << "cell written twice";
        dist[i] = r.dist[l];
        if (!r.reached) {
          EXPECT_EQ(r.dist[l], kUnreached);
        }
        if (r.source) source[i] = r.source[l];
        if (r.backlink) backlink[i] = r.backlink[l];
      }
  }
  std::uint64_t width_;
  std::vector<PathLength> dist;
  std::vector<std::uint32_t> source;
  std::vector<std::uint8_t> backlink;
  std::map<std::uint64_t, int> written_;
};

}  // namespace terrazo::testing
