#pragma once
// adjust_numa_imbalance() for a rule known only at run time, as when a file or a command line
// names the kernel: the rule's policy, chosen once per call. A stack that names its rule at
// compile time uses imbalance_adjustment<R> itself.

#include "imbalance_adjustment.hpp"
#include "inputs.hpp"
#include "trace.hpp"

namespace numaplace {

/// `rule`'s adjust_numa_imbalance() on `a`, its tests recorded into `trace` (no_trace: none).
template <class Trace = no_trace>
constexpr long adjust_imbalance_by_rule(imbalance_rule rule, const imbalance_args& a, Trace&& trace = {}) noexcept {
  const auto by = [&]<imbalance_rule R>() { return imbalance_adjustment<R>{}.adjust_imbalance(a, trace); };
  switch (rule) {
    case imbalance_rule::v5_5: return by.template operator()<imbalance_rule::v5_5>();
    case imbalance_rule::v5_7: return by.template operator()<imbalance_rule::v5_7>();
    case imbalance_rule::v5_10: return by.template operator()<imbalance_rule::v5_10>();
    case imbalance_rule::v5_11: return by.template operator()<imbalance_rule::v5_11>();
    case imbalance_rule::v5_18: return by.template operator()<imbalance_rule::v5_18>();
    case imbalance_rule::v5_19: break;
  }
  return by.template operator()<imbalance_rule::v5_19>();
}

}  // namespace numaplace
