// tests/gpu/test_graph_msf_gpu.cpp: the CUDA batched MSF + reduction (kernels/mst/graph_msf.cu)
// against its CPU twin graph_msf_cpu, bit for bit, on fresh random batches: many small graphs of
// every shape of tests/support/graph_msf_reference.h (all three launch tiers), a few large graphs
// of 200 k to 2 M edges (grids, long paths walked by one thread, deep dead-end chains peeled by one
// walker, random multigraphs), and the streamed CudaGraphMsfBatchSolver with both slots in flight.
// Small graphs are also checked against the oracle. Outputs are poisoned before each run, and bytes
// outside the spans (and summary slots past each graph's count) must stay untouched by the one-shot
// graph_msf_cuda.
//
// Every GPU test skips (GTEST_SKIP with the reason) when there is no CUDA device; the last test
// then checks that the CUDA entry points refuse with a clear error. A failure prints the run's
// seed; TERRAZO_TEST_SEED=<seed> reproduces it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/error.h"
#include "tests/support/gpu_test_support.h"
#include "kernels/common/cuda_device.h"
#include "kernels/mst/graph_msf.h"
#include "tests/support/graph_msf_reference.h"

namespace terrazo {
namespace {

using testing::GraphBatch;
using testing::GraphCase;
using testing::Shape;

constexpr std::uint8_t kPoison = 0xA5;
constexpr std::uint32_t kPoisonWord = 0xDEADBEEFu;

struct Solved {
  std::vector<std::uint8_t> in_forest;
  std::vector<GraphSummaryEdge> summary;
  std::vector<std::uint32_t> counts;
};

Solved poisoned(const GraphBatch& batch) {
  Solved s;
  s.in_forest.assign(batch.edges.size(), kPoison);
  s.summary.assign(batch.edges.size(), GraphSummaryEdge{kPoisonWord, kPoisonWord, kPoisonWord});
  s.counts.assign(batch.spans.size(), kPoisonWord);
  return s;
}

Solved solve_cpu(const GraphBatch& batch) {
  Solved s = poisoned(batch);
  graph_msf_cpu(batch.edges.data(), batch.boundary.data(), batch.spans.data(), batch.spans.size(),
                s.in_forest.data(), s.summary.data(), s.counts.data());
  return s;
}

Solved solve_cuda(const GraphBatch& batch) {
  Solved s = poisoned(batch);
  graph_msf_cuda(batch.edges.data(), batch.boundary.data(), batch.spans.data(), batch.spans.size(),
                 s.in_forest.data(), s.summary.data(), s.counts.data());
  return s;
}

// Graph g of the CUDA output equals the CPU twin's, byte for byte.
void expect_graph_equal(const GraphSpan& span, const std::uint8_t* cpu_forest, const GraphSummaryEdge* cpu_summary,
                        std::uint32_t cpu_count, const std::uint8_t* gpu_forest, const GraphSummaryEdge* gpu_summary,
                        std::uint32_t gpu_count, const std::string& what) {
  ASSERT_EQ(cpu_count, gpu_count) << what << ": summary edge count";
  for (std::uint32_t i = 0; i < span.edges; ++i) {
    ASSERT_EQ(cpu_forest[span.first_edge + i], gpu_forest[i]) << what << ": in_forest of edge " << i;
  }
  for (std::uint32_t k = 0; k < cpu_count; ++k) {
    const GraphSummaryEdge& p = cpu_summary[span.first_edge + k];
    const GraphSummaryEdge& q = gpu_summary[k];
    ASSERT_TRUE(testing::same_summary(p, q)) << what << ": summary edge " << k << " cpu {" << p.a << ", " << p.b
                                             << ", rep " << p.rep << "}, gpu {" << q.a << ", " << q.b << ", rep "
                                             << q.rep << "}";
  }
}

void expect_batch_equal(const GraphBatch& batch, const std::vector<GraphCase>& cases, const Solved& cpu,
                        const Solved& gpu, const std::string& what) {
  std::vector<std::uint8_t> owned(batch.edges.size(), 0);
  for (std::size_t g = 0; g < batch.spans.size(); ++g) {
    const GraphSpan& span = batch.spans[g];
    const std::string graph = what + ", span " + std::to_string(g) + ": " + cases[batch.case_of[g]].description;
    expect_graph_equal(span, cpu.in_forest.data(), cpu.summary.data(), cpu.counts[g],
                       gpu.in_forest.data() + span.first_edge, gpu.summary.data() + span.first_edge, gpu.counts[g],
                       graph);
    if (::testing::Test::HasFatalFailure()) return;
    for (std::uint64_t i = span.first_edge + gpu.counts[g]; i < span.first_edge + span.edges; ++i) {
      ASSERT_EQ(gpu.summary[i].a, kPoisonWord) << graph << ": summary slot past the count was written";
    }
    for (std::uint64_t i = span.first_edge; i < span.first_edge + span.edges; ++i) owned[i] = 1;
  }
  for (std::size_t i = 0; i < batch.edges.size(); ++i) {
    if (owned[i]) continue;
    ASSERT_EQ(gpu.in_forest[i], kPoison) << what << ": in_forest byte " << i << " outside every span was written";
    ASSERT_EQ(gpu.summary[i].a, kPoisonWord) << what << ": summary slot " << i << " outside every span was written";
  }
}

std::vector<GraphCase> random_cases(std::mt19937_64& rng, std::size_t count, std::uint32_t max_size) {
  std::vector<GraphCase> cases;
  for (std::size_t k = 0; k < count; ++k) {
    const auto shape = static_cast<Shape>(rng() % testing::kShapes);
    const std::uint32_t limit = rng() % 4 == 0 ? 16 : max_size;
    cases.push_back(testing::random_graph(rng, shape, static_cast<std::uint32_t>(rng() % (limit + 1))));
  }
  return cases;
}

// ---- one shot ----------------------------------------------------------------------------------

TEST(GpuGraphMsf, ManySmallGraphsMatchCpuTwinAndOracle) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed());
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(gpu_testing::run_seed()));
  std::uint64_t graphs = 0;
  for (int round = 0; round < 12; ++round) {
    // Rounds alternate between tiny graphs (64-thread tier), small (256) and a mix reaching 1024.
    const std::uint32_t max_size = round % 3 == 0 ? 128 : round % 3 == 1 ? 4096 : 12000;
    const std::size_t count = round % 3 == 0 ? 5000 : round % 3 == 1 ? 400 : 60;
    const std::vector<GraphCase> cases = random_cases(rng, count, max_size);
    const GraphBatch batch = testing::make_batch(cases, rng, round % 2 == 0);
    const Solved cpu = solve_cpu(batch);
    const Solved gpu = solve_cuda(batch);
    expect_batch_equal(batch, cases, cpu, gpu, "round " + std::to_string(round));
    if (HasFatalFailure()) return;
    // The CPU twin is tested against the oracle in tests/test_graph_msf.cpp; here a sample again.
    for (std::size_t g = 0; g < batch.spans.size(); g += 17) {
      const GraphCase& c = cases[batch.case_of[g]];
      const testing::GraphOutput expected = testing::reference_output(c);
      const testing::GraphOutput actual =
          testing::batch_output(batch.spans[g], gpu.in_forest.data(), gpu.summary.data(), gpu.counts[g]);
      ASSERT_EQ(expected.in_forest, actual.in_forest) << c.description;
      ASSERT_EQ(expected.summary.size(), actual.summary.size()) << c.description;
      for (std::size_t k = 0; k < expected.summary.size(); ++k) {
        ASSERT_TRUE(testing::same_summary(expected.summary[k], actual.summary[k])) << c.description;
      }
    }
    graphs += batch.spans.size();
  }
  std::printf("[ info     ] %llu graphs identical to the CPU twin\n", static_cast<unsigned long long>(graphs));
}

