#!/usr/bin/env bash
# tools/bench/bench_output_compression.sh: GeoTIFF output codecs on terrazo's own writer (docs/benchmarks.md
# "Output compression"). Every input is first written uncompressed; then `terrazo export --co ...`
# rewrites it under each codec, so each run is one uncompressed read plus the write being measured
# (the NONE column is that floor). Prints one line per input x codec x repetition:
#   input codec bytes user_s sys_s wall_s
# Usage: tools/bench/bench_output_compression.sh BUILD_DIR WORK_DIR [REPEATS] [SIZE]
set -euo pipefail
build=$(realpath "$1")
work=$2
repeats=${3:-3}
size=${4:-4096}
terrazo="$build/terrazo"
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$work"
cd "$work"

plain() { "$terrazo" export -q --co COMPRESS=NONE "$1" "$2"; }

inputs=()
# The shipped DEMs, each as an uncompressed GeoTIFF of its own cell type.
for dem in "$here"/datasets/real/*.{tif,hgt,bil,asc}; do
  name=$(basename "$dem")
  name=${name%.*}
  [[ -f "dem_$name.tif" ]] || plain "$dem" "dem_$name.tif"
  inputs+=("dem_$name.tif")
done
# Generated terrain, its cost raster (Float64 and Float32) and its MST edge raster (Byte).
if [[ ! -f gen.tzs ]]; then
  "$terrazo" gen -q --width "$size" --height "$size" --seed 7 gen.tzs
fi
[[ -f terrain.tif ]] || "$terrazo" export -q --co COMPRESS=NONE gen.tzs terrain.tif
[[ -f cost64.tif ]] || "$terrazo" sssp -q --co COMPRESS=NONE --source $((size / 2)),$((size / 2)) gen.tzs cost64.tif
[[ -f cost32.tif ]] || "$terrazo" sssp -q --co COMPRESS=NONE --ot Float32 --source $((size / 2)),$((size / 2)) gen.tzs cost32.tif
[[ -f edges.tif ]] || "$terrazo" mst -q --co COMPRESS=NONE gen.tzs edges.tif
inputs+=(terrain.tif cost64.tif cost32.tif edges.tif)

# codec name | --co flags (PREDICTOR left out: terrazo's default, 3 on floats, 2 on integers, 1 on Byte)
codecs=(
  "NONE|--co COMPRESS=NONE"
  "DEFLATE6|--co COMPRESS=DEFLATE"
  "DEFLATE1|--co COMPRESS=DEFLATE --co ZLEVEL=1"
  "DEFLATE6_P2|--co COMPRESS=DEFLATE --co PREDICTOR=2"
  "DEFLATE1_P2|--co COMPRESS=DEFLATE --co ZLEVEL=1 --co PREDICTOR=2"
  "ZSTD1|--co COMPRESS=ZSTD --co ZSTD_LEVEL=1"
  "ZSTD3|--co COMPRESS=ZSTD --co ZSTD_LEVEL=3"
  "ZSTD9|--co COMPRESS=ZSTD --co ZSTD_LEVEL=9"
  "ZSTD1_P2|--co COMPRESS=ZSTD --co ZSTD_LEVEL=1 --co PREDICTOR=2"
  "LZW|--co COMPRESS=LZW"
)

for ((r = 0; r < repeats; ++r)); do
  for input in "${inputs[@]}"; do
    for codec in "${codecs[@]}"; do
      name=${codec%%|*}
      flags=${codec#*|}
      rm -f out.tif
      # shellcheck disable=SC2086
      /usr/bin/time -f "%U %S %e" -o time.txt "$terrazo" export -q $flags "$input" out.tif
      echo "$input $name $(stat -c %s out.tif) $(cat time.txt)"
    done
  done
done
