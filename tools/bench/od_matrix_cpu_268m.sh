#!/bin/bash
# od-matrix on the CPU at 268 M cells against K separate `sssp` runs, whole commands, one call
# (docs/benchmarks.md "The sweep: od-matrix on the 2-core machine at 268 M cells").
#   tools/bench/od_matrix_cpu_268m.sh [BIN] [DIR] [K] [MEMORY]
# Generates DIR/g16k.tzs (gen 16384x16384 --seed 7) once, then:
#   - od-matrix --device cpu --transient-index with K point sites (the index built in memory, the
#     sweep), --memory MEMORY (default 16G: the index takes about 8.4 GB);
#   - `sssp --device cpu` from two of the sites (a cost raster each, as a user runs one per site);
#   - a spot check: sssp from site 1 sampled at every site (gdallocationinfo) against the CSV's row 1.
# Prints each run's JSON and /usr/bin/time's wall, CPU and peak RSS.
set -euo pipefail
BIN=${1:-build/terrazo}
DIR=${2:-/tmp/od268}
K=${3:-100}
MEM=${4:-16G}
mkdir -p "$DIR/tmp"
BIN=$(readlink -f "$BIN")
cd "$DIR"
echo "binary $BIN ($(git -C "$(dirname "$BIN")/.." log -1 --format=%h 2>/dev/null || echo ?)), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
[ -f g16k.tzs ] || /usr/bin/time -f "gen %e s" "$BIN" gen -q --width 16384 --height 16384 --seed 7 g16k.tzs
sites=$(awk -v k="$K" -v s=16384 'BEGIN { x = 11; for (i = 0; i < k; i++) { x = (x * 48271) % 2147483647; a = int(x / 2147483647 * s); x = (x * 48271) % 2147483647; printf "%d,%d\n", a, int(x / 2147483647 * s) } }')
flags=$(echo "$sites" | sed 's/^/--site /' | tr '\n' ' ')
/usr/bin/time -f "od-matrix %e s wall %U+%S cpu %M KiB" "$BIN" od-matrix -q --json --device cpu --transient-index \
  --memory "$MEM" --tmpdir tmp $flags g16k.tzs od.csv
for i in 2 3; do
  /usr/bin/time -f "sssp %e s wall %U+%S cpu %M KiB" "$BIN" sssp -q --json --device cpu --source "$(echo "$sites" | sed -n ${i}p)" \
    --tmpdir tmp g16k.tzs cost.tif
  rm -f cost.tif
done
"$BIN" sssp -q --device cpu --source "$(echo "$sites" | sed -n 1p)" --tmpdir tmp g16k.tzs cost.tif
echo "$sites" | tr ',' ' ' | gdallocationinfo -valonly cost.tif > sssp_row1.txt
awk -F, 'NR > 1 && $1 == 1 { print $3 }' od.csv | paste sssp_row1.txt - |
  awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-9 * ($1 + 1)) bad++; n++ } END { print "check: " n " sites of row 1 against sssp, " bad + 0 " differ" }'
rm -f cost.tif