TEST(GpuGraphMsf, DegenerateBatches) {
  TERRAZO_REQUIRE_GPU();
  // No graphs; graphs without edges or vertices only; one edge; all isolated vertices.
  graph_msf_cuda(nullptr, nullptr, nullptr, 0, nullptr, nullptr, nullptr);
  std::mt19937_64 rng(gpu_testing::run_seed() ^ 0x5555);
  std::vector<GraphCase> cases(5);
  cases[1].boundary = {1, 0, 1};
  cases[2].edges = {GraphEdge{0, 1, 4, 0, 9}};
  cases[2].boundary = {1, 1};
  cases[3].edges = {GraphEdge{1, 0, 4, 0, 9}};
  cases[3].boundary = {0, 0};
  cases[4].edges = {GraphEdge{2, 0, 1, 0, 1}, GraphEdge{0, 2, 1, 0, 0}};
  cases[4].boundary = {1, 0, 1, 1};
  const GraphBatch batch = testing::make_batch(cases, rng, true);
  const Solved cpu = solve_cpu(batch);
  const Solved gpu = solve_cuda(batch);
  expect_batch_equal(batch, cases, cpu, gpu, "degenerate");

  // An empty graph after the last graph's edges and vertices, past gap edges and vertices: it
  // starts beyond every non-empty span's end, inside the arrays (a large batch's random gaps put
  // one there once: "graph 40 has edges [397511, 397511) outside the batch's 397509 edges").
  GraphBatch tail;
  tail.edges = {GraphEdge{0, 1, 4, 0, 9}, GraphEdge{1, 2, 3, 0, 8}, GraphEdge{0, 0, 1, 0xdead, 0}, GraphEdge{0, 0, 1, 0xdead, 0}};
  tail.boundary = {1, 0, 1, 0xEE, 0xEE};
  tail.spans = {GraphSpan{0, 0, 2, 3}, GraphSpan{4, 5, 0, 0}};
  tail.case_of = {0, 1};
  std::vector<GraphCase> tail_cases(2);
  tail_cases[0].edges = {tail.edges[0], tail.edges[1]};
  tail_cases[0].boundary = {1, 0, 1};
  const Solved tail_cpu = solve_cpu(tail);
  const Solved tail_gpu = solve_cuda(tail);
  expect_batch_equal(tail, tail_cases, tail_cpu, tail_gpu, "an empty graph past trailing gaps");
}

