// io/gdal/png_writer.h: an RGBA picture written as a PNG through GDAL's PNG driver (a MEM dataset of
// four Byte bands, then GDALCreateCopy), published atomically (io/store/atomic_output.h); and the
// PNG read back as RGBA, for tests. A picture with every alpha 255 is written as RGB (smaller), any
// other as RGBA. Deflate level 9; no georeferencing is written (no world file,
// no .aux.xml).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace terrazo {

// `rgba`: width * height pixels, 4 bytes each (r, g, b, a), row-major from the top.
void write_png(const std::string& path, std::uint32_t width, std::uint32_t height, const std::vector<std::uint8_t>& rgba);

// Reads a PNG (or any raster of 3 or 4 Byte bands; alpha 255 when there are 3) into `rgba`.
void read_png(const std::string& path, std::uint32_t* width, std::uint32_t* height, std::vector<std::uint8_t>* rgba);

}  // namespace terrazo
