// engine/commands/run_totals.h: the totals a pipeline command's result ends with (clump, mst, the flow commands).
#pragma once
#include "engine/raster_inputs/pipeline_input.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/timer.h"

namespace terrazo {

// Adds the input's bytes (its reads, an import's writes) to the run's and sets the total seconds since
// `start`, the budget's peak reservation and the process's peak RSS (VmHWM), after every phase.
template <class Result>
void finish_run_totals(Result& result, const PipelineInput& input, const MemoryBudget& budget, const Stopwatch& start) {
  result.bytes_read += input.bytes_read();
  result.bytes_written += input.bytes_written();
  result.seconds.total = start.seconds();
  result.memory_peak_reserved = budget.peak_reserved();
  result.peak_rss_bytes = peak_rss_bytes();
}

}  // namespace terrazo