// Large single graphs, built to stress one part each.
std::vector<GraphCase> large_cases(std::mt19937_64& rng) {
  std::vector<GraphCase> cases;
  auto relabel = [&rng](GraphCase& c) {
    std::vector<std::uint32_t> label(c.vertices());
    std::iota(label.begin(), label.end(), 0u);
    std::shuffle(label.begin(), label.end(), rng);
    std::vector<std::uint8_t> boundary(c.vertices());
    for (std::uint32_t v = 0; v < c.vertices(); ++v) boundary[label[v]] = c.boundary[v];
    c.boundary = boundary;
    for (GraphEdge& e : c.edges) {
      e.a = label[e.a];
      e.b = label[e.b];
    }
    std::shuffle(c.edges.begin(), c.edges.end(), rng);
  };
  {  // A 1000 x 1000 grid (~2 M edges), few weight levels, boundary = the outer ring (a root merge).
    GraphCase c;
    const std::uint32_t w = 1000, h = 1000;
    c.boundary.assign(static_cast<std::size_t>(w) * h, 0);
    for (std::uint32_t y = 0; y < h; ++y)
      for (std::uint32_t x = 0; x < w; ++x) {
        const std::uint32_t v = y * w + x;
        c.boundary[v] = (x == 0 || y == 0 || x + 1 == w || y + 1 == h) ? 1 : 0;
        if (x + 1 < w) c.edges.push_back(GraphEdge{v, v + 1, 0, 0, 0});
        if (y + 1 < h) c.edges.push_back(GraphEdge{v, v + w, 0, 0, 0});
      }
    testing::KeyMaker keys;
    keys.weight_mode = 1;
    keys.id_mode = 0;
    keys.assign(c.edges, rng);
    relabel(c);
    c.description = "grid 1000 x 1000, ring boundary, 4 weight levels";
    cases.push_back(std::move(c));
  }
  {  // One path of 1 M vertices, boundary at both ends only: two walks of 1 M steps.
    GraphCase c;
    const std::uint32_t n = 1000000;
    for (std::uint32_t v = 1; v < n; ++v) c.edges.push_back(GraphEdge{v - 1, v, 0, 0, 0});
    testing::KeyMaker keys;
    keys.weight_mode = 2;
    keys.assign(c.edges, rng);
    c.boundary.assign(n, 0);
    c.boundary[0] = c.boundary[n - 1] = 1;
    relabel(c);
    c.description = "path of 1 M vertices, boundary ends";
    cases.push_back(std::move(c));
  }
  {  // Deep dead ends: a 500 k chain hanging off a boundary vertex, a 300 k chain without any
     // boundary vertex (two walkers meet), plus parallel edges along the chain (cycle edges).
    GraphCase c;
    const std::uint32_t n = 800000;
    for (std::uint32_t v = 1; v < 500000; ++v) c.edges.push_back(GraphEdge{v - 1, v, 0, 0, 0});
    for (std::uint32_t v = 500001; v < n; ++v) c.edges.push_back(GraphEdge{v - 1, v, 0, 0, 0});
    for (std::uint32_t v = 1; v < n; v += 3)
      if (v != 500000) c.edges.push_back(GraphEdge{v, v - 1, 0, 0, 0});
    testing::KeyMaker keys;
    keys.weight_mode = 0;  // all equal: the ids decide
    keys.id_mode = 1;
    keys.assign(c.edges, rng);
    c.boundary.assign(n, 0);
    c.boundary[0] = 1;
    relabel(c);
    c.description = "dead-end chains of 500 k and 300 k vertices, equal weights";
    cases.push_back(std::move(c));
  }
  cases.push_back(testing::random_graph(rng, Shape::Random, 2000000));
  cases.push_back(testing::random_graph(rng, Shape::TreePlus, 600000));
  cases.push_back(testing::random_graph(rng, Shape::Comb, 400000));
  cases.push_back(testing::random_graph(rng, Shape::DeadEnds, 300000));
  cases.push_back(testing::random_graph(rng, Shape::Star, 200000));
  cases.push_back(testing::random_graph(rng, Shape::Caterpillar, 300000));
  return cases;
}

