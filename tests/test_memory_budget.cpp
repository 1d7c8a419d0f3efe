#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/common/huge_buffer.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/page_arena.h"

using terrazo::MemoryBudget;

TEST(MemoryBudget, ParsesSizes) {
  EXPECT_EQ(MemoryBudget::parse_size("512M"), 512ull << 20);
  EXPECT_EQ(MemoryBudget::parse_size("2G"), 2ull << 30);
  EXPECT_EQ(MemoryBudget::parse_size("2GiB"), 2ull << 30);
  EXPECT_EQ(MemoryBudget::parse_size("2gb"), 2ull << 30);
  EXPECT_EQ(MemoryBudget::parse_size("1.5G"), 3ull << 29);
  EXPECT_EQ(MemoryBudget::parse_size("300K"), 300ull << 10);
  EXPECT_EQ(MemoryBudget::parse_size("65536"), 65536ull);
  EXPECT_EQ(MemoryBudget::parse_size("512B"), 512ull);
  EXPECT_EQ(MemoryBudget::parse_size("1T"), 1ull << 40);
}

TEST(MemoryBudget, RejectsBadSizes) {
  for (const char* bad : {"", "G", "-1G", "0", "12X", "abc", "1e30G", "nan"}) {
    EXPECT_THROW(MemoryBudget::parse_size(bad), terrazo::UsageError) << bad;
  }
}

TEST(MemoryBudget, ReservesAndReleases) {
  MemoryBudget budget(100);
  {
    auto a = budget.reserve(60, "tile cache");
    EXPECT_EQ(budget.reserved(), 60u);
    EXPECT_THROW(budget.reserve(41, "strip buffer"), terrazo::Error);
    auto b = budget.reserve(40, "strip buffer");
    EXPECT_EQ(budget.available(), 0u);
    EXPECT_NE(budget.describe().find("tile cache"), std::string::npos);
    auto moved = std::move(b);
    EXPECT_EQ(budget.reserved(), 100u);
  }
  EXPECT_EQ(budget.reserved(), 0u);
  EXPECT_EQ(budget.peak_reserved(), 100u);
  auto c = budget.reserve_up_to(1000, 10, "queue");
  EXPECT_EQ(c.bytes(), 100u);
}

TEST(MemoryBudget, ReadsPeakRss) {
  EXPECT_GT(terrazo::peak_rss_bytes(), 0u);
  EXPECT_GE(terrazo::peak_rss_bytes(), terrazo::current_rss_bytes());
}

// ---- kernels/common/huge_buffer.h and kernels/common/page_arena.h: uninitialised scratch on huge pages -------------

TEST(HugeBuffer, SmallAndLargeHoldWhatIsWritten) {
  for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, (std::size_t{5} << 20) / 8 + 3}) {
    terrazo::HugeBuffer<std::uint64_t> b(count);
    ASSERT_EQ(b.size(), count);
    for (std::size_t i = 0; i < count; ++i) b[i] = i * 2654435761u;
    for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(b[i], i * 2654435761u);
    if (count * 8 >= terrazo::kHugeBufferPage)  // a mapping on a huge-page boundary
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data()) % terrazo::kHugeBufferPage, 0u);
  }
}

TEST(HugeBuffer, EnsureGrowsMovesAndReleases) {
  terrazo::HugeBuffer<double> a;
  EXPECT_TRUE(a.empty());
  a.ensure(10);
  EXPECT_EQ(a.size(), 10u);
  a.ensure(5);  // never shrinks
  EXPECT_EQ(a.size(), 10u);
  a.ensure(3u << 20);
  EXPECT_EQ(a.size(), 3u << 20);
  a[(3u << 20) - 1] = 1.5;
  terrazo::HugeBuffer<double> b = std::move(a);
  EXPECT_EQ(b.size(), 3u << 20);
  EXPECT_EQ(b[(3u << 20) - 1], 1.5);
  EXPECT_EQ(a.data(), nullptr);
  b.release();
  EXPECT_TRUE(b.empty());
}

TEST(PageArena, PiecesAreDistinctAlignedAndBounded) {
  const std::uint64_t piece = 1000 * 1024 + 5, pieces = 40;  // two chunks (the first maps 32 MiB)
  terrazo::PageArena arena(piece, pieces);
  EXPECT_EQ(arena.piece_bytes() % 64, 0u);
  EXPECT_GE(arena.piece_bytes(), piece);
  std::set<std::uintptr_t> seen;
  std::vector<void*> taken;
  for (std::uint64_t k = 0; k < pieces; ++k) {
    void* p = arena.take();
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(p) % 64, 0u);
    std::memset(p, static_cast<int>(k), arena.piece_bytes());  // every byte writable, no overlap below
    taken.push_back(p);
    seen.insert(reinterpret_cast<std::uintptr_t>(p));
  }
  EXPECT_EQ(seen.size(), pieces);
  for (std::uint64_t k = 0; k < pieces; ++k)
    ASSERT_EQ(static_cast<const unsigned char*>(taken[k])[arena.piece_bytes() - 1], static_cast<unsigned char>(k));
  EXPECT_THROW(arena.take(), terrazo::Error);  // max_pieces are mapped
  arena.give_back(taken[7]);                    // pages to the kernel, the piece back for take()
  EXPECT_EQ(arena.take(), taken[7]);
  arena.recycle(taken[3]);
  EXPECT_EQ(arena.take(), taken[3]);
  static_cast<unsigned char*>(taken[7])[0] = 1;  // still writable after give_back
}
