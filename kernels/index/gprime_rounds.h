// kernels/index/gprime_rounds.h: the G' exchange as Bellman-Ford rounds over tiles, with the labels of
// a batch of kb sources on every tile's ring resident (in GPU memory for the CUDA twin), the round
// structure of docs/index.md "The exchange in rounds".
//
// Source: [Malison2012, sec. 4.1] (min-plus products, Bellman-Ford on the GPU); [Gerritsen2012, ch. 4] (G').
// Layout: tiles are numbered densely (the index's present tiles, d = 0..tiles-1); per tile and
// array kb x B labels, source-major (entry (d * kb + v) * B + p). Three arrays: label (the best
// label so far), pending (the labels improved since the tile's last solve, kUnreached elsewhere) and
// out (a solved tile's labels that changed in its round, kUnreached elsewhere; read by the push).
// A pending entry is always equal to its label. key[d] = the least pending label of tile d
// (kUnreached: none). Contract of a round (CPU twin per tile, CUDA kernels for all tiles of a round):
//   select: T = min over tiles of key + window (kUnreached when window is 0 or the sum overflows);
//     the active tiles are those with key <= T (and key finite); the rounds end when none is.
//   solve, for every active tile d (matrix m, B x B row-major); a pending entry is due when <= T:
//     for v < kb, j < B: acc = min(label[v][j], min over i with pending[v][i] due of
//       pending[v][i] + m[i][j]); new = acc > max_cost ? kUnreached : acc;
//       out[v][j] = (new < label[v][j] or pending[v][j] due) ? new : kUnreached; label[v][j] = new;
//     then pending[v][j] = kUnreached where it was due or new < it (dominated: the matrix is closed
//     under paths), and key[d] = the least pending entry left.
//   push, for every tile d (after every solve of the round; reads only out of the active tiles, so
//     only tiles next to an active one can change; the CUDA twin pushes into those alone):
//     for q < B, v < kb: c = min over in-edges (n, p, w) of (d, q) with n active and out[n][v][p]
//       finite of out[n][v][p] + w; when c <= max_cost and c < label[v][q]: label[v][q] =
//       pending[v][q] = c, key[d] = min(key[d], c).
// The window (delta-stepping over tiles) only orders the work: window 0 solves every tile with a
// pending label each round (plain Bellman-Ford). Each label only decreases and stays the length of a G'
// path, and every improvement is pushed, so the fixed point is the unique shortest-distance labels:
// the same as the label-correcting exchange (engine/index/gprime_exchange.h) whatever the order.
// In-edges: the grid edges entering ring cell q of tile d from a ring cell p of a neighbouring tile n
// (diagonal neighbours included), at most kGPrimeInEdges per ring cell; their weights are those of
// the label-correcting exchange (step_weight from the source cell).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/index/boundary_ring.h"

