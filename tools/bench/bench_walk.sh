#!/usr/bin/env bash
# tools/bench/bench_walk.sh: `terrazo sssp --model walk|tobler` against GRASS r.walk on one DEM, in one run,
# best of N (default 3) of each whole command; plus plain friction (the DEM as friction, cells) as
# the baseline of what the directed models cost (docs/benchmarks.md "Anisotropic travel").
#
# Usage: tools/bench/bench_walk.sh [--terrazo BIN] [--memory SIZE] [--threads N] [--repeat N] DEM SOURCE_X SOURCE_Y
# r.walk gets a friction map of 0 (r.mapcalc), its defaults otherwise; its time is the whole GRASS
# session (import, r.mapcalc, r.walk, export) and r.walk alone. terrazo's is the whole command
# (import and the GeoTIFF write included). Wall seconds and CPU seconds (user + sys) are printed.
set -euo pipefail
source "$(dirname "$0")/grass_session.sh"
bench_options "$@"
set -- "${bench_args[@]}"
dem=$(realpath "$1"); sx=$2; sy=$3
bench_workdir bench_walk
echo "input: $dem, source $sx,$sy; machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

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
  read -r ex ey < <(cell_centre "$dem" "$sx" "$sy")
  grass_timed_script "$work/grass.sh" "$dem" "$work/rwalk" "$work/grass.tif" \
    "r.walk elevation=dem friction=fric output=cost start_coordinates=$ex,$ey --quiet" \
    'r.mapcalc expression="fric = 0.0" --quiet'
  read -r w c < <(best grass --tmp-location "$dem" --exec bash "$work/grass.sh")
  printf '%-40s %8s s  (CPU %s s; r.walk alone best %s s)\n' "GRASS r.walk (friction 0)" "$w" "$c" \
    "$(grass_command_seconds "$work/rwalk")"
fi
