#!/bin/bash
# tools/bench/bench_hydrology.sh: terrazo's hydrology chain against its peers on one DEM, in paired
# rounds (each round runs every tool once, so all see about the same load):
#   - terrazo fill, flowdir and flowacc, each timed, against GRASS r.terraflow -s, which fills,
#     assigns D8 directions and accumulates in one command (timed inside its GRASS session: its
#     import and export are not counted against it; its memory= is --memory);
#   - terrazo fill against SAGA's Fill Sinks (Wang & Liu) (ta_preprocessor 4) and Fill Sinks XXL
#     (Wang & Liu) (ta_preprocessor 5), both with MINSLOPE 0 (a plain fill).
# Prints every run, per tool the best and median wall time, CPU time (user + sys) and peak RSS, the
# ratios, and the agreement: terrazo's filled raster against SAGA's two and r.terraflow's, cell for
# cell; terrazo's directions and accumulation against r.terraflow's (all cells, and the cells with a
# strictly lower neighbour, where both take the steepest descent). Results: docs/benchmarks.md
# ("Hydrology against r.terraflow and SAGA"), docs/flow.md.
#
# Usage: tools/bench/bench_hydrology.sh [--terrazo BIN] [--threads N] [--rounds N] [--memory SIZE] INPUT
#   INPUT   an elevation raster, e.g. terrazo gen --width 4096 --height 4096 --seed 5 g4096.tif
# Needs GRASS (grass), SAGA (saga_cmd: Debian's saga) and python3 with GDAL and numpy.
set -euo pipefail

source "$(dirname "$0")/bench_lib.sh"
rounds=2
memory=1G
bench_parse "[--terrazo BIN] [--threads N] [--rounds N] [--memory SIZE] INPUT" --memory memory "$@"
for tool in grass saga_cmd; do
  command -v "$tool" > /dev/null || { echo "bench_hydrology.sh: $tool is not installed" >&2; exit 2; }
done
memory_mb=$(numfmt --from=iec "$memory" | awk '{ printf "%d", $1 / 1048576 }')

# r.terraflow in a GRASS session: the timed command between two clock readings ("START END" appended
# to $work/terraflow.txt), its outputs exported for the comparison.
cat > "$work/terraflow.sh" <<GRASS
set -e
r.in.gdal -o input="$input" output=dem --quiet
g.region raster=dem
start=\$(date +%s.%N)
r.terraflow -s elevation=dem filled=filled direction=dir accumulation=acc tci=tci memory=$memory_mb --quiet
end=\$(date +%s.%N)
echo "\$start \$end" >> "$work/terraflow.txt"
r.out.gdal -c input=filled output="$work/tf_filled.tif" type=Float64 --quiet
r.out.gdal -c input=dir output="$work/tf_dir.tif" type=Int32 --quiet
r.out.gdal -c input=acc output="$work/tf_acc.tif" type=Float64 --quiet
GRASS

bench_load before
run_terrazo() {
  bench_run "terrazo-$1" "$terrazo" "$1" -q --threads "$threads" --memory "$memory" --tmpdir "$work" "$2" "$3"
}
for ((r = 1; r <= rounds; ++r)); do
  rm -f "$work"/{filled,dir,acc}.tif "$work"/saga*.s* "$work"/tf_*.tif
  run_terrazo fill "$input" "$work/filled.tif"
  run_terrazo flowdir "$work/filled.tif" "$work/dir.tif"
  run_terrazo flowacc "$work/dir.tif" "$work/acc.tif"
  bench_run saga-wang-liu saga_cmd ta_preprocessor 4 -ELEV "$input" -FILLED "$work/saga4.sdat" -MINSLOPE 0
  bench_run saga-xxl saga_cmd ta_preprocessor 5 -ELEV "$input" -FILLED "$work/saga5.sdat" -MINSLOPE 0
  bench_run grass-session grass --tmp-location "$input" --exec bash "$work/terraflow.sh"
  read -r start end < <(tail -n 1 "$work/terraflow.txt")
  rss=$(tail -n 1 "$times" | cut -d' ' -f4)
  echo "r.terraflow $(echo "$end - $start" | bc) 0 $rss" | tee -a "$times"
done
bench_load after
/usr/bin/python3 - "$times" "$work" <<'PY'
import statistics, sys
import numpy as np
from osgeo import gdal
times, work = sys.argv[1], sys.argv[2]
rows = [line.split() for line in open(times)]
best, median = {}, {}
for tool in dict.fromkeys(r[0] for r in rows):
    walls = sorted(float(r[1]) for r in rows if r[0] == tool)
    cpu = [float(r[2]) for r in rows if r[0] == tool]
    rss = max(int(r[3]) for r in rows if r[0] == tool)
    best[tool], median[tool] = walls[0], statistics.median(walls)
    print("%-16s best %8.2f s  median %8.2f s  cpu %8.2f s  peak RSS %8.1f MiB" %
          (tool, walls[0], median[tool], statistics.median(cpu), rss / 1024))
chain = ["terrazo-fill", "terrazo-flowdir", "terrazo-flowacc"]
for name, pick in (("best", best), ("median", median)):
    total = sum(pick[t] for t in chain)
    print("%s: terrazo fill+flowdir+flowacc %.2f s; r.terraflow -s / chain %.1fx; "
          "SAGA Wang & Liu / fill %.1fx; SAGA XXL / fill %.1fx" %
          (name, total, pick["r.terraflow"] / total, pick["saga-wang-liu"] / pick["terrazo-fill"],
           pick["saga-xxl"] / pick["terrazo-fill"]))

def read(name):
    return gdal.Open(f"{work}/{name}").ReadAsArray().astype(np.float64)
filled = read("filled.tif")
for peer in ("saga4.sdat", "saga5.sdat", "tf_filled.tif"):
    other = read(peer)
    print("filled vs %-13s: %d of %d cells differ" % (peer, int(np.count_nonzero(filled != other)), filled.size))
# On the filled surface, inside the edge ring: each cell's steepest slope to a lower neighbour
# (a diagonal drop over sqrt(2), as both tools take it) and how many neighbours share it.
inner = filled[1:-1, 1:-1]
steepest = np.zeros(inner.shape)
sharing = np.zeros(inner.shape, int)
for dy in (-1, 0, 1):
    for dx in (-1, 0, 1):
        if dy or dx:
            drop = inner - filled[1 + dy:filled.shape[0] - 1 + dy, 1 + dx:filled.shape[1] - 1 + dx]
            slope = np.where(drop > 0, drop / (np.sqrt(2) if dx and dy else 1), 0)
            sharing = np.where(slope > steepest, 1, np.where((slope == steepest) & (slope > 0), sharing + 1, sharing))
            steepest = np.maximum(steepest, slope)
lower, unique = steepest > 0, sharing == 1
codes, tf_codes = read("dir.tif"), read("tf_dir.tif")
same = (codes == tf_codes)[1:-1, 1:-1]
print("directions vs r.terraflow: %.2f%% of all cells equal; of the %d inner cells with a lower neighbour "
      "%.3f%% equal, of the %d whose steepest neighbour is unique %.4f%% equal" %
      (100 * (codes == tf_codes).mean(), int(lower.sum()), 100 * same[lower].mean(),
       int((lower & unique).sum()), 100 * same[lower & unique].mean()))
acc, tf_acc = read("acc.tif"), read("tf_acc.tif")
print("accumulation vs r.terraflow: %.2f%% of all cells equal" % (100 * (acc == tf_acc).mean()))
PY
