// kernels/sssp/bucket_queue.h: Dijkstra's queue as buckets of width delta = the smallest edge weight
// (Dial 1969, with Dinitz's bucket width: E. A. Dinic, "Economical algorithms for finding shortest
// paths in a network", 1978).
//
// Contract: every edge weight is >= delta >= 1 and <= w_max; entries are popped bucket by bucket,
//   bucket(k) = dist(k) / delta, in any order within a bucket. That order is exact: two cells x, y
//   in one bucket have |d(x) - d(y)| < delta <= w(y, x), so neither can improve the other, and
//   Dijkstra may settle every entry of the lowest bucket (labels too: y's extension has a strictly
//   larger distance than x's label).
// Plain formula: a ring of nb = w_max / delta + 2 buckets covers every key a relaxation can push
//   (from bucket c, d + w < (c + 1) delta + w_max); seeds beyond the ring wait in a sorted list
//   and enter when the ring reaches them (or the ring jumps to them when it runs empty).
// Cost: O(1) per push and pop plus the scan over empty buckets (at most nb per pop, so callers use
//   it only when nb is small; kernels/sssp/block_sssp_cpu.cpp: nb <= 8192).
// Layout: delta is a power of two (the caller rounds the smallest weight down to one, which keeps
//   the contract: every weight >= delta) and the ring has a power-of-two size, so a key's bucket and
//   ring slot are a shift and a mask, not two 64-bit divisions per push and one per pop.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace terrazo {

template <class Key, class DistOf>
class BucketQueue {
 public:
  struct Entry {
    Key key;
    std::uint32_t value;
  };

  // Precondition: delta is a power of two >= 1; buckets >= 1 (rounded up to a power of two).
  void reset(std::uint64_t delta, std::uint64_t buckets) {
    shift_ = 0;
    while ((std::uint64_t{2} << shift_) <= delta) ++shift_;
    nb_ = 1;
    while (nb_ < buckets) nb_ <<= 1;
    mask_ = nb_ - 1;
    if (ring_.size() < nb_) ring_.resize(nb_);
    for (std::uint64_t i = 0; i < nb_; ++i) ring_[i].clear();
    far_.clear();
    far_sorted_ = true;
    in_ring_ = 0;
    current_ = 0;
  }
  // Frees the buckets' storage when, left over from earlier solves, it holds more than `max_entries`
  // entries (call on an empty queue). Each bucket keeps the largest size it ever had, and over
  // thousands of solves the sum of those maxima grows past any one solve's need: the workspace's
  // share of --memory (engine/sssp/exchange.cpp) allows about one entry per window cell.
  void release_capacity_over(std::size_t max_entries) {
    std::size_t held = far_.capacity();
    for (const auto& b : ring_) held += b.capacity();
    if (held <= max_entries) return;
    for (auto& b : ring_) std::vector<Entry>().swap(b);
    std::vector<Entry>().swap(far_);
  }
  bool empty() const { return in_ring_ == 0 && far_.empty(); }
  bool same_bucket(Key a, Key b) const { return bucket(a) == bucket(b); }

  // Precondition: bucket(key) >= the bucket of the last key popped.
  void push(Key key, std::uint32_t value) {
    const std::uint64_t b = bucket(key);
    if (b < current_ + nb_) {
      ring_[b & mask_].push_back(Entry{key, value});
      ++in_ring_;
    } else {
      far_.push_back(Entry{key, value});
      far_sorted_ = false;
    }
  }

  // Precondition: !empty().
  Entry pop() {
    for (;;) {
      if (!far_.empty()) {
        if (!far_sorted_) {  // descending, so the smallest is at the back
          std::sort(far_.begin(), far_.end(), [](const Entry& a, const Entry& b) { return b.key < a.key; });
          far_sorted_ = true;
        }
        if (in_ring_ == 0) current_ = std::max(current_, bucket(far_.back().key));
        while (!far_.empty() && bucket(far_.back().key) < current_ + nb_) {
          const Entry e = far_.back();
          far_.pop_back();
          ring_[bucket(e.key) & mask_].push_back(e);
          ++in_ring_;
        }
      }
      std::vector<Entry>& b = ring_[current_ & mask_];
      if (!b.empty()) {
        const Entry e = b.back();
        b.pop_back();
        --in_ring_;
        return e;
      }
      ++current_;
    }
  }

 private:
  std::uint64_t bucket(Key key) const { return DistOf::dist_of(key) >> shift_; }

  std::vector<std::vector<Entry>> ring_;
  std::vector<Entry> far_;
  bool far_sorted_ = true;
  int shift_ = 0;
  std::uint64_t nb_ = 1, mask_ = 0, in_ring_ = 0, current_ = 0;
};

}  // namespace terrazo
