// A user-written policy dropped into a stack. Here a runtime keeps node 0 for the operating
// system and its interrupts: whatever the kernel's rules choose, a task never prefers node 0;
// it takes the nearest other node instead (the nearest circle first, as seed 002's scheduler
// would). The policy opts into one hook, refine_preferred (policy/hooks.hpp), which the
// composer calls after the kernel's rules have chosen.
#include <numaplace/numaplace.hpp>

#include <iostream>
#include <vector>

namespace {

struct keep_off_node_0 {
  template <class Placement>
  numaplace::node_index refine_preferred(const Placement& pl, const numaplace::decision_input&,
                                         numaplace::node_index nid) const noexcept {
    if (nid != 0) return nid;
    for (numaplace::node_index n : pl.topology().neighbours(0)) {  // nearest first, 0 itself first
      if (n != 0 && pl.topology().has_cpu(n)) return n;
    }
    return nid;  // a one-node machine: nothing else to offer
  }
};

// linux-modern's policies, plus ours (refine_preferred is in_order: ours has the last word).
using my_stack = numaplace::extend<numaplace::stacks::linux_modern, keep_off_node_0>;

}  // namespace

int main() {
  const auto machine = numaplace::presets::find("seed000-8node")->build();  // node 1 is node 0's nearest
  // A task whose faults are mostly on node 0 (two counters per node: shared, private).
  const std::vector<std::uint64_t> faults{0, 90, 0, 5, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 2};
  const numaplace::decision_input task{{faults, {}, 100}, {}};

  const auto kernel = numaplace::with_placement<numaplace::stacks::linux_modern>(
      machine, [&](const auto& pl) { return pl.preferred_node(task); });
  const auto mine = numaplace::with_placement<my_stack>(machine, [&](const auto& pl) { return pl.preferred_node(task); });
  std::cout << "linux-modern prefers node " << kernel << "; with keep_off_node_0: node " << mine << '\n';
  return kernel == 0 && mine == 1 ? 0 : 1;
}
