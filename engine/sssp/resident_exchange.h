// engine/sssp/resident_exchange.h: phases 1-2 of the SSSP pipeline with the whole raster resident
// on the solver's device (docs/sssp.md "Resident exchange"): each tile of the input is read and
// sent to the device once, the rounds run there (kernels/sssp/resident_sssp.h), and the distances
// come back once, into the DistanceStore that the output phase reads.
//
// It is the default on a GPU when no backlink or allocation is asked for and either the raster's
// values and distances fit its memory (16 bytes per cell), or they fit the host budget and the
// GPU holds every tile's border band and enough tile interiors to page them (the paged solver,
// `device_slots` > 0: docs/sssp.md "Paged resident exchange"); the streamed exchange
// (engine/sssp/exchange.h) serves every other run. All give the same distances bit for bit.
// Distributed (options.comm with several ranks): each rank's solver holds its window of the raster
// (engine/sssp/rank_window.h: its own tiles and the cells of others' within the halo), the rounds'
// threshold and end are agreed by all-reduce, and the ranks trade their copies of the shared cells
// each round (run_rank_rounds, engine/sssp/resident_ranks.cpp; never paged). One process: the
// window is the whole raster.
// Memory (host, reserved from the budget): CUDA: two tiles of staging (t*t x 16 bytes) and the
// solver's pinned windows (t*t x 16), and when paged every cell (resident_sssp_paged_host_bytes);
// CPU twin: the resident arrays (resident_sssp_bytes); distributed: 96 bytes per shared cell (the list, three copies, a round's messages both ways).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/sssp/exchange.h"
#include "engine/sssp/rank_window.h"
#include "kernels/sssp/resident_sssp.h"

namespace terrazo {

class ResidentSsspExchange final : public SsspExchangeRun, public SsspLabelSource {
 public:
  // g: the resident tile side (the block solver's tile); round_tiles: the width of a round the
  // schedule aims at (0: the device's default); device_slots: 0, or the paged solver's slots (CUDA);
  // options as for SsspExchange (labels must be off).
  ResidentSsspExchange(const TileInput& input, DistanceStore& store, const SsspExchangeOptions& options,
                       std::uint32_t g, std::uint64_t round_tiles, std::uint64_t device_slots, MemoryBudget& budget,
                       Progress& progress);
  ~ResidentSsspExchange() override;

  std::vector<std::uint32_t> add_sources(std::uint32_t tx, std::uint32_t ty, const std::vector<TileSource>& sources) override;
  void run(Progress& progress) override;
  void flush() override;
  const SsspExchangeStats& stats() const override { return stats_; }
  // After run(), the output phase may read the distances from the device instead of the store
  // (no flush: each tile crosses the bus once more, and never touches the disk).
  const TileGrid& grid() const override { return grid_; }
  bool labelled() const override { return false; }
  // Tiles outside this rank's window (another rank's, or absent ones) read as unreached.
  bool interior_present(std::uint64_t tile) const override { return window_.contains(grid_.window(tile)); }
  void read_interior(std::uint64_t tile, PathLength* dist, std::uint32_t* source, std::uint32_t* hops) override;
  void read_ring(std::uint64_t tile, std::uint32_t first, std::uint32_t count, RingCell* out) override;
  void set_read_target(PathLength* dist, std::uint64_t cells) override {
    if (solver_) solver_->set_read_target(dist, cells);  // (none after flush)
  }
  void release(std::uint64_t) override {}
  std::uint64_t bytes_read() const override { return 0; }
  const ResidentSsspStats& resident_stats() const { return resident_stats_; }

  // Bytes the device needs for a width x height raster at tile side g with `connectivity` (what
  // `auto` compares with the GPU's memory).
  static std::uint64_t device_bytes(std::uint64_t width, std::uint64_t height, std::uint32_t g, Device device,
                                    unsigned threads, Connectivity connectivity = Connectivity::Eight);
  // The paged CUDA solver on the same raster: the most device slots that fit `room` bytes of GPU
  // memory (0: not even the bands fit), and the host bytes it reserves.
  static std::uint64_t paged_slots(std::uint64_t width, std::uint64_t height, std::uint32_t g, Connectivity connectivity,
                                   std::uint64_t room);
  static std::uint64_t paged_host_bytes(std::uint64_t width, std::uint64_t height, std::uint32_t g,
                                        Connectivity connectivity);
  // The window of `rank` (options.ownership's) or, one process, the whole raster.
  static RankWindow window_of(const TileInput& input, const SsspExchangeOptions& options);

 private:
  void load_tiles(Progress& progress);
  void load_halo_strips();
  void run_rank_rounds(Progress& progress);
  // This rank's copies of the cells it shares with its neighbour ranks, those it last sent, and
  // theirs as last received (engine/sssp/resident_ranks.cpp).
  struct SharedCopies {
    std::vector<PathLength> mine, sent, theirs;
  };
  void trade_shared_cells(SharedCopies& copies);

  const TileInput& input_;
  DistanceStore& store_;
  SsspExchangeOptions options_;
  TileGrid grid_;
  RankWindow window_;
  std::uint64_t round_tiles_ = 1;  // the width of a round the schedule aims at (per rank)
  std::unique_ptr<WorkerPool> pool_;
  std::unique_ptr<ResidentSsspSolver> solver_;
  std::vector<MemoryBudget::Reservation> reservations_;
  std::vector<double> values_;     // t*t
  std::vector<PathLength> dist_;   // t*t
  SsspExchangeStats stats_;
  ResidentSsspStats resident_stats_;
};

}  // namespace terrazo
