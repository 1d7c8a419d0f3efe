// io/gdal/png_writer.cpp: write_png, read_png (io/gdal/png_writer.h).
#include "io/gdal/png_writer.h"

#include <cpl_string.h>
#include <gdal.h>

#include "kernels/common/error.h"
#include "io/gdal/gdal_session.h"
#include "io/store/atomic_output.h"

namespace terrazo {
namespace {

struct DatasetCloser {
  GDALDatasetH h = nullptr;
  ~DatasetCloser() {
    if (h) GDALClose(h);
  }
};

}  // namespace

void write_png(const std::string& path, std::uint32_t width, std::uint32_t height, const std::vector<std::uint8_t>& rgba) {
  if (rgba.size() != static_cast<std::size_t>(width) * height * 4) throw Error("write_png: buffer size mismatch");
  ensure_gdal();
  GDALDriverH mem = GDALGetDriverByName("MEM"), png = GDALGetDriverByName("PNG");
  if (!mem || !png) throw Error("GDAL lacks its MEM or PNG driver: cannot write '" + path + "'");
  AtomicOutput output(path, {".aux.xml"});
  {
    DatasetCloser src;
    GdalErrorTrap trap;
    // Opaque pictures are written as RGB (smaller files); others as RGBA.
    bool opaque = true;
    for (std::size_t k = 3; k < rgba.size() && opaque; k += 4) opaque = rgba[k] == 255;
    const int bands = opaque ? 3 : 4;
    src.h = GDALCreate(mem, "", static_cast<int>(width), static_cast<int>(height), bands, GDT_Byte, nullptr);
    if (!src.h) throw gdal_failure("cannot create the picture in memory");
    // Pixel-interleaved buffer: band b starts at byte b, pixels 4 bytes apart.
    const CPLErr err = GDALDatasetRasterIO(src.h, GF_Write, 0, 0, static_cast<int>(width), static_cast<int>(height),
                                           const_cast<std::uint8_t*>(rgba.data()), static_cast<int>(width),
                                           static_cast<int>(height), GDT_Byte, bands, nullptr, 4,
                                           static_cast<GSpacing>(width) * 4, 1);
    if (err != CE_None) throw gdal_failure("cannot fill the picture in memory");
    if (bands == 4) GDALSetRasterColorInterpretation(GDALGetRasterBand(src.h, 4), GCI_AlphaBand);
    char** options = CSLSetNameValue(nullptr, "WORLDFILE", "NO");
    options = CSLSetNameValue(options, "ZLEVEL", "9");
    DatasetCloser dst;
    dst.h = GDALCreateCopy(png, output.partial().c_str(), src.h, FALSE, options, nullptr, nullptr);
    CSLDestroy(options);
    if (!dst.h) throw gdal_failure("cannot write '" + path + "'");
    GDALClose(dst.h);
    dst.h = nullptr;
    trap.check("cannot write '" + path + "'");
  }
  output.publish();
}

void read_png(const std::string& path, std::uint32_t* width, std::uint32_t* height, std::vector<std::uint8_t>* rgba) {
  ensure_gdal();
  DatasetCloser ds;
  ds.h = GDALOpenEx(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY, nullptr, nullptr, nullptr);
  if (!ds.h) throw gdal_failure("cannot open '" + path + "'");
  const int bands = GDALGetRasterCount(ds.h);
  if (bands != 3 && bands != 4) throw Error("'" + path + "' has " + std::to_string(bands) + " bands, not 3 or 4");
  *width = static_cast<std::uint32_t>(GDALGetRasterXSize(ds.h));
  *height = static_cast<std::uint32_t>(GDALGetRasterYSize(ds.h));
  rgba->assign(static_cast<std::size_t>(*width) * *height * 4, 255);
  int band_map[4] = {1, 2, 3, 4};
  if (GDALDatasetRasterIO(ds.h, GF_Read, 0, 0, static_cast<int>(*width), static_cast<int>(*height), rgba->data(),
                          static_cast<int>(*width), static_cast<int>(*height), GDT_Byte, bands, band_map, 4,
                          static_cast<GSpacing>(*width) * 4, 1) != CE_None)
    throw gdal_failure("cannot read '" + path + "'");
}

}  // namespace terrazo
