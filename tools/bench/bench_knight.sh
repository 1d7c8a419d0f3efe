#!/usr/bin/env bash
# tools/bench/bench_knight.sh: `terrazo sssp --connectivity 16` against GRASS `r.cost -k` on one DEM (the DEM
# as the cost surface), in one run, best of N (default 3) of each whole command; plus terrazo's and
# r.cost's 8-neighbour runs as the baseline of what knight's moves cost (docs/benchmarks.md
# "Knight's moves").
#
# Usage: tools/bench/bench_knight.sh [--terrazo BIN] [--memory SIZE] [--threads N] [--repeat N] DEM SOURCE_X SOURCE_Y
# GRASS's time is the whole session (r.in.gdal, r.cost, r.out.gdal) and r.cost alone in brackets.
# terrazo's is the whole command (reading the DEM and the GeoTIFF write included). Wall seconds and
# CPU seconds (user + sys) are printed, and the largest difference between the two cost rasters.
set -euo pipefail
source "$(dirname "$0")/grass_session.sh"
bench_options "$@"
set -- "${bench_args[@]}"
dem=$(realpath "$1"); sx=$2; sy=$3
bench_workdir bench_knight
echo "input: $dem, source $sx,$sy; machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

run_terrazo() {  # connectivity
  read -r w c < <(best "$terrazo" sssp -q --json --memory "$memory" --threads "$threads" --tmpdir "$work" \
    --device cpu --connectivity "$1" --source "$sx,$sy" "$dem" "$work/terrazo$1.tif")
  printf '%-36s %8s s  (CPU %s s)  %s\n' "terrazo --connectivity $1" "$w" "$c" \
    "$(/usr/bin/python3 -c "import json,sys; d=json.loads(open(sys.argv[1]).read().splitlines()[-1]); print('scale %g, max %.6g, solves %d' % (d['scale'], d['max_distance'], d['solves']))" "$work/out")"
}

run_terrazo 8
run_terrazo 16

if command -v grass > /dev/null; then
  read -r ex ey < <(cell_centre "$dem" "$sx" "$sy")
  for k in "" "-k"; do
    : > "$work/rcost"
    grass_timed_script "$work/grass.sh" "$dem" "$work/rcost" "$work/grass$k.tif" \
      "r.cost $k input=dem output=cost start_coordinates=$ex,$ey --quiet"
    read -r w c < <(best grass --tmp-location "$dem" --exec bash "$work/grass.sh")
    printf '%-36s %8s s  (CPU %s s; r.cost alone best %s s)\n' "GRASS r.cost $k" "$w" "$c" \
      "$(grass_command_seconds "$work/rcost")"
  done
  /usr/bin/python3 - "$work" << 'COMPARE'
import sys
import numpy as np
from osgeo import gdal
work = sys.argv[1]
for ours, theirs in (('terrazo16.tif', 'grass-k.tif'), ('terrazo8.tif', 'grass.tif')):
    da, db = gdal.Open(work + '/' + ours), gdal.Open(work + '/' + theirs)
    a = da.ReadAsArray().astype(np.float64)
    b = db.ReadAsArray().astype(np.float64)
    na, nb = da.GetRasterBand(1).GetNoDataValue(), db.GetRasterBand(1).GetNoDataValue()
    ok = np.isfinite(a) & np.isfinite(b) & (b > 0)
    if na is not None: ok &= a != na
    if nb is not None: ok &= b != nb
    print('%s vs %s: max relative difference %.3g over %d cells' % (ours, theirs, np.max(np.abs(a[ok] - b[ok]) / b[ok]), ok.sum()))
COMPARE
fi