TEST(GpuGraphMsf, LargeGraphsMatchCpuTwin) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed() ^ 0x1234);
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(gpu_testing::run_seed()));
  const std::vector<GraphCase> large = large_cases(rng);
  for (const GraphCase& c : large) {
    // Each large graph with small ones around it, so all tiers run in one batch.
    std::vector<GraphCase> cases = random_cases(rng, 200, 300);
    cases.insert(cases.begin() + static_cast<std::ptrdiff_t>(rng() % cases.size()), c);
    const GraphBatch batch = testing::make_batch(cases, rng, true);
    const Solved cpu = solve_cpu(batch);
    const Solved gpu = solve_cuda(batch);
    expect_batch_equal(batch, cases, cpu, gpu, c.description);
    if (HasFatalFailure()) return;
  }
}

// ---- streamed batches --------------------------------------------------------------------------

// Copies `batch` into the solver's free slot and submits it.
void submit_batch(CudaGraphMsfBatchSolver& solver, const GraphBatch& batch) {
  std::copy(batch.edges.begin(), batch.edges.end(), solver.edges());
  std::copy(batch.boundary.begin(), batch.boundary.end(), solver.boundary());
  std::copy(batch.spans.begin(), batch.spans.end(), solver.graphs());
  solver.submit(batch.spans.size(), batch.edges.size(), batch.boundary.size());
}

