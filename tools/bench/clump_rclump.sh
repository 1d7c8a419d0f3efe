#!/bin/bash
# tools/bench/clump_rclump.sh: GRASS GIS r.clump as a clump baseline (docs/benchmarks.md "Clump"): the
# whole job a user runs, read and write included, in a throw-away XY location: r.in.gdal, r.clump
# (-d: 8 neighbours), r.out.gdal to a UInt32 GeoTIFF (ZSTD, tiled, like terrazo's output).
# GRASS's start-up (about 0.5 s) is part of the time; docs/benchmarks.md gives it beside.
#
# Usage: tools/bench/clump_rclump.sh 8|4 INPUT LABELS.tif
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: $0 8|4 INPUT LABELS.tif" >&2
  exit 2
fi
flag=""
[ "$1" = 8 ] && flag="-d"
input=$(realpath "$2")
output=$(realpath -m "$3")
exec grass --tmp-location XY --exec bash -c "r.in.gdal --q -o input='$input' output=b && g.region raster=b && \
  r.clump $flag --q input=b output=c && \
  r.out.gdal --q -c -f input=c output='$output' type=UInt32 createopt=TILED=YES,COMPRESS=ZSTD,ZSTD_LEVEL=1,BIGTIFF=IF_SAFER" \
  >/dev/null 2>&1
