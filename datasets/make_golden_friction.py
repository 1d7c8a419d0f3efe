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
The source cell and crop window are repeated in the test; change them together.
"""
import os
import shutil
import subprocess
import tempfile

import numpy as np
from osgeo import gdal
from skimage.graph import MCP_Geometric

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
    with tempfile.TemporaryDirectory() as tmp:
        grass_out = os.path.join(tmp, 'rcost.tif')
        gt = ds.GetGeoTransform()
        sx = gt[0] + (SOURCE_COL + 0.5) * gt[1]
        sy = gt[3] + (SOURCE_ROW + 0.5) * gt[5]
        script = ('r.in.gdal input=%s output=c --quiet && g.region raster=c && '
                  'r.cost input=c output=cost start_coordinates=%.12f,%.12f --quiet && '
                  'r.out.gdal input=cost output=%s type=Float64 --quiet -f' % (crop_path, sx, sy, grass_out))
        subprocess.run(['grass', '--tmp-location', crop_path, '--exec', 'bash', '-c', script], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        grass = gdal.Open(grass_out).ReadAsArray()
        rel = np.abs(grass - cumulative) / np.maximum(np.abs(cumulative), 1e-300)
        rel[SOURCE_ROW, SOURCE_COL] = 0
        print('GRASS r.cost vs MCP_Geometric: max relative difference %.3g' % rel.max())
