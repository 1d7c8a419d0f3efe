// kernels/sssp/block_sssp_cpu_model_friction.cpp: the CPU block solver's instantiations for
// the friction model (kernels/sssp/block_sssp_cpu_solve.h says why one file per model).
#include "kernels/sssp/block_sssp_cpu_solve.h"

namespace terrazo {
namespace block_sssp_cpu_detail {

TERRAZO_BLOCK_SSSP_CPU_MODEL(, static_cast<int>(WeightModel::Friction))

}  // namespace block_sssp_cpu_detail
}  // namespace terrazo
