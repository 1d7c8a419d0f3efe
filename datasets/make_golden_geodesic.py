#!/usr/bin/python3
"""Golden geodesic step lengths for tests/test_cost_models.cpp (CostSteps.*, CostPath.*).

Independent reference for `terrazo sssp --distance geodesic` (api/step_lengths.cpp, which calls
PROJ's C geod_inverse): the same lengths from GeographicLib's pure-Python implementation of
Karney's algorithm (python3-geographiclib, Debian), cross-checked against pyproj's Geod.inv
(python3-pyproj) to 1e-6 m.

For every row y of datasets/real/N44W072.hgt (3601 x 3601, WGS 84, 1 arc-second): with the cell
centres' latitude lat(y) = top + (y + 0.5) * dy and the column spacing dlon = |dx| (degrees),
    ew   = geodesic (lat(y), 0) -> (lat(y), dlon)            east-west step on row y
    ns   = geodesic (lat(y), 0) -> (lat(y + 1), 0)           north-south step between rows y, y + 1
    diag = geodesic (lat(y), 0) -> (lat(y + 1), dlon)        diagonal step between rows y, y + 1
(the last row's ns and diag use the row below the raster, as terrazo's table does; they are
never used by a step).

Exact command (from the repository root):
    /usr/bin/python3 datasets/make_golden_geodesic.py

Output: datasets/golden/geodesic_steps_N44W072.txt: comment lines start with '#'; then
"<row> <ew> <ns> <diag>" in metres, %.17g.
"""
import os

from geographiclib.geodesic import Geodesic
from osgeo import gdal
import pyproj

here = os.path.dirname(os.path.abspath(__file__))
path = os.path.join(here, "real", "N44W072.hgt")
ds = gdal.Open(path)
gt = ds.GetGeoTransform()
height = ds.RasterYSize
assert gt[2] == 0 and gt[4] == 0
wgs84 = Geodesic.WGS84
check = pyproj.Geod(ellps="WGS84")
dlon = abs(gt[1])


def lat_of(y):
    return max(-90.0, min(90.0, gt[3] + (y + 0.5) * gt[5]))


def length(lat1, lon1, lat2, lon2):
    s = wgs84.Inverse(lat1, lon1, lat2, lon2)["s12"]
    _, _, s_check = check.inv(lon1, lat1, lon2, lat2)
    assert abs(s - s_check) < 1e-6, (lat1, lon1, lat2, lon2, s, s_check)
    return s


out = os.path.join(here, "golden", "geodesic_steps_N44W072.txt")
with open(out, "w") as f:
    f.write("# geodesic step lengths (metres) of datasets/real/N44W072.hgt, WGS 84; "
            "made by datasets/make_golden_geodesic.py (GeographicLib %s, pyproj %s)\n"
            % (getattr(__import__("geographiclib"), "__version__", "?"), pyproj.__version__))
    f.write("# row ew ns diag\n")
    for y in range(height):
        lat, nxt = lat_of(y), lat_of(y + 1)
        f.write("%d %.17g %.17g %.17g\n" % (y, length(lat, 0.0, lat, dlon), length(lat, 0.0, nxt, 0.0),
                                           length(lat, 0.0, nxt, dlon)))
print("wrote", out)
