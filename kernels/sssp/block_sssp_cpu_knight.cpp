// kernels/sssp/block_sssp_cpu_knight.cpp: the CPU block solver with knight's moves (--connectivity 16).
//
// The contract of kernels/sssp/block_sssp.h on a (t+4)^2 window (two-cell halo, kernels/sssp/knight.h),
// with the 8 neighbours and the 8 knight's moves: the one Dijkstra of block_sssp_cpu_solve.h on its
// SixteenNeighbours neighbourhood, with the model read at run time. A knight's move weighs the two
// cells it crosses, which are inside the window whenever both ends are (they lie in the ends'
// bounding box); the halo holds every halo cell's value (engine/sssp/halo_values.h). Compiled apart
// from the 4- and 8-neighbour instantiations, so a build spreads them over its cores.
#include "kernels/sssp/block_sssp_cpu_solve.h"

namespace terrazo {
namespace block_sssp_cpu_detail {

TERRAZO_BLOCK_SSSP_CPU_KNIGHT()

}  // namespace block_sssp_cpu_detail
}  // namespace terrazo
