// kernels/common/resident_nodata.h: the quiet NaN (0x7ff8000000000000, std::nan("")'s bits) that
// the resident solvers' host/device steps write at nodata, the same bits on the host and the device.
#pragma once
#include <limits>

#include "kernels/common/edge_weight.h"  // TERRAZO_HD

namespace terrazo {

TERRAZO_HD double resident_nodata() {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(0x7ff8000000000000LL);
#else
  return std::numeric_limits<double>::quiet_NaN();
#endif
}

}  // namespace terrazo
