#!/usr/bin/python3
"""Golden r.clump partitions for tests/test_clump.cpp (ClumpGolden.*).

Independent reference for `terrazo clump --by value`: every DEM of datasets/real/ classified into
8 elevation bands, and GRASS GIS r.clump (Debian grass-core 8.2) run on the bands, with 4 (default)
and 8 (-d) neighbours. r.clump's numbering is its own; the golden labels are r.clump's regions
renumbered 1..K in row-major order of each region's first cell (canonical form: two labellings are
the same partition exactly when their canonical forms are equal), 0 = null.

Exact command (from the repository root; needs grass-core, python3-gdal, python3-numpy):
    /usr/bin/python3 datasets/make_golden_clump.py

Outputs (datasets/golden/clump/):
    <dem>_bands.tif        Int16 bands 0..7, nodata -1: band = floor(8 (v - min) / (max - min)),
                           7 for v = max; nodata where the DEM is nodata (its nodata value, NaN or
                           Inf). Plain geotransform (0, 1, 0, H, 0, -1), no CRS (r.clump works on
                           cells; an XY location reads every file alike).
    <dem>_rclump4.tif      UInt32 canonical r.clump labels, 4 neighbours, nodata 0
    <dem>_rclump8.tif      UInt32 canonical r.clump -d labels, 8 neighbours, nodata 0
    rclump.txt             one line per DEM and connectivity: name, connectivity, regions, labelled
                           cells, largest region (cells), as r.clump found them
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
from osgeo import gdal

gdal.UseExceptions()
HERE = os.path.dirname(os.path.abspath(__file__))
REAL = os.path.join(HERE, "real")
OUT = os.path.join(HERE, "golden", "clump")
DEMS = ["Mandakini.bil", "Mega_divide.bil", "N44W072.hgt", "hugo_site.asc", "nz_elev.tif", "pysheds_dem.tif",
        "rhine_elv0.tif", "srtm_bigtujunga30m_utm11.tif", "west_bijou_gully.asc"]
BANDS = 8
CO = ["COMPRESS=DEFLATE", "PREDICTOR=2", "TILED=YES"]


def stem(name):
    return os.path.splitext(name)[0]


def classify(path):
    ds = gdal.Open(path)
    band = ds.GetRasterBand(1)
    v = band.ReadAsArray().astype(np.float64)
    nodata = band.GetNoDataValue()
    invalid = ~np.isfinite(v)
    if nodata is not None:
        invalid |= v == nodata
    lo, hi = v[~invalid].min(), v[~invalid].max()
    bands = np.floor(BANDS * (v - lo) / (hi - lo))
    bands = np.clip(bands, 0, BANDS - 1).astype(np.int16)
    bands[invalid] = -1
    return bands


def write(path, array, gdal_type, nodata):
    h, w = array.shape
    ds = gdal.GetDriverByName("GTiff").Create(path, w, h, 1, gdal_type, CO)
    ds.SetGeoTransform((0, 1, 0, h, 0, -1))
    b = ds.GetRasterBand(1)
    b.SetNoDataValue(nodata)
    b.WriteArray(array)
    ds = None


def canonical(labels, valid):
    """Labels renumbered 1..K in row-major order of first cells; 0 where not valid."""
    flat = labels.ravel()
    mask = valid.ravel()
    keys, first = np.unique(flat[mask], return_index=True)
    order = np.argsort(first)  # regions by their first cell among the valid cells (row-major)
    number = np.empty(len(keys), dtype=np.uint32)
    number[order] = np.arange(1, len(keys) + 1, dtype=np.uint32)
    out = np.zeros(flat.shape, dtype=np.uint32)
    out[mask] = number[np.searchsorted(keys, flat[mask])]
    return out.reshape(labels.shape), len(keys)


def main():
    os.makedirs(OUT, exist_ok=True)
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        script = ["set -e"]
        for name in DEMS:
            s = stem(name)
            bands = os.path.join(OUT, s + "_bands.tif")
            write(bands, classify(os.path.join(REAL, name)), gdal.GDT_Int16, -1)
            script.append(f"r.in.gdal --q -o --overwrite input={bands} output=b_{s.replace('.', '_')}")
            for conn, flag in ((4, ""), (8, "-d")):
                raw = os.path.join(tmp, f"{s}_{conn}.tif")
                m = f"b_{s.replace('.', '_')}"
                script += [f"g.region raster={m}",
                           f"r.clump {flag} --q --overwrite input={m} output=c{conn}",
                           f"r.out.gdal --q -f -c --overwrite input=c{conn} output={raw} type=UInt32"]
        sh = os.path.join(tmp, "run.sh")
        with open(sh, "w") as f:
            f.write("\n".join(script) + "\n")
        subprocess.run(["grass", "--tmp-location", "XY", "--exec", "bash", sh], check=True,
                       stdout=subprocess.DEVNULL)
        for name in DEMS:
            s = stem(name)
            valid = gdal.Open(os.path.join(OUT, s + "_bands.tif")).ReadAsArray() >= 0
            for conn in (4, 8):
                ds = gdal.Open(os.path.join(tmp, f"{s}_{conn}.tif"))
                b = ds.GetRasterBand(1)
                raw = b.ReadAsArray()
                nodata = b.GetNoDataValue()
                clumped = raw != nodata if nodata is not None else np.ones(raw.shape, bool)
                if not np.array_equal(clumped, valid):
                    sys.exit(f"{name}: r.clump's null cells differ from the bands' nodata")
                labels, regions = canonical(raw, valid)
                write(os.path.join(OUT, f"{s}_rclump{conn}.tif"), labels, gdal.GDT_UInt32, 0)
                sizes = np.bincount(labels.ravel())[1:]
                lines.append(f"{name} {conn} {regions} {int(valid.sum())} {int(sizes.max()) if len(sizes) else 0}")
    with open(os.path.join(OUT, "rclump.txt"), "w") as f:
        f.write("# name connectivity regions cells_labelled largest_region  (r.clump on <stem>_bands.tif;"
                " datasets/make_golden_clump.py)\n")
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
