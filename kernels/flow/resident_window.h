// kernels/flow/resident_window.h: the t x t windows in which the resident flow accumulation and
// watershed labelling (kernels/flow/resident_flowacc.h, resident_watershed.h) are written and read,
// shared by their CPU twins and CUDA solvers: the bounds every window is checked against, and a
// window of raster values turned into code bytes (d8_byte).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/common/error.h"
#include "kernels/flow/d8_step.h"

namespace terrazo {

// The windows of a width x height raster that a solver (`what`, named in errors) takes: at most
// tile x tile.
struct ResidentWindows {
  const char* what = "";
  std::uint64_t width = 0, height = 0;
  std::uint32_t tile = 0;

  // terrazo::Error unless the w x h window at (x0, y0) lies inside the raster and within a tile.
  void check(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h) const {
    if (x0 + w > width || y0 + h > height || w > tile || h > tile)
      throw Error(std::string(what) + ": window outside the raster or larger than a tile");
  }
};

// The code bytes of a w x h window of values (row stride `pitch`) into `out` (row stride `out_pitch`).
inline void resident_code_window(const double* values, std::uint32_t pitch, std::uint32_t w, std::uint32_t h,
                                 std::uint8_t* out, std::uint64_t out_pitch) {
  for (std::uint32_t y = 0; y < h; ++y)
    for (std::uint32_t x = 0; x < w; ++x) out[y * out_pitch + x] = d8_byte(values[std::size_t{y} * pitch + x]);
}

}  // namespace terrazo
