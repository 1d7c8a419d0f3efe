# tools/bench/gpu_bench/gpu_session.sh: what the one-call GPU-machine scripts (clump_1g.sh, headline_1g.sh,
# paged_1g.sh, od_matrix_268m.sh, write_codecs.sh) share, sourced:
#   $L                 the log, $OUT/log.txt
#   step LIMIT CMD...  CMD under `timeout LIMIT`, its output in $L between "=== START CMD" and
#                      "=== rc STATUS END" (times to the nanosecond)
#   unpack BUNDLE      BUNDLE (tools/bench/device_bundle.sh) unpacked into /tmp/tz; /tmp/w made for the work
#   gpu_identity       the GPU's name, memory and driver version, into $L
L=$OUT/log.txt
step() { local limit=$1; shift; echo "=== $(date +%T.%N) $*" >>"$L"; timeout "$limit" "$@" >>"$L" 2>&1; echo "=== rc $? $(date +%T.%N)" >>"$L"; }
unpack() {
  mkdir -p /tmp/tz /tmp/w
  tar -xJf "$1" -C /tmp/tz
}
gpu_identity() { nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >>"$L"; }