void expect_solver_batch(const CudaGraphMsfBatchSolver::Batch& result, const GraphBatch& batch,
                         const std::vector<GraphCase>& cases, const std::string& what) {
  ASSERT_EQ(result.graphs, batch.spans.size()) << what;
  ASSERT_EQ(result.edges, batch.edges.size()) << what;
  ASSERT_EQ(result.vertices, batch.boundary.size()) << what;
  EXPECT_GT(result.kernel_ms, 0.0) << what;
  EXPECT_GE(result.total_ms, result.kernel_ms) << what;
  const Solved cpu = solve_cpu(batch);
  for (std::size_t g = 0; g < batch.spans.size(); ++g) {
    const GraphSpan& span = result.spans[g];
    ASSERT_EQ(span.first_edge, batch.spans[g].first_edge) << what;
    expect_graph_equal(span, cpu.in_forest.data(), cpu.summary.data(), cpu.counts[g],
                       result.in_forest + span.first_edge, result.summary + span.first_edge,
                       result.summary_count[g], what + ", span " + std::to_string(g) + ": " +
                                                    cases[batch.case_of[g]].description);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(GpuGraphMsfBatch, BothSlotsInFlightMatchCpuTwin) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed() ^ 0x77);
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(gpu_testing::run_seed()));
  GraphBatchOptions options;
  options.gpu_memory_bytes = 64ull << 20;
  CudaGraphMsfBatchSolver solver(options);
  ASSERT_GT(solver.edge_capacity(), 100000u);
  EXPECT_EQ(solver.vertex_capacity(), 2 * solver.edge_capacity());
  EXPECT_EQ(solver.graph_capacity(), solver.edge_capacity());
  EXPECT_LE(solver.device_bytes(), options.gpu_memory_bytes);
  EXPECT_GT(solver.device_bytes(), options.gpu_memory_bytes * 9 / 10);
  EXPECT_GT(solver.pinned_bytes(), 0u);
  EXPECT_EQ(solver.pending(), 0u);

  // Batches filled to within the capacities, submitted two at a time, checked in order.
  struct Submitted {
    std::vector<GraphCase> cases;
    GraphBatch batch;
  };
  std::vector<Submitted> in_flight;
  int waited = 0;
  for (int round = 0; round < 10; ++round) {
    Submitted s;
    std::uint64_t edges = 0, vertices = 0;
    const std::uint32_t max_size = round % 2 ? 64 : 3000;
    for (;;) {
      GraphCase c = testing::random_graph(rng, static_cast<Shape>(rng() % testing::kShapes),
                                          static_cast<std::uint32_t>(rng() % (max_size + 1)));
      const std::uint64_t gaps = 4 * (s.cases.size() + 1);  // make_batch adds at most 4 of each per graph
      if (edges + c.edges.size() + gaps > solver.edge_capacity() ||
          vertices + c.vertices() + gaps > solver.vertex_capacity() || s.cases.size() + 1 >= solver.graph_capacity() ||
          s.cases.size() >= 20000)
        break;
      edges += c.edges.size();
      vertices += c.vertices();
      s.cases.push_back(std::move(c));
    }
    s.batch = testing::make_batch(s.cases, rng, true);
    ASSERT_LE(s.batch.edges.size(), solver.edge_capacity());
    if (solver.pending() == 2) {
      expect_solver_batch(solver.wait(), in_flight.front().batch, in_flight.front().cases,
                          "batch " + std::to_string(waited++));
      if (HasFatalFailure()) return;
      in_flight.erase(in_flight.begin());
    }
    submit_batch(solver, s.batch);
    in_flight.push_back(std::move(s));
  }
  while (solver.pending()) {
    expect_solver_batch(solver.wait(), in_flight.front().batch, in_flight.front().cases,
                        "batch " + std::to_string(waited++));
    if (HasFatalFailure()) return;
    in_flight.erase(in_flight.begin());
  }
  EXPECT_EQ(waited, 10);
  EXPECT_THROW(solver.wait(), Error);
}

