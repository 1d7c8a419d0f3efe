// engine/sssp/exchange_ranks.cpp: the rounds of a distributed exchange (engine/sssp/exchange.h,
// docs/distributed.md "sssp"): each rank solves its own tiles; border pushes to other ranks'
// tiles travel in the border mail (engine/sssp/border_mail.h), one message per neighbour rank a
// round; the round's bound and the end are agreed by one all-reduce.
//
// A round, on every rank alike:
//   1. the mail: the pushes posted since the last round go out, the neighbours' come in and are
//      applied as a local push is (min on the labels; the tile queued where a cell may improve it);
//   2. agree: all-reduce (min) of [this rank's smallest queued key, its batch-th smallest (kUnreached
//      with fewer queued)]. No rank has a tile queued: every push is applied (step 1 received every
//      message), so every edge is satisfied (exchange.h step 4) and the run ends on every rank in the
//      same round. Else the bound is the smallest batch-th key over the ranks: the ranks solve
//      their queued tiles up to it, at most `batch` each, so the tiles solved are about the ones one
//      process of ranks x batch would pop (near-far at tile granularity); a rank whose queue starts
//      above the bound waits for the round.
//   3. this rank's tiles up to the bound solved and their changed borders pushed (to its own tiles
//      at once, to other ranks' into the mail).
// Exactness: a label is (dist, source << 32 | hops), and every update is a min of such labels along
// edges, whose labels strictly increase along a path (docs/sssp.md "Labels and tie-breaks"): the
// labels the exchange ends with are the unique lexicographic least fixed point, whatever order
// tiles were solved and pushes applied in. The rank count, the bound and message timing change the
// order only, never the fixed point, so the labels (distances, allocation, backlinks) are the
// one-process run's bit for bit.
#include <algorithm>
#include <limits>
#include <string>

#include "engine/sssp/exchange.h"
#include "kernels/common/error.h"

namespace terrazo {

void SsspExchange::run_rounds(Progress& progress) {
  const std::string phase = "sssp: exchange";
  progress.update(phase, 0, 0);
  Communicator& comm = *options_.comm;
  const std::uint64_t cells = static_cast<std::uint64_t>(t_) * t_;
  const BorderMail::Apply apply = [this](std::uint64_t tile, std::uint32_t first, const std::vector<RingCell>& pushed,
                                         const std::vector<char>& improves) {
    push_to_neighbour(tile, first, pushed, improves);
  };
  for (std::uint64_t round = 0;; ++round) {
    mail_->round(apply);
    std::uint64_t keys[2] = {queue_.empty() ? kUnreached : queue_.begin()->first, kUnreached};
    if (queue_.size() >= options_.batch) keys[1] = std::next(queue_.begin(), options_.batch - 1)->first;
    comm.all_reduce(keys, 2, ReduceOp::Min);
    if (keys[0] == kUnreached) break;
    if (round == 1) fault_point(comm, "sssp: exchange");
    solve_round(keys[1]);
    progress.update(phase, stats_.solves, 0, stats_.solves * cells);
  }
  stats_.resolves = stats_.solves - stats_.tiles_solved;
  stats_.bytes_sent = mail_->bytes_sent();
  stats_.bytes_received = mail_->bytes_received();
  stats_.pushes_sent = mail_->pushes_sent();
  progress.update(phase, stats_.solves, stats_.solves, stats_.solves * cells);
}

}  // namespace terrazo
