#!/usr/bin/env bash
# tools/setup.sh: installs what terrazo needs to build and run its tests on Debian 12 (bookworm),
# by package name through apt. Run as root (or as a user with sudo). Safe to run again.
#
#   tools/setup.sh            build + test dependencies (what CI needs)
#   tools/setup.sh --bench    also the baselines the benchmarks compare against (SciPy,
#                               scikit-image, GDAL's Python bindings, GRASS r.cost and r.clump)
#                               and perf for the profiles of docs/benchmarks.md
#
# CUDA is not installed here: when nvcc is at /usr/local/cuda/bin (or on PATH) the CUDA solvers
# are built, otherwise the CPU solvers alone (CMake says which).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config   # compiler and build
  libgdal-dev gdal-bin libtiff-dev               # GDAL (raster I/O, CRS), its tools, libtiff (block writer)
  libzstd-dev                                    # ZSTD blocks on kept contexts (the block writer)
  libproj-dev                                    # PROJ's geodesics (sssp --distance geodesic)
  libboost-iostreams-dev zlib1g-dev              # gzip-compressed ASCII grids
  libgtest-dev googletest                        # tests
  libopenmpi-dev openmpi-bin                     # MPI: mpirun -np N terrazo ... (docs/distributed.md)
  python3-dev pybind11-dev python3-pybind11      # the Python package terrazo (docs/python.md)
  python3-numpy python3-pytest                   # ... its arrays and its tests
  python3-pip python3-setuptools python3-wheel   # ... its offline `pip install build/python` (docs/python.md)
  python3-gdal python3-xarray python3-rioxarray  # ... tests of GDAL-read outputs and DataArrays
  qgis python3-qgis qgis-providers               # the QGIS Processing provider's qgis_process tests (docs/qgis.md)
)
bench_packages=(python3-scipy python3-skimage python3-gdal python3-numpy grass-core linux-perf)  # grass-core: r.cost, r.clump (datasets/make_golden_clump.py)

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
  echo "setup.sh: run as root (apt-get needs it), e.g. 'su -c tools/setup.sh'" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${packages[@]}"
echo "setup.sh: dependencies installed"
