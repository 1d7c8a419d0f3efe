// kernels/common/radix_heap.h: a monotone priority queue on unsigned integer keys (radix heap).
//
// Source: Ahuja, Mehlhorn, Orlin, Tarjan 1990, "Faster algorithms for the shortest path problem"
// (the two-level radix heap's one-level form), as used for integer-weight Dijkstra.
// Contract: keys pushed are never smaller than the last key popped (Dijkstra's monotonicity);
//   pop() returns an entry of minimum key; entries of equal key come out in unspecified order.
// Plain formula: bucket b(k) = 0 if k == last, else the index (1-based) of the highest bit in which
//   k and last differ. pop() takes bucket 0; when it is empty, the first non-empty bucket is
//   scanned for its minimum, which becomes `last`, and its entries are redistributed into lower
//   buckets (each entry moves down at most `bits` times over its life: O(bits) amortized per push).
// Key is std::uint64_t or unsigned __int128; the payload is a 32-bit cell index (tiles have < 2^32 cells).
// Memory: 12 or 20 bytes per queued entry plus the buckets' spare capacity, kept across clear()
// so a solver workspace reuses it from tile to tile.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace terrazo {

template <class Key>
class RadixHeap {
 public:
  static constexpr int kBits = static_cast<int>(sizeof(Key) * 8);
  struct Entry {
    Key key;
    std::uint32_t value;
  };

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  Key last() const { return last_; }

  void clear() {
    for (auto& bucket : buckets_) bucket.clear();
    size_ = 0;
    last_ = 0;
  }

  // Frees the buckets' storage when, left over from earlier solves, it holds more than `max_entries`
  // entries (call on an empty heap; kernels/sssp/bucket_queue.h says why).
  void release_capacity_over(std::size_t max_entries) {
    std::size_t held = 0;
    for (const auto& bucket : buckets_) held += bucket.capacity();
    if (held <= max_entries) return;
    for (auto& bucket : buckets_) std::vector<Entry>().swap(bucket);
  }

  // Precondition: key >= last().
  void push(Key key, std::uint32_t value) {
    buckets_[bucket_of(key)].push_back(Entry{key, value});
    ++size_;
  }

  // Precondition: !empty().
  Entry pop() {
    if (buckets_[0].empty()) refill();
    Entry entry = buckets_[0].back();
    buckets_[0].pop_back();
    --size_;
    return entry;
  }

 private:
  static int highest_bit(std::uint64_t x) { return 63 - __builtin_clzll(x); }
  static int highest_bit_of(Key x) {
    if constexpr (sizeof(Key) == 8) {
      return highest_bit(static_cast<std::uint64_t>(x));
    } else {
      const auto high = static_cast<std::uint64_t>(x >> 64);
      return high ? 64 + highest_bit(high) : highest_bit(static_cast<std::uint64_t>(x));
    }
  }
  int bucket_of(Key key) const {
    const Key diff = key ^ last_;
    return diff == 0 ? 0 : highest_bit_of(diff) + 1;
  }
  void refill() {
    int b = 1;
    while (buckets_[b].empty()) ++b;
    std::vector<Entry>& source = buckets_[b];
    Key minimum = source.front().key;
    for (const Entry& e : source) minimum = e.key < minimum ? e.key : minimum;
    last_ = minimum;
    // Every entry of bucket b shares the bits above b-1 with the new last, so each lands lower.
    for (const Entry& e : source) buckets_[bucket_of(e.key)].push_back(e);
    source.clear();
  }

  std::vector<Entry> buckets_[kBits + 1];
  Key last_ = 0;
  std::size_t size_ = 0;
};

}  // namespace terrazo
