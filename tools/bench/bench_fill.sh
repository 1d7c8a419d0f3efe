#!/bin/bash
# tools/bench/bench_fill.sh: terrazo fill --outlets edge against scikit-image's reconstruction by
# erosion (tools/bench/fill_skimage.py) on the same input, paired: each round runs terrazo, then
# scikit-image, so both see about the same load. Prints every run, per tool the best and the median
# wall time, the CPU time (user + sys) and the peak RSS (/usr/bin/time), the ratios, and whether the
# two filled rasters hold the same values (gdal, cell for cell). Results go to docs/benchmarks.md ("Fill").
#
# Usage: tools/bench/bench_fill.sh [--terrazo BIN] [--threads N] [--rounds N] [--memory SIZE] INPUT
#   INPUT   an elevation raster without nodata (scikit-image has none), e.g.
#           terrazo gen --width 4096 --height 4096 --seed 5 g4096.tif
set -euo pipefail

source "$(dirname "$0")/bench_lib.sh"
rounds=3
memory=1G
bench_parse "[--terrazo BIN] [--threads N] [--rounds N] [--memory SIZE] INPUT" --memory memory "$@"

bench_load before
for ((r = 1; r <= rounds; ++r)); do
  rm -f "$work/terrazo.tif" "$work/skimage.tif"
  bench_run terrazo "$terrazo" fill -q --outlets edge --threads "$threads" --memory "$memory" --tmpdir "$work" \
    "$input" "$work/terrazo.tif"
  bench_run skimage /usr/bin/python3 "$bench/fill_skimage.py" "$input" "$work/skimage.tif"
done
bench_load after
/usr/bin/python3 - "$times" "$work/terrazo.tif" "$work/skimage.tif" <<'PY'
import statistics, sys
import numpy as np
from osgeo import gdal
rows = [line.split() for line in open(sys.argv[1])]
stats = {}
for tool in ("terrazo", "skimage"):
    walls = sorted(float(r[1]) for r in rows if r[0] == tool)
    cpu = [float(r[2]) for r in rows if r[0] == tool]
    rss = max(int(r[3]) for r in rows if r[0] == tool)
    stats[tool] = (walls[0], statistics.median(walls))
    print("%-8s best %7.2f s  median %7.2f s  cpu %7.2f s  peak RSS %8.1f MiB" %
          (tool, walls[0], statistics.median(walls), statistics.median(cpu), rss / 1024))
print("skimage / terrazo: best %.2fx, median %.2fx" %
      (stats["skimage"][0] / stats["terrazo"][0], stats["skimage"][1] / stats["terrazo"][1]))
a = gdal.Open(sys.argv[2]).ReadAsArray().astype(np.float64)
b = gdal.Open(sys.argv[3]).ReadAsArray().astype(np.float64)
print("same values: %s (%d cells differ)" % (bool(np.array_equal(a, b)), int(np.count_nonzero(a != b))))
PY
