// expect-error: exactly_one_policy_provides<numaplace::hooks::select_preferred, 0>
// select_preferred is exactly_one: a stack without fault_scoring (or another base choice) has no
// preferred node to give.
#include <numaplace/numaplace.hpp>

using no_base_choice = numaplace::stack<numaplace::kernel_era::modern, numaplace::neighbour_weighting<>,
                                        numaplace::preferred_settling<numaplace::settle_rule::v4_19>>;

int main() {
  const numaplace::dynamic_topology t(numaplace::presets::seed000_8node);
  return numaplace::with_placement<no_base_choice>(t, [](const auto& pl) { return int(pl.node_count()); });
}
