// engine/render/image.h: the RGBA canvas every drawing primitive of `terrazo render` paints on.
// Pixels are 4 bytes (r, g, b, a), row-major from the top-left; writes outside the canvas are
// clipped (ignored), so primitives need no bounds logic of their own.
#pragma once
#include <cstdint>
#include <vector>

namespace terrazo {

struct Rgb {
  std::uint8_t r, g, b;
};

struct Rgba {
  std::uint8_t r = 0, g = 0, b = 0, a = 0;
  Rgba() = default;
  constexpr Rgba(std::uint8_t r_, std::uint8_t g_, std::uint8_t b_, std::uint8_t a_ = 255) : r(r_), g(g_), b(b_), a(a_) {}
  constexpr Rgba(Rgb c) : r(c.r), g(c.g), b(c.b), a(255) {}
  bool operator==(const Rgba& o) const { return r == o.r && g == o.g && b == o.b && a == o.a; }
  bool operator!=(const Rgba& o) const { return !(*this == o); }
};

class Image {
 public:
  Image(std::uint32_t width, std::uint32_t height, Rgba fill = Rgba())
      : width_(width), height_(height), bytes_(static_cast<std::size_t>(width) * height * 4) {
    for (std::size_t k = 0; k < bytes_.size(); k += 4) {
      bytes_[k] = fill.r;
      bytes_[k + 1] = fill.g;
      bytes_[k + 2] = fill.b;
      bytes_[k + 3] = fill.a;
    }
  }
  std::uint32_t width() const { return width_; }
  std::uint32_t height() const { return height_; }
  bool inside(std::int64_t x, std::int64_t y) const { return x >= 0 && y >= 0 && x < width_ && y < height_; }
  Rgba get(std::int64_t x, std::int64_t y) const {
    const std::uint8_t* p = &bytes_[index(x, y)];
    return Rgba(p[0], p[1], p[2], p[3]);
  }
  void set(std::int64_t x, std::int64_t y, Rgba c) {
    if (!inside(x, y)) return;
    std::uint8_t* p = &bytes_[index(x, y)];
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
    p[3] = c.a;
  }
  // c over the pixel with opacity `alpha` (0..1): each channel round(a*c + (1-a)*old); alpha of
  // the result is the larger of the two.
  void blend(std::int64_t x, std::int64_t y, Rgba c, double alpha) {
    if (!inside(x, y)) return;
    std::uint8_t* p = &bytes_[index(x, y)];
    auto mix = [alpha](std::uint8_t a, std::uint8_t b) {
      return static_cast<std::uint8_t>(alpha * a + (1.0 - alpha) * b + 0.5);
    };
    p[0] = mix(c.r, p[0]);
    p[1] = mix(c.g, p[1]);
    p[2] = mix(c.b, p[2]);
    p[3] = p[3] > c.a ? p[3] : c.a;
  }
  const std::vector<std::uint8_t>& bytes() const { return bytes_; }

 private:
  std::size_t index(std::int64_t x, std::int64_t y) const {
    return (static_cast<std::size_t>(y) * width_ + static_cast<std::size_t>(x)) * 4;
  }
  std::uint32_t width_, height_;
  std::vector<std::uint8_t> bytes_;
};

}  // namespace terrazo
