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

terrazo=$(dirname "$0")/../../build/terrazo
threads=2
rounds=3
memory=1G
while [[ $# -gt 1 ]]; do
  case "$1" in
    --terrazo) terrazo=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --memory) memory=$2; shift 2 ;;
    *) echo "bench_fill.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [[ $# -ne 1 ]]; then
  echo "usage: $0 [--terrazo BIN] [--threads N] [--rounds N] [--memory SIZE] INPUT" >&2
  exit 2
fi
input=$(realpath "$1")
bench=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
times="$work/times.txt"

# run NAME COMMAND...: one timed run; appends "NAME wall cpu rss_kib" to $times.
run() {
  local name=$1
  shift
  /usr/bin/time -f "%e %U %S %M" -o "$work/t" "$@" > /dev/null
  read -r wall user sys rss < "$work/t"
  echo "$name $wall $(echo "$user + $sys" | bc) $rss" | tee -a "$times"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds; ++r)); do
  rm -f "$work/terrazo.tif" "$work/skimage.tif"
  run terrazo "$terrazo" fill -q --outlets edge --threads "$threads" --memory "$memory" --tmpdir "$work" \
    "$input" "$work/terrazo.tif"
  run skimage /usr/bin/python3 "$bench/fill_skimage.py" "$input" "$work/skimage.tif"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
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
