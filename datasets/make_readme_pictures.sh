#!/bin/bash
# datasets/make_readme_pictures.sh: regenerates the README's pictures (docs/img/*.png) from shipped
# DEMs with `terrazo render` (docs/render.md). The exact commands are also printed under each
# picture in README.md "Pictures"; the scratch rasters go to a temporary directory, removed at the end.
#
# Usage: datasets/make_readme_pictures.sh [TERRAZO]   (default: build/terrazo), from the repository root.
set -euo pipefail
tz=${1:-build/terrazo}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
set -x

# 1. Cost distance over the SRTM tile N44W072 (White Mountains) from one source, two least-cost paths.
"$tz" sssp -q --source 200,300 --backlink "$work/back.tif" datasets/real/N44W072.hgt "$work/cost.tif"
"$tz" path -q --backlink "$work/back.tif" --cost "$work/cost.tif" --dest 1000,950 --dest 1050,150 "$work/paths.geojson"
"$tz" render -q --terrain datasets/real/N44W072.hgt --paths "$work/paths.geojson" --source 200,300 --width 500 \
  "$work/cost.tif" docs/img/cost_paths_N44W072.png

# 2. The minimum spanning tree of hugo_site.asc (76 x 55 cells), 8 pixels per cell, on its terrain.
"$tz" mst -q datasets/real/hugo_site.asc "$work/edges.tif"
"$tz" render -q --kind edges --terrain datasets/real/hugo_site.asc --width 608 "$work/edges.tif" docs/img/mst_hugo_site.png
