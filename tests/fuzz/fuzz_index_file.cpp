// tests/fuzz/fuzz_index_file.cpp: the index file reader (io/store/index_file.h) on any bytes as a
// .tzi: IndexFile::open under a 64 MiB budget, then up to 16 tiles read (ring values and matrix,
// each record's CRC checked) when the tile side is at most 64.
#include <algorithm>

#include "io/store/index_file.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace terrazo;
  const std::string path = fuzz::write_file("input.tzi", data, size);
  fuzz::accept_clear_errors([&] {
    MemoryBudget budget(64ull << 20);
    auto index = IndexFile::open(path, budget);
    const IndexFileHeader& h = index->header();
    if (h.tile > 64) return;
    const std::uint32_t b = 4 * h.tile - 4;
    std::vector<double> ring(b);
    std::vector<PathLength> matrix(static_cast<std::size_t>(b) * b);
    const std::uint64_t tiles = std::min<std::uint64_t>(16, h.grid().tile_count());
    for (std::uint64_t i = 0; i < tiles; ++i) index->read_tile(i, ring.data(), matrix.data());
  });
  return 0;
}
