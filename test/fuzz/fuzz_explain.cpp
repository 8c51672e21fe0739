// `numaplace explain`'s JSON input (numaplace/formats/explain_input_json.hpp) on any bytes:
// parse_explain_input either returns an input whose parts agree (a valid topology, one fault
// pair per node, fault totals that fit 64 bits, known imbalance variants) or throws
// explain_input_error naming the source. An accepted input then goes through what explain asks
// of the library: every named stack's nearby scores, weights and preferred node, and each
// adjust_numa_imbalance() question; fault counts anywhere up to 2^64-1 must not crash or hit
// undefined behaviour there either. (The CLI's words and JSON around them are not fuzzed here.)
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <numaplace/formats/explain_input_json.hpp>
#include <numaplace/policy/imbalance_by_rule.hpp>
#include <numaplace/policy/trace.hpp>
#include <numaplace/stacks.hpp>
#include <numaplace/stats/fault_view.hpp>

#include "check.hpp"

namespace {

bool total_fits(const std::vector<numaplace::formats::fault_pair>& faults) {
  std::uint64_t total = 0;
  for (const auto& f : faults) {
    for (const std::uint64_t n : {f.shared, f.private_faults}) {
      if (n > std::numeric_limits<std::uint64_t>::max() - total) return false;
      total += n;
    }
  }
  return true;
}

// The kernel's NUMA_MEM region: shared then private, per node.
std::vector<std::uint64_t> memory_counters(const std::vector<numaplace::formats::fault_pair>& faults) {
  std::vector<std::uint64_t> memory;
  for (const auto& f : faults) {
    memory.push_back(f.shared);
    memory.push_back(f.private_faults);
  }
  return memory;
}

std::uint64_t total_of(const std::vector<numaplace::formats::fault_pair>& faults) {
  std::uint64_t total = 0;  // total_fits() holds
  for (const auto& f : faults) total += f.shared + f.private_faults;
  return total;
}

// Every stack's decision on `in`, as explain's report asks for it.
void decide_with_every_stack(const numaplace::formats::explain_input& in) {
  const std::vector<std::uint64_t> task = memory_counters(in.task_faults);
  const std::vector<std::uint64_t> group = in.group_faults ? memory_counters(*in.group_faults) : std::vector<std::uint64_t>{};
  numaplace::decision_input di;
  di.task = numaplace::fault_view{task, {}, total_of(in.task_faults)};
  if (in.group_faults) di.group = numaplace::fault_view{group, {}, total_of(*in.group_faults)};
  numaplace::decision_trace trace;
  numaplace::for_each_stack([&](std::string_view, auto stack) {
    trace.clear();
    numaplace::with_traced_placement<typename decltype(stack)::type>(in.topology, trace, [&](const auto& pl) {
      const auto& c = pl.topology().classification_info();
      for (const numaplace::distance_t d : c.levels) {
        if (d <= c.local_distance) continue;  // explain asks above the local distance only
        for (numaplace::node_index n = 0; n < pl.node_count(); ++n) {
          for (const numaplace::fault_view* view : {&di.task, &di.group}) {
            if (view->empty()) continue;
            (void)pl.score_nearby(*view, n, d);
            (void)pl.weight(*view, n, d);
          }
        }
      }
      const numaplace::node_index nid = pl.preferred_node(di);
      NUMAPLACE_FUZZ_CHECK(nid == numaplace::no_node || nid < pl.node_count());
    });
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  namespace formats = numaplace::formats;
  static const std::vector<std::string_view> variants = formats::imbalance_variant_names();
  try {
    const formats::explain_input in = formats::parse_explain_input(as_text(data, size), "fuzz.json");
    check_topology(in.topology);
    const std::size_t n = in.topology.node_count();
    NUMAPLACE_FUZZ_CHECK(in.source == "fuzz.json");
    NUMAPLACE_FUZZ_CHECK(in.task_faults.size() == n && total_fits(in.task_faults));
    NUMAPLACE_FUZZ_CHECK(!in.group_faults || (in.group_faults->size() == n && total_fits(*in.group_faults)));
    numaplace::decision_trace trace;
    for (const formats::imbalance_question& q : in.imbalance) {
      NUMAPLACE_FUZZ_CHECK(std::find(variants.begin(), variants.end(), q.variant) != variants.end());
      trace.clear();
      (void)numaplace::adjust_imbalance_by_rule(q.rule, q.args, trace);
    }
    decide_with_every_stack(in);
  } catch (const formats::explain_input_error& e) {
    NUMAPLACE_FUZZ_CHECK(std::string(e.what()).starts_with("fuzz.json: "));
  }
  return 0;
}
