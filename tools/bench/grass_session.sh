# tools/bench/grass_session.sh: the scaffolding of the benchmarks that time terrazo against GRASS GIS,
# sourced (not run) by tools/bench/bench_knight.sh, bench_walk.sh, bench_cost_models.sh, bench_sssp.sh
# and bench_flowacc.sh:
#   bench_defaults               the shared options' defaults: terrazo (this checkout's build/terrazo),
#                                memory 1G, threads 0 (all cores), repeat 3
#   bench_option OPTION VALUE    one of the options the benchmarks share: --terrazo BIN, --memory SIZE,
#                                --threads N or --repeat N sets terrazo, memory, threads or repeat;
#                                status 1 (nothing set) for any other OPTION
#   bench_options ARGS...        bench_defaults, then bench_option for each OPTION VALUE before the
#                                last three arguments; sets the array bench_args (the rest); exit 2
#                                on another option
#   bench_workdir NAME           a scratch directory $work (under $TMPDIR), removed on exit
#   best CMD...                  "WALL CPU": the best wall seconds of $repeat runs of CMD and that
#                                run's CPU seconds (user + sys); CMD's stdout in $work/out
#   cell_centre RASTER X Y       "EX EY": map coordinates of the centre of cell (X, Y) of RASTER,
#                                as GRASS takes start_coordinates
#   grass_timed_script SCRIPT INPUT TIMES EXPORT TIMED [SETUP...]
#                                writes SCRIPT, a session for `grass --tmp-location INPUT --exec bash
#                                SCRIPT`: INPUT imported as the map `dem`, the region set to it, the
#                                SETUP commands, then the TIMED command between two clock readings
#                                appended to TIMES as "START END", and the map `cost` exported to
#                                EXPORT (Float64; not when EXPORT is empty)
#   grass_command_seconds TIMES  the shortest END - START in TIMES, in seconds (%.2f)

bench_defaults() {
  terrazo=$(dirname "${BASH_SOURCE[0]}")/../../build/terrazo
  memory=1G
  threads=0
  repeat=3
}

bench_option() {
  case "$1" in
    --terrazo) terrazo=$2 ;;
    --memory) memory=$2 ;;
    --threads) threads=$2 ;;
    --repeat) repeat=$2 ;;
    *) return 1 ;;
  esac
}

bench_options() {
  bench_defaults
  while [[ $# -gt 3 ]]; do
    bench_option "$1" "$2" || { echo "unknown option $1" >&2; exit 2; }
    shift 2
  done
  bench_args=("$@")
}

bench_workdir() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
  trap 'rm -rf "$work"' EXIT
}

best() {
  local bw="" bc="" w u s c
  for ((i = 0; i < repeat; ++i)); do
    /usr/bin/time -f "%e %U %S" -o "$work/t" "$@" > "$work/out" 2> "$work/err" || { cat "$work/err" >&2; return 1; }
    read -r w u s < "$work/t"
    c=$(/usr/bin/python3 -c "print('%.2f' % ($u + $s))")
    if [[ -z "$bw" ]] || /usr/bin/python3 -c "import sys; sys.exit(0 if $w < $bw else 1)"; then bw=$w; bc=$c; fi
  done
  echo "$bw $bc"
}

cell_centre() {
  /usr/bin/python3 -c "
import sys
from osgeo import gdal
g = gdal.Open(sys.argv[1]).GetGeoTransform()
x, y = int(sys.argv[2]) + 0.5, int(sys.argv[3]) + 0.5
print('%.12f %.12f' % (g[0] + x * g[1] + y * g[2], g[3] + x * g[4] + y * g[5]))" "$1" "$2" "$3"
}

grass_timed_script() {
  local script=$1 input=$2 times=$3 export=$4 timed=$5
  shift 5
  {
    echo 'set -e'
    echo "r.in.gdal -o input=\"$input\" output=dem --quiet"
    echo 'g.region raster=dem'
    local setup
    for setup in "$@"; do echo "$setup"; done
    echo 'start=$(date +%s.%N)'
    echo "$timed"
    echo 'end=$(date +%s.%N)'
    echo "echo \"\$start \$end\" >> \"$times\""
    if [[ -n "$export" ]]; then
      echo "r.out.gdal input=cost output=\"$export\" type=Float64 --quiet --overwrite -f"
    fi
  } > "$script"
}

grass_command_seconds() {
  /usr/bin/python3 -c "
import sys
print('%.2f' % min(float(b) - float(a) for a, b in (l.split() for l in open(sys.argv[1]))))" "$1"
}
