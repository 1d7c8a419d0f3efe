// engine/flow/stream_segments.cpp: StreamNetwork (engine/flow/stream_segments.h).
#include "engine/flow/stream_segments.h"

#include <algorithm>

#include "kernels/common/error.h"

namespace terrazo {
namespace {

constexpr std::uint64_t kEnds = ~std::uint64_t{0};

}  // namespace

void StreamNetwork::append(const StreamSlot& slot) {
  const std::uint64_t base = cells_.size();
  cells_.insert(cells_.end(), slot.piece_cells.begin(), slot.piece_cells.end());
  for (StreamPiece piece : slot.pieces) {
    piece.offset += base;
    pieces_.push_back(piece);
  }
}

std::uint64_t StreamNetwork::write(StreamSegmentSink& sink) const {
  std::vector<std::uint64_t> by_first(pieces_.size());
  for (std::uint64_t i = 0; i < by_first.size(); ++i) by_first[i] = i;
  std::sort(by_first.begin(), by_first.end(),
            [&](std::uint64_t a, std::uint64_t b) { return pieces_[a].first < pieces_[b].first; });
  // The piece starting at `cell`, by binary search; its rank among the heads by a second one.
  const auto find = [&](std::uint64_t cell) -> const StreamPiece& {
    const auto at = std::lower_bound(by_first.begin(), by_first.end(), cell,
                                     [&](std::uint64_t i, std::uint64_t c) { return pieces_[i].first < c; });
    if (at == by_first.end() || pieces_[*at].first != cell)
      throw Error("internal: a stream segment continues at a cell where no piece starts");
    return pieces_[*at];
  };
  std::vector<std::uint64_t> heads;  // the heads' cells, sorted: a segment's id is 1 + its rank
  for (const std::uint64_t i : by_first)
    if (pieces_[i].head) heads.push_back(pieces_[i].first);
  const auto id_of = [&](std::uint64_t head) {
    return static_cast<std::uint64_t>(std::lower_bound(heads.begin(), heads.end(), head) - heads.begin()) + 1;
  };
  for (std::uint64_t h = 0; h < heads.size(); ++h) {
    StreamSegment segment;
    segment.id = h + 1;
    const StreamPiece* piece = &find(heads[h]);
    segment.order = piece->order;
    for (const StreamPiece* p = piece;;) {  // the segment's length and where it goes
      segment.cells += p->count;
      if (p->next == kEnds) break;
      const StreamPiece& q = find(p->next);
      if (q.head) {
        segment.downstream = id_of(q.first);
        segment.junction = q.first;
        break;
      }
      p = &q;
    }
    sink.begin(segment);
    for (const StreamPiece* p = piece;;) {
      for (std::uint32_t k = 0; k < p->count; ++k) sink.cell(cells_[p->offset + k]);
      if (p->next == kEnds || p->next == segment.junction) break;
      p = &find(p->next);
    }
    sink.end();
  }
  return heads.size();
}

}  // namespace terrazo
