// shared_interleave (seed 003): one node for a group that fits on one, every node it uses
// when it spans, the preferred node for a private task.
#include <doctest/doctest.h>

#include <numaplace/policy/shared_interleave.hpp>
#include <numaplace/stacks.hpp>
#include <numaplace/stats/fault_stats.hpp>
#include <numaplace/topology/presets.hpp>

#include <array>
#include <cstdint>
#include <vector>

using namespace numaplace;

namespace {

using interleaving = stack<kernel_era::modern, fault_scoring<>, shared_interleave>;

const dynamic_topology& seed003() {
  static const dynamic_topology t = presets::find("seed003-4node")->build();
  return t;
}

// Two counters per node from per-node values, all private.
std::vector<std::uint64_t> pairs(std::vector<std::uint64_t> per_node) {
  std::vector<std::uint64_t> p(2 * per_node.size());
  for (std::size_t i = 0; i < per_node.size(); ++i) p[2 * i + 1] = per_node[i];
  return p;
}

// The policy's mask for `in`, over a span of `size` entries (the node count by default).
template <class Stack = interleaving>
std::vector<bool> mask(const dynamic_topology& t, const decision_input& in, std::size_t size = 0) {
  std::array<bool, 16> out;
  out.fill(true);  // the policy must clear what it does not set
  const std::span<bool> span(out.data(), size == 0 ? t.node_count() : size);
  with_placement<Stack>(t, [&](const auto& pl) { pl.interleave_nodes(in, span); });
  return {span.begin(), span.end()};
}

// A grouped task that has no faults of its own yet.
const fault_stats quiet_task(4);

}  // namespace

TEST_CASE("a group that fits on one node allocates there only") {
  // Runs almost only on node 2 (10 * 3 = 30 is not above 100); its memory is mostly on node 2.
  const fault_stats group = fault_stats::from_counts(pairs({5, 3, 60, 0}), pairs({10, 0, 100, 4}));
  const fault_stats task = fault_stats::from_counts(pairs({0, 1, 20, 0}));
  const decision_input in{task.view(), group.view()};
  CHECK(count_active_nodes(group.view()) == 1);
  CHECK(mask(seed003(), in) == std::vector<bool>{false, false, true, false});
}

TEST_CASE("a group that spans nodes interleaves over every node it is active on") {
  // CPU faults 100, 40, 34, 33: 120 and 102 exceed 100, 99 does not.
  const fault_stats group = fault_stats::from_counts(pairs({80, 10, 10, 10}), pairs({100, 40, 34, 33}));
  const fault_stats task = fault_stats::from_counts(pairs({10, 0, 0, 0}));
  const decision_input in{task.view(), group.view()};
  CHECK(mask(seed003(), in) == std::vector<bool>{true, true, true, false});

  SUBCASE("seed 003's 4 JVMs x 8 warehouses spread over the whole box: every node") {
    const fault_stats jvm = fault_stats::from_counts(pairs({50, 50, 50, 50}), pairs({25, 30, 27, 28}));
    CHECK(mask(seed003(), decision_input{task.view(), jvm.view()}) == std::vector<bool>(4, true));
  }
  SUBCASE("without the policy the placement's default is the preferred node alone") {
    CHECK(mask<stacks::linux_modern>(seed003(), in) == std::vector<bool>{true, false, false, false});
  }
}

TEST_CASE("without CPU faults the group's memory faults say where it is") {
  const auto memory = pairs({100, 90, 0, 20});
  const decision_input spans{quiet_task.view(), fault_view{memory, {}, 210}};
  CHECK(mask(seed003(), spans) == std::vector<bool>{true, true, false, false});

  const auto zero_cpu = pairs({0, 0, 0, 0});
  const decision_input also_spans{quiet_task.view(), fault_view{memory, zero_cpu, 210}};
  CHECK(mask(seed003(), also_spans) == std::vector<bool>{true, true, false, false});
}

TEST_CASE("a task without a group keeps to its preferred node") {
  const fault_stats task = fault_stats::from_counts(pairs({1, 9, 8, 0}));
  CHECK(mask(seed003(), decision_input{task.view(), {}}) == std::vector<bool>{false, true, false, false});
}

TEST_CASE("no advice: no faults, or inputs sized for another machine") {
  const fault_stats nothing(4);
  CHECK(mask(seed003(), decision_input{nothing.view(), nothing.view()}) == std::vector<bool>(4, false));
  const fault_stats wrong = fault_stats::from_counts(pairs({1, 2, 3}), pairs({9, 9, 9}));
  CHECK(mask(seed003(), decision_input{wrong.view(), wrong.view()}) == std::vector<bool>(4, false));
}

TEST_CASE("the mask is clipped to the caller's span and cleared beyond the nodes") {
  const fault_stats group = fault_stats::from_counts(pairs({1, 1, 1, 1}), pairs({5, 5, 5, 5}));
  const decision_input in{quiet_task.view(), group.view()};
  CHECK(mask(seed003(), in, 2) == std::vector<bool>{true, true});
  CHECK(mask(seed003(), in, 6) == std::vector<bool>{true, true, true, true, false, false});
}

TEST_CASE("on a backplane a one-node group gets the node preferred_group_nid chose") {
  const auto t = presets::find("seed000-8node")->build();
  const fault_stats group = fault_stats::from_counts(pairs({0, 0, 0, 0, 0, 30, 60, 50}), pairs({0, 0, 0, 0, 0, 0, 90, 0}));
  const fault_stats task = fault_stats::from_counts(pairs({0, 0, 0, 0, 0, 0, 5, 0}));
  const decision_input in{task.view(), group.view()};
  using backplane_interleaving =
      stack<kernel_era::modern, fault_scoring<>, neighbour_weighting<>, group_preferred_pull<>, shared_interleave>;
  const node_index preferred =
      with_placement<backplane_interleaving>(t, [&](const auto& pl) { return pl.preferred_node(in); });
  // Quads {0-3} {4-7}: the second wins; inside it the pairs {4,5} (30) and {6,7} (110): {6,7};
  // then node 6 (60) over 7 (50).
  CHECK(preferred == 6);
  std::vector<bool> want(8, false);
  want[6] = true;
  CHECK(mask<backplane_interleaving>(t, in) == want);
}