TEST(GpuGraphMsfBatch, DefaultBudgetTakesARootMergeGraph) {
  TERRAZO_REQUIRE_GPU();
  std::mt19937_64 rng(gpu_testing::run_seed() ^ 0x99);
  SCOPED_TRACE("TERRAZO_TEST_SEED=" + std::to_string(gpu_testing::run_seed()));
  CudaGraphMsfBatchSolver solver{GraphBatchOptions{}};
  EXPECT_LE(solver.device_bytes(), 1ull << 30);
  std::printf("[ info     ] default solver: %llu edges, %llu vertices, %llu graphs per slot; %llu device bytes, "
              "%llu pinned bytes\n",
              static_cast<unsigned long long>(solver.edge_capacity()),
              static_cast<unsigned long long>(solver.vertex_capacity()),
              static_cast<unsigned long long>(solver.graph_capacity()),
              static_cast<unsigned long long>(solver.device_bytes()),
              static_cast<unsigned long long>(solver.pinned_bytes()));
  const std::vector<GraphCase> large = large_cases(rng);
  std::size_t next = 0;
  std::vector<std::size_t> order;  // case index of each submitted batch, oldest first
  // The oldest batch in flight: waited for, timed and checked.
  auto check_oldest = [&] {
    const std::size_t done = order[next++];
    const CudaGraphMsfBatchSolver::Batch& result = solver.wait();
    std::printf("[ info     ] %s: kernels %.2f ms, total %.2f ms\n", large[done].description.c_str(),
                result.kernel_ms, result.total_ms);
    expect_solver_batch(result, testing::make_batch({large[done]}, rng, false), {large[done]},
                        large[done].description);
  };
  for (std::size_t k = 0; k < large.size(); ++k) {
    if (large[k].edges.size() > solver.edge_capacity() || large[k].vertices() > solver.vertex_capacity()) continue;
    if (solver.pending() == 2) {
      check_oldest();
      if (HasFatalFailure()) return;
    }
    submit_batch(solver, testing::make_batch({large[k]}, rng, false));
    order.push_back(k);
  }
  while (solver.pending()) {
    check_oldest();
    if (HasFatalFailure()) return;
  }
  EXPECT_EQ(next, order.size());
}

// ---- errors ------------------------------------------------------------------------------------

