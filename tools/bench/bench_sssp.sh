#!/bin/bash
# tools/bench/bench_sssp.sh: terrazo sssp against GRASS r.cost and scikit-image MCP_Geometric on the same
# input, in one run; prints seconds, peak RSS, ratios and the largest relative difference of the
# cost rasters (terrazo vs scikit-image). Results go to docs/benchmarks.md ("SSSP, CPU").
#
# Usage: tools/bench/bench_sssp.sh [--terrazo BIN] [--memory SIZE] [--threads N] [--repeat N] [--skip-grass]
#                            [--skip-skimage] INPUT X,Y
#   INPUT   any GDAL raster with non-negative values (the friction surface)
#   X,Y     the source cell, column,row
# Each tool's time is the wall time of its whole command as a user runs it (reading the input and
# writing the cost raster included); GRASS's also includes r.in.gdal/r.out.gdal, reported apart.
# CPU seconds (user + sys, all threads and child processes, /usr/bin/time) are printed beside, with
# ratios of both: on a shared machine the wall ratio moves with the load, the CPU ratio much less.
# --repeat N (default 3): N rounds, each running terrazo, r.cost and MCP once in turn, so every tool
# meets the machine's moods alike; each tool's best round is reported (with its CPU time and RSS),
# its worst and all its wall times beside, and the ratios are of the best times.
# Example:
#   terrazo gen --width 4096 --height 4096 --seed 3 /tmp/g16m.tif
#   tools/bench/bench_sssp.sh --memory 1G /tmp/g16m.tif 2000,2000
set -euo pipefail
source "$(dirname "$0")/grass_session.sh"

bench_defaults
skip_grass=0
skip_skimage=0
while [[ $# -gt 2 ]]; do
  case "$1" in
    --skip-grass) skip_grass=1; shift ;;
    --skip-skimage) skip_skimage=1; shift ;;
    *) bench_option "$1" "$2" || { echo "unknown option $1" >&2; exit 2; }; shift 2 ;;
  esac
