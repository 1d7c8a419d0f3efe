#!/bin/bash
# tools/bench/device_bundle.sh: packs a terrazo binary with the shared libraries it needs (GDAL and its
# dependencies, Boost), PROJ's database and GDAL's data files into one .tar.xz, so the full
# `terrazo` CLI runs on the GPU machine, whose image has no GDAL (docs/benchmarks.md says how it
# was used). glibc, libm, libstdc++ and libgcc_s are left out: the target's own (newer) ones are used.
#
# Usage: tools/bench/device_bundle.sh TERRAZO_BINARY OUT.tar.xz [OTHER_BINARY...]
# On the target: tar -xJf OUT.tar.xz -C DIR && DIR/terrazo.sh <terrazo arguments>; each OTHER_BINARY
# (a test binary, say) runs as DIR/NAME.sh with the same libraries and data.
# WITHOUT_MPI=1 leaves Open MPI's libraries out (libmpi, libopen-rte, libopen-pal, libpmix, hwloc,
# libevent): for mpirun runs on the GPU machines, whose own Open MPI (same libmpi.so.40 ABI) must serve
# them. By default they come along, so that the bundle runs without mpirun on any machine.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 TERRAZO_BINARY OUT.tar.xz [OTHER_BINARY...]" >&2
  exit 2
fi
binary=$1
out=$2
shift 2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/lib" "$stage/share"
# Each binary, the shared libraries it needs (one copy of each), and a wrapper NAME.sh that sets the
# library and data paths and execs it (so its pid is the binary's).
bundle() {
  local name=$1 path=$2
  cp -L "$path" "$stage/$name"
  # (a GDAL-free binary needs none of its own: grep then selects nothing, which is no error)
  # The terrazo executable loads GDAL and PROJ on first use (docs/architecture.md "GDAL loaded on
  # demand"), so ldd of it lists neither: the libraries of libgdal itself come along too.
  local gdal=
  # (no early exit in awk: ldconfig would die of SIGPIPE, and pipefail end the script)
  [ "$name" = terrazo ] && gdal=$(ldconfig -p | awk '/libgdal\.so\./ && !found {print $NF; found = 1}')
  { ldd "$path"; if [ -n "$gdal" ]; then ldd "$gdal"; echo "libgdal => $gdal (0)"; fi; } |
    awk '$3 ~ /^\// {print $3}' | sort -u |
    { grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt)\.so|ld-linux' || true; } |
    { if [ "${WITHOUT_MPI:-0}" = 1 ]; then grep -v -E '/lib(mpi|open-rte|open-pal|pmix|hwloc|event)[^/]*\.so' || true; else cat; fi; } |
    xargs -r -I{} cp -L {} "$stage/lib/"
  cat > "$stage/$name.sh" <<WRAP
#!/bin/bash
here=\$(cd "\$(dirname "\$0")" && pwd)
export LD_LIBRARY_PATH="\$here/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export PROJ_DATA="\$here/share" PROJ_LIB="\$here/share" GDAL_DATA="\$here/share/gdal"
exec "\$here/$name" "\$@"
WRAP
  chmod +x "$stage/$name.sh"
}
cp -L /usr/share/proj/proj.db "$stage/share/"
cp -rL /usr/share/gdal "$stage/share/gdal"
bundle terrazo "$binary"
for other in "$@"; do bundle "$(basename "$other")" "$other"; done
XZ_OPT=-6T2 tar -cJf "$out" -C "$stage" .
ls -la "$out"
