// tests/test_graph_msf.cpp: graph_msf_cpu (kernels/graph_msf.h) on hand-made graphs.
#include <gtest/gtest.h>

#include <vector>

#include "core/error.h"
#include "kernels/graph_msf.h"

namespace terrazo {
namespace {

TEST(GraphMsfCpu, HandMadeGraph) {
  // 0 -1- 1 -5- 2 -2- 3, plus 0 -9- 2 (cycle edge), 3 -3- 4 (dead end), boundary {0, 3}.
  std::vector<GraphEdge> edges = {{0, 1, 1, 0, 10}, {1, 2, 5, 0, 11}, {2, 3, 2, 0, 12}, {0, 2, 9, 0, 13},
                                  {3, 4, 3, 0, 14}};
  std::vector<std::uint8_t> boundary = {1, 0, 0, 1, 0};
  GraphSpan span{0, 0, 5, 5};
  std::vector<std::uint8_t> in_forest(5, 7);
  std::vector<GraphSummaryEdge> summary(5);
  std::uint32_t count = 99;
  graph_msf_cpu(edges.data(), boundary.data(), &span, 1, in_forest.data(), summary.data(), &count);
  EXPECT_EQ(in_forest, (std::vector<std::uint8_t>{1, 1, 1, 0, 1}));
  ASSERT_EQ(count, 1u);
  EXPECT_EQ(summary[0].a, 0u);
  EXPECT_EQ(summary[0].b, 3u);
  EXPECT_EQ(summary[0].rep, 1u);
}

TEST(GraphMsfCpu, RejectsLoops) {
  std::vector<GraphEdge> edges = {{1, 1, 1, 0, 0}};
  std::vector<std::uint8_t> boundary = {0, 0};
  GraphSpan span{0, 0, 1, 2};
  std::vector<std::uint8_t> in_forest(1);
  std::vector<GraphSummaryEdge> summary(1);
  std::uint32_t count = 0;
  EXPECT_THROW(graph_msf_cpu(edges.data(), boundary.data(), &span, 1, in_forest.data(), summary.data(), &count),
               Error);
}

}  // namespace
}  // namespace terrazo