namespace terrazo {

constexpr unsigned kGPrimeInEdges = 5;  // a corner cell with 8-connectivity: 5 cells of other tiles

struct GPrimeInEdge {
  Weight w = kNoEdge;     // kNoEdge: no edge in this slot
  std::uint16_t p = 0;    // ring position in the source tile
  std::uint8_t from = 0;  // source tile: neighbour (dy + 1) * 3 + (dx + 1) of the 3 x 3 around d
  std::uint8_t pad = 0;
};

// The threshold T of a round from the least key and the window (0: none).
TERRAZO_HD PathLength gprime_round_threshold(PathLength least_key, PathLength window) {
  return window == 0 || least_key > kUnreached - window ? kUnreached : least_key + window;
}

// The solve of one active tile (CPU twin): label, pending, out point at the tile's kb x b blocks.
// Returns the tile's new key.
PathLength gprime_round_solve_cpu(const PathLength* m, std::uint32_t b, std::uint32_t kb, PathLength max_cost,
                                  PathLength threshold, PathLength* label, PathLength* pending, PathLength* out);

// The push into tile d (CPU twin): edges its b x kGPrimeInEdges in-edges, neighbours its 9 dense
// neighbour ids (-1: none or absent), active the round's flags (all tiles), out/label/pending the
// whole arrays. Returns the least label it improved (kUnreached: none).
PathLength gprime_round_push_cpu(std::uint64_t d, std::uint32_t b, std::uint32_t kb, PathLength max_cost,
                           const GPrimeInEdge* edges, const std::int64_t* neighbours, const std::uint8_t* active,
                           const PathLength* out, PathLength* label, PathLength* pending);

// The CUDA twin: every array resident on the GPU (the matrices of all tiles too), the rounds run there
// to the fixed point; the host sees the count of active tiles per round. Without CUDA (or a GPU) the
// constructor throws Error.
class GPrimeRoundsCuda {
 public:
  // Device bytes for `tiles` tiles of ring size b and batches of up to kb sources.
  static std::uint64_t device_bytes(std::uint32_t b, std::uint64_t tiles, std::uint64_t kb) {
    const std::uint64_t bb = b;
    // (the last term: per source its least pending label and a changed flag)
    return tiles * (bb * bb * 8 + 3 * kb * bb * 8 + bb * kGPrimeInEdges * sizeof(GPrimeInEdge) + 9 * 8 + 2 + 8 + kb * 9) + 64;
  }
  GPrimeRoundsCuda(std::uint32_t b, std::uint64_t tiles, std::uint64_t kb_max);
  ~GPrimeRoundsCuda();
  GPrimeRoundsCuda(const GPrimeRoundsCuda&) = delete;
  GPrimeRoundsCuda& operator=(const GPrimeRoundsCuda&) = delete;
  void upload_matrix(std::uint64_t d, const PathLength* matrix);
  // Device memory of the matrices of tiles first, first + 1, ... (B x B each, row-major): where an
  // index built on the GPU writes them (tile_boundary_matrix_cuda_to_device). download_matrix: one back.
  PathLength* device_matrices(std::uint64_t first);
  void download_matrix(std::uint64_t d, PathLength* matrix) const;
  // The staged upload of the matrices (engine/index/index_loader.h): `slots` page-locked host buffers
  // of `chunk` matrices (B x B) each. A host thread fills staging(slot) after wait_staging(slot) (the
  // slot's last copy is done; any thread may wait); upload_staged copies them asynchronously into
  // tiles [first, first + count) on the GPU; finish_staging waits for every copy and frees the
  // buffers. Host memory: staging_bytes(b, slots, chunk).
  static std::uint64_t staging_bytes(std::uint32_t b, unsigned slots, std::uint64_t chunk) {
    return static_cast<std::uint64_t>(slots) * chunk * b * b * 8;
  }
  void begin_staging(unsigned slots, std::uint64_t chunk);
  PathLength* staging(unsigned slot);
  void wait_staging(unsigned slot) const;
  void upload_staged(unsigned slot, std::uint64_t first, std::uint64_t count);
  void finish_staging();
  // edges: tiles x b x kGPrimeInEdges; neighbours: tiles x 9 (copied to the GPU).
  void upload_edges(const GPrimeInEdge* edges, const std::int64_t* neighbours);
  // A new batch of kb (<= kb_max) sources: every label and pending kUnreached, no tile active.
  void reset(std::uint64_t kb);
  // Tile d's labels and pending labels = `labels` (kb x b), its key their least.
  void seed(std::uint64_t d, const PathLength* labels);
  // The rounds to the fixed point. Returns the tile solves; active_per_round gets each round's count.
  std::uint64_t run(PathLength max_cost, PathLength window, std::vector<std::uint64_t>* active_per_round);
  void download(std::uint64_t d, PathLength* labels) const;  // kb x b
  double kernel_ms() const { return kernel_ms_; }
  // kernel_ms by stage (CUDA events around each launch of every round): choosing the round's tiles
  // (least key, threshold, active list, push list), the solves, the pushes.
  double select_ms() const { return select_ms_; }
  double solve_ms() const { return solve_ms_; }
  double push_ms() const { return push_ms_; }
  // Due sources (tile, source with a due label) of all rounds' solves: the min-plus passes they took.
  std::uint64_t due_sources() const { return due_sources_; }

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::uint32_t b_ = 0;
  std::uint64_t tiles_ = 0, kb_max_ = 0, kb_ = 0;
  double kernel_ms_ = 0, select_ms_ = 0, solve_ms_ = 0, push_ms_ = 0;
  std::uint64_t due_sources_ = 0;
};

}  // namespace terrazo
