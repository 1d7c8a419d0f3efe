// engine/flow/stream_segments.h: the segments of a stream network from its pieces (engine/flow/
// stream_tiles.h: the parts of segments inside single tiles), gathered over every tile in tile order:
// the vector phase of the stream phases (engine/flow/stream_phases.h).
//
// Contract: a piece whose first cell is a head starts a segment; its id is 1 + the heads before it in
// raster order. Each segment is its head's piece, then the piece starting at that piece's next cell,
// and so on while that cell is no head; when it is one (a junction), that head's segment is the
// downstream one. Every piece's next cell, when it has one, starts a piece (Error otherwise).
// Memory: 16 bytes per piece (bytes_per_piece()) beside the pieces: their index sorted by first cell
// and the heads' cells.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/flow/stream_phases.h"
#include "engine/flow/stream_tiles.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

class StreamNetwork {
 public:
  // What one tile's slot gathered, appended (tiles in row-major order). Before a list grows,
  // hold(bytes) gets what the lists take while it does (the old and the new buffers): it may throw.
  template <class Hold>
  void append(const StreamSlot& slot, Hold&& hold) {
    const std::uint64_t cells = grown(cells_.capacity(), cells_.size() + slot.piece_cells.size());
    const std::uint64_t pieces = grown(pieces_.capacity(), pieces_.size() + slot.pieces.size());
    if (cells != cells_.capacity() || pieces != pieces_.capacity()) {
      hold(bytes() + (cells != cells_.capacity() ? cells * sizeof(std::uint64_t) : 0) +
           (pieces != pieces_.capacity() ? pieces * sizeof(StreamPiece) : 0));
      cells_.reserve(cells);
      pieces_.reserve(pieces);
      return_freed_memory();  // the old buffers, which glibc would keep resident in its heap
    }
    append(slot);
  }
  std::uint64_t bytes() const {
    return pieces_.capacity() * sizeof(StreamPiece) + cells_.capacity() * sizeof(std::uint64_t);
  }
  std::uint64_t pieces() const { return pieces_.size(); }
  // Every segment to `sink` in order of id; the segments' count.
  std::uint64_t write(StreamSegmentSink& sink) const;
  static std::uint64_t bytes_per_piece() { return 16; }

 private:
  static std::uint64_t grown(std::uint64_t capacity, std::uint64_t needed) {
    return needed <= capacity ? capacity : std::max(needed, 2 * capacity);
  }
  void append(const StreamSlot& slot);
  std::vector<StreamPiece> pieces_;
  std::vector<std::uint64_t> cells_;
};

}  // namespace terrazo
