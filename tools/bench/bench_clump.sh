#!/bin/bash
# tools/bench/bench_clump.sh: terrazo clump against scipy.ndimage.label (tools/bench/clump_scipy.py) and GRASS
# r.clump -d (tools/bench/clump_rclump.sh) on the same input, in one run, paired: each round runs terrazo,
# then scipy, then r.clump, one after the other, so the three see about the same load. Prints every
# run, then per tool the best and the median wall time with its CPU time (user + sys, all threads and
# child processes, /usr/bin/time), the peak RSS, and the ratios (best against best, median against
# median); the load average before and after. Results go to docs/benchmarks.md ("Clump, CPU").
#
# Usage: tools/bench/bench_clump.sh [--terrazo BIN] [--threads N] [--rounds N] [--connectivity 8|4] INPUT
#   INPUT   an integer raster (classes), e.g. terrazo gen --type Byte --relief 7 --nodata-holes 0.02
#           --seed 11 --width 4096 --height 4096 bands4096.tif
# Every run writes a UInt32 ZSTD GeoTIFF of labels (8 neighbours by default) into a temporary
# directory, removed first each time; the three region counts are compared at the end (gdalinfo -mm).
set -euo pipefail

source "$(dirname "$0")/bench_lib.sh"
rounds=5
connectivity=8
bench_parse "[--terrazo BIN] [--threads N] [--rounds N] [--connectivity 8|4] INPUT" --connectivity connectivity "$@"

bench_load before
for ((i = 1; i <= rounds; i++)); do
  rm -f "$work/tz.tif" "$work/sp.tif" "$work/rc.tif"
  bench_run terrazo "$terrazo" clump -q --threads "$threads" --connectivity "$connectivity" "$input" "$work/tz.tif"
  bench_run scipy /usr/bin/python3 "$bench/clump_scipy.py" --connectivity "$connectivity" "$input" "$work/sp.tif"
  bench_run r.clump "$bench/clump_rclump.sh" "$connectivity" "$input" "$work/rc.tif"
done
bench_load after
for f in tz sp rc; do echo "$f regions: $(gdalinfo -mm "$work/$f.tif" 2>/dev/null | sed -n 's/.*Computed Min\/Max=[0-9.]*,\([0-9.]*\).*/\1/p')"; done

/usr/bin/python3 - "$times" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, wall, cpu, rss = line.split()
    runs.setdefault(name, []).append((float(wall), float(cpu), int(rss)))
summary = {}
for name, r in runs.items():
    best = min(r)
    walls = sorted(x[0] for x in r)
    cpus = sorted(x[1] for x in r)
    summary[name] = (best[0], best[1], statistics.median(walls), statistics.median(cpus), max(x[2] for x in r))
    print(f"{name:8s} best {best[0]:.2f} s wall / {best[1]:.2f} s CPU; median {summary[name][2]:.2f} s / "
          f"{summary[name][3]:.2f} s; min CPU {cpus[0]:.2f} s; peak RSS {summary[name][4] / 1024:.0f} MiB")
t = summary["terrazo"]
for name in ("scipy", "r.clump"):
    b = summary[name]
    print(f"terrazo vs {name}: best {b[0] / t[0]:.1f}x wall, {b[1] / t[1]:.1f}x CPU; "
          f"median {b[2] / t[2]:.1f}x wall, {b[3] / t[3]:.1f}x CPU")
PY
