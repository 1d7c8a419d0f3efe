#!/usr/bin/env bash
# bench/bench_walk.sh: `terrazo sssp --model walk|tobler` against GRASS r.walk on one DEM, in one run,
# best of N (default 3) of each whole command; plus plain friction (the DEM as friction, cells) as
# the baseline of what the directed models cost (docs/benchmarks.md "Anisotropic travel").
#
# Usage: bench/bench_walk.sh [--terrazo BIN] [--memory SIZE] [--threads N] [--repeat N] DEM SOURCE_X SOURCE_Y
# r.walk gets a friction map of 0 (r.mapcalc), its defaults otherwise; its time is the whole GRASS
# session (import, r.mapcalc, r.walk, export) and r.walk alone. terrazo's is the whole command
# (import and the GeoTIFF write included). Wall seconds and CPU seconds (user + sys) are printed.
set -euo pipefail
terrazo=build/terrazo
memory=1G
threads=0
repeat=3
while [[ $# -gt 3 ]]; do
  case "$1" in
    --terrazo) terrazo=$2; shift 2 ;;
    --memory) memory=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
dem=$(realpath "$1"); sx=$2; sy=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/bench_walk.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "input: $dem, source $sx,$sy; machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

best() {  # best wall and its CPU of $repeat runs of the command in "$@"
  local bw="" bc=""
  for ((i = 0; i < repeat; ++i)); do
    /usr/bin/time -f "%e %U %S" -o "$work/t" "$@" > "$work/out" 2> "$work/err" || { cat "$work/err" >&2; return 1; }
    read -r w u s < "$work/t"
    c=$(/usr/bin/python3 -c "print('%.2f' % ($u + $s))")
    if [[ -z "$bw" ]] || /usr/bin/python3 -c "import sys; sys.exit(0 if $w < $bw else 1)"; then bw=$w; bc=$c; fi
  done
  echo "$bw $bc"
}

run_terrazo() {  # label, extra arguments
  local label=$1; shift
  read -r w c < <(best "$terrazo" sssp -q --json --memory "$memory" --threads "$threads" --tmpdir "$work" \
    --source "$sx,$sy" "$@" "$dem" "$work/cost.tif")
  printf '%-40s %8s s  (CPU %s s)  %s\n' "terrazo $label" "$w" "$c" \
    "$(/usr/bin/python3 -c "import json,sys; d=json.loads(open(sys.argv[1]).read().splitlines()[-1]); print('scale %g, distance %s, max %.6g' % (d['scale'], d['distance'], d['max_distance']))" "$work/out")"
}

run_terrazo "--weight friction (baseline)"
run_terrazo "--model walk" --model walk
run_terrazo "--model walk --direction to" --model walk --direction to
run_terrazo "--model tobler" --model tobler
gdal_calc.py --quiet -A "$dem" --calc="A*0" --type=Float32 --NoDataValue=-9999 --outfile="$work/zero.tif" > /dev/null
run_terrazo "--model walk --friction zero.tif" --model walk --friction "$work/zero.tif"

if command -v grass > /dev/null; then
  read -r ex ey < <(/usr/bin/python3 -c "
from osgeo import gdal
g = gdal.Open('$dem').GetGeoTransform()
print('%.12f %.12f' % (g[0] + ($sx + 0.5) * g[1], g[3] + ($sy + 0.5) * g[5]))")
  cat > "$work/grass.sh" << EOF
set -e
r.in.gdal -o input="$dem" output=dem --quiet
g.region raster=dem
r.mapcalc expression="fric = 0.0" --quiet
start=\$(date +%s.%N)
r.walk elevation=dem friction=fric output=cost start_coordinates=$ex,$ey --quiet
end=\$(date +%s.%N)
echo "\$start \$end" >> "$work/rwalk"
r.out.gdal input=cost output="$work/grass.tif" type=Float64 --quiet --overwrite -f
EOF
  read -r w c < <(best grass --tmp-location "$dem" --exec bash "$work/grass.sh")
  alone=$(/usr/bin/python3 -c "
print('%.2f' % min(float(b) - float(a) for a, b in (l.split() for l in open('$work/rwalk'))))")
  printf '%-40s %8s s  (CPU %s s; r.walk alone best %s s)\n' "GRASS r.walk (friction 0)" "$w" "$c" "$alone"
fi
