// io/gdal/tiff_messages.cpp: tiff_open and tiff_client_open (io/gdal/tiff_messages.h).
#include "io/gdal/tiff_messages.h"

#include <cstdarg>
#include <cstdio>

namespace terrazo {

namespace {

int keep_message(TIFF*, void* user, const char* module, const char* format, va_list args) {
  auto* m = static_cast<TiffMessages*>(user);
  if (m->count++ == 0) {
    char text[512];
    std::vsnprintf(text, sizeof text, format, args);
    m->first = std::string(module && *module ? module : "libtiff") + ": " + text;
  }
  return 1;  // handled: the process-wide handler (stderr, or GDAL's) is not called
}

TIFFOpenOptions* options_for(TiffMessages* messages) {
  TIFFOpenOptions* options = TIFFOpenOptionsAlloc();
  TIFFOpenOptionsSetErrorHandlerExtR(options, keep_message, messages);
  TIFFOpenOptionsSetWarningHandlerExtR(options, keep_message, messages);
  return options;
}

}  // namespace

TIFF* tiff_open(const std::string& path, const char* mode, TiffMessages* messages) {
  TIFFOpenOptions* options = options_for(messages);
  TIFF* tif = TIFFOpenExt(path.c_str(), mode, options);
  TIFFOpenOptionsFree(options);
  return tif;
}

TIFF* tiff_client_open(const char* name, const char* mode, thandle_t client, TIFFReadWriteProc read,
                       TIFFReadWriteProc write, TIFFSeekProc seek, TIFFCloseProc close, TIFFSizeProc size,
                       TIFFMapFileProc map, TIFFUnmapFileProc unmap, TiffMessages* messages) {
  TIFFOpenOptions* options = options_for(messages);
  TIFF* tif = TIFFClientOpenExt(name, mode, client, read, write, seek, close, size, map, unmap, options);
  TIFFOpenOptionsFree(options);
  return tif;
}

TiffTileLayout read_tile_layout(TIFF* tif) {
  TiffTileLayout layout;
  TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &layout.width);
  TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &layout.height);
  TIFFGetField(tif, TIFFTAG_TILEWIDTH, &layout.tile_width);
  TIFFGetField(tif, TIFFTAG_TILELENGTH, &layout.tile_height);
  TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &layout.bits);
  TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &layout.compression);
  return layout;
}

}  // namespace terrazo
