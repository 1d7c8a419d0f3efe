// engine/run/memory_plan.cpp: MemoryPlan (engine/run/memory_plan.h).
#include "engine/run/memory_plan.h"

#include <algorithm>

#include "kernels/common/error.h"

namespace terrazo {
namespace {

std::string format_parts(const MemoryPlan::Phase& phase) {
  std::string text;
  for (const MemoryPlan::Part& part : phase.parts) {
    if (!text.empty()) text += ", ";
    text += part.what + " " + MemoryBudget::format_size(part.minimum);
  }
  return text;
}

[[noreturn]] void refuse(const MemoryPlan::Phase& phase, const MemoryBudget& budget) {
  const std::uint64_t least_mib = (budget.reserved() + phase.minimum() + (1ull << 20) - 1) >> 20;
  std::string held;
  if (budget.reserved()) held = " beside the " + MemoryBudget::format_size(budget.reserved()) + " held (" + budget.describe() + ")";
  throw BudgetError("memory budget too small for " + phase.name + ": it needs at least " +
                    MemoryBudget::format_size(phase.minimum()) + " (" + format_parts(phase) + "); --memory " +
                    MemoryBudget::format_size(budget.total()) + " leaves " + MemoryBudget::format_size(budget.available()) +
                    held + ": give --memory " + std::to_string(least_mib) + "M at least" +
                    (phase.other_remedy.empty() ? "" : ", or " + phase.other_remedy));
}

}  // namespace

std::uint64_t MemoryPlan::Phase::minimum() const {
  std::uint64_t sum = 0;
  for (const Part& part : parts) sum += part.minimum;
  return sum;
}

std::uint64_t MemoryPlan::Phase::wanted() const {
  std::uint64_t sum = 0;
  for (const Part& part : parts) sum += part.wanted;
  return sum;
}

std::uint64_t MemoryPlan::Phase::assigned() const {
  std::uint64_t sum = 0;
  for (const Part& part : parts) sum += part.assigned;
  return sum;
}

MemoryPlan::Phase& MemoryPlan::phase(const std::string& name) {
  for (Phase& p : phases_)
    if (p.name == name) return p;
  phases_.push_back(Phase{name, {}});
  return phases_.back();
}

void MemoryPlan::need(const std::string& phase_name, const std::string& what, std::uint64_t minimum, std::uint64_t wanted) {
  Phase& p = phase(phase_name);
  for (Part& part : p.parts)
    if (part.what == what) throw Error("memory plan: '" + what + "' of " + phase_name + " declared twice");
  if (p.planned) throw Error("memory plan: '" + what + "' added to " + phase_name + " after it was planned");
  p.parts.push_back(Part{what, minimum, std::max(minimum, wanted), 0});
}

void MemoryPlan::assign(const MemoryBudget& budget) {
  const std::uint64_t available = budget.available();
  // Of the phases that do not fit, the one that needs the most is named: the --memory it asks for
  // holds every phase.
  const Phase* short_most = nullptr;
  for (const Phase& p : phases_)
    if (!p.planned && p.minimum() > available && (!short_most || p.minimum() > short_most->minimum())) short_most = &p;
  if (short_most) refuse(*short_most, budget);
  for (Phase& p : phases_) {
    if (p.planned) continue;
    p.planned = true;
    std::uint64_t left = available - p.minimum();
    for (Part& part : p.parts) {
      const std::uint64_t more = std::min(left, part.wanted - part.minimum);
      part.assigned = part.minimum + more;
      left -= more;
    }
  }
}

std::string MemoryPlan::unique_name(const std::string& base) const {
  auto taken = [&](const std::string& name) {
    for (const Phase& p : phases_)
      if (p.name == name) return true;
    return false;
  };
  std::string name = base;
  for (int n = 2; taken(name); ++n) name = base + " (" + std::to_string(n) + ")";
  return name;
}

const MemoryPlan::Part* MemoryPlan::find(const std::string& phase_name, const std::string& what) const {
  for (const Phase& p : phases_)
    if (p.name == phase_name)
      for (const Part& part : p.parts)
        if (part.what == what) return &part;
  return nullptr;
}

std::uint64_t MemoryPlan::assigned(const std::string& phase_name, const std::string& what) const {
  for (const Phase& p : phases_)
    if (p.name == phase_name && !p.planned)
      throw Error("memory plan: '" + what + "' of " + phase_name + " read before the phase was planned");
  const Part* part = find(phase_name, what);
  if (!part) throw Error("memory plan: no part '" + what + "' in " + phase_name);
  return part->assigned;
}

std::vector<JsonObject> MemoryPlan::to_json() const {
  std::vector<JsonObject> out;
  for (const Phase& p : phases_) {
    std::vector<JsonObject> parts;
    for (const Part& part : p.parts) {
      JsonObject j;
      j.add("what", part.what).add("minimum", part.minimum).add("wanted", part.wanted).add("assigned", part.assigned);
      parts.push_back(j);
    }
    JsonObject phase;
    phase.add("phase", p.name).add("minimum", p.minimum()).add("assigned", p.assigned()).add("parts", parts);
    out.push_back(phase);
  }
  return out;
}

}  // namespace terrazo
