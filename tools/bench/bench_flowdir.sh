#!/bin/bash
# tools/bench/bench_flowdir.sh: terrazo flowdir on a filled generated raster, and GRASS r.watershed -s
# (D8 directions, its `drainage` map) on the same filled raster as a reference when GRASS is there.
# The two do not do the same work: r.watershed always computes the flow accumulation too (and
# routes by its own A* search and flat rules), so its time is printed for orientation only and not
# recorded in docs/benchmarks.md. Also printed: the share of cells where the two give the same
# direction (GRASS's codes mapped to ESRI's; its outflowing edge cells left out).
#
# Usage: tools/bench/bench_flowdir.sh [--terrazo BIN] [--memory SIZE] [--threads N] [--repeat N] W H SEED
#   e.g. tools/bench/bench_flowdir.sh --threads 2 4096 4096 7   (16.8 M cells)
set -euo pipefail
source "$(dirname "$0")/grass_session.sh"
bench_options "$@"
width=${bench_args[0]} height=${bench_args[1]} seed=${bench_args[2]}
bench_workdir bench_flowdir
dem=$work/dem.tif filled=$work/filled.tif

"$terrazo" gen -q --width "$width" --height "$height" --seed "$seed" "$dem"
"$terrazo" fill -q --memory "$memory" --threads "$threads" --tmpdir "$work" "$dem" "$filled"
echo "input: terrazo gen ${width}x${height} seed $seed, filled by terrazo fill; machine: $(nproc) cores," \
  "load $(cut -d' ' -f1-3 /proc/loadavg)"

read -r w c < <(best "$terrazo" flowdir -q --json --memory "$memory" --threads "$threads" --tmpdir "$work" \
  "$filled" "$work/terrazo.tif")
summary=$(tail -n 1 "$work/out")
printf '%-40s %8s s  (CPU %s s)\n' "terrazo flowdir --threads $threads" "$w" "$c"
/usr/bin/python3 -c "
import json, sys
d = json.loads(sys.argv[1])
print('  phases %s; flat cells %d on %d flats, %d across tiles; peak RSS %.1f MiB' % (
    {k: round(v, 2) for k, v in d['phases'].items()}, d['flat_cells'], d['flats'], d['cross_tile_flat_cells'],
    d['peak_rss_bytes'] / 2**20))" "$summary"

if command -v grass > /dev/null; then
  {
    echo 'set -e'
    echo "r.in.gdal -o input=\"$filled\" output=dem --quiet"
    echo 'g.region raster=dem'
    echo 'start=$(date +%s.%N)'
    echo 'r.watershed -s elevation=dem drainage=dir --quiet'
    echo 'end=$(date +%s.%N)'
    echo "echo \"\$start \$end\" >> \"$work/rwatershed\""
    echo "r.out.gdal input=dir output=\"$work/grass.tif\" type=Int16 --quiet --overwrite -f"
  } > "$work/grass.sh"
  read -r w c < <(best grass --tmp-location "$filled" --exec bash "$work/grass.sh")
  printf '%-40s %8s s  (CPU %s s; r.watershed alone best %s s; not the same work)\n' \
    "GRASS r.watershed -s (with accumulation)" "$w" "$c" "$(grass_command_seconds "$work/rwatershed")"
  /usr/bin/python3 - "$work/terrazo.tif" "$work/grass.tif" <<'PY'
import sys
import numpy as np
from osgeo import gdal
ours = gdal.Open(sys.argv[1]).ReadAsArray().astype(np.int32)
grass = gdal.Open(sys.argv[2]).ReadAsArray().astype(np.int32)
esri = np.array([0, 128, 64, 32, 16, 8, 4, 2, 1])  # r.watershed: 1 NE, 2 N, ..., 8 E (counter-clockwise)
inside = (grass > 0) & (grass <= 8)
same = ours[inside] == esri[grass[inside]]
print("same direction as r.watershed on %.2f%% of its %d inward cells" % (100 * same.mean(), inside.sum()))
PY
fi
