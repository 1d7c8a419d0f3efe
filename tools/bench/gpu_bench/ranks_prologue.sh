# tools/bench/gpu_bench/ranks_prologue.sh: how ranks_gpu.sh and ranks_resident.sh start, sourced once
# scratch and bundle are set: sets out ($OUT, else SCRATCH/out), failures (0), note_failure MESSAGE
# (prints FAIL and counts it), gpus (nvidia-smi's count, the list printed) and tz (BUNDLE unpacked
# into SCRATCH/tz), and exports what Open MPI and NCCL need here (root runs, NVLink multicast off).
out=${OUT:-$scratch/out}
failures=0
note_failure() { echo "FAIL: $*"; failures=$((failures + 1)); }
mkdir -p "$scratch/tz" "$out"
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
gpus=$(nvidia-smi -L | wc -l)
nvidia-smi -L
tar -xJf "$bundle" -C "$scratch/tz"
tz="$scratch/tz/terrazo.sh"