void expect_cuda_error(const std::vector<GraphEdge>& edges, const std::vector<std::uint8_t>& boundary,
                       const std::vector<GraphSpan>& spans, const std::string& fragment) {
  std::vector<std::uint8_t> in_forest(std::max<std::size_t>(1, edges.size()));
  std::vector<GraphSummaryEdge> summary(std::max<std::size_t>(1, edges.size()));
  std::vector<std::uint32_t> counts(spans.size());
  try {
    graph_msf_cuda(edges.data(), boundary.data(), spans.data(), spans.size(), in_forest.data(), summary.data(),
                   counts.data());
    ADD_FAILURE() << "no error for: " << fragment;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(GpuGraphMsf, ReportsBadInputs) {
  TERRAZO_REQUIRE_GPU();
  const std::vector<std::uint8_t> boundary(8, 0);
  expect_cuda_error({GraphEdge{0, 1, 1, 0, 0}, GraphEdge{2, 2, 1, 0, 1}}, boundary, {GraphSpan{0, 0, 2, 3}},
                    "graph 0 of the batch has an edge with a == b");
  expect_cuda_error({GraphEdge{0, 1, 1, 0, 0}, GraphEdge{0, 3, 1, 0, 1}}, boundary,
                    {GraphSpan{0, 0, 1, 2}, GraphSpan{1, 2, 1, 3}}, "graph 1 of the batch has an edge");
  // Two parallel edges with the same key compete for both components.
  expect_cuda_error({GraphEdge{0, 1, 5, 0, 3}, GraphEdge{1, 0, 5, 0, 3}}, boundary, {GraphSpan{0, 0, 2, 2}},
                    "same key");
  expect_cuda_error({GraphEdge{0, 1, 5, 0, 3}, GraphEdge{1, 0, 5, 0, 4}}, boundary,
                    {GraphSpan{0, 0, 2, 2}, GraphSpan{1, 2, 1, 2}}, "edge spans of graphs 0 and 1 overlap");
  expect_cuda_error({GraphEdge{0, 1, 5, 0, 3}, GraphEdge{1, 0, 5, 0, 4}}, boundary,
                    {GraphSpan{0, 0, 1, 3}, GraphSpan{1, 2, 1, 2}}, "vertex spans of graphs 0 and 1 overlap");

  GraphBatchOptions options;
  options.gpu_memory_bytes = 1ull << 20;
  CudaGraphMsfBatchSolver solver(options);
  const std::uint64_t capacity = solver.edge_capacity();
  EXPECT_THROW(solver.submit(1, capacity + 1, 2), Error);
  EXPECT_THROW(solver.submit(solver.graph_capacity() + 1, 1, 2), Error);
  solver.graphs()[0] = GraphSpan{0, 0, 3, 2};
  EXPECT_THROW(solver.submit(1, 2, 2), Error);  // the span reaches past the 2 edges submitted
  solver.graphs()[0] = GraphSpan{0, 1, 1, 2};
  EXPECT_THROW(solver.submit(1, 1, 2), Error);  // vertices [1, 3) past the 2 submitted
  EXPECT_EQ(solver.pending(), 0u);
  // A bad edge is reported by wait(); the solver stays usable (the next submit fills the other slot).
  auto fill = [&solver](const GraphEdge& edge) {
    solver.edges()[0] = edge;
    solver.boundary()[0] = solver.boundary()[1] = 1;
    solver.graphs()[0] = GraphSpan{0, 0, 1, 2};
  };
  fill(GraphEdge{0, 0, 1, 0, 0});
  solver.submit(1, 1, 2);
  EXPECT_THROW(solver.wait(), Error);
  EXPECT_EQ(solver.pending(), 0u);
  fill(GraphEdge{0, 1, 1, 0, 0});
  solver.submit(1, 1, 2);
  const CudaGraphMsfBatchSolver::Batch& result = solver.wait();
  EXPECT_EQ(result.in_forest[0], 1);
  ASSERT_EQ(result.summary_count[0], 1u);
  EXPECT_TRUE(testing::same_summary(result.summary[0], GraphSummaryEdge{0, 1, 0}));
  EXPECT_THROW(CudaGraphMsfBatchSolver(GraphBatchOptions{64, 0}), Error);  // too small for one edge
}

TEST(GpuGraphMsfWithoutDevice, RefusesWithAClearError) {
  if (cuda_device().available) GTEST_SKIP() << "a GPU is present: " << cuda_device().name;
  const GraphEdge edge{0, 1, 1, 0, 0};
  const std::uint8_t boundary[2] = {1, 1};
  const GraphSpan span{0, 0, 1, 2};
  std::uint8_t in_forest = 0;
  GraphSummaryEdge summary;
  std::uint32_t count = 0;
  try {
    graph_msf_cuda(&edge, boundary, &span, 1, &in_forest, &summary, &count);
    ADD_FAILURE() << "graph_msf_cuda ran without a device";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("graph_msf_cuda"), std::string::npos) << e.what();
  }
  EXPECT_THROW(CudaGraphMsfBatchSolver{GraphBatchOptions{}}, Error);
}

}  // namespace
}  // namespace terrazo
