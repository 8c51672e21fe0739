// expect-error: at_most_one_policy_provides<numaplace::hooks::interleave_nodes, 2>
// interleave_nodes is at_most_one: a stack with two interleave policies has no single answer.
#include <numaplace/numaplace.hpp>

struct interleave_everywhere {
  template <class Placement>
  void interleave_nodes(const Placement&, const numaplace::decision_input&, std::span<bool> out) const noexcept {
    for (bool& b : out) b = true;
  }
};

using two_masks = numaplace::extend<numaplace::stacks::shared_interleave, interleave_everywhere>;

int main(int, char** argv) {
  const numaplace::dynamic_topology t(numaplace::presets::seed000_8node);
  return numaplace::with_placement<two_masks>(t, [](const auto& pl) { return int(pl.node_count()); }) + (argv ? 0 : 1);
}
