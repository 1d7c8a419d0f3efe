#!/bin/bash
# tools/bench/bench_od_matrix_grass.sh: od-matrix against the way users get a cost matrix today, one GRASS
# r.cost per site (docs/benchmarks.md "Index and od-matrix"): on `terrazo gen --width SIDE --height SIDE
# --seed 7` written as a GeoTIFF, K sites (MINSTD from seed 11 in awk, as tools/bench/bench_index.sh: the same sites with every awk), friction, 8-connected:
#   terrazo index + od-matrix --index, od-matrix without the index (batched), K `terrazo sssp` runs,
#   and a GRASS loop: per site `r.cost start_coordinates=...` then `r.what` at the K sites.
# Each run is timed with /usr/bin/time (wall, user, sys); the matrices are compared: terrazo's two CSVs
# byte for byte, GRASS's costs against terrazo's within 1e-6 relative (GRASS works in doubles; its
# default r.cost uses the same average-of-cells friction with sqrt 2 diagonals, knight's moves off).
#
# Usage: tools/bench/bench_od_matrix_grass.sh TERRAZO SIDE K WORKDIR
set -euo pipefail
tz=$1
side=$2
k=$3
work=$4
mkdir -p "$work"
dem=$work/g$side.tif
[ -f "$dem" ] || "$tz" gen -q --width "$side" --height "$side" --seed 7 "$dem"
timed() { local name=$1; shift; /usr/bin/time -f "$name time: %e s wall, %U s user, %S s sys, %M KiB peak" "$@" | sed "s/^/$name /"; }
pixels=$(awk -v k="$k" -v s="$side" 'BEGIN { x = 11; for (i = 0; i < k; i++) { x = (x * 48271) % 2147483647; a = int(x / 2147483647 * s); x = (x * 48271) % 2147483647; printf "%d,%d\n", a, int(x / 2147483647 * s) } }')
sites=$(for p in $pixels; do printf -- "--site %s " "$p"; done)
timed index "$tz" index -q --json --device cpu --tile 64 "$dem" "$work/g.tzi"
timed od-index "$tz" od-matrix -q --json --device cpu --index "$work/g.tzi" $sites "$dem" "$work/od_i.csv"
timed od-batched "$tz" od-matrix -q --json $sites "$dem" "$work/od_x.csv"
cmp "$work/od_i.csv" "$work/od_x.csv" && echo "the same CSV with and without the index"
start=$(date +%s.%N)
for p in $pixels; do "$tz" sssp -q --source "$p" "$dem" "$work/cost.tif"; done
echo "sssp-runs: $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s wall for $k runs"
# GRASS: map coordinates of the cell centres (the generated GeoTIFF's geotransform).
coords=$(/usr/bin/python3 -c "
from osgeo import gdal
g = gdal.Open('$dem').GetGeoTransform()
for p in '''$pixels'''.split():
    x, y = map(int, p.split(','))
    print('%.12f,%.12f' % (g[0] + (x + 0.5) * g[1], g[3] + (y + 0.5) * g[5]))")
all=$(echo $coords | tr ' ' ',')
coords=$(echo $coords)  # one line
cat > "$work/grass.sh" << GRASS
set -e
r.in.gdal -o input="$dem" output=c --quiet
g.region raster=c
i=0
for c in $coords; do
  i=\$((i + 1))
  r.cost input=c output=cost start_coordinates=\$c --quiet --overwrite
  r.what map=cost coordinates=$all separator=comma | sed "s/^/\$i,/"
done
GRASS
timed grass-loop grass --tmp-location "$dem" --exec bash "$work/grass.sh" > "$work/grass.out" 2> "$work/grass.err" || { tail "$work/grass.err"; exit 1; }
grep "time:" "$work/grass.out" || true
/usr/bin/python3 - "$work/od_i.csv" "$work/grass.out" "$k" << 'PY'
import sys
k = int(sys.argv[3])
ours = {}
for line in open(sys.argv[1]).read().split('\n')[1:]:
    if line:
        i, j, c = line.split(',')
        ours[(int(i), int(j))] = float(c) if c else None
rows = [l.replace('grass-loop ', '').strip().split(',') for l in open(sys.argv[2]) if l.replace('grass-loop ', '')[:1].isdigit()]
worst, n, pos = 0.0, 0, {}
for r in rows:
    i = int(r[0]); pos[i] = pos.get(i, 0) + 1; j = pos[i]
    g = float(r[-1]) if r[-1] not in ('*', '') else None
    o = ours[(i, j)]
    if g is None or o is None:
        print('pair', i, j, 'grass', g, 'terrazo', o) if (g is None) != (o is None) else None
        continue
    worst = max(worst, abs(g - o) / max(1.0, abs(o))); n += 1
print('grass vs terrazo: %d pairs, worst relative difference %.3g' % (n, worst))
PY
