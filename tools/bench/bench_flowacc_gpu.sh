#!/bin/bash
# tools/bench/bench_flowacc_gpu.sh: flowacc (and watershed) on a generated raster's D8 directions with
# the same terrazo binary, in one call: --device cuda (the resident paths, docs/flow.md "On the GPU")
# and --device cpu on every core (the tile pipelines), plus the read floor (the directions read once)
# and the write floor (the first output copied once). Prints one JSON summary per run (terrazo's
# --json line with "run" added), the floors, and whether each command's outputs are the same bytes.
#
# Usage: tools/bench/bench_flowacc_gpu.sh TERRAZO [SIDE] [SEED] [WORKDIR]
#   TERRAZO  the terrazo command (e.g. DIR/terrazo.sh from tools/bench/device_bundle.sh)
#   SIDE     raster side (SIDE x SIDE cells, `terrazo gen --nodata-holes 0.02`, as bench_fill_gpu.sh's,
#            whose store it reuses in the same WORKDIR), default 32768
# Environment: TZ_MEMORY (--memory, 8G), TZ_GPU_MEMORY (--gpu-memory, 40G: 32768^2 cells take 14 GB for
# flowacc, 22.5 GB for watershed), TZ_FLOWACC_FLAGS (more flowacc flags, e.g. "--ot Float64"),
# TZ_COMMANDS (the commands timed, default "flowacc watershed").
# The directions (fill, then flowdir, on the CPU) are made once per SIDE and SEED in WORKDIR.
# Example (GPU machine): tools/bench/bench_flowacc_gpu.sh /tmp/tz/terrazo.sh 32768 4711 /tmp/work
set -euo pipefail
source "$(dirname "$0")/bench_lib.sh"
bench_gen_args "$@"
memory=${TZ_MEMORY:-8G}
dir=$work/dir${side}_$seed.tif
if [ ! -f "$dir" ]; then
  /usr/bin/time -f "fill: %e s" "$tz" fill -q --device cpu --memory "$memory" "$store" "$work/filled_for_dir.tif"
  /usr/bin/time -f "flowdir: %e s" "$tz" flowdir -q --device cpu --memory "$memory" "$work/filled_for_dir.tif" "$dir.part"
  mv "$dir.part" "$dir"
  rm -f "$work/filled_for_dir.tif"
fi
bench_read_floor "$dir"
first=""
for command in ${TZ_COMMANDS:-flowacc watershed}; do
  flags=()
  [ "$command" = flowacc ] && flags=(${TZ_FLOWACC_FLAGS:-})
  for run in cuda cpu; do
    bench_device_run "$command $run" "$run" "${TZ_GPU_MEMORY:-40G}" "$command" --memory "$memory" "${flags[@]}" \
                     "$dir" "$work/${command}_$run.tif"
  done
  bench_cmp "$work/${command}_cuda.tif" "$work/${command}_cpu.tif" "$command cpu" "$command cuda"
  [ -n "$first" ] || first=$command
done
bench_write_floor "$work/${first}_cuda.tif" "the $first output"
