#!/usr/bin/python3
"""tools/bench/fill_skimage.py: depression filling by scikit-image's morphological reconstruction by
erosion (the peer of `terrazo fill --outlets edge` on a raster without nodata), for bench_fill.sh.

Usage: fill_skimage.py INPUT OUTPUT.tif [--connectivity 8|4]
The seed is the raster's maximum inside and the elevation on the edge; reconstruction by erosion under
the elevation gives each cell the least, over paths to the edge, of the highest cell on the path:
the filled surface [Barnes2014]. Written in INPUT's type with GDAL.
"""
import sys

import numpy as np
from osgeo import gdal
from skimage.morphology import reconstruction


def main():
    if len(sys.argv) not in (3, 5):
        sys.exit(__doc__)
    footprint = np.ones((3, 3), bool)
    if len(sys.argv) == 5 and sys.argv[4] == "4":
        footprint = np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], bool)
    source = gdal.Open(sys.argv[1])
    band = source.GetRasterBand(1)
    dem = band.ReadAsArray().astype(np.float64)
    seed = np.full_like(dem, dem.max())
    seed[0, :], seed[-1, :], seed[:, 0], seed[:, -1] = dem[0, :], dem[-1, :], dem[:, 0], dem[:, -1]
    filled = reconstruction(seed, dem, method="erosion", footprint=footprint)
    out = gdal.GetDriverByName("GTiff").Create(sys.argv[2], dem.shape[1], dem.shape[0], 1, band.DataType,
                                               ["TILED=YES", "COMPRESS=ZSTD", "ZSTD_LEVEL=1"])
    out.SetGeoTransform(source.GetGeoTransform())
    out.SetProjection(source.GetProjection())
    out.GetRasterBand(1).WriteArray(filled)
    out.FlushCache()


if __name__ == "__main__":
    main()
