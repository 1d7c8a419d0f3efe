// engine/sssp/exchange_entry.h: the streamed exchange's cache entry and loading scratch (private to
// engine/sssp/exchange*.cpp, the files of SsspExchange).
#pragma once
#include <cstdint>
#include <list>
#include <utility>
#include <vector>

#include "engine/sssp/exchange.h"

namespace terrazo {

using Label = std::pair<PathLength, std::uint64_t>;  // (dist, source << 32 | hops): lexicographic order

// Hop counts beyond this are reported instead of risking the 32-bit wrap (kernels/sssp/block_sssp.h).
constexpr std::uint32_t kHopsLimit = 0xC0000000u;

// A tile's cells in a piece of the cache's arena (kernels/common/page_arena.h): never zero-filled, every
// cell written by acquire() (values, labels) or by the solver (changed) before it is read.
template <typename T>
struct EntryCells {
  T* cells = nullptr;
  std::size_t count = 0;
  T& operator[](std::size_t i) { return cells[i]; }
  const T& operator[](std::size_t i) const { return cells[i]; }
  T* data() { return cells; }
  const T* data() const { return cells; }
  T* begin() { return cells; }
  T* end() { return cells + count; }
  bool empty() const { return count == 0; }
};

struct SsspExchange::Entry {
  void* piece = nullptr;             // the arena's piece holding the arrays below
  std::uint64_t tile = 0;
  std::uint32_t tx = 0, ty = 0;
  EntryCells<double> values;         // (t+2h)^2, h = halo_width (kernels/sssp/knight.h)
  EntryCells<PathLength> dist;       // (t+2h)^2
  EntryCells<std::uint32_t> source;  // (t+2h)^2, labelled runs
  EntryCells<std::uint32_t> hops;    // (t+2h)^2, labelled runs
  EntryCells<std::uint8_t> changed;  // t*t
  bool dirty = false;
  int pins = 0;
  std::list<std::uint64_t>::iterator lru;

  Label label(std::uint64_t i) const {
    return {dist[i], source.empty() ? 0 : (static_cast<std::uint64_t>(source[i]) << 32 | hops[i])};
  }
};

// What loading one tile into its entry needs beside the entry (load()): the tile's values as the
// input reads them, its interior labels as the store reads them, its ring. One per loading thread.
struct SsspExchange::LoadScratch {
  std::vector<double> values;                // t*t
  std::vector<PathLength> dist;              // t*t
  std::vector<std::uint32_t> source, hops;   // t*t, labelled runs
  std::vector<RingCell> ring;                // 4t+4 (8t+16 with a two-cell halo)
  std::vector<double> halo;                  // t*t: a neighbour's values (two-cell halo only)
};

}  // namespace terrazo
