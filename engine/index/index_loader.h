// engine/index/index_loader.h: the tiles of an index read, checked and decoded on several threads and
// handed over in tile order, chunk by chunk, through a few reusable buffers (docs/index.md "Loading
// the index"): what GPrimeRounds' GPU load does with page-locked buffers and asynchronous copies, so
// that reading 10 GB of index does not wait on one host thread and the copies overlap the reads.
//
// Contract: the tiles `tiles` (index tile ids, present ones) in chunks of `chunk_tiles` consecutive
// entries: chunk c = tiles [c * chunk_tiles, min(n, (c + 1) * chunk_tiles)). One of `threads` reader
// threads decodes chunk c into slot c % slots of the sink (per tile i of the chunk: its ring values at
// rings(slot) + i B and its B x B matrix at matrices(slot) + i B^2, exactly what IndexFile::read_tile
// gives), after sink.reuse(slot) returned and the previous chunk of that slot was consumed; the
// calling thread calls sink.consume(slot, first, count) for c = 0, 1, ... in order. So whatever the
// thread, chunk and slot counts, consume sees the same bytes in the same order as a serial loop of
// read_tile. An Error of a reader (a checksum) or of consume stops the others and is rethrown here
// (the first one raised).
// Memory: the sink's slots x chunk_tiles x (B^2 + B) x 8 bytes, and one tile record per thread
// (IndexFile::read_tile's buffer).
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/common/types.h"
#include "io/store/index_file.h"

namespace terrazo {

class IndexLoadSink {
 public:
  virtual ~IndexLoadSink() = default;
  virtual PathLength* matrices(unsigned slot) = 0;  // chunk_tiles x B x B
  virtual double* rings(unsigned slot) = 0;         // chunk_tiles x B
  // On a reader thread, before slot is filled again (e.g. waits for its asynchronous copy).
  virtual void reuse(unsigned /*slot*/) {}
  // On the calling thread, chunks in order: tiles [first, first + count) of `tiles` are in `slot`.
  virtual void consume(unsigned slot, std::uint64_t first, std::uint64_t count) = 0;
};

void load_index_tiles(const IndexFile& index, const std::vector<std::uint64_t>& tiles, std::uint64_t chunk_tiles,
                      unsigned slots, unsigned threads, IndexLoadSink& sink);

}  // namespace terrazo
