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
#include <cstdint>
#include <vector>

#include "engine/flow/stream_phases.h"
#include "engine/flow/stream_tiles.h"

namespace terrazo {

class StreamNetwork {
 public:
  // What one tile's slot gathered, appended (tiles in row-major order).
  void append(const StreamSlot& slot);
  std::uint64_t bytes() const {
    return pieces_.capacity() * sizeof(StreamPiece) + cells_.capacity() * sizeof(std::uint64_t);
  }
  std::uint64_t pieces() const { return pieces_.size(); }
  // Every segment to `sink` in order of id; the segments' count.
  std::uint64_t write(StreamSegmentSink& sink) const;
  static std::uint64_t bytes_per_piece() { return 16; }

 private:
  std::vector<StreamPiece> pieces_;
  std::vector<std::uint64_t> cells_;
};

}  // namespace terrazo
