#!/bin/bash
# tools/bench/bench_fill_gpu.sh: fill on a generated raster with the same terrazo binary, in one call:
# --device cuda (the resident fill, docs/fill.md "On the GPU") and --device cpu on every core (the
# tile pipeline), plus the read floor (the store read once) and the write floor (the filled raster
# copied once). Prints one JSON summary per run (terrazo's --json line with "run" added), the floors,
# and whether the outputs are the same bytes (cmp).
#
# Usage: tools/bench/bench_fill_gpu.sh TERRAZO [SIDE] [SEED] [WORKDIR] [RUNS...]
#   TERRAZO  the terrazo command (e.g. DIR/terrazo.sh from tools/bench/device_bundle.sh)
#   SIDE     raster side (SIDE x SIDE cells, `terrazo gen --nodata-holes 0.02`), default 32768
#   RUNS     any of cuda cpu (default: cuda cpu)
# Environment: TZ_MEMORY (--memory, 8G), TZ_GPU_MEMORY (--gpu-memory, 40G: a 32768^2 raster takes
# about 17.6 GB), TZ_FILL_FLAGS (more fill flags, e.g. "--outlets edge").
# Example (GPU machine): tools/bench/bench_fill_gpu.sh /tmp/tz/terrazo.sh 32768 4711 /tmp/work
set -euo pipefail
source "$(dirname "$0")/bench_lib.sh"
bench_gen_args "$@"
bench_read_floor "$store"
bench_device_runs fill "${TZ_GPU_MEMORY:-40G}" "$store" "$work/filled" --memory "${TZ_MEMORY:-8G}" ${TZ_FILL_FLAGS:-}
bench_write_floor "$work/filled_${runs[0]}.tif" "the filled raster"
