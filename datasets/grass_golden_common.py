"""What the datasets/make_golden_*.py scripts that run GRASS GIS share (imported, not run).

- cell_centre: the map coordinates GRASS takes as a start point for a cell of a north-up raster;
- grass_cost: one throw-away GRASS session (`grass --tmp-location RASTER --exec`) that runs the
  caller's commands and exports their raster map `cost` as Float64, read back with nulls as NaN;
- sample_cells: the cells a golden file samples (a 20 x 20 grid, the 40 of largest cost, the
  5 x 5 window around the source).
Needs grass-core and python3-gdal (tools/setup.sh --bench).
"""
import os
import subprocess
import tempfile

import numpy as np
from osgeo import gdal


def cell_centre(gt, col, row):
    """Map coordinates (x, y) of the centre of cell (col, row) under the geotransform gt (north-up)."""
    return gt[0] + (col + 0.5) * gt[1], gt[3] + (row + 0.5) * gt[5]


def grass_cost(location, commands):
    """Runs `commands` (GRASS command lines, in order, each stopping the session when it fails) in a
    throw-away GRASS location made from the raster `location`, then exports the raster map `cost`
    (Float64) and returns it as a float64 array, its null cells NaN."""
    with tempfile.TemporaryDirectory() as tmp:
        cost_tif = os.path.join(tmp, 'cost.tif')
        script = ' && '.join(list(commands) +
                             ['r.out.gdal input=cost output=%s type=Float64 -f --quiet' % cost_tif])
        subprocess.run(['grass', '--tmp-location', location, '--exec', 'bash', '-c', script], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        out = gdal.Open(cost_tif)
        cost = out.ReadAsArray().astype(np.float64)
        nodata = out.GetRasterBand(1).GetNoDataValue()
    if nodata is not None:
        cost[cost == nodata] = np.nan
    return cost


def sample_cells(cost, source_row, source_col):
    """The (row, col) cells to sample: a 20 x 20 grid over the raster, the 40 cells of largest finite
    cost (ties in row-major order), and the 5 x 5 window around the source (inside the raster)."""
    h, w = cost.shape
    picked = set()
    for r in np.linspace(0, h - 1, 20).astype(int):
        for c in np.linspace(0, w - 1, 20).astype(int):
            picked.add((int(r), int(c)))
    finite = np.where(np.isfinite(cost), cost, -1.0)
    for i in np.argsort(-finite.ravel(), kind='stable')[:40]:
        picked.add((int(i // w), int(i % w)))
    for r in range(source_row - 2, source_row + 3):
        for c in range(source_col - 2, source_col + 3):
            if 0 <= r < h and 0 <= c < w:
                picked.add((r, c))
    return picked
