#!/usr/bin/env bash
# tools/quickstart.sh: the README's first command. Installs the dependencies (tools/setup.sh),
# builds the terrazo program, and runs the main job on a shipped SRTM DEM: cost distance from one
# source with backlinks, then least-cost paths from two destinations. Run from a fresh clone.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
cmake -S . -B build -G Ninja
cmake --build build -j2 --target terrazo
mkdir -p out
build/terrazo sssp --source 180,180 --backlink out/back.tif datasets/real/pysheds_dem.tif out/cost.tif
build/terrazo path --backlink out/back.tif --cost out/cost.tif --dest 10,20 --dest 350,300 out/paths.geojson
echo "outputs: out/cost.tif (Float64 cumulative cost), out/back.tif (Byte backlinks), out/paths.geojson (least-cost paths)"
