// expect-error: Old is not one of Stack's policies
// linux-modern's imbalance rule is v5.19's; replacing v5.18's (which it does not list) is an
// error, not a silent no-op.
#include <numaplace/numaplace.hpp>

using wrong = numaplace::replace<numaplace::stacks::linux_modern,
                                 numaplace::imbalance_adjustment<numaplace::imbalance_rule::v5_18>,
                                 numaplace::imbalance_adjustment<numaplace::imbalance_rule::v5_11>>;

int main() { return wrong::era == numaplace::kernel_era::modern ? 0 : 1; }
