#pragma once
// Decision traces: the steps the policies took on the way to an answer, recorded by the
// policies themselves, so that a tool that explains a decision (`numaplace explain`) prints
// the decision's own reasons and holds no second copy of a kernel rule.
//
// A placement records into the trace it was built with when its stack lists
// traced_by<Trace> (placement.hpp), and otherwise into no_trace, whose steps are never built:
// the decision compiles to the same instructions as without them (scripts/icount). A policy
// records with `record_step(pl.trace(), [&] { return steps::...{...}; })`; a policy without a
// placement (imbalance_adjustment) takes the trace as a last argument.
//
// Recording allocates (decision_trace keeps a vector): meant for explaining one decision at a
// time, not for the hot path. Decisions stay noexcept, so an allocation failure while
// recording ends the program.

#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "../stats/fault_view.hpp"
#include "../topology/types.hpp"

namespace numaplace {

/// Whose faults a step read.
enum class fault_owner : std::uint8_t { task, group };

/// The steps, one type each, named for what the kernel function does at that point.
namespace steps {

/// The stack places no task by its faults (page_placement_only: task_numa_placement() was a
/// placeholder in v3.8..v3.12; pages move to their tasks instead).
struct places_no_task {};

/// task_numa_placement()'s maximum: `node` holds the most of the owner's faults, `faults` of
/// `total`; no_node when every count is 0.
struct fault_maximum {
  fault_owner owner = fault_owner::task;
  node_index node = no_node;
  std::uint64_t faults = 0;
  std::uint64_t total = 0;
};

/// The maximum `from` has no CPUs: `node`, the nearest node that has, stands in (v5.18+).
struct nearest_cpu_node {
  node_index from = no_node;
  node_index node = no_node;
};

/// Before v4.19 the task's own faults gate the decision: all zero, no answer, even for a task
/// in a group.
struct gated_on_task_faults {};

/// v3.19..v4.18: the task has faults of its own, so the group's choice replaces its maximum.
struct group_choice_applies {};

/// v3.13..v3.18: task and group maxima differ, and `node` has the highest task weight plus
/// group weight at `distance`, per mille.
struct combined_weight {
  node_index node = no_node;
  std::uint64_t task_weight = 0;
  std::uint64_t group_weight = 0;
  distance_t distance = 0;
};

/// preferred_group_nid() on a glueless mesh: `node` has the highest group weight, nearby
/// nodes' faults counted at `distance`, per mille.
struct group_weight {
  node_index node = no_node;
  std::uint64_t weight = 0;
  distance_t distance = 0;
};

/// preferred_group_nid() on a backplane, one level: of the groups of nodes nearer than
/// `distance`, `nodes` holds the most group faults, `faults` of the `of` the level above held.
struct narrowed {
  std::vector<node_index> nodes;
  distance_t distance = 0;
  std::uint64_t faults = 0;
  std::uint64_t of = 0;
};

/// A test a rule made, in the kernel's names: `left` `relation` `right`, which `holds` or not
/// (`right` empty: a constant).
struct comparison {
  const char* left = "";
  long left_value = 0;
  const char* relation = "";
  const char* right = "";
  long right_value = 0;
  bool holds = false;
};

/// adjust_numa_imbalance(): `imbalance` came out as `result` (kept when equal, else forgiven).
struct imbalance_outcome {
  long imbalance = 0;
  long result = 0;
};

}  // namespace steps

/// One step of a decision.
using decision_step =
    std::variant<steps::places_no_task, steps::fault_maximum, steps::nearest_cpu_node, steps::gated_on_task_faults,
                 steps::group_choice_applies, steps::combined_weight, steps::group_weight, steps::narrowed,
                 steps::comparison, steps::imbalance_outcome>;

/// The trace of an untraced decision: nothing is built, nothing kept.
struct no_trace {
  static constexpr bool enabled = false;
};

/// The steps of the decisions made while it was attached, in order.
class decision_trace {
 public:
  static constexpr bool enabled = true;
  void add(decision_step step) { steps_.push_back(std::move(step)); }
  std::span<const decision_step> steps() const noexcept { return steps_; }
  void clear() noexcept { steps_.clear(); }

 private:
  std::vector<decision_step> steps_;
};

/// Whether `Trace` keeps steps.
template <class Trace>
inline constexpr bool traces = std::remove_cvref_t<Trace>::enabled;

/// Records the step `make()` builds into `trace`; for no_trace, `make` is never called.
// Always inlined: an untraced decision must not even call the empty function (GCC 12 left one
// call in the backplane narrowing's loop, two instructions per level).
template <class Trace, class Make>
[[gnu::always_inline]] constexpr void record_step(Trace&& trace, Make&& make) {
  if constexpr (traces<Trace>) trace.add(std::forward<Make>(make)());
}

/// Listed last in a stack's policies (extend<Stack, traced_by<decision_trace>>), makes its
/// placements record into a `Trace` given when each is built. It takes part in no hook.
template <class Trace>
struct traced_by {
  using trace_type = Trace;
  template <numa_kind K>
  static constexpr bool applies_to = false;
};

}  // namespace numaplace
