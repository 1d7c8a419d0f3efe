#!/bin/bash
# tools/bench/bench_geotiff_writer.sh: terrazo's GeoTIFF block writer (io/gdal/tiff_block_writer.h) against
# GDAL's RasterIO path (TERRAZO_GEOTIFF_ENCODER=gdal) in the same call, on the outputs of sssp
# (Float64 costs), mst (Byte edges) and export (Float32 values), with the copy floor of each file.
#
# Usage: tools/bench/bench_geotiff_writer.sh TERRAZO SIDE WORKDIR [DEVICE]
#   TERRAZO  the terrazo binary (or tools/bench/device_bundle.sh's terrazo.sh)
#   SIDE     raster side: gen --width SIDE --height SIDE --seed 11 --nodata-holes 0.02
#   DEVICE   cuda (default) or cpu, for sssp and mst
set -euo pipefail
tz=$1 side=$2 work=$3 device=${4:-cuda}
mkdir -p "$work"
g="$work/g$side.tzs"
[ -f "$g" ] || "$tz" gen -q --width "$side" --height "$side" --seed 11 --nodata-holes 0.02 "$g"
src=$((side / 2 + 15))
phases() { tail -n 1; }
for encoder in block gdal; do
  for rep in 1 2; do
    if [ $encoder = gdal ]; then export TERRAZO_GEOTIFF_ENCODER=gdal; else unset TERRAZO_GEOTIFF_ENCODER; fi
    echo "== $encoder rep $rep: sssp --device $device"
    "$tz" sssp -q --json --device "$device" --memory 8G --source $src,$src "$g" "$work/c_$encoder.tif" | phases
    echo "== $encoder rep $rep: mst --device $device"
    "$tz" mst -q --json --device "$device" --memory 8G "$g" "$work/m_$encoder.tif" | phases
    echo "== $encoder rep $rep: export"
    /usr/bin/time -f "export wall %e s user %U s" "$tz" export -q "$g" "$work/e_$encoder.tif"
  done
done
unset TERRAZO_GEOTIFF_ENCODER
for f in c m e; do
  cmp "$work/${f}_block.tif" "$work/${f}_gdal.tif" && echo "$f: block writer file identical to GDAL's"
  ls -la "$work/${f}_block.tif"
  sync; t0=$(date +%s.%N); cp "$work/${f}_block.tif" "$work/copy.tif"; sync; t1=$(date +%s.%N)
  echo "$f: copy floor $t0 -> $t1"; rm -f "$work/copy.tif"
done
