// tests/test_memory_plan.cpp: MemoryPlan (engine/run/memory_plan.h) and RunContext (engine/run/run_context.h).
#include <gtest/gtest.h>

#include <unistd.h>

#include <string>

#include "engine/run/memory_plan.h"
#include "engine/run/run_context.h"
#include "kernels/common/error.h"
#include "tests/support/expect_message.h"

namespace terrazo {
namespace {

constexpr std::uint64_t kMiB = 1ull << 20;

// Minimums first, then what is left to the parts in the order they were declared, up to their most.
TEST(MemoryPlan, GivesMinimumsThenTheRestInDeclarationOrder) {
  MemoryBudget budget(100 * kMiB);
  const auto held = budget.reserve(20 * kMiB, "held across phases");
  MemoryPlan plan;
  plan.need("exchange", "margin", 4 * kMiB);
  plan.need("exchange", "write room", 0, 30 * kMiB);
  plan.need("exchange", "tile cache", 10 * kMiB, 1000 * kMiB);
  plan.need("write", "windows", 16 * kMiB, 16 * kMiB);
  plan.assign(budget);
  EXPECT_EQ(plan.assigned("exchange", "margin"), 4 * kMiB);
  EXPECT_EQ(plan.assigned("exchange", "write room"), 30 * kMiB);
  EXPECT_EQ(plan.assigned("exchange", "tile cache"), 80 * kMiB - 34 * kMiB);
  EXPECT_EQ(plan.assigned("write", "windows"), 16 * kMiB);
  // Too little for the write room beside the cache's minimum: the room gets what is left after it.
  MemoryBudget small(30 * kMiB);
  MemoryPlan tight;
  tight.need("exchange", "write room", 0, 30 * kMiB);
  tight.need("exchange", "tile cache", 10 * kMiB, 1000 * kMiB);
  tight.assign(small);
  EXPECT_EQ(tight.assigned("exchange", "write room"), 20 * kMiB);
  EXPECT_EQ(tight.assigned("exchange", "tile cache"), 10 * kMiB);
}

// A phase whose minimums exceed what is left is refused before any work: a BudgetError naming the
// phase, each part and the --memory that would hold it beside what is held.
TEST(MemoryPlan, RefusesAPhaseBelowItsMinimumsWithTheNumbers) {
  MemoryBudget budget(64 * kMiB);
  const auto held = budget.reserve(8 * kMiB, "index table");
  MemoryPlan plan;
  plan.need("od-matrix: query", "the labels of one source", 40 * kMiB);
  plan.need("od-matrix: query", "the tile cache's least", 20 * kMiB);
  try {
    plan.assign(budget);
    FAIL() << "60 MiB planned in 56 MiB";
  } catch (const BudgetError& e) {
    const std::string m = e.what();
    testing::expect_mentions(m, {"memory budget too small for od-matrix: query: it needs at least 60.0 MiB",
                                 "the labels of one source 40.0 MiB", "index table", "give --memory 68M at least"});
  }
  EXPECT_THROW(plan.assigned("od-matrix: query", "the tile cache's least"), Error);  // never planned
}

// assign() plans only the phases declared since the last call, each against what is free then; a
// phase that runs again gets a name of its own.
TEST(MemoryPlan, PlansNewPhasesOnlyAndNamesRepeats) {
  MemoryBudget budget(64 * kMiB);
  MemoryPlan plan;
  plan.need("paths", "write phase", 40 * kMiB);
  plan.assign(budget);
  const auto held = budget.reserve(30 * kMiB, "the matrix's table");
  plan.need("query", "labels", 20 * kMiB, 100 * kMiB);
  plan.assign(budget);  // "paths" (40 MiB) is not planned again against the 34 MiB left now
  EXPECT_EQ(plan.assigned("query", "labels"), 34 * kMiB);
  EXPECT_THROW(plan.need("paths", "more", 1), Error);  // a planned phase takes no more parts
  EXPECT_THROW(plan.need("query", "labels", 1), Error);  // declared twice
  EXPECT_EQ(plan.unique_name("query"), "query (2)");
  EXPECT_EQ(plan.unique_name("write"), "write");
  ASSERT_EQ(plan.to_json().size(), 2u);
  EXPECT_EQ(plan.to_json()[1].str(),
            "{\"phase\":\"query\",\"minimum\":20971520,\"assigned\":35651584,\"parts\":[{\"what\":\"labels\","
            "\"minimum\":20971520,\"wanted\":104857600,\"assigned\":35651584}]}");
}

// The run context: its own budget of --memory, or the caller's; --threads resolved; the run
// directory made at its first use and removed with the context; progress redirected in a scope.
TEST(RunContext, HoldsTheRunsSettings) {
  RunSettings settings;
  settings.memory_bytes = 48 * kMiB;
  settings.threads = 3;
  settings.budget_remedy = MemoryBudget::kRaiseMemory;
  std::string directory;
  {
    RunContext context(settings);
    EXPECT_EQ(context.budget().total(), 48 * kMiB);
    EXPECT_EQ(context.worker_threads(), 3u);
    EXPECT_EQ(context.device(false), Device::Cpu);
    directory = context.run_directory().path();
    EXPECT_EQ(&context.run_directory(), &context.run_directory());
    int seen = 0;
    Progress counting([&](const ProgressEvent&) { return ++seen, true; });
    {
      RunContext::ProgressRedirect redirect(context, counting);
      context.progress().update("x", 0, 1);
    }
    context.progress().update("x", 1, 1);
    EXPECT_EQ(seen, 1);
  }
  EXPECT_FALSE(directory.empty());
  EXPECT_NE(::access(directory.c_str(), F_OK), 0) << directory << " outlived its run";
  MemoryBudget shared(8 * kMiB);
  RunContext borrowed(settings, shared, Progress::silent());
  EXPECT_EQ(&borrowed.budget(), &shared);
  settings.threads = 0;
  EXPECT_GE(RunContext(settings).worker_threads(), 1u);
}

}  // namespace
}  // namespace terrazo
