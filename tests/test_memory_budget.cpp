#include <gtest/gtest.h>

#include "core/error.h"
#include "core/memory_budget.h"

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
