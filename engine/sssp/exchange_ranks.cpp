// engine/sssp/exchange_ranks.cpp: the rounds of a distributed exchange (engine/sssp/exchange.h,
// docs/distributed.md "sssp"): each rank solves its own tiles; border pushes to other ranks'
// tiles travel in the border mail (engine/sssp/border_mail.h), one message per neighbour rank a
// round; the round's bound and the end are agreed by one all-reduce.
//
// A round, on every rank alike:
//   1. the mail: the pushes posted since the last round go out, the neighbours' come in and are
//      applied as a local push is (min on the labels; the tile queued where a cell may improve it);
//   2. agree: all-reduce (min) of the ranks' smallest queued keys. No rank has a tile queued: every
//      push is applied (step 1 received every message), so every edge is satisfied (exchange.h
//      step 4) and the run ends on every rank in the same round. Else the round's bound is that
//      minimum + delta (near-far at tile granularity, [Davidson2014]); an all-reduce (sum) of the
//      tiles each rank has under it (at most `batch` each) adapts delta for the next round so that
//      a round holds about the ranks x batch tiles one process of as many threads would pop; a
//      rank whose queue starts above the bound waits for the round.
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
#include "kernels/common/timer.h"

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
  // The band above the round's smallest key (near-far): doubled while a round holds fewer tiles than
  // ranks x batch (what one process of as many threads would pop), halved when every rank's batch
  // is full. Every rank computes it from the same reduced numbers: the same band everywhere.
  PathLength delta = 0;
  const std::uint64_t target = static_cast<std::uint64_t>(comm.size()) * options_.batch;
  for (std::uint64_t round = 0;; ++round) {
    Stopwatch clock;
    mail_->round(apply);
    stats_.trade_seconds += clock.seconds();
    clock.restart();
    std::uint64_t least = queue_.empty() ? kUnreached : queue_.begin()->first;
    comm.all_reduce(&least, 1, ReduceOp::Min);
    stats_.agree_seconds += clock.seconds();
    if (least == kUnreached) break;
    if (round == 1) fault_point(comm, "sssp: exchange");
    const PathLength bound = least + delta < least ? kUnreached - 1 : least + delta;
    std::uint64_t within = 0;
    for (auto it = queue_.begin(); it != queue_.end() && within < options_.batch && it->first <= bound; ++it) ++within;
    clock.restart();
    comm.all_reduce(&within, 1, ReduceOp::Sum);
    stats_.agree_seconds += clock.seconds();
    solve_round(bound);
    if (within < target) delta = delta == 0 ? 1 : delta > kUnreached / 4 ? delta : 2 * delta;
    else delta /= 2;
    progress.update(phase, stats_.solves, 0, stats_.solves * cells);
  }
  stats_.resolves = stats_.solves - stats_.tiles_solved;
  stats_.bytes_sent = mail_->bytes_sent();
  stats_.bytes_received = mail_->bytes_received();
  stats_.pushes_sent = mail_->pushes_sent();
  progress.update(phase, stats_.solves, stats_.solves, stats_.solves * cells);
}

}  // namespace terrazo
