#!/bin/bash
# tools/bench/bench_flowacc.sh: terrazo flowacc on the D8 directions GRASS r.watershed -s computes for a
# filled DEM, checked cell for cell against r.watershed's own accumulation of those directions.
#
# The timing is not a comparison: r.watershed computes directions and accumulation together (GRASS
# has no accumulation of given directions without the r.accumulate add-on), so the script prints
# both times and says so; it records a peer check (same counts) and terrazo's time.
#   1. terrazo gen (or INPUT) -> terrazo fill -> filled.tif
#   2. GRASS: r.watershed -s -a elevation=filled drainage=drain accumulation=acc (timed), the drainage
#      turned into ESRI codes (|d| = 1 NE, 2 N, ... 8 E, counter-clockwise: code 2^(8 - |d|); 0 stays 0)
#      and the region's edge cells made outlets (code 0: r.watershed passes no flow from an edge cell
#      to another, its edge cells drain out of the region), exported as Byte (nodata 255)
#   3. terrazo flowacc on those codes (timed, best of --repeat), imported back and compared in GRASS
#      (r.univar of acc - terrazo: min = max = 0)
#
# Usage: tools/bench/bench_flowacc.sh [--terrazo BIN] [--memory SIZE] [--threads N] [--repeat N] [--size N]
#   --size N  the generated raster's edge (default 4096: 16.8 M cells)
set -euo pipefail
source "$(dirname "$0")/grass_session.sh"

bench_defaults
threads=2
size=4096
while [[ $# -gt 0 ]]; do
  case "$1" in
    --size) size=$2; shift 2 ;;
    *) bench_option "$1" "${2-}" || { echo "bench_flowacc.sh: unknown option $1" >&2; exit 2; }; shift 2 ;;
  esac
done
terrazo=$(realpath "$terrazo")
command -v grass > /dev/null || { echo "bench_flowacc.sh: GRASS GIS (grass) is not installed" >&2; exit 2; }
bench_workdir bench_flowacc

"$terrazo" gen -q --width "$size" --height "$size" --seed 5 "$work/g.tif"
"$terrazo" fill -q --memory "$memory" --threads "$threads" "$work/g.tif" "$work/filled.tif"

cat > "$work/watershed.sh" <<GRASS
set -e
r.in.gdal -o input="$work/filled.tif" output=dem --quiet
g.region raster=dem
start=\$(date +%s.%N)
r.watershed -s -a elevation=dem drainage=drain accumulation=acc --quiet
end=\$(date +%s.%N)
echo "r.watershed -s seconds: \$(echo "\$end - \$start" | bc)"
r.mapcalc "codes = if(isnull(drain), null(), if(drain == 0 || row() == 1 || col() == 1 || row() == nrows() || col() == ncols(), 0, int(exp(2, 8 - abs(drain)))))" --quiet
r.out.gdal -c input=codes output="$work/dir.tif" type=Byte nodata=255 --quiet
GRASS
grass --tmp-location "$work/filled.tif" --exec bash "$work/watershed.sh" 2> "$work/grass.log" || { cat "$work/grass.log"; exit 1; }

best=""
for ((r = 1; r <= repeat; ++r)); do
  rm -f "$work/acc.tif"
  /usr/bin/time -f "%e %U %S %M" -o "$work/t" "$terrazo" flowacc -q --json --memory "$memory" --threads "$threads" \
    --tmpdir "$work" "$work/dir.tif" "$work/acc.tif" > "$work/json"
  read -r wall user sys rss < "$work/t"
  echo "terrazo flowacc: $wall s wall, $(echo "$user + $sys" | bc) s cpu, peak RSS $((rss / 1024)) MiB"
  if [[ -z "$best" ]] || (( $(echo "$wall < $best" | bc) )); then best=$wall; fi
done
echo "terrazo flowacc best: $best s on $((size * size)) cells ($threads threads, --memory $memory)"
tail -n 1 "$work/json" | tr ',' '\n' | grep -E '"(valid_cells|outlets|exits|largest|tiles|links|write)"' | tr '\n' ' '
echo

cat > "$work/compare.sh" <<GRASS
set -e
r.in.gdal -o input="$work/filled.tif" output=dem --quiet
g.region raster=dem
r.watershed -s -a elevation=dem accumulation=acc --quiet
r.in.gdal -o input="$work/acc.tif" output=tacc --quiet
r.mapcalc "diff = acc - tacc" --quiet
r.univar -g map=diff | grep -E '^(n|min|max)='
r.univar -g map=acc | grep -E '^n='
GRASS
echo "GRASS r.watershed's accumulation - terrazo's (over the cells both have):"
grass --tmp-location "$work/filled.tif" --exec bash "$work/compare.sh" 2> "$work/grass2.log" || { cat "$work/grass2.log"; exit 1; }
