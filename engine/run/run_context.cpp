// engine/run/run_context.cpp: RunContext (engine/run/run_context.h).
#include "engine/run/run_context.h"

#include <algorithm>
#include <thread>

namespace terrazo {

RunContext::RunContext(RunSettings settings, Progress& progress)
    : settings_(std::move(settings)),
      owned_budget_(std::make_unique<MemoryBudget>(settings_.memory_bytes, settings_.budget_remedy)),
      budget_(owned_budget_.get()),
      progress_(&progress) {}

RunContext::RunContext(RunSettings settings, MemoryBudget& shared_budget, Progress& progress)
    : settings_(std::move(settings)), budget_(&shared_budget), progress_(&progress) {}

RunContext::~RunContext() = default;

unsigned RunContext::worker_threads() const {
  return std::max(1u, settings_.threads ? settings_.threads : std::thread::hardware_concurrency());
}

RunDirectory& RunContext::run_directory() {
  if (!run_directory_) run_directory_ = std::make_unique<RunDirectory>(settings_.tmpdir);
  return *run_directory_;
}

}  // namespace terrazo
