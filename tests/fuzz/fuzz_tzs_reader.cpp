// tests/fuzz/fuzz_tzs_reader.cpp: the .tzs reader (io/store/tile_store.h) on any bytes: open, then
// read up to 64 tiles (every stored one on small grids), under a 64 MiB budget for the index.
#include "io/store/tile_store.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace terrazo;
  const std::string path = fuzz::write_file("input.tzs", data, size);
  fuzz::accept_clear_errors([&] {
    MemoryBudget budget(64ull << 20);
    auto store = TileStore::open(path, &budget);
    const TileGrid& grid = store->grid();
    if (static_cast<std::uint64_t>(grid.tile) * grid.tile > (1u << 20)) return;  // 8 MiB of doubles at most
    std::vector<double> tile(static_cast<std::size_t>(grid.tile) * grid.tile);
    int reads = 0;
    for (std::uint32_t ty = 0; ty < grid.tiles_y() && reads < 64; ++ty)
      for (std::uint32_t tx = 0; tx < grid.tiles_x() && reads < 64; ++tx, ++reads) store->read_tile(tx, ty, tile.data());
  });
  return 0;
}
