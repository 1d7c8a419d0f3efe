#!/usr/bin/env bash
# tools/bench/compare_outputs.sh: runs every command of two terrazo binaries on the same inputs (the
# shipped DEMs and generated rasters) and compares their outputs byte for byte. A restructuring that
# must not change results (docs/architecture.md "Before and after") is checked with it:
#
#   tools/bench/compare_outputs.sh BASELINE_TERRAZO CANDIDATE_TERRAZO [SCRATCH_DIR]
#
# Prints one line per output (same / DIFFERENT) and exits 1 when any output differs or a command's
# exit status differs. The --json summaries are not compared (they hold times).
set -euo pipefail
if [[ $# -lt 2 ]]; then sed -n '2,9p' "$0"; exit 2; fi
base=$(realpath "$1"); cand=$(realpath "$2")
repo=$(cd "$(dirname "$0")/../.." && pwd)
scratch=${3:-$(mktemp -d)}
mkdir -p "$scratch"
dems=("$repo/datasets/real/pysheds_dem.tif" "$repo/datasets/real/srtm_bigtujunga30m_utm11.tif")
with_nodata="$repo/datasets/real/rhine_elv0.tif"   # 49% nodata: the pipelines that keep sites off it

differences=0
# run NAME ARGS...: runs `terrazo ARGS` with each binary in its own directory (A, B); OUT tokens
# in ARGS are output names inside that directory.
run() {
  local name=$1; shift
  local status=()
  for side in A B; do
    local bin=$base; [[ $side == B ]] && bin=$cand
    local dir="$scratch/$side/$name"; rm -rf "$dir"; mkdir -p "$dir"
    local args=(); for a in "$@"; do args+=("${a//OUT:/$dir/}"); done
    ( cd "$dir" && "$bin" "${args[@]}" -q > stdout.txt 2> stderr.txt ) && status+=(0) || status+=($?)
  done
  if [[ ${status[0]} != "${status[1]}" ]]; then
    echo "DIFFERENT exit status  $name: ${status[0]} vs ${status[1]}"; differences=$((differences + 1)); return
  fi
  for f in "$scratch/A/$name"/*; do
    local b="$scratch/B/$name/$(basename "$f")"
    case $(basename "$f") in stderr.txt|stdout.txt) continue ;; esac
    if cmp -s "$f" "$b"; then echo "same       $name/$(basename "$f")"
    else echo "DIFFERENT  $name/$(basename "$f")"; differences=$((differences + 1)); fi
  done
}

# Generated rasters (once, with the baseline): a store with holes and a GeoTIFF.
"$base" gen -q --width 1500 --height 1100 --seed 11 --nodata-holes 0.02 "$scratch/gen.tzs"
"$base" gen -q --width 700 --height 600 --seed 5 "$scratch/gen.tif"
inputs=("${dems[@]}" "$scratch/gen.tzs" "$scratch/gen.tif")

for input in "${inputs[@]}"; do
  k=$(basename "$input" | tr . _)
  run "sssp_$k" sssp --source 30,40 --source 200,150 --backlink OUT:back.tif --allocation OUT:alloc.tif "$input" OUT:cost.tif
  run "sssp_knight_$k" sssp --connectivity 16 --weight geometric --source 10,10 --tile 64 "$input" OUT:cost.tif
  run "sssp_walk_$k" sssp --model tobler --source 50,60 --ot Float32 "$input" OUT:cost.tif
  run "mst_$k" mst --tile 128 --edge-list OUT:edges.bin "$input" OUT:mst.tif
  run "mst_absdiff_$k" mst --weight absdiff --connectivity 4 --tile 64 "$input" OUT:mst.tif
  run "clump_$k" clump --by range:300,400 --stats OUT:stats.csv "$input" OUT:labels.tif
  run "clump_sieve_$k" clump --by valid --min-size 50 --connectivity 4 "$input" OUT:labels.tif
  run "odm_$k" od-matrix --site 5,5 --site 100,120 --site 300,200 --geojson OUT:od.geojson "$input" OUT:od.csv
  run "odm_transient_$k" od-matrix --transient-index --site 5,5 --site 300,200 "$input" OUT:od.csv
  run "index_$k" index --tile 64 "$input" OUT:dem.tzi
  run "network_$k" network --site 5,5 --site 100,120 --site 300,200 "$input" OUT:links.geojson
  run "import_$k" import --tile 128 "$input" OUT:dem.tzs
  run "export_$k" export "$input" OUT:dem.tif
  run "render_$k" render --width 300 "$input" OUT:dem.png
done
k=rhine
run "sssp_$k" sssp --source 500,300 --backlink OUT:back.tif --allocation OUT:alloc.tif "$with_nodata" OUT:cost.tif
run "mst_$k" mst --tile 64 "$with_nodata" OUT:mst.tif
run "clump_$k" clump --by range:0,200 --stats OUT:stats.csv "$with_nodata" OUT:labels.tif
run "odm_$k" od-matrix --site 500,300 --site 700,400 "$with_nodata" OUT:od.csv
# Commands over other commands' outputs: path and corridor over sssp's (A's files, the same as B's
# when the sssp lines above say same).
d="$scratch/A/sssp_pysheds_dem_tif"
run path path --backlink "$d/back.tif" --cost "$d/cost.tif" --dest 10,20 --dest 350,300 OUT:paths.geojson
"$base" sssp -q --source 300,300 "${dems[0]}" "$scratch/from_b.tif"
run corridor corridor --percent 5 "$d/cost.tif" "$scratch/from_b.tif" OUT:corridor.tif
run render_labels render --kind labels --terrain "${dems[0]}" "$d/alloc.tif" OUT:zones.png

echo "$differences difference(s) ($scratch)"
[[ $differences == 0 ]]
