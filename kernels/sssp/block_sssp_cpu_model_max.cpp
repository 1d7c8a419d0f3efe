// kernels/sssp/block_sssp_cpu_model_max.cpp: the CPU block solver's instantiations for
// the max model (kernels/sssp/block_sssp_cpu_solve.h says why one file per model).
#include "kernels/sssp/block_sssp_cpu_solve.h"

namespace terrazo {
namespace block_sssp_cpu_detail {

TERRAZO_BLOCK_SSSP_CPU_MODEL(, static_cast<int>(WeightModel::Max))

}  // namespace block_sssp_cpu_detail
}  // namespace terrazo
