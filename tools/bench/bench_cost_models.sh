#!/usr/bin/env bash
# tools/bench/bench_cost_models.sh: what each cost model of `terrazo sssp` costs against plain friction
# (--distance cells), on one input, in one run; plus GRASS r.cost (friction, cells) as the peer and
# `terrazo corridor` over two cost surfaces (docs/benchmarks.md "Cost models").
#
# Usage: tools/bench/bench_cost_models.sh [--terrazo BIN] [--memory SIZE] [--threads N] [--skip-grass]
#        [--modes "cells map geodesic geometric unit barrier corridor"] INPUT SOURCE_X SOURCE_Y
# Modes a raster's CRS refuses (map on lon/lat, geodesic on a projected CRS) are skipped.
# The barrier mode closes the cells of an 8-cell-wide wall every 512 columns (a gap every 512 rows),
# made with GDAL's Python bindings next to INPUT's copy in a scratch directory.
set -euo pipefail
source "$(dirname "$0")/grass_session.sh"
terrazo=build/terrazo
memory=1G
threads=0
skip_grass=0
modes="cells map geodesic geometric unit barrier corridor"
while [[ $# -gt 3 ]]; do
  case "$1" in
    --terrazo) terrazo=$2; shift 2 ;;
    --memory) memory=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --skip-grass) skip_grass=1; shift ;;
    --modes) modes=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
input=$1; sx=$2; sy=$3
bench_workdir bench_cost

json_field() { /usr/bin/python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(d$2)" "$1"; }

run_mode() {  # name, extra flags...
  local name=$1; shift
  local out
  if ! out=$(/usr/bin/time -f "%e %M" -o "$work/time" "$terrazo" sssp -q --json --memory "$memory" --threads "$threads" \
        --source "$sx,$sy" "$@" "$input" "$work/cost_$name.tif" 2> "$work/err"); then
    echo "$name: refused: $(tail -1 "$work/err")"
    return
  fi
  local summary; summary=$(echo "$out" | tail -1)
  read -r wall rss < "$work/time"
  printf '%-10s wall %6.2f s  exchange %6.2f s  peak RSS %5d MiB  scale %-8s max %.6g %s\n' "$name" "$wall" \
    "$(json_field "$summary" "['phases']['exchange']")" $((rss / 1024)) "$(json_field "$summary" "['scale']")" \
    "$(json_field "$summary" "['max_distance']")" "$(json_field "$summary" "['length_unit']")"
}

echo "input $input ($(gdalinfo "$input" | grep 'Size is')), source $sx,$sy, --memory $memory, --threads $threads"
echo "terrazo $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
for mode in $modes; do
  case "$mode" in
    cells) run_mode cells ;;
    map) run_mode map --distance map ;;
    geodesic) run_mode geodesic --distance geodesic ;;
    geometric) run_mode geometric --weight geometric ;;
    unit) run_mode unit --weight unit ;;
    barrier)
      /usr/bin/python3 - "$input" "$work/walls.tif" << 'PY'
import sys
import numpy as np
from osgeo import gdal
src = gdal.Open(sys.argv[1])
w, h = src.RasterXSize, src.RasterYSize
walls = np.zeros((h, w), dtype=np.uint8)
for x0 in range(256, w, 512):
    walls[:, x0:x0 + 8] = 1
    walls[::512, x0:x0 + 8] = 0
    for y0 in range(0, h, 512):
        walls[y0:y0 + 16, x0:x0 + 8] = 0
out = gdal.GetDriverByName('GTiff').Create(sys.argv[2], w, h, 1, gdal.GDT_Byte, ['TILED=YES', 'COMPRESS=ZSTD'])
out.SetGeoTransform(src.GetGeoTransform())
out.SetProjection(src.GetProjection())
out.GetRasterBand(1).WriteArray(walls)
out = None
PY
      run_mode barrier --barrier-raster "$work/walls.tif" ;;
    corridor)
      [[ -f "$work/cost_cells.tif" ]] || run_mode cells
      /usr/bin/time -f "%e %M" -o "$work/time" "$terrazo" sssp -q --memory "$memory" --threads "$threads" \
        --source "$((sx / 2)),$((sy / 2))" "$input" "$work/cost_b.tif" > /dev/null 2>&1 || true
      if [[ -f "$work/cost_b.tif" ]]; then
        /usr/bin/time -f "%e %M" -o "$work/time" "$terrazo" corridor -q --memory "$memory" --percent 5 \
          "$work/cost_cells.tif" "$work/cost_b.tif" "$work/corridor.tif" > /dev/null
        read -r wall rss < "$work/time"
        printf '%-10s wall %6.2f s  peak RSS %5d MiB  (terrazo corridor --percent 5 over two Float64 surfaces)\n' \
          corridor "$wall" $((rss / 1024))
      fi ;;
    *) echo "unknown mode $mode" >&2; exit 2 ;;
  esac
done

if [[ $skip_grass -eq 0 ]] && command -v grass > /dev/null; then
  read -r ex ey < <(cell_centre "$input" "$sx" "$sy")
  grass_timed_script "$work/grass.sh" "$input" "$work/grass.rcost" "" \
    "r.cost input=dem output=cost start_coordinates=$ex,$ey --quiet"
  /usr/bin/time -f "%e %M" -o "$work/grass.time" grass --tmp-location "$input" --exec bash "$work/grass.sh" > /dev/null 2>&1
  read -r t_grass rss_grass < "$work/grass.time"
  printf '%-10s wall %6.2f s  (r.cost alone %s s)  peak RSS %5d MiB  (GRASS r.cost, friction, cells)\n' r.cost \
    "$t_grass" "$(grass_command_seconds "$work/grass.rcost")" $((rss_grass / 1024))
fi
