#!/usr/bin/python3
"""scipy.ndimage.label as a clump baseline (docs/benchmarks.md "Clump"): the whole job a user runs,
read and write included: read INPUT (one band, integer classes) with GDAL, label the regions of
equal value (one scipy.ndimage.label per distinct value, 8 or 4 neighbours, labels offset so that
they stay distinct), write a UInt32 GeoTIFF (ZSTD, tiled, nodata 0) like terrazo's.

    /usr/bin/python3 tools/bench/clump_scipy.py [--connectivity 8|4] INPUT LABELS.tif
"""
import sys

import numpy as np
from osgeo import gdal
from scipy import ndimage

gdal.UseExceptions()


def main():
    args = sys.argv[1:]
    conn = 8
    if args[:1] == ["--connectivity"]:
        conn, args = int(args[1]), args[2:]
    src, dst = args
    ds = gdal.Open(src)
    band = ds.GetRasterBand(1)
    v = band.ReadAsArray()
    nodata = band.GetNoDataValue()
    valid = np.ones(v.shape, bool) if nodata is None else v != nodata
    structure = np.ones((3, 3), bool) if conn == 8 else ndimage.generate_binary_structure(2, 1)
    out = np.zeros(v.shape, np.uint32)
    total = 0
    for value in np.unique(v[valid]):
        labels, n = ndimage.label((v == value) & valid, structure=structure, output=np.uint32)
        mask = labels > 0
        out[mask] = labels[mask] + total
        total += n
    drv = gdal.GetDriverByName("GTiff")
    o = drv.Create(dst, ds.RasterXSize, ds.RasterYSize, 1, gdal.GDT_UInt32,
                   ["TILED=YES", "COMPRESS=ZSTD", "ZSTD_LEVEL=1", "BIGTIFF=IF_SAFER"])
    o.SetGeoTransform(ds.GetGeoTransform())
    o.SetProjection(ds.GetProjection())
    ob = o.GetRasterBand(1)
    ob.SetNoDataValue(0)
    ob.WriteArray(out)
    o = None
    print(f"{total} regions")


if __name__ == "__main__":
    main()
