#!/bin/bash
# tools/bench/gpu_bench/write_ab.sh: sssp's write phase of two builds, A (terrazo) and B (terrazo_b),
# alternated ROUNDS times on the same input in one GPU-machine call (docs/benchmarks.md), each run
# followed by the floor of writing its output's bytes (cp and sync); outputs compared with cmp.
# Usage (repository root, GPU machine): tools/bench/gpu_bench/write_ab.sh BUNDLE.tar.xz [SIDE [ROUNDS [FLAGS...]]]
#   BUNDLE.tar.xz  tools/bench/device_bundle.sh TERRAZO BUNDLE.tar.xz terrazo_b
L=$OUT/log.txt
bundle=$1 side=${2:-32768} rounds=${3:-3}
shift $(( $# < 3 ? $# : 3 ))
flags=("$@"); [ ${#flags[@]} -eq 0 ] && flags=(--device cuda --exchange resident)
work=/tmp/w
mkdir -p /tmp/tz $work
tar -xJf "$bundle" -C /tmp/tz
{ nvidia-smi --query-gpu=name,memory.total --format=csv,noheader; nproc; } >>"$L"
/tmp/tz/terrazo.sh gen -q --width "$side" --height "$side" --seed 4711 --nodata-holes 0.02 "$work/g.tzs" >>"$L" 2>&1
src="$((side / 2)),$((side / 2))"
for k in $(seq 0 99); do  # the first valid cell from the centre along the diagonal
  src="$((side / 2 + k)),$((side / 2 + k))"
  /tmp/tz/terrazo.sh sssp -q --device cpu --exchange streamed --max-cost 0 --source "$src" "$work/g.tzs" - >/dev/null 2>&1 && break
done
for r in $(seq 1 "$rounds"); do
  for b in terrazo terrazo_b; do
    out=$work/$b.tif
    echo "{\"build\": \"$b\", \"round\": $r, \"json\": $(TERRAZO_GEOTIFF_TRACE=1 timeout 120 /tmp/tz/$b.sh sssp -q --json \
          --memory 32G --ot Float32 "${flags[@]}" --source "$src" "$work/g.tzs" "$out" 2>>"$L" | tail -1)}" >>"$L"
    t0=$(date +%s.%N); cp "$out" "$work/copy.tif"; sync "$work/copy.tif"; t1=$(date +%s.%N)
    echo "{\"build\": \"$b\", \"bytes\": $(stat -c %s "$out"), \"floor_seconds\": $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')}" >>"$L"
    rm -f "$work/copy.tif"
  done
  cmp -s "$work/terrazo.tif" "$work/terrazo_b.tif" && echo "{\"cmp\": \"same\"}" >>"$L" || echo "{\"cmp\": \"DIFFERENT\"}" >>"$L"
done
rm -f $work/*.tif
echo "=== done $(date +%T)" >>"$L"
