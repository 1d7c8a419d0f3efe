// engine/run/memory_plan.h: the plan of a run's host memory, made before any work (docs/memory_budget.md "The plan").
//
// A command declares its phases in the order they run; each phase declares the parts that are
// alive at once (a tile cache, a write phase's buffers, the labels of a batch), each with the least
// bytes it can work in and the most it can use. assign() then, before the first byte of work:
//   - refuses the run when one phase's minimums do not fit in what the budget has left beside what
//     is already held across phases (BudgetError naming the phase, its parts, and the --memory that
//     would do), so a budget too small is an error at the start, not after the work;
//   - gives each phase its parts' minimums, then what is left to its parts in the order they were
//     declared, up to what each wants (declared first: served first; deterministic).
// Phases run one after another, so each one is planned against the whole budget left: a phase's
// reservations are given back before the next one takes its own.
// The plan is printed in --json as `memory_plan` (to_json).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/json_summary.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

class MemoryPlan {
 public:
  struct Part {
    std::string what;
    std::uint64_t minimum = 0;
    std::uint64_t wanted = 0;    // >= minimum
    std::uint64_t assigned = 0;  // set by assign()
  };
  struct Phase {
    std::string name;
    std::vector<Part> parts;
    bool planned = false;  // assign() has checked it and given its parts their bytes
    std::string other_remedy;  // what else makes it fit, said after the --memory it needs
    std::uint64_t minimum() const;
    std::uint64_t wanted() const;
    std::uint64_t assigned() const;
  };

  // Declares `what` of phase `phase` (the phase is made at its first part): at least `minimum` bytes,
  // at most `wanted` (a `wanted` below `minimum`: exactly the minimum).
  void need(const std::string& phase, const std::string& what, std::uint64_t minimum, std::uint64_t wanted = 0);
  // Another way to make `phase` fit, for its refusal ("use fewer --threads or a smaller --tile").
  void other_remedy(const std::string& phase, const std::string& text) { this->phase(phase).other_remedy = text; }
  // Plans the phases not planned yet against `budget`'s available bytes now (what the run holds
  // across phases already reserved); throws BudgetError when a phase's minimum does not fit. Called
  // again after more phases were declared (a command that runs another: network runs od-matrix),
  // it plans only those.
  void assign(const MemoryBudget& budget);
  // The bytes assign() gave `what` of `phase`; Error when it was never declared or planned.
  std::uint64_t assigned(const std::string& phase, const std::string& what) const;
  // `base`, or "base (2)", "base (3)", ... when a phase of that name is declared already: a phase
  // that runs again (sssp's passes of several source groups).
  std::string unique_name(const std::string& base) const;
  const std::vector<Phase>& phases() const { return phases_; }
  bool empty() const { return phases_.empty(); }

  // [{"phase": name, "minimum": B, "assigned": B, "parts": [{"what", "minimum", "wanted", "assigned"}]}]
  std::vector<JsonObject> to_json() const;

 private:
  Phase& phase(const std::string& name);
  const Part* find(const std::string& phase, const std::string& what) const;
  std::vector<Phase> phases_;
};

}  // namespace terrazo