done
if [[ $# -ne 2 ]]; then sed -n '6,19p' "$0" >&2; exit 2; fi
if ! [[ $repeat =~ ^[1-9][0-9]*$ ]]; then echo "--repeat takes a whole number of rounds, 1 or more" >&2; exit 2; fi
input=$(realpath "$1")
source_xy=$2
sx=${source_xy%,*}
sy=${source_xy#*,}
bench_workdir bench_sssp

size=$(gdalinfo "$input" | sed -n 's/^Size is \([0-9]*\), \([0-9]*\)/\1 \2/p')
cells=$(( ${size% *} * ${size#* } ))
echo "input: $input ($size, $cells cells), source $sx,$sy"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(lscpu | sed -n 's/^Model name: *//p')"

# best_of FILE: of the "seconds rss user sys" lines in FILE, the line with the least seconds.
best_of() { sort -n -k1,1 "$1" | head -n 1; }
# all_of FILE: every round's seconds, in the order run.
all_of() { awk '{printf "%s%s", (NR > 1 ? " " : ""), $1}' "$1"; }
worst_of() { sort -n -k1,1 "$1" | tail -n 1 | cut -d' ' -f1; }
: > "$work/terrazo.rounds"; : > "$work/grass.rounds"; : > "$work/skimage.rounds"

run_terrazo() {
  /usr/bin/time -f "%e %M %U %S" -o "$work/terrazo.time" "$terrazo" sssp -q --json --memory "$memory" --threads "$threads" \
    --tmpdir "$work" --source "$source_xy" "$input" "$work/terrazo.tif" > "$work/terrazo.json.new"
  # The summary of the best round so far is the one reported.
  if [[ ! -s "$work/terrazo.rounds" ]] ||
     awk -v now="$(cut -d' ' -f1 "$work/terrazo.time")" -v best="$(best_of "$work/terrazo.rounds" | cut -d' ' -f1)" \
       'BEGIN { exit !(now < best) }'; then
    mv "$work/terrazo.json.new" "$work/terrazo.json"
  fi
  cat "$work/terrazo.time" >> "$work/terrazo.rounds"
}

# GRASS r.cost (default flags: 8 neighbours, no knight's move), source at the cell centre.
t_grass=""
use_grass=0
if [[ $skip_grass -eq 0 ]] && command -v grass > /dev/null; then
  use_grass=1
  read -r ex ey < <(cell_centre "$input" "$sx" "$sy")
  grass_timed_script "$work/grass.sh" "$input" "$work/grass.rcost" "$work/grass.tif" \
    "r.cost input=dem output=cost start_coordinates=$ex,$ey --quiet"
fi
run_grass() {
  /usr/bin/time -f "%e %M %U %S" -o "$work/grass.time" grass --tmp-location "$input" --exec bash "$work/grass.sh" > /dev/null 2>&1
  echo "$(cat "$work/grass.time") $(grass_command_seconds "$work/grass.rcost")" >> "$work/grass.rounds"
}

# scikit-image MCP_Geometric(fully_connected=True)
t_skimage=""
if [[ $skip_skimage -eq 0 ]]; then
  cat > "$work/mcp_geometric_run.py" << EOF
import time
import numpy as np
from osgeo import gdal
from skimage.graph import MCP_Geometric
ds = gdal.Open('$input')
band = ds.GetRasterBand(1)
a = band.ReadAsArray().astype(np.float64)
nodata = band.GetNoDataValue()
if nodata is not None:
    a[a == nodata] = np.inf   # MCP: infinite cost = impassable
a[np.isnan(a)] = np.inf
start = time.time()
costs, _ = MCP_Geometric(a, fully_connected=True).find_costs([($sy, $sx)])
elapsed = time.time() - start
costs[np.isinf(costs)] = -1
out = gdal.GetDriverByName('GTiff').Create('$work/skimage.tif', a.shape[1], a.shape[0], 1, gdal.GDT_Float64,
                                           options=['TILED=YES', 'COMPRESS=DEFLATE', 'BIGTIFF=IF_SAFER'])
out.GetRasterBand(1).WriteArray(costs)
out = None
print('%.2f' % elapsed)
EOF
fi
run_skimage() {
  /usr/bin/time -f "%e %M %U %S" -o "$work/skimage.time" /usr/bin/python3 "$work/mcp_geometric_run.py" > "$work/skimage.out"
  echo "$(cat "$work/skimage.time") $(cat "$work/skimage.out")" >> "$work/skimage.rounds"
}

for ((round = 1; round <= repeat; ++round)); do
  run_terrazo
  if [[ $use_grass -eq 1 ]]; then run_grass; fi
  if [[ $skip_skimage -eq 0 ]]; then run_skimage; fi
done

read -r t_terrazo rss_terrazo u_terrazo s_terrazo < <(best_of "$work/terrazo.rounds")
cpu_terrazo=$(/usr/bin/python3 -c "print('%.2f' % ($u_terrazo + $s_terrazo))")
summary=$(tail -n 1 "$work/terrazo.json")
echo "rounds: $repeat (best of each tool reported; all wall times in brackets, in the order run)"
echo "terrazo sssp:         ${t_terrazo} s (CPU ${cpu_terrazo} s; worst $(worst_of "$work/terrazo.rounds") s) [$(all_of "$work/terrazo.rounds")], peak RSS $((rss_terrazo / 1024)) MiB  $(/usr/bin/python3 -c "
import json, sys
d = json.loads(sys.argv[1])
print('tiles %d, solves %d, re-solves %d, exchange %.2f s, write %.2f s' % (d['tiles'], d['solves'], d['resolves'],
      d['phases']['exchange'], d['phases']['write']))" "$summary")"
if [[ $use_grass -eq 1 ]]; then
  read -r t_grass rss_grass u_grass s_grass t_rcost < <(best_of "$work/grass.rounds")
  cpu_grass=$(/usr/bin/python3 -c "print('%.2f' % ($u_grass + $s_grass))")
  echo "GRASS r.cost:         ${t_grass} s (CPU ${cpu_grass} s; r.cost alone ${t_rcost} s; worst $(worst_of "$work/grass.rounds") s) [$(all_of "$work/grass.rounds")], peak RSS $((rss_grass / 1024)) MiB"
fi
if [[ $skip_skimage -eq 0 ]]; then
  read -r t_skimage rss_skimage u_skimage s_skimage t_find < <(best_of "$work/skimage.rounds")
  cpu_skimage=$(/usr/bin/python3 -c "print('%.2f' % ($u_skimage + $s_skimage))")
  echo "skimage MCP_Geometric: ${t_skimage} s (CPU ${cpu_skimage} s; find_costs alone ${t_find} s; worst $(worst_of "$work/skimage.rounds") s) [$(all_of "$work/skimage.rounds")], peak RSS $((rss_skimage / 1024)) MiB"
  /usr/bin/python3 - "$work" << 'EOF'
import sys
import numpy as np
from osgeo import gdal
work = sys.argv[1]
t = gdal.Open(work + '/terrazo.tif')
s = gdal.Open(work + '/skimage.tif')
worst = 0.0
rows = 1024
for y in range(0, t.RasterYSize, rows):
    h = min(rows, t.RasterYSize - y)
    a = t.ReadAsArray(0, y, t.RasterXSize, h)
    b = s.ReadAsArray(0, y, t.RasterXSize, h)
    m = (a >= 0) & (b > 0)
    if m.any():
        worst = max(worst, float(np.max(np.abs(a[m] - b[m]) / b[m])))
    if ((a >= 0) != (b >= 0)).any():
        print('reached cells differ between terrazo and scikit-image')
print('terrazo vs scikit-image: max relative difference %.3g' % worst)
EOF
fi

echo "ratios (peer time / terrazo time):"
[[ -n "$t_grass" ]] && /usr/bin/python3 -c "print('  GRASS r.cost / terrazo   = %.2f (CPU %.2f)' % ($t_grass / $t_terrazo, $cpu_grass / $cpu_terrazo))"
[[ -n "$t_skimage" ]] && /usr/bin/python3 -c "print('  scikit-image / terrazo   = %.2f (CPU %.2f)' % ($t_skimage / $t_terrazo, $cpu_skimage / $cpu_terrazo))"
exit 0
