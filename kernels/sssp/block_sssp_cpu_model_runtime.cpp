// kernels/sssp/block_sssp_cpu_model_runtime.cpp: the CPU block solver's instantiations for
// the models read at run time (geometric, unit, walk, tobler) (kernels/sssp/block_sssp_cpu_solve.h says why one file per model).
#include "kernels/sssp/block_sssp_cpu_solve.h"

namespace terrazo {
namespace block_sssp_cpu_detail {

TERRAZO_BLOCK_SSSP_CPU_MODEL(, kRuntimeModel)

}  // namespace block_sssp_cpu_detail
}  // namespace terrazo
