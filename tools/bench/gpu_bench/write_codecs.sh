#!/bin/bash
# tools/bench/gpu_bench/write_codecs.sh: sssp's write phase on the GPU machine against the disk's
# floor, per codec (docs/benchmarks.md, issue "GPU out of core" item 3), in one call: the resident,
# paged and CPU runs of tools/bench/bench_sssp_gpu.sh (with a second, baseline binary's resident run
# when the bundle has terrazo_base), then resident runs with each --co set below; after each, the
# floor of writing its output's bytes (cp of the file and sync). Logs to $OUT/log.txt.
# Usage (repository root, GPU machine): tools/bench/gpu_bench/write_codecs.sh BUNDLE.tar.xz [SIDE [MEMORY]]
#   BUNDLE.tar.xz  tools/bench/device_bundle.sh TERRAZO BUNDLE.tar.xz [TERRAZO_GPU_TESTS] [terrazo_base]
#   GPU_TESTS (environment): a gtest filter for the bundle's GPU tests (none when unset)
source "$(dirname "$0")/gpu_session.sh"
side=${2:-32768} memory=${3:-32G}
work=/tmp/w
unpack "$1"
tz=/tmp/tz/terrazo.sh
gpu_identity
nproc >>"$L"
[ -n "${GPU_TESTS:-}" ] && [ -x /tmp/tz/terrazo_gpu_tests.sh ] &&
  step 240 /tmp/tz/terrazo_gpu_tests.sh --gtest_brief=1 --gtest_filter="$GPU_TESTS"
export TZ_MEMORY=$memory TZ_GPU_MEMORY=4G TZ_SSSP_FLAGS="--ot Float32"
step 420 tools/bench/bench_sssp_gpu.sh "$tz" "$side" 4711 "$work" resident paged cpu
[ -x /tmp/tz/terrazo_base.sh ] && step 200 tools/bench/bench_sssp_gpu.sh /tmp/tz/terrazo_base.sh "$side" 4711 "$work" resident
for k in $(seq 0 99); do  # the source bench_sssp_gpu.sh takes: the first valid cell from the centre
  src="$((side / 2 + k)),$((side / 2 + k))"
  "$tz" sssp -q --device cpu --exchange streamed --max-cost 0 --source "$src" "$work/g$side.tzs" - >/dev/null 2>&1 && break
done
codec_run() {  # NAME CO...: one resident run with these --co, then the floor of its output's bytes
  local name=$1; shift
  local co=(); for c in "$@"; do co+=(--co "$c"); done
  local out=$work/codec_$name.tif
  echo "{\"codec\": \"$name\", \"json\": $(timeout 120 "$tz" sssp -q --json --memory "$memory" --ot Float32 --device cuda \
        --exchange resident "${co[@]}" --source "$src" "$work/g$side.tzs" "$out" | tail -1)}"
  local t0 t1; t0=$(date +%s.%N); cp "$out" "$work/copy.tif"; sync "$work/copy.tif"; t1=$(date +%s.%N)
  echo "{\"codec\": \"$name\", \"bytes\": $(stat -c %s "$out"), \"floor_seconds\": $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')}"
  rm -f "$out" "$work/copy.tif"
}
for spec in "none COMPRESS=NONE" "zstd1 COMPRESS=ZSTD ZSTD_LEVEL=1" "zstd1-nopredictor COMPRESS=ZSTD ZSTD_LEVEL=1 PREDICTOR=1" \
            "zstd3 COMPRESS=ZSTD ZSTD_LEVEL=3" "deflate1 COMPRESS=DEFLATE ZLEVEL=1" "deflate6 COMPRESS=DEFLATE" "lzw COMPRESS=LZW"; do
  echo "=== $(date +%T) codec $spec" >>"$L"
  # shellcheck disable=SC2086
  codec_run $spec >>"$L" 2>&1
done
rm -f $work/*.tif
echo "=== done $(date +%T)" >>"$L"
