// expect: compiles
// The control for the hook-rule cases: the same stacks, kept within the rules, compile (so the
// failures above are the rules', not an include path's or a typo's).
#include <numaplace/numaplace.hpp>

struct interleave_everywhere {
  template <class Placement>
  void interleave_nodes(const Placement&, const numaplace::decision_input&, std::span<bool> out) const noexcept {
    for (bool& b : out) b = true;
  }
};

using one_mask =
    numaplace::replace<numaplace::stacks::shared_interleave, numaplace::shared_interleave, interleave_everywhere>;
using swapped = numaplace::replace<numaplace::stacks::linux_modern,
                                   numaplace::imbalance_adjustment<numaplace::imbalance_rule::v5_19>,
                                   numaplace::imbalance_adjustment<numaplace::imbalance_rule::v5_18>>;

int main() {
  const numaplace::dynamic_topology t(numaplace::presets::seed000_8node);
  const auto nodes = [](const auto& pl) { return int(pl.node_count()); };
  return numaplace::with_placement<one_mask>(t, nodes) + numaplace::with_placement<swapped>(t, nodes) == 16 ? 0 : 1;
}
