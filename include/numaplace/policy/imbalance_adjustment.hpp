#pragma once
// imbalance_adjustment: how much NUMA imbalance the balancer forgives: adjust_numa_imbalance(),
// v5.7..today, last changed in v5.19. Seed 004 (v5.10) judged the destination's load, not the source's.

#include <cstdint>

#include "inputs.hpp"
#include "trace.hpp"

namespace numaplace {

enum class imbalance_rule : std::uint8_t {
  v5_5,   ///< none: v5.5's reworked balancer (0b0695f2b34a) before any NUMA allowance
  v5_7,   ///< source-based: forgive when the source runs <= 2 tasks (the load balancer's from v5.6,
          ///< b396f52326de; task_numa_migrate's too from v5.7; until v5.9)
  v5_10,  ///< destination-based: forgive when the destination runs <= 2 tasks (seed 004)
  v5_11,  ///< while the destination runs under 25 % of its CPUs, forgive an imbalance <= 2
  v5_18,  ///< while dst_running < imb_numa_nr, forgive an imbalance <= 2
  v5_19,  ///< while dst_running <= imb_numa_nr, forgive an imbalance <= 2
};

template <imbalance_rule Rule>
struct imbalance_adjustment {
  static constexpr imbalance_rule rule = Rule;
  /// NUMA_IMBALANCE_MIN: small imbalances are left alone so communicating tasks stay together.
  static constexpr long imbalance_min = 2;

  constexpr long adjust_imbalance(const imbalance_args& a) const noexcept { return adjust_imbalance(a, no_trace{}); }

  /// The same, recording into `trace` each test the rule makes, in the kernel's names, and
  /// the outcome (policy/trace.hpp): the rule's own answer to "why".
  template <class Trace>
  constexpr long adjust_imbalance(const imbalance_args& a, Trace&& trace) const noexcept {
    const auto test = [&](const char* left, long left_value, const char* relation, const char* right,
                          long right_value, bool holds) {
      record_step(trace, [&] { return steps::comparison{left, left_value, relation, right, right_value, holds}; });
      return holds;
    };
    long result = a.imbalance;
    if constexpr (Rule == imbalance_rule::v5_7) {
      if (test("src_running", a.src_running, "<=", "", imbalance_min, a.src_running <= imbalance_min)) result = 0;
    } else if constexpr (Rule == imbalance_rule::v5_10) {
      if (test("dst_running", a.dst_running, "<=", "", imbalance_min, a.dst_running <= imbalance_min)) result = 0;
    } else if constexpr (Rule != imbalance_rule::v5_5) {
      bool lightly_loaded = false;
      if constexpr (Rule == imbalance_rule::v5_11) {
        lightly_loaded = test("dst_running", a.dst_running, "<", "dst_weight/4", a.dst_weight >> 2,
                              a.dst_running < (a.dst_weight >> 2));
      } else if constexpr (Rule == imbalance_rule::v5_18) {
        lightly_loaded =
            test("dst_running", a.dst_running, "<", "imb_numa_nr", a.imb_numa_nr, a.dst_running < a.imb_numa_nr);
      } else {
        lightly_loaded =
            test("dst_running", a.dst_running, "<=", "imb_numa_nr", a.imb_numa_nr, a.dst_running <= a.imb_numa_nr);
      }
      if (lightly_loaded && test("imbalance", a.imbalance, "<=", "", imbalance_min, a.imbalance <= imbalance_min)) {
        result = 0;
      }
    }
    record_step(trace, [&] { return steps::imbalance_outcome{a.imbalance, result}; });
    return result;
  }

  /// The same allowance as the load balancer's calculate_imbalance() asks for it: the kernel
  /// passes the busiest group's running tasks up to v5.18 and the local group's plus one since.
  constexpr long adjust_balancer_imbalance(const balancer_args& b) const noexcept {
    imbalance_args a;
    a.imbalance = b.imbalance;
    a.imb_numa_nr = b.imb_numa_nr;
    if constexpr (Rule == imbalance_rule::v5_19) {
      a.dst_running = b.local_running + 1;
    } else {
      a.src_running = b.busiest_running;  // read by v5.7
      a.dst_running = b.busiest_running;  // read by v5.10 .. v5.18 under its new name
      a.dst_weight = b.busiest_weight;
    }
    return adjust_imbalance(a);
  }
};

}  // namespace numaplace
