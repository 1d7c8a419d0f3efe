// engine/flow/strahler.h: Strahler stream order ([Strahler1957]) as the stream phases compute it
// (engine/flow/stream_phases.h): what enters a cell, and what a chain of cells does to an order.
//
// Contract. A stream cell's order is 1 when no stream cell flows into it; else, with k the highest
// order among the stream cells flowing into it, k + 1 when two or more of them have order k, else k.
// StrahlerInflow keeps what decides that: the highest order entering and how many (1, or 2 for "two
// or more"); adding orders is commutative and associative, so the order of additions is free.
// StrahlerChain is the order leaving a chain of stream cells as a function of the order entering its
// top, when each cell of the chain has one stream inflow of unknown order (the chain's) beside inflows
// of known orders: such a function is identity above some q, q + 1 on [p, q] and a constant P below p
// (one cell with known inflows of top m, count c: p = q = m when c = 1, P = m; with c >= 2: p = 1,
// q = m, P = m + 1), and compositions stay of that form (every composition of such cells with known
// orders up to 6 enumerated; random chains checked against the cell-by-cell orders in
// tests/test_watershed.cpp; then() refits after each cell and throws Error when a refit fails).
// Orders fit in a byte: order k needs at least 2^(k-1) cells.
#pragma once
#include <algorithm>
#include <cstdint>

#include "kernels/common/error.h"

namespace terrazo {

struct StrahlerInflow {
  std::uint8_t top = 0;    // the highest order entering; 0: none
  std::uint8_t count = 0;  // how many enter at `top`: 1, or 2 for two or more

  void add(std::uint8_t order) {
    if (order > top) top = order, count = 1;
    else if (order == top) count = 2;
  }
  std::uint8_t order() const { return top == 0 ? 1 : count >= 2 ? top + 1 : top; }
};

// o < p: P; p <= o <= q: q + 1; o > q: o. The identity: p = 1, q = 0.
struct StrahlerChain {
  std::uint8_t p = 1, q = 0, P = 0;

  std::uint8_t apply(std::uint8_t o) const { return o < p ? P : o <= q ? static_cast<std::uint8_t>(q + 1) : o; }

  // The chain extended by one cell downstream whose other inflows are `known`.
  StrahlerChain then(StrahlerInflow known) const {
    if (known.top == 0) return *this;
    const int n = std::max<int>(q, known.top) + 1;  // above n the result is o itself
    std::uint8_t table[260];
    int last = 0;  // the largest o whose result is not o
    for (int o = 1; o <= n; ++o) {
      StrahlerInflow in = known;
      in.add(apply(static_cast<std::uint8_t>(o)));
      table[o] = in.order();
      if (table[o] != o) last = o;
    }
    StrahlerChain c;
    if (last == 0) return c;
    c.q = static_cast<std::uint8_t>(last);
    c.p = static_cast<std::uint8_t>(last + 1);
    while (c.p > 1 && table[c.p - 1] == last + 1) --c.p;
    c.P = c.p > 1 ? table[1] : 0;
    for (int o = 1; o < c.p; ++o)
      if (table[o] != c.P) throw Error("internal: a Strahler chain left the form o < p: P, p..q: q + 1, else o");
    return c;
  }
};

}  // namespace terrazo
