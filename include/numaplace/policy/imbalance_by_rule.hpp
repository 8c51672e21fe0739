#pragma once
// adjust_numa_imbalance() for a rule known only at run time, as when a file or a command line
// names the kernel: the rule's policy, chosen once per call. A stack that names its rule at
// compile time uses imbalance_adjustment<R> itself.

#include <array>
#include <cstddef>

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

/// One argument a rule reads, by its kernel name.
struct imbalance_input {
  const char* name = "";
  long value = 0;
};

/// The arguments besides the imbalance that `rule`'s adjust_numa_imbalance() reads: none before
/// v5.7, the source's tasks in v5.7..v5.9, then the destination's, with its CPUs (v5.11..v5.17)
/// or the domain's imb_numa_nr (v5.18+).
/// A range (iterated by value, so a temporary's lifetime covers the loop).
struct imbalance_inputs {
  std::array<imbalance_input, 2> inputs{};
  std::size_t count = 0;

  constexpr const imbalance_input* begin() const noexcept { return inputs.data(); }
  constexpr const imbalance_input* end() const noexcept { return inputs.data() + count; }
  constexpr std::size_t size() const noexcept { return count; }
  constexpr const imbalance_input& operator[](std::size_t i) const noexcept { return inputs[i]; }
};

constexpr imbalance_inputs inputs_read_by(imbalance_rule rule, const imbalance_args& a) noexcept {
  switch (rule) {
    case imbalance_rule::v5_5: return {};
    case imbalance_rule::v5_7: return {{{{"src_running", a.src_running}}}, 1};
    case imbalance_rule::v5_10: return {{{{"dst_running", a.dst_running}}}, 1};
    case imbalance_rule::v5_11: return {{{{"dst_running", a.dst_running}, {"dst_weight", a.dst_weight}}}, 2};
    case imbalance_rule::v5_18:
    case imbalance_rule::v5_19: break;
  }
  return {{{{"dst_running", a.dst_running}, {"imb_numa_nr", a.imb_numa_nr}}}, 2};
}

}  // namespace numaplace
