#!/bin/bash
# tools/bench/bench_flowacc_gpu.sh: flowacc (and watershed) on a generated raster's D8 directions with
# the same terrazo binary, in one call: --device cuda (the resident paths, docs/flow.md "On the GPU")
# and --device cpu (the tiled pipelines on every core), plus the read floor (the directions read once)
# and the write floor (the accumulation copied once). Prints one JSON summary per run (terrazo's
# --json line with "run" added), the floors, and whether each command's two outputs are the same bytes.
#
# Usage: tools/bench/bench_flowacc_gpu.sh TERRAZO [SIDE [SEED [WORKDIR]]]
#   TERRAZO  the terrazo command (e.g. DIR/terrazo.sh from tools/bench/device_bundle.sh)
#   SIDE     raster side (SIDE x SIDE cells, `terrazo gen`; default 32768: 1.07 G cells)
#   SEED     gen's seed (default 4711)
# Environment: TZ_MEMORY (--memory, 8G), TZ_FLOWACC_FLAGS (more flowacc flags, e.g. "--ot Float64"),
# TZ_COMMANDS (the commands run, "flowacc watershed").
# The directions (gen, then fill and flowdir on the CPU) are made once per SIDE and SEED in WORKDIR.
# Example (GPU machine): tools/bench/bench_flowacc_gpu.sh /tmp/tz/terrazo.sh 32768 4711 /tmp/work
set -euo pipefail
tz=$1
side=${2:-32768}
seed=${3:-4711}
work=${4:-/tmp/terrazo-bench}
memory=${TZ_MEMORY:-8G}
mkdir -p "$work"
dem=$work/g${side}_$seed.tzs dir=$work/dir${side}_$seed.tif
if [ ! -f "$dir" ]; then
  /usr/bin/time -f "gen: %e s" "$tz" gen -q --width "$side" --height "$side" --seed "$seed" "$dem"
  /usr/bin/time -f "fill: %e s" "$tz" fill -q --device cpu --memory "$memory" "$dem" "$work/filled.tif"
  /usr/bin/time -f "flowdir: %e s" "$tz" flowdir -q --device cpu --memory "$memory" "$work/filled.tif" "$dir.part"
  mv "$dir.part" "$dir"
  rm -f "$work/filled.tif"
fi
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
t0=$(date +%s.%N); cat "$dir" > /dev/null; t1=$(date +%s.%N)
echo "{\"run\": \"read floor\", \"bytes\": $(stat -c %s "$dir"), \"seconds\": $(elapsed "$t0" "$t1")}"
for command in ${TZ_COMMANDS:-flowacc watershed}; do
  flags=()
  [ "$command" = flowacc ] && flags=(${TZ_FLOWACC_FLAGS:-})
  for device in cuda cpu; do
    line=$(/usr/bin/time -f "peak_rss_kib %M" -o "$work/time_$device.txt" "$tz" "$command" -q --json --memory "$memory" \
             "${flags[@]}" --device "$device" "$dir" "$work/${command}_$device.tif" | tail -1)
    echo "${line%\}}, \"run\": \"$command $device\", \"time_peak_rss_kib\": $(awk '{print $2}' "$work/time_$device.txt")}"
  done
  cmp -s "$work/${command}_cuda.tif" "$work/${command}_cpu.tif" && echo "{\"cmp\": \"$command: cuda = cpu\"}" ||
    echo "{\"cmp\": \"$command: cuda DIFFERS from cpu\"}"
done
out=$work/flowacc_cuda.tif
[ -f "$out" ] || out=$work/watershed_cuda.tif
t0=$(date +%s.%N); cp "$out" "$work/copy.tif"; sync "$work/copy.tif"; t1=$(date +%s.%N)
echo "{\"run\": \"write floor (copy of the accumulation)\", \"bytes\": $(stat -c %s "$out"), \"seconds\": $(elapsed "$t0" "$t1")}"
rm -f "$work/copy.tif"
