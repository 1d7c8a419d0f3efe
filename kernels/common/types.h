// kernels/common/types.h: the few types every layer of terrazo shares.
//
// Contract (docs/architecture.md "Data model"):
//  - cell (x, y) of a W x H raster has global id y*W + x, 64-bit;
//  - edge weights are non-negative 32-bit fixed-point integers, kNoEdge (UINT32_MAX) is reserved
//    to mean "no edge" (a nodata endpoint, or outside the raster), so the largest weight is kMaxWeight;
//  - path lengths are 64-bit, kUnreached marks a cell no source reaches.
#pragma once
#include <cstdint>

namespace terrazo {

using CellId = std::uint64_t;
using Weight = std::uint32_t;
using PathLength = std::uint64_t;

constexpr Weight kNoEdge = 0xFFFFFFFFu;
constexpr Weight kMaxWeight = 0xFFFFFFFEu;
constexpr PathLength kUnreached = ~PathLength{0};

// Unit (hop count) and Geometric (step length through valid cells) are cost distance only (sssp, path).
// Walk (GRASS r.walk) and Tobler (Tobler's hiking function) are sssp only: directed (anisotropic)
// weights from elevation and friction packed in one value per cell (kernels/common/edge_weight.h).
enum class WeightModel : std::uint8_t { Max = 0, AbsDiff = 1, Friction = 2, Unit = 3, Geometric = 4, Walk = 5, Tobler = 6 };

// Whether the model's weights are directed (w(u, v) != w(v, u)): walk and tobler (host and device).
#if defined(__CUDACC__)
__host__ __device__
#endif
constexpr bool is_directed(WeightModel model) { return model == WeightModel::Walk || model == WeightModel::Tobler; }
// Sixteen: the 8 neighbours plus the 8 knight's moves (sssp only, kernels/sssp/knight.h).
enum class Connectivity : std::uint8_t { Four = 4, Eight = 8, Sixteen = 16 };

const char* to_string(WeightModel model);
const char* to_string(Connectivity connectivity);

}  // namespace terrazo
