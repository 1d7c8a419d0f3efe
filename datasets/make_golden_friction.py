#!/usr/bin/python3
"""Golden friction distances for tests/test_sssp_pipeline.cpp (GoldenFriction.*).

Independent reference for terrazo's default weight model (friction = GRASS r.cost =
scikit-image MCP_Geometric): a crop of datasets/real/pysheds_dem.tif is the cost surface, the
cumulative cost from one source cell is computed by scikit-image 0.19
MCP_Geometric(fully_connected=True) and, when GRASS is installed, checked against GRASS r.cost
(default flags: 8 neighbours, no knight's move). Both are written as GeoTIFFs next to this script.

Exact command (from the repository root):
    /usr/bin/python3 datasets/make_golden_friction.py

Outputs (datasets/golden/):
    pysheds_crop.tif               Int16 crop: columns 200..279, rows 100..171 (80 x 72 cells), georeferenced
    pysheds_crop_mcp_cost.tif      Float64, MCP_Geometric cost from the source (column 17, row 23 of the crop)
    friction_samples.txt           every DEM of datasets/real/ (full raster): one source and ~500 sample
                                   cells with their MCP_Geometric cost, for tests/test_golden_friction.cpp
The source cell and crop window are repeated in the test; change them together.

friction_samples.txt, per DEM (the raster as terrazo reads it, nodata = the declared nodata value or
NaN, given cost np.inf so that MCP_Geometric never enters it):
  - source: the cell nearest the raster centre (ties: lowest row, then column) among the valid cells of
    the largest 8-connected component of valid cells, so that no DEM's source sits on a small island;
  - samples: in each block of a k x k division of the raster, the reached cell nearest the block's
    centre, k = 20, 25, 30, ... (at most the raster's smaller side) until 400 blocks hold a reached
    cell; the 40 reached cells of largest cost; the reached cells of the 5 x 5 window around the
    source; up to 20 cells MCP_Geometric does not reach (valid cells cut off from the source first,
    then nodata cells), evenly spaced in row-major order, written with cost "inf";
  - costs printed with 17 significant digits (%.17g), so they read back as the same doubles.
A DEM with negative values (terrazo's friction model rejects them) is skipped with a comment line.
Format: comment lines start with '#'; "dem <path under datasets/> <width> <height> <source col>
<source row> <sample count>" then that many "<col> <row> <cost>" lines.
"""
import os
import shutil

import numpy as np
from osgeo import gdal
from scipy import ndimage
from skimage.graph import MCP_Geometric

from grass_golden_common import cell_centre, grass_cost

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, 'real', 'pysheds_dem.tif')
OUT = os.path.join(HERE, 'golden')
X0, Y0, W, H = 200, 100, 80, 72
SOURCE_COL, SOURCE_ROW = 17, 23

os.makedirs(OUT, exist_ok=True)
crop_path = os.path.join(OUT, 'pysheds_crop.tif')
gdal.Translate(crop_path, SRC, srcWin=[X0, Y0, W, H], creationOptions=['COMPRESS=DEFLATE'])

costs = gdal.Open(crop_path).ReadAsArray().astype(np.float64)
mcp = MCP_Geometric(costs, fully_connected=True)
cumulative, _ = mcp.find_costs([(SOURCE_ROW, SOURCE_COL)])

ds = gdal.Open(crop_path)
drv = gdal.GetDriverByName('GTiff')
out = drv.Create(os.path.join(OUT, 'pysheds_crop_mcp_cost.tif'), W, H, 1, gdal.GDT_Float64,
                 options=['COMPRESS=DEFLATE', 'PREDICTOR=3'])
out.SetGeoTransform(ds.GetGeoTransform())
out.SetProjection(ds.GetProjection())
out.GetRasterBand(1).WriteArray(cumulative)
out = None
print('MCP_Geometric: max cost %.9f' % cumulative.max())

# Cross-check with GRASS r.cost when it is installed (not stored: the two agree to ~1e-13).
if shutil.which('grass'):
    sx, sy = cell_centre(ds.GetGeoTransform(), SOURCE_COL, SOURCE_ROW)
    grass = grass_cost(crop_path, ['r.in.gdal input=%s output=c --quiet' % crop_path, 'g.region raster=c',
                                   'r.cost input=c output=cost start_coordinates=%.12f,%.12f --quiet' % (sx, sy)])
    rel = np.abs(grass - cumulative) / np.maximum(np.abs(cumulative), 1e-300)
    rel[SOURCE_ROW, SOURCE_COL] = 0
    print('GRASS r.cost vs MCP_Geometric: max relative difference %.3g' % rel.max())


