// engine/sssp/resident_exchange.h: phases 1-2 of the SSSP pipeline with the whole raster resident
// on the solver's device (docs/sssp.md "Resident exchange"): each tile of the input is read and
// sent to the device once, the rounds run there (kernels/sssp/resident_sssp.h), and the distances
// come back once, into the DistanceStore that the output phase reads.
//
// It is the default on a GPU when the raster's values and distances fit its memory (16 bytes per
// cell) and no backlink or allocation is asked for; the streamed exchange (engine/sssp/exchange.h)
// serves every other run. Both give the same distances bit for bit.
// Memory (host, reserved from the budget): CUDA: two tiles of staging (t*t x 16 bytes) and the
// solver's pinned windows (t*t x 16); CPU twin: the resident arrays (resident_sssp_bytes).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/sssp/exchange.h"
#include "kernels/sssp/resident_sssp.h"

namespace terrazo {

class ResidentSsspExchange final : public SsspExchangeRun {
 public:
  // g: the resident tile side (the block solver's tile); options as for SsspExchange (labels must be off).
  ResidentSsspExchange(const TileInput& input, DistanceStore& store, const SsspExchangeOptions& options,
                       std::uint32_t g, MemoryBudget& budget, Progress& progress);
  ~ResidentSsspExchange() override;

  std::vector<std::uint32_t> add_sources(std::uint32_t tx, std::uint32_t ty, const std::vector<TileSource>& sources) override;
  void run(Progress& progress) override;
  void flush() override;
  const SsspExchangeStats& stats() const override { return stats_; }
  const ResidentSsspStats& resident_stats() const { return resident_stats_; }

  // Bytes the device needs for a width x height raster at tile side g (what `auto` compares with
  // the GPU's memory).
  static std::uint64_t device_bytes(std::uint64_t width, std::uint64_t height, std::uint32_t g, Device device,
                                    unsigned threads);

 private:
  const TileInput& input_;
  DistanceStore& store_;
  SsspExchangeOptions options_;
  TileGrid grid_;
  std::unique_ptr<WorkerPool> pool_;
  std::unique_ptr<ResidentSsspSolver> solver_;
  std::vector<MemoryBudget::Reservation> reservations_;
  std::vector<double> values_;     // t*t
  std::vector<PathLength> dist_;   // t*t
  SsspExchangeStats stats_;
  ResidentSsspStats resident_stats_;
};

}  // namespace terrazo
