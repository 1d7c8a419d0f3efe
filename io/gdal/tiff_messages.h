// io/gdal/tiff_messages.h: libtiff's errors and warnings for one TIFF handle, kept instead of printed.
//
// libtiff prints its messages on stderr through process-wide handlers, which GDAL replaces with its
// own when it is loaded. terrazo's own libtiff code (the GeoTIFF header, the block writer, the plain
// GeoTIFF reader) runs with GDAL unloaded (docs/architecture.md "GDAL loaded on demand"), so each of
// its handles gets handlers of its own (libtiff >= 4.5, TIFFOpenExt): the messages stay here, and the
// one-line Error terrazo reports carries the first of them. Also the layout tags both readers of a
// tiled TIFF (the plain GeoTIFF reader, the block writer reopening its file) check.
#pragma once
#include <tiffio.h>

#include <cstdint>
#include <string>

namespace terrazo {

struct TiffMessages {
  std::string first;  // the first error or warning since clear()
  unsigned count = 0;
  void clear() {
    first.clear();
    count = 0;
  }
  // ": <first message>" when there is one, "" otherwise (for the end of an Error's text).
  std::string reason() const { return count ? ": " + first : std::string(); }
};

// TIFFOpen with `messages` (which must outlive the handle) receiving every error and warning.
TIFF* tiff_open(const std::string& path, const char* mode, TiffMessages* messages);

// The tags of a tiled TIFF's layout (0 where a size tag is absent; the TIFF defaults for the others).
struct TiffTileLayout {
  std::uint32_t width = 0, height = 0, tile_width = 0, tile_height = 0;
  std::uint16_t bits = 0, compression = 0;
};
TiffTileLayout read_tile_layout(TIFF* tif);

// TIFFClientOpen with `messages` receiving every error and warning.
TIFF* tiff_client_open(const char* name, const char* mode, thandle_t client, TIFFReadWriteProc read,
                       TIFFReadWriteProc write, TIFFSeekProc seek, TIFFCloseProc close, TIFFSizeProc size,
                       TIFFMapFileProc map, TIFFUnmapFileProc unmap, TiffMessages* messages);

}  // namespace terrazo
