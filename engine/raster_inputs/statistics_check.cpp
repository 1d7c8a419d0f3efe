// engine/raster_inputs/statistics_check.cpp: see statistics_check.h.
#include "engine/raster_inputs/statistics_check.h"

#include <cstring>
#include <vector>

#include "io/store/tile_store.h"

namespace terrazo {

namespace {

constexpr std::size_t kShareBytes = 24;  // valid cells, min, max

std::vector<std::uint8_t> share_bytes(const CellStats& share) {
  std::vector<std::uint8_t> bytes(kShareBytes);
  std::memcpy(bytes.data(), &share.valid, 8);
  std::memcpy(bytes.data() + 8, &share.min, 8);
  std::memcpy(bytes.data() + 16, &share.max, 8);
  return bytes;
}

CellStats merged_shares(const std::vector<std::vector<std::uint8_t>>& shares) {
  CellStats merged;
  for (const std::vector<std::uint8_t>& bytes : shares) {
    if (bytes.size() != kShareBytes)
      throw Error("internal: a rank's statistics share of " + std::to_string(bytes.size()) + " bytes");
    CellStats share;
    std::memcpy(&share.valid, bytes.data(), 8);
    std::memcpy(&share.min, bytes.data() + 8, 8);
    std::memcpy(&share.max, bytes.data() + 16, 8);
    merged.merge(share);
  }
  return merged;
}

}  // namespace

void check_input_statistics(const PipelineInput& input, Communicator& comm, const TileOwnership* ownership,
                            MemoryBudget& budget, const std::string& command) {
  const TileStore* store = input.store();
  // The ranks own tiles of the run's grid: a store tiled otherwise is checked whole on every rank.
  const bool shared = comm.distributed() && ownership && (!store || store->grid().tile == input.grid().tile);
  if (!shared) {
    agreed_stage(comm, command + ": checking the input", [&] { input.check_unseen_tiles(budget); });
    return;
  }
  const int rank = comm.rank();
  CellStats share;
  agreed_stage(comm, command + ": checking the input", [&] {
    auto mine = [&](std::uint64_t tile) { return ownership->owns(rank, tile); };
    if (store) share = store->statistics_share(mine, &budget);
  });
  const std::vector<std::vector<std::uint8_t>> shares = comm.gather(share_bytes(share), 0);
  agreed_stage(comm, command + ": checking the input's statistics", [&] {
    if (comm.root() && store) store->check_merged_statistics(merged_shares(shares));
  });
}

}  // namespace terrazo
