// engine/index/index_loader.cpp: load_index_tiles (engine/index/index_loader.h).
#include "engine/index/index_loader.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "kernels/common/error.h"
#include "kernels/index/boundary_ring.h"

namespace terrazo {

void load_index_tiles(const IndexFile& index, const std::vector<std::uint64_t>& tiles, std::uint64_t chunk_tiles,
                      unsigned slots, unsigned threads, IndexLoadSink& sink) {
  if (chunk_tiles == 0 || slots == 0) throw Error("load_index_tiles: no chunk or no slot");
  const std::uint64_t b = ring_size(index.header().tile);
  const std::uint64_t n = tiles.size(), chunks = (n + chunk_tiles - 1) / chunk_tiles;
  if (chunks == 0) return;
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<char> decoded(chunks, 0);
  std::uint64_t consumed = 0;  // chunks consumed, in order
  bool stop = false;
  std::exception_ptr error;
  std::atomic<std::uint64_t> next{0};
  auto fail = [&](std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!error) error = e;
    stop = true;
    changed.notify_all();
  };
  auto reader = [&]() {
    try {
      for (std::uint64_t c = next++; c < chunks; c = next++) {
        const auto slot = static_cast<unsigned>(c % slots);
        {
          // The slot's previous chunk (c - slots) consumed: chunks are taken in order, so it is
          // taken already and its own wait ends first.
          std::unique_lock<std::mutex> lock(mutex);
          changed.wait(lock, [&] { return stop || consumed + slots > c; });
          if (stop) return;
        }
        sink.reuse(slot);
        PathLength* matrices = sink.matrices(slot);
        double* rings = sink.rings(slot);
        const std::uint64_t first = c * chunk_tiles, count = std::min(chunk_tiles, n - first);
        for (std::uint64_t i = 0; i < count; ++i) index.read_tile(tiles[first + i], rings + i * b, matrices + i * b * b);
        std::lock_guard<std::mutex> lock(mutex);
        decoded[c] = 1;
        changed.notify_all();
      }
    } catch (...) {
      fail(std::current_exception());
    }
  };
  const unsigned workers = static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(std::max(1u, threads), chunks)));
  std::vector<std::thread> pool;
  pool.reserve(workers);
  for (unsigned w = 0; w < workers; ++w) pool.emplace_back(reader);
  for (std::uint64_t c = 0; c < chunks; ++c) {
    {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock, [&] { return stop || decoded[c]; });
      if (stop) break;
    }
    try {
      const std::uint64_t first = c * chunk_tiles;
      sink.consume(static_cast<unsigned>(c % slots), first, std::min(chunk_tiles, n - first));
    } catch (...) {
      fail(std::current_exception());
      break;
    }
    std::lock_guard<std::mutex> lock(mutex);
    consumed = c + 1;
    changed.notify_all();
  }
  for (std::thread& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace terrazo
