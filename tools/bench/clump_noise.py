#!/usr/bin/python3
"""A noisy categorical raster for the clump benchmarks (docs/benchmarks.md "Clump: the external
merge"): every cell a uniformly random class 0..K-1 (Byte), a fraction of cells nodata (255), from a
seeded generator, written a strip of 256 rows at a time (memory: one strip) as a tiled GeoTIFF
(blocks of 256, ZSTD), so terrazo reads it in place at tiles that are multiples of 256.

    /usr/bin/python3 tools/bench/clump_noise.py [--classes K] [--holes F] [--seed N] WIDTH HEIGHT OUT.tif
"""
import sys

import numpy as np
from osgeo import gdal

gdal.UseExceptions()


def main():
    args = sys.argv[1:]
    classes, holes, seed = 3, 0.05, 1
    while args and args[0].startswith("--"):
        flag, value, args = args[0], args[1], args[2:]
        if flag == "--classes":
            classes = int(value)
        elif flag == "--holes":
            holes = float(value)
        elif flag == "--seed":
            seed = int(value)
        else:
            sys.exit("clump_noise.py: unknown flag " + flag)
    width, height, out = int(args[0]), int(args[1]), args[2]
    ds = gdal.GetDriverByName("GTiff").Create(
        out, width, height, 1, gdal.GDT_Byte,
        ["TILED=YES", "BLOCKXSIZE=256", "BLOCKYSIZE=256", "COMPRESS=ZSTD", "BIGTIFF=IF_SAFER"])
    band = ds.GetRasterBand(1)
    band.SetNoDataValue(255)
    rng = np.random.default_rng(seed)
    for y0 in range(0, height, 256):
        h = min(256, height - y0)
        v = rng.integers(0, classes, size=(h, width), dtype=np.uint8)
        v[rng.random((h, width)) < holes] = 255
        band.WriteArray(v, 0, y0)
    ds.FlushCache()
    ds = None


if __name__ == "__main__":
    main()
