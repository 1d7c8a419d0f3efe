// tests/support/clump_memory_sink.h: clump's label windows (engine/clump/phases.h, ClumpWindowSink)
// gathered into one row-major vector of the whole raster, for the tests and the GPU checks: header
// only and GDAL-free. Cells no window wrote keep 0xDEADBEEF, so a test sees what was never written.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/clump/phases.h"

namespace terrazo {

class ClumpMemorySink : public ClumpWindowSink {
 public:
  static constexpr std::uint32_t kUnwritten = 0xDEADBEEFu;
  ClumpMemorySink(std::uint64_t width, std::uint64_t height) : width_(width), labels(width * height, kUnwritten) {}
  void write_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h,
                    const std::uint32_t* cells) override {
    for (std::uint32_t y = 0; y < h; ++y)
      for (std::uint32_t x = 0; x < w; ++x) labels[(y0 + y) * width_ + x0 + x] = cells[std::size_t{y} * w + x];
  }
  std::uint64_t width_;
  std::vector<std::uint32_t> labels;
};

}  // namespace terrazo
