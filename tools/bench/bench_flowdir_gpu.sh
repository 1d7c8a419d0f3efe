#!/bin/bash
# tools/bench/bench_flowdir_gpu.sh: flowdir on a generated raster's fill with the same terrazo binary,
# in one call: --device cuda (the resident directions, docs/flow.md "flowdir", "On the GPU") and --device
# cpu on every core (the tile pipeline), plus the read floor (the filled raster read once) and the
# write floor (the directions copied once). Prints one JSON summary per run (terrazo's --json line
# with "run" added), the floors, and whether the outputs are the same bytes (cmp).
#
# Usage: tools/bench/bench_flowdir_gpu.sh TERRAZO [SIDE] [SEED] [WORKDIR] [RUNS...]
#   TERRAZO  the terrazo command (e.g. DIR/terrazo.sh from tools/bench/device_bundle.sh)
#   SIDE     raster side (SIDE x SIDE cells, `terrazo gen --nodata-holes 0.02`, as bench_fill_gpu.sh's,
#            whose store it reuses in the same WORKDIR), default 32768
#   RUNS     any of cuda cpu (default: cuda cpu)
# Environment: TZ_MEMORY (--memory, 32G: the tile pipeline holds the flats that cross tile borders,
# about 26 GiB at 32768^2), TZ_GPU_MEMORY (--gpu-memory, 60G: 32768^2 cells take 33.3 GB),
# TZ_FLOWDIR_FLAGS (more flowdir flags, e.g. "--outlets edge").
# The filled raster (fill on the CPU, or TZ_FILL_DEVICE) is made once per SIDE and SEED in WORKDIR.
# Example (GPU machine): tools/bench/bench_flowdir_gpu.sh /tmp/tz/terrazo.sh 32768 4711 /tmp/work
set -euo pipefail
source "$(dirname "$0")/bench_lib.sh"
bench_gen_args "$@"
memory=${TZ_MEMORY:-32G}
filled=$work/filled${side}_$seed.tif
if [ ! -f "$filled" ]; then
  /usr/bin/time -f "fill: %e s" "$tz" fill -q --device "${TZ_FILL_DEVICE:-cpu}" --memory "$memory" "$store" "$filled.part"
  mv "$filled.part" "$filled"
fi
bench_read_floor "$filled"
bench_device_runs flowdir "${TZ_GPU_MEMORY:-60G}" "$filled" "$work/flowdir" --memory "$memory" ${TZ_FLOWDIR_FLAGS:-}
bench_write_floor "$work/flowdir_${runs[0]}.tif" "the directions"
