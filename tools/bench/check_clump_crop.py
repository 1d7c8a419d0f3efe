#!/usr/bin/python3
"""Checks a clump label raster on a crop, for runs too large for the in-memory oracle
(docs/benchmarks.md "Clump at 4 G cells"): reads a SIDE x SIDE window at (X, Y) of INPUT (integer
classes) and of LABELS, labels the window's own regions (scipy.ndimage.label per value, 8 or 4
neighbours) and checks that
  1. nodata agrees: LABELS is nodata exactly where INPUT is;
  2. every region of the window has one label in LABELS (regions are never split);
  3. every label covers one class (regions of different values are never joined).
Two regions of the window may share a label (they meet outside it); what joins them there is not
checked. Prints the counts and exits 1 on any failure.

    /usr/bin/python3 tools/bench/check_clump_crop.py [--connectivity 8|4] INPUT LABELS X Y SIDE
"""
import sys

import numpy as np
from osgeo import gdal
from scipy import ndimage

gdal.UseExceptions()


def window(path, x, y, side):
    ds = gdal.Open(path)  # kept alive while its band is read
    band = ds.GetRasterBand(1)
    return band.ReadAsArray(x, y, side, side), band.GetNoDataValue()


def main():
    args = sys.argv[1:]
    conn = 8
    if args[:1] == ["--connectivity"]:
        conn, args = int(args[1]), args[2:]
    src, labels_path, x, y, side = args[0], args[1], int(args[2]), int(args[3]), int(args[4])
    v, v_nodata = window(src, x, y, side)
    lab, lab_nodata = window(labels_path, x, y, side)
    valid = np.ones(v.shape, bool) if v_nodata is None else v != v_nodata
    labelled = np.ones(lab.shape, bool) if lab_nodata is None else lab != lab_nodata
    failures = 0
    nodata_mismatch = int(np.count_nonzero(valid != labelled))
    if nodata_mismatch:
        print(f"FAIL nodata: {nodata_mismatch} cells differ")
        failures += 1
    structure = np.ones((3, 3), bool) if conn == 8 else ndimage.generate_binary_structure(2, 1)
    regions = 0
    split = 0
    for value in np.unique(v[valid]):
        own, n = ndimage.label((v == value) & valid, structure=structure)
        regions += n
        mask = own > 0
        # Each own region: its smallest and largest label must agree.
        lo = ndimage.minimum(lab, own, index=np.arange(1, n + 1))
        hi = ndimage.maximum(lab, own, index=np.arange(1, n + 1))
        split += int(np.count_nonzero(np.asarray(lo) != np.asarray(hi)))
        del mask
    if split:
        print(f"FAIL split: {split} regions of the window carry more than one label")
        failures += 1
    pairs = np.unique(np.stack([lab[valid].astype(np.uint64), v[valid].astype(np.uint64)]), axis=1)
    labels = np.unique(pairs[0])
    joined = pairs.shape[1] - labels.size
    if joined:
        print(f"FAIL joined: {joined} labels cover more than one class")
        failures += 1
    print(f"crop {side}x{side} at {x},{y}: {int(valid.sum())} valid cells, {regions} regions of the window, "
          f"{labels.size} labels; {'passed' if failures == 0 else 'FAILED'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