# ---- All shipped DEMs: sampled MCP_Geometric costs from one source (friction_samples.txt) -------
DEMS = ['N44W072.hgt', 'Mega_divide.bil', 'Mandakini.bil', 'nz_elev.tif', 'srtm_bigtujunga30m_utm11.tif',
        'rhine_elv0.tif', 'pysheds_dem.tif', 'hugo_site.asc', 'west_bijou_gully.asc']
BLOCKS = 20        # 20 x 20 blocks, one sample each, or 25 x 25, 30 x 30, ...
BLOCK_SAMPLES = 400  # ... until this many blocks hold a reached cell
FARTHEST = 40      # reached cells of largest cost
NEAR = 2           # window of (2 NEAR + 1)^2 cells around the source
UNREACHED = 20     # cells MCP does not reach


def nearest(rows, cols, r0, c0):
    """Index (into rows/cols) of the cell nearest (r0, c0); ties: lowest row, then column."""
    d = (rows - r0) ** 2 + (cols - c0) ** 2
    return np.lexsort((cols, rows, d))[0]


lines = ['# Generated by datasets/make_golden_friction.py (scikit-image %s MCP_Geometric, fully_connected=True)'
         % __import__('skimage').__version__,
         '# dem <path> <width> <height> <source col> <source row> <count>, then <col> <row> <cost> lines']
for name in DEMS:
    dem = gdal.Open(os.path.join(HERE, 'real', name))  # kept open: the band needs its dataset
    band = dem.GetRasterBand(1)
    values = band.ReadAsArray().astype(np.float64)
    nodata = band.GetNoDataValue()
    valid = np.isfinite(values)
    if nodata is not None:
        valid &= values != nodata
    h, w = values.shape
    if (values[valid] < 0).any():
        lines.append('# skipped real/%s: %d cells have negative values (friction rejects negative costs)'
                     % (name, int((values[valid] < 0).sum())))
        continue
    labels, _ = ndimage.label(valid, structure=np.ones((3, 3), dtype=int))
    largest = np.argmax(np.bincount(labels[valid]))
    rows, cols = np.nonzero(labels == largest)
    k = nearest(rows, cols, (h - 1) / 2.0, (w - 1) / 2.0)
    sr, sc = int(rows[k]), int(cols[k])
    costs = np.where(valid, values, np.inf)
    cumulative, _ = MCP_Geometric(costs, fully_connected=True).find_costs([(sr, sc)])
    reached = np.isfinite(cumulative)

    for blocks in range(BLOCKS, min(h, w) + 1, 5):  # finer until ~400 blocks hold a reached cell
        picked = set()
        for by in range(blocks):
            r0, r1 = by * h // blocks, (by + 1) * h // blocks
            for bx in range(blocks):
                c0, c1 = bx * w // blocks, (bx + 1) * w // blocks
                br, bc = np.nonzero(reached[r0:r1, c0:c1])
                if len(br):
                    j = nearest(br, bc, (r1 - r0 - 1) / 2.0, (c1 - c0 - 1) / 2.0)
                    picked.add((r0 + int(br[j]), c0 + int(bc[j])))
        if len(picked) >= BLOCK_SAMPLES:
            break
    flat = np.flatnonzero(reached)
    order = np.argsort(-cumulative.ravel()[flat], kind='stable')[:FARTHEST]
    picked.update((int(i // w), int(i % w)) for i in flat[order])
    for r in range(max(sr - NEAR, 0), min(sr + NEAR + 1, h)):
        for c in range(max(sc - NEAR, 0), min(sc + NEAR + 1, w)):
            if reached[r, c]:
                picked.add((r, c))
    cut_off = np.flatnonzero(valid & ~reached)
    off = np.flatnonzero(~valid)
    chosen = cut_off[np.linspace(0, len(cut_off) - 1, min(UNREACHED, len(cut_off))).astype(int)] if len(cut_off) else []
    rest = UNREACHED - len(chosen)
    if rest > 0 and len(off):
        chosen = list(chosen) + list(off[np.linspace(0, len(off) - 1, min(rest, len(off))).astype(int)])
    picked.update((int(i // w), int(i % w)) for i in chosen)

    samples = sorted(picked)
    lines.append('# real/%s: %d valid cells, %d reached by MCP, max cost %.17g'
                 % (name, int(valid.sum()), int(reached.sum()), cumulative[reached].max()))
    lines.append('dem real/%s %d %d %d %d %d' % (name, w, h, sc, sr, len(samples)))
    for r, c in samples:
        v = cumulative[r, c]
        lines.append('%d %d %s' % (c, r, '%.17g' % v if np.isfinite(v) else 'inf'))
    print('%s: source %d,%d, %d samples, %d reached of %d valid' % (name, sc, sr, len(samples),
                                                                   int(reached.sum()), int(valid.sum())))
with open(os.path.join(OUT, 'friction_samples.txt'), 'w') as f:
    f.write('\n'.join(lines) + '\n')
