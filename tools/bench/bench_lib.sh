# tools/bench/bench_lib.sh: what the paired benchmarks (bench_clump.sh, bench_fill.sh) share, sourced:
#   bench_parse USAGE FLAG VAR ARGS...  reads --terrazo BIN, --threads N, --rounds N and FLAG VALUE (into
#                                       the variable VAR; defaults set before the call), then one INPUT;
#                                       sets input, bench (this folder), work (a temporary folder,
#                                       removed at exit) and times (the runs' file); USAGE: the options
#                                       and INPUT, printed on a usage error (exit 2)
#   bench_run NAME COMMAND...           one timed run (/usr/bin/time): appends "NAME wall cpu rss_kib"
#                                       to $times and prints it; a failed run prints its stderr, exit 1
#   bench_load WHEN                     prints the load average ("load before: ...")
terrazo=$(dirname "$0")/../../build/terrazo
threads=2
bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

bench_parse() {
  local usage=$1 flag=$2 var=$3
  shift 3
  while [[ $# -gt 1 ]]; do
    case "$1" in
      --terrazo) terrazo=$2; shift 2 ;;
      --threads) threads=$2; shift 2 ;;
      --rounds) rounds=$2; shift 2 ;;
      "$flag") printf -v "$var" '%s' "$2"; shift 2 ;;
      *) echo "$(basename "$0"): unknown option $1" >&2; exit 2 ;;
    esac
  done
  if [[ $# -ne 1 ]]; then
    echo "usage: $0 $usage" >&2
    exit 2
  fi
  input=$(realpath "$1")
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  times="$work/times.txt"
}

bench_run() {
  local name=$1
  shift
  /usr/bin/time -o "$work/t" -f "%e %U %S %M" "$@" >/dev/null 2>"$work/err" || {
    echo "$(basename "$0"): $name failed:" >&2; cat "$work/err" >&2; exit 1; }
  read -r wall user sys rss <"$work/t"
  echo "$name $wall $(echo "$user + $sys" | bc) $rss" | tee -a "$times"
}

bench_load() {
  echo "load $1: $(cut -d' ' -f1-3 /proc/loadavg)"
}
