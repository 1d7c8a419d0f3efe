// tests/test_graph_msf.cpp: graph_msf_cpu (kernels/mst/graph_msf.h) against the plain oracle of
// tests/support/graph_msf_reference.h (Prim, the cycle property, naive leaf removal and path
// growing), on hand-made graphs and hundreds of random ones: sizes 0..~2000 edges, equal weights
// (ids decide), parallel edges, isolated vertices, disconnected graphs, all/no/random boundary
// vertices, stars, paths, combs, grids, deep dead ends; batches with gaps and shuffled spans.
// Plus the input errors it must reject.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/mst/graph_msf.h"
#include "tests/support/graph_msf_reference.h"

namespace terrazo {
namespace {

using testing::GraphBatch;
using testing::GraphCase;
using testing::GraphOutput;

constexpr std::uint8_t kPoison = 0xA5;

GraphSummaryEdge poison_summary() { return GraphSummaryEdge{0xDEADBEEFu, 0xDEADBEEFu, 0xDEADBEEFu}; }

// Solves one case alone (span at offset 0).
GraphOutput solve_alone(const GraphCase& c) {
  GraphSpan span{0, 0, static_cast<std::uint32_t>(c.edges.size()), c.vertices()};
  GraphOutput out;
  out.in_forest.assign(c.edges.size(), kPoison);
  out.summary.assign(c.edges.size(), poison_summary());
  std::uint32_t count = 0xFFFFFFFFu;
  graph_msf_cpu(c.edges.data(), c.boundary.data(), &span, 1, out.in_forest.data(), out.summary.data(), &count);
  EXPECT_LE(count, c.edges.size());
  out.summary.resize(std::min<std::size_t>(count, c.edges.size()));
  return out;
}

void expect_equal(const GraphOutput& expected, const GraphOutput& actual, const std::string& what) {
  ASSERT_EQ(expected.in_forest.size(), actual.in_forest.size()) << what;
  for (std::size_t i = 0; i < expected.in_forest.size(); ++i) {
    ASSERT_EQ(expected.in_forest[i], actual.in_forest[i]) << what << ": in_forest of edge " << i;
  }
  ASSERT_EQ(expected.summary.size(), actual.summary.size()) << what << ": summary edge count";
  for (std::size_t k = 0; k < expected.summary.size(); ++k) {
    const GraphSummaryEdge& p = expected.summary[k];
    const GraphSummaryEdge& q = actual.summary[k];
    ASSERT_TRUE(testing::same_summary(p, q)) << what << ": summary edge " << k << " expected {" << p.a << ", " << p.b
                                             << ", rep " << p.rep << "}, got {" << q.a << ", " << q.b << ", rep "
                                             << q.rep << "}";
  }
}

// Properties every output has, whatever the oracle says: a < b, reps ascending and forest edges,
// summary ends are boundary vertices or have summary degree >= 3.
void expect_well_formed(const GraphCase& c, const GraphOutput& out, const std::string& what) {
  std::vector<std::uint32_t> degree(c.vertices(), 0);
  for (std::size_t k = 0; k < out.summary.size(); ++k) {
    const GraphSummaryEdge& s = out.summary[k];
    ASSERT_LT(s.a, s.b) << what;
    ASSERT_LT(s.b, c.vertices()) << what;
    ASSERT_LT(s.rep, c.edges.size()) << what;
    ASSERT_EQ(out.in_forest[s.rep], 1) << what << ": rep " << s.rep << " is not a forest edge";
    if (k > 0) {
      ASSERT_LT(out.summary[k - 1].rep, s.rep) << what << ": reps not ascending";
    }
    ++degree[s.a];
    ++degree[s.b];
  }
  for (std::uint32_t v = 0; v < c.vertices(); ++v) {
    if (degree[v] > 0 && !c.boundary[v]) {
      ASSERT_GE(degree[v], 3u) << what << ": vertex " << v;
    }
  }
}

// ---- hand-made -------------------------------------------------------------------------------

GraphEdge edge(std::uint32_t a, std::uint32_t b, Weight w, std::uint64_t id) { return GraphEdge{a, b, w, 0, id}; }

TEST(GraphMsfCpu, HandMadeGraph) {
  // 0 -1- 1 -5- 2 -2- 3, plus 0 -9- 2 (cycle edge), 3 -3- 4 (dead end), boundary {0, 3}.
  GraphCase c;
  c.edges = {edge(0, 1, 1, 10), edge(1, 2, 5, 11), edge(2, 3, 2, 12), edge(0, 2, 9, 13), edge(3, 4, 3, 14)};
  c.boundary = {1, 0, 0, 1, 0};
  const GraphOutput out = solve_alone(c);
  EXPECT_EQ(out.in_forest, (std::vector<std::uint8_t>{1, 1, 1, 0, 1}));
  ASSERT_EQ(out.summary.size(), 1u);
  EXPECT_TRUE(testing::same_summary(out.summary[0], GraphSummaryEdge{0, 3, 1}));
}

TEST(GraphMsfCpu, TiesAreDecidedById) {
  // A triangle of equal weights: the edge of the largest id is left out.
  GraphCase c;
  c.edges = {edge(0, 1, 4, 30), edge(1, 2, 4, 10), edge(2, 0, 4, 20)};
  c.boundary = {1, 1, 1};
  const GraphOutput out = solve_alone(c);
  EXPECT_EQ(out.in_forest, (std::vector<std::uint8_t>{0, 1, 1}));
  // Every vertex is a boundary vertex: each forest edge is its own path.
  ASSERT_EQ(out.summary.size(), 2u);
  EXPECT_TRUE(testing::same_summary(out.summary[0], GraphSummaryEdge{1, 2, 1}));
  EXPECT_TRUE(testing::same_summary(out.summary[1], GraphSummaryEdge{0, 2, 2}));
}

TEST(GraphMsfCpu, ParallelEdgesAndBranchVertex) {
  // Star center 0 (not boundary) with three boundary leaves 1, 2, 3 over doubled edges; 4 isolated.
  GraphCase c;
  c.edges = {edge(0, 1, 5, 0), edge(1, 0, 5, 1), edge(0, 2, 2, 2), edge(2, 0, 1, 3), edge(3, 0, 9, 4),
             edge(0, 3, 9, 5)};
  c.boundary = {0, 1, 1, 1, 0};
  const GraphOutput out = solve_alone(c);
  EXPECT_EQ(out.in_forest, (std::vector<std::uint8_t>{1, 0, 0, 1, 1, 0}));
  ASSERT_EQ(out.summary.size(), 3u);  // the center has degree 3: kept
  EXPECT_TRUE(testing::same_summary(out.summary[0], GraphSummaryEdge{0, 1, 0}));
  EXPECT_TRUE(testing::same_summary(out.summary[1], GraphSummaryEdge{0, 2, 3}));
  EXPECT_TRUE(testing::same_summary(out.summary[2], GraphSummaryEdge{0, 3, 4}));
}

TEST(GraphMsfCpu, NoBoundaryMeansNoSummary) {
  GraphCase c;
  c.edges = {edge(0, 1, 3, 0), edge(1, 2, 3, 1), edge(2, 3, 3, 2), edge(1, 4, 0, 3)};
  c.boundary = {0, 0, 0, 0, 0};
  const GraphOutput out = solve_alone(c);
  EXPECT_EQ(out.in_forest, (std::vector<std::uint8_t>{1, 1, 1, 1}));
  EXPECT_TRUE(out.summary.empty());
}

TEST(GraphMsfCpu, OneBoundaryVertexPeelsEverything) {
  GraphCase c;
  c.edges = {edge(0, 1, 3, 0), edge(1, 2, 3, 1), edge(1, 3, 3, 2)};
  c.boundary = {0, 1, 0, 0};
  EXPECT_TRUE(solve_alone(c).summary.empty());
}

TEST(GraphMsfCpu, EmptyGraphsAndIsolatedVertices) {
  GraphCase empty;
  EXPECT_TRUE(solve_alone(empty).summary.empty());
  GraphCase isolated;
  isolated.boundary = {1, 0, 1};
  EXPECT_TRUE(solve_alone(isolated).summary.empty());
  graph_msf_cpu(nullptr, nullptr, nullptr, 0, nullptr, nullptr, nullptr);  // no graphs: nothing to touch
}

TEST(GraphMsfCpu, ExtremeKeys) {
  // Weights 0 and UINT32_MAX, ids 0 and UINT64_MAX: compared as unsigned, weight first.
  GraphCase c;
  c.edges = {edge(0, 1, 0xFFFFFFFFu, 0), edge(0, 1, 0xFFFFFFFFu, ~0ull), edge(1, 2, 0, ~0ull), edge(2, 0, 0xFFFFFFFEu, 5)};
  c.boundary = {1, 0, 1};
  const GraphOutput out = solve_alone(c);
  EXPECT_EQ(out.in_forest, (std::vector<std::uint8_t>{0, 0, 1, 1}));
  ASSERT_EQ(out.summary.size(), 1u);
  EXPECT_TRUE(testing::same_summary(out.summary[0], GraphSummaryEdge{0, 2, 3}));  // 1 hangs off 2: a dead end
}

// ---- random ----------------------------------------------------------------------------------

TEST(GraphMsfCpu, MatchesOracleOnRandomGraphs) {
  std::uint64_t graphs = 0, summary_edges = 0;
  for (std::uint64_t seed = 1; seed <= 900; ++seed) {
    std::mt19937_64 rng(seed);
    const auto shape = static_cast<testing::Shape>(seed % testing::kShapes);
    const std::uint32_t size = rng() % 4 == 0 ? static_cast<std::uint32_t>(rng() % 12)
                                              : static_cast<std::uint32_t>(rng() % 2001);
    const GraphCase c = testing::random_graph(rng, shape, size);
    const std::string what = "seed " + std::to_string(seed) + ": " + c.description;
    const GraphOutput expected = testing::reference_output(c);
    const GraphOutput actual = solve_alone(c);
    expect_equal(expected, actual, what);
    expect_well_formed(c, actual, what);
    if (c.edges.size() <= 300) {
      const std::vector<std::uint8_t> by_cycles = testing::cycle_property_forest(c);
      ASSERT_EQ(by_cycles, expected.in_forest) << what << ": Prim and the cycle property disagree";
    }
    if (HasFatalFailure()) return;
    ++graphs;
    summary_edges += actual.summary.size();
  }
  EXPECT_EQ(graphs, 900u);
  EXPECT_GT(summary_edges, 10000u);  // the reductions are not trivially empty
}

TEST(GraphMsfCpu, BatchesWithGapsAndShuffledSpans) {
  for (std::uint64_t seed = 2000; seed < 2060; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<GraphCase> cases;
    const std::size_t count = 1 + rng() % 60;
    for (std::size_t k = 0; k < count; ++k) {
      const auto shape = static_cast<testing::Shape>(rng() % testing::kShapes);
      cases.push_back(testing::random_graph(rng, shape, static_cast<std::uint32_t>(rng() % (k % 5 == 0 ? 600 : 40))));
    }
    const GraphBatch batch = testing::make_batch(cases, rng, true);
    std::vector<std::uint8_t> in_forest(batch.edges.size(), kPoison);
    std::vector<GraphSummaryEdge> summary(batch.edges.size(), poison_summary());
    std::vector<std::uint32_t> counts(batch.spans.size(), 0xFFFFFFFFu);
    graph_msf_cpu(batch.edges.data(), batch.boundary.data(), batch.spans.data(), batch.spans.size(), in_forest.data(),
                  summary.data(), counts.data());
    std::vector<std::uint8_t> owned(batch.edges.size(), 0);
    for (std::size_t g = 0; g < batch.spans.size(); ++g) {
      const GraphSpan& span = batch.spans[g];
      const GraphCase& c = cases[batch.case_of[g]];
      const std::string what = "seed " + std::to_string(seed) + ", span " + std::to_string(g) + ": " + c.description;
      ASSERT_LE(counts[g], span.edges) << what;
      expect_equal(testing::reference_output(c),
                   testing::batch_output(span, in_forest.data(), summary.data(), counts[g]), what);
      for (std::uint64_t i = span.first_edge; i < span.first_edge + span.edges; ++i) owned[i] = 1;
    }
    for (std::size_t i = 0; i < batch.edges.size(); ++i) {
      if (owned[i]) continue;
      ASSERT_EQ(in_forest[i], kPoison) << "seed " << seed << ": byte " << i << " outside every span was written";
      ASSERT_EQ(summary[i].a, 0xDEADBEEFu) << "seed " << seed << ": summary slot " << i << " outside every span";
    }
  }
}

TEST(GraphMsfCpu, LongPathsAndDeepDeadEnds) {
  std::mt19937_64 rng(77);
  for (const testing::Shape shape : {testing::Shape::Path, testing::Shape::DeadEnds, testing::Shape::Comb,
                                     testing::Shape::Caterpillar, testing::Shape::Grid}) {
    const GraphCase c = testing::random_graph(rng, shape, 60000);
    expect_equal(testing::reference_output(c), solve_alone(c), c.description);
  }
  // A path with boundary ends only: one summary edge whose rep is the heaviest edge.
  GraphCase path;
  const std::uint32_t n = 100000;
  for (std::uint32_t v = 1; v < n; ++v) path.edges.push_back(edge(v - 1, v, v == 4321 ? 1000 : 5, v));
  path.boundary.assign(n, 0);
  path.boundary[0] = path.boundary[n - 1] = 1;
  const GraphOutput out = solve_alone(path);
  ASSERT_EQ(out.summary.size(), 1u);
  EXPECT_TRUE(testing::same_summary(out.summary[0], GraphSummaryEdge{0, n - 1, 4320}));
}

// ---- errors ----------------------------------------------------------------------------------

void expect_error(const std::vector<GraphEdge>& edges, std::uint32_t vertices, const std::string& fragment) {
  const std::vector<std::uint8_t> boundary(vertices, 0);
  GraphSpan span{0, 0, static_cast<std::uint32_t>(edges.size()), vertices};
  std::vector<std::uint8_t> in_forest(edges.size());
  std::vector<GraphSummaryEdge> summary(edges.size());
  std::uint32_t count = 0;
  try {
    graph_msf_cpu(edges.data(), boundary.data(), &span, 1, in_forest.data(), summary.data(), &count);
    ADD_FAILURE() << "no error for: " << fragment;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(GraphMsfCpu, RejectsBadInputs) {
  expect_error({edge(1, 1, 1, 0)}, 2, "a loop at vertex 1");
  expect_error({edge(0, 2, 1, 0)}, 2, "end 2 is not below the graph's 2 vertices");
  expect_error({edge(5, 0, 1, 0)}, 2, "end 5 is not below");
  expect_error({edge(0, 1, 1, 0)}, 0, "not below the graph's 0 vertices");
  expect_error({edge(0, 1, 3, 9), edge(1, 2, 4, 1), edge(2, 0, 3, 9)}, 3, "have the same key (weight 3, id 9)");
  // Equal ids with different weights are fine.
  const GraphCase fine{{edge(0, 1, 3, 9), edge(1, 2, 4, 9)}, {1, 0, 1}, ""};
  EXPECT_EQ(solve_alone(fine).summary.size(), 1u);
}

TEST(GraphMsfCpu, RejectsBadSpans) {
  const std::vector<GraphEdge> edges = {edge(0, 1, 1, 0)};
  const std::vector<std::uint8_t> boundary = {0, 0};
  std::vector<std::uint8_t> in_forest(1);
  std::vector<GraphSummaryEdge> summary(1);
  std::vector<std::uint32_t> counts(2);
  GraphSpan overflow{~0ull, 0, 1, 2};
  EXPECT_THROW(graph_msf_cpu(edges.data(), boundary.data(), &overflow, 1, in_forest.data(), summary.data(),
                             counts.data()),
               Error);
  GraphSpan vertex_overflow{0, ~0ull - 1, 1, 2};
  EXPECT_THROW(graph_msf_cpu(edges.data(), boundary.data(), &vertex_overflow, 1, in_forest.data(), summary.data(),
                             counts.data()),
               Error);
  GraphSpan ok{0, 0, 1, 2};
  EXPECT_THROW(graph_msf_cpu(edges.data(), boundary.data(), nullptr, 1, in_forest.data(), summary.data(), counts.data()),
               Error);
  EXPECT_THROW(graph_msf_cpu(nullptr, boundary.data(), &ok, 1, in_forest.data(), summary.data(), counts.data()), Error);
  EXPECT_THROW(graph_msf_cpu(edges.data(), boundary.data(), &ok, 1, nullptr, summary.data(), counts.data()), Error);
}

}  // namespace
}  // namespace terrazo
