// io/gdal/tiff_messages.h: libtiff's errors and warnings for one TIFF handle, kept instead of printed.
//
// libtiff prints its messages on stderr through process-wide handlers, which GDAL replaces with its
// own when it is loaded. terrazo's own libtiff code (the GeoTIFF header, the block writer, the plain
// GeoTIFF reader) runs with GDAL unloaded (docs/architecture.md "GDAL loaded on demand"), so each of
// its handles gets handlers of its own (libtiff >= 4.5, TIFFOpenExt): the messages stay here, and the
// one-line Error terrazo reports carries the first of them.
#pragma once
#include <tiffio.h>

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

// TIFFClientOpen with `messages` receiving every error and warning.
TIFF* tiff_client_open(const char* name, const char* mode, thandle_t client, TIFFReadWriteProc read,
                       TIFFReadWriteProc write, TIFFSeekProc seek, TIFFCloseProc close, TIFFSizeProc size,
                       TIFFMapFileProc map, TIFFUnmapFileProc unmap, TiffMessages* messages);

}  // namespace terrazo
