#!/bin/bash
# tools/bench/run_large_models.sh: the out-of-core acceptance runs of the cost models (docs/cost_models.md,
# docs/sssp.md): one `terrazo sssp` run per model on a generated SIDE x SIDE terrain under
# `--memory` (default 1G), each checked on a crop against the in-memory reference
# (tests/test_sssp_large.cpp, with the run's model, neighbours, scale and source settings), then its
# cost raster deleted. Prints per run terrazo's --json line (with "run", "wall_s", "vmhwm_kib" and
# "disk_free_min_gb" added) and the check's verdict.
#
# Usage: tools/bench/run_large_models.sh TERRAZO CHECK WORKDIR SIDE [RUNS...]
#   TERRAZO  the terrazo command (e.g. DIR/terrazo.sh from tools/bench/device_bundle.sh)
#   CHECK    the test_sssp_large binary (or a wrapper that sets its library path)
#   SIDE     raster side: `terrazo gen --width SIDE --height SIDE --seed 7 --nodata-holes 0.02`
#            (65536: the 4 G-cell terrain of docs/benchmarks.md), made in WORKDIR unless there
#   RUNS     any of walk tobler knight sources (default: all four)
#     walk     --model walk (r.walk's defaults, --distance map: 30 m cells, EPSG:3857)
#     tobler   --model tobler
#     knight   --connectivity 16 (friction)
#     sources  per-source settings from a GeoJSON: two groups (multiplier 1.5, maximum A; multiplier 2,
#              maximum B), one source with an initial cost; the maxima scale with SIDE so that the
#              groups reach about a quarter and a sixteenth of the terrain (the scratch files of
#              several groups hold 13 bytes per reached cell: a full reach would need 55 GB at 4 G)
# Environment: MEMORY (default 1G), THREADS (default: all cores), CROP_SIDE (default min(4096, SIDE/4)),
#   RSS_TRACE (a file: each second "RUN SECONDS VmRSS RssAnon RssFile VmHWM" in KiB, to see in which
#   phase the peak falls, with the --json line's phase times).
# Example (GPU machine, 16 cores): tools/bench/run_large_models.sh /tmp/tz/terrazo.sh /tmp/tz/check.sh /tmp/w 65536
set -euo pipefail
tz=$1
check=$2
work=$3
side=$4
shift 4
runs=("$@")
[ ${#runs[@]} -eq 0 ] && runs=(walk tobler knight sources)
memory=${MEMORY:-1G}
threads=()
[ -n "${THREADS:-}" ] && threads=(--threads "$THREADS")
crop_side=${CROP_SIDE:-$(( side / 4 < 4096 ? side / 4 : 4096 ))}
mkdir -p "$work/tmp"
store=$work/g$side.tzs
if [ ! -f "$store" ]; then
  t0=$(date +%s.%N)
  "$tz" gen -q --width "$side" --height "$side" --seed 7 --nodata-holes 0.02 --memory "$memory" "${threads[@]}" "$store"
  echo "{\"run\": \"gen\", \"side\": $side, \"bytes\": $(stat -c %s "$store"), \"wall_s\": $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')}"
fi
# Cell (fx x SIDE, fy x SIDE), moved along the diagonal to the first valid cell (--max-cost 0 is quick).
valid_cell() {
  local x y k
  x=$(awk -v f="$1" -v s="$side" 'BEGIN { printf "%d", f * s }')
  y=$(awk -v f="$2" -v s="$side" 'BEGIN { printf "%d", f * s }')
  for k in $(seq 0 199); do
    if "$tz" sssp -q --json --device cpu --max-cost 0 --memory 256M --source "$((x + k)),$((y + k))" "$store" - >/dev/null 2>&1; then
      echo "$((x + k)),$((y + k))"
      return
    fi
  done
  echo "no valid cell near $x,$y" >&2
  return 1
}
# Cost units scaled from the 4 G-cell terrain (distances grow with the side).
scaled() { awk -v c="$1" -v s="$side" 'BEGIN { printf "%.0f", c * s / 65536 }'; }
# Map coordinates of a cell centre: gen's geotransform, origin (500000, 5000000), 30 m cells.
map_xy() { awk -v c="$1" 'BEGIN { split(c, a, ","); printf "%.1f, %.1f", 500000 + 30 * (a[1] + 0.5), 5000000 - 30 * (a[2] + 0.5) }'; }
json_field() { sed -n "s/.*\"$2\": *\([-0-9.eE+]*\).*/\1/p" <<<"$1" | head -1; }

source=$(valid_cell 0.6104 0.4578) || exit 1  # (40000, 30000) at 4 G cells
sx=${source%,*}
sy=${source#*,}
crop="$((sx - crop_side / 2)),$((sy - crop_side / 2)),$crop_side"
for run in "${runs[@]}"; do
  flags=()
  check_env=(TERRAZO_SSSP_LARGE_STORE="$store" TERRAZO_SSSP_LARGE_COST="$work/cost.tif"
             TERRAZO_SSSP_LARGE_SOURCE="$source" TERRAZO_SSSP_LARGE_CROP="$crop")
  case $run in
    walk | tobler)
      flags=(--model "$run" --source "$source")
      check_env+=(TERRAZO_SSSP_LARGE_MODEL="$run") ;;
    knight)
      flags=(--connectivity 16 --source "$source")
      check_env+=(TERRAZO_SSSP_LARGE_CONNECTIVITY=16) ;;
    sources)
      second=$(valid_cell 0.3052 0.7629) || exit 1  # (20000, 50000)
      third=$(valid_cell 0.75 0.6) || exit 1          # (49152, 39321), outside the crop
      max_a=$(scaled 3000000)
      max_b=$(scaled 2000000)
      cat > "$work/sources.geojson" <<EOF
{"type": "FeatureCollection", "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::3857"}}, "features": [
{"type": "Feature", "properties": {"mult": 1.5, "max": $max_a, "init": 0}, "geometry": {"type": "Point", "coordinates": [$(map_xy "$source")]}},
{"type": "Feature", "properties": {"mult": 2.0, "max": $max_b, "init": 0}, "geometry": {"type": "Point", "coordinates": [$(map_xy "$second")]}},
{"type": "Feature", "properties": {"mult": 1.5, "max": $max_a, "init": $(scaled 50000)}, "geometry": {"type": "Point", "coordinates": [$(map_xy "$third")]}}
]}
EOF
      flags=(--sources-file "$work/sources.geojson" --source-multiplier-field mult --source-max-field max
             --source-initial-field init)
      check_env+=(TERRAZO_SSSP_LARGE_MULTIPLIER=1.5 TERRAZO_SSSP_LARGE_MAX_COST="$max_a") ;;
    *) echo "unknown run '$run'" >&2; exit 2 ;;
  esac
  # The lowest free disk space while it runs, polled every 5 s.
  df -B1 --output=avail "$work" | tail -1 > "$work/disk_min"
  ( while sleep 5; do
      free=$(df -B1 --output=avail "$work" | tail -1)
      [ "$free" -lt "$(cat "$work/disk_min")" ] && echo "$free" > "$work/disk_min"
    done ) &
  poller=$!
  trap 'kill $poller 2>/dev/null || true' EXIT
  t0=$(date +%s.%N)
  "$tz" sssp -q --json --device cpu --memory "$memory" "${threads[@]}" --tmpdir "$work/tmp" "${flags[@]}" \
    "$store" "$work/cost.tif" > "$work/run.json" &
  pid=$!
  # VmHWM of the terrazo process (the wrapper execs it), read while it lives.
  hwm=0
  while kill -0 "$pid" 2>/dev/null; do
    h=$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
    [ -n "$h" ] && hwm=$h
    if [ -n "${RSS_TRACE:-}" ]; then
      awk -v run="$run" -v t="$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')" \
        '/^(VmRSS|RssAnon|RssFile|VmHWM):/ { v[$1] = $2 }
         END { if (v["VmRSS:"] != "") print run, t, v["VmRSS:"], v["RssAnon:"], v["RssFile:"], v["VmHWM:"] }' \
        "/proc/$pid/status" >> "$RSS_TRACE" 2>/dev/null || true
    fi
    sleep 1
  done
  rc=0
  wait "$pid" || rc=$?
  wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  kill "$poller" 2>/dev/null || true
  if [ "$rc" -ne 0 ]; then
    echo "{\"run\": \"$run\", \"exit\": $rc, \"wall_s\": $wall, \"vmhwm_kib\": $hwm}"
    rm -f "$work/cost.tif"
    continue
  fi
  line=$(tail -1 "$work/run.json")
  disk=$(awk '{ printf "%.1f", $1 / 1e9 }' "$work/disk_min")
  echo "${line%\}}, \"run\": \"$run\", \"wall_s\": $wall, \"vmhwm_kib\": $hwm, \"disk_free_min_gb\": $disk, \"cost_tif_bytes\": $(stat -c %s "$work/cost.tif")}"
  scale=$(json_field "$line" scale)
  if env "${check_env[@]}" TERRAZO_SSSP_LARGE_SCALE="$scale" "$check" > "$work/check.log" 2>&1; then
    echo "check $run: passed: $(grep -E '^(crop|reference)' "$work/check.log" | tr '\n' ' ')"
  else
    echo "check $run: FAILED"
    cat "$work/check.log"
  fi
  rm -f "$work/cost.tif"
done
