#!/bin/bash
# tools/bench/gpu_bench/paged_1g.sh: the paged resident exchange on the GPU machine in one call
# (docs/benchmarks.md, issue "GPU out of core"): the GPU tests of the bundle, then sssp on
# `gen SIDE x SIDE --seed 4711 --nodata-holes 0.02` resident, paged (--gpu-memory GPU_MEMORY) and on
# --device cpu, outputs compared with cmp, with the read and write floors. Logs to $OUT/log.txt.
# Usage (repository root, GPU machine): tools/bench/gpu_bench/paged_1g.sh BUNDLE.tar.xz [SIDE [GPU_MEMORY [MEMORY]]]
#   GPU_TESTS (environment): a gtest filter for the GPU tests (all by default)
#   BUNDLE.tar.xz  tools/bench/device_bundle.sh TERRAZO BUNDLE.tar.xz TERRAZO_GPU_TESTS
source "$(dirname "$0")/gpu_session.sh"
side=${2:-32768} gpu_memory=${3:-4G} memory=${4:-32G}
unpack "$1"
gpu_identity
[ -x /tmp/tz/terrazo_gpu_tests.sh ] && step 240 /tmp/tz/terrazo_gpu_tests.sh --gtest_brief=1 --gtest_filter="${GPU_TESTS:-*}"
TZ_MEMORY=$memory TZ_GPU_MEMORY=$gpu_memory TZ_SSSP_FLAGS="--ot Float32" \
  step 420 tools/bench/bench_sssp_gpu.sh /tmp/tz/terrazo.sh "$side" 4711 /tmp/w resident paged cpu
rm -f /tmp/w/*.tif
echo "=== done $(date +%T)" >>"$L"
