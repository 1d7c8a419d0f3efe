// engine/run/run_context.h: what one run of a command shares with every phase it runs.
//
// Built once per command from its common flags (RunSettings), then handed to the pipeline: the
// device asked for and its one resolution, the host memory budget and its plan
// (engine/run/memory_plan.h), the GPU budget, the CPU threads, the scratch directory, progress and
// cancellation, and the ranks of a distributed run (engine/run/communicator.h). No pipeline reads
// these flags from anywhere else; a test builds a RunContext the
// same way (settings in code instead of flags).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "engine/run/communicator.h"
#include "engine/run/memory_plan.h"
#include "io/store/run_directory.h"
#include "kernels/common/device_choice.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"

namespace terrazo {

// What a run may use, as the common flags give it (README "Commands"): host and GPU memory, the
// device, the CPU threads and where its scratch files go. The parsed flags (CommonOptions,
// engine/commands/command_line.h) and the run's settings both hold it.
struct RunResources {
  std::uint64_t memory_bytes = 1ull << 30;     // --memory: the host budget (default 1G)
  std::uint64_t gpu_memory_bytes = 0;          // --gpu-memory: 0 is each GPU phase's default share
  DeviceRequest device = DeviceRequest::Auto;  // --device auto|cpu|cuda
  unsigned threads = 0;                        // --threads: 0 is every core
  std::string tmpdir;                          // --tmpdir: parent of the run directory; empty is $TMPDIR or /tmp
};

// The settings of a run: its resources as given, and how its budget errors end.
struct RunSettings : RunResources {
  // The end of every budget error: the flags that command has to give it more room.
  std::string budget_remedy = MemoryBudget::kRaiseMemoryOrLowerTile;
  // The run's ranks: null is the process's world() (one rank unless started by mpirun). --memory
  // and --gpu-memory are each rank's.
  Communicator* comm = nullptr;
};

class RunContext {
 public:
  // A run with its own budget of settings.memory_bytes.
  explicit RunContext(RunSettings settings, Progress& progress = Progress::silent());
  // A run in a budget it shares with its caller (settings.memory_bytes is then not read): tests that
  // run several library calls in one budget and read its peak.
  RunContext(RunSettings settings, MemoryBudget& shared_budget, Progress& progress);
  RunContext(const RunContext&) = delete;
  RunContext& operator=(const RunContext&) = delete;
  ~RunContext();

  const RunSettings& settings() const { return settings_; }
  DeviceRequest device_request() const { return settings_.device; }
  // The device this run's phase uses: resolve_device of the request (Auto takes the GPU when there is
  // one and `gpu_useful`); Error when CUDA is asked for and there is none.
  Device device(bool gpu_useful = true) const { return resolve_device(settings_.device, gpu_useful); }
  // --threads as given: 0 is every core.
  unsigned threads() const { return settings_.threads; }
  // --threads resolved: at least 1, every core for 0.
  unsigned worker_threads() const;
  std::uint64_t gpu_memory_bytes() const { return settings_.gpu_memory_bytes; }
  const std::string& tmpdir() const { return settings_.tmpdir; }
  Communicator& comm() const { return settings_.comm ? *settings_.comm : world(); }

  MemoryBudget& budget() { return *budget_; }
  const MemoryBudget& budget() const { return *budget_; }
  MemoryPlan& plan() { return plan_; }
  const MemoryPlan& plan() const { return plan_; }
  Progress& progress() { return *progress_; }
  // Within its scope the run reports to another progress (network: the sssp runs of its paths are silent).
  class ProgressRedirect {
   public:
    ProgressRedirect(RunContext& context, Progress& progress) : context_(context), saved_(context.progress_) {
      context.progress_ = &progress;
    }
    ~ProgressRedirect() { context_.progress_ = saved_; }
    ProgressRedirect(const ProgressRedirect&) = delete;
    ProgressRedirect& operator=(const ProgressRedirect&) = delete;

   private:
    RunContext& context_;
    Progress* saved_;
  };
  // The run's scratch directory, made under tmpdir() at the first call, removed with the context.
  RunDirectory& run_directory();

 private:
  RunSettings settings_;
  std::unique_ptr<MemoryBudget> owned_budget_;
  MemoryBudget* budget_;
  MemoryPlan plan_;
  Progress* progress_;
  std::unique_ptr<RunDirectory> run_directory_;
};

}  // namespace terrazo
