#!/usr/bin/env bash
# scripts/setup.sh: installs what terrazo needs to build and run its tests on Debian 12 (bookworm),
# by package name through apt. Run as root (or as a user with sudo). Safe to run again.
#
#   scripts/setup.sh            build + test dependencies (what CI needs)
#   scripts/setup.sh --bench    also the baselines the benchmarks compare against (SciPy,
#                               scikit-image, GDAL's Python bindings, GRASS r.cost) and perf
#                               for the profiles of docs/benchmarks.md
#
# CUDA is not installed here: when nvcc is at /usr/local/cuda/bin (or on PATH) the CUDA solvers
# are built, otherwise the CPU solvers alone (CMake says which).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config   # compiler and build
  libgdal-dev gdal-bin                           # GDAL (raster I/O, CRS) and its command-line tools
  libboost-iostreams-dev zlib1g-dev              # gzip-compressed ASCII grids
  libgtest-dev googletest                        # tests
)
bench_packages=(python3-scipy python3-skimage python3-gdal python3-numpy grass-core linux-perf)

with_bench=0
for arg in "$@"; do
  case "$arg" in
    --bench) with_bench=1 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option '$arg' (expected --bench)" >&2; exit 2 ;;
  esac
done
if [[ $with_bench == 1 ]]; then packages+=("${bench_packages[@]}"); fi

if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null; then
    exec sudo "$0" "$@"
  fi
  echo "setup.sh: run as root (apt-get needs it), e.g. 'su -c scripts/setup.sh'" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${packages[@]}"
echo "setup.sh: dependencies installed"
