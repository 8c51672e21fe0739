// The composed decisions (task_numa_placement(), score_nearby_nodes(), preferred_group_nid()) on hand-worked examples, per kernel version.
#include <doctest/doctest.h>

#include <numaplace/stacks.hpp>
#include <numaplace/topology/generators.hpp>
#include <numaplace/topology/presets.hpp>

#include <cstdint>
#include <vector>

using namespace numaplace;

namespace {

// Per-node fault counts as the view wants them: shared and private per node; here all private.
struct faults {
  std::vector<std::uint64_t> pairs;
  std::uint64_t total = 0;
  explicit faults(std::vector<std::uint64_t> per_node) : pairs(per_node.size() * 2) {
    for (std::size_t i = 0; i < per_node.size(); ++i) {
      pairs[2 * i + 1] = per_node[i];
      total += per_node[i];
    }
  }
  fault_view view() const { return {pairs, {}, total}; }
};

template <class Stack>
node_index preferred(const dynamic_topology& t, const decision_input& in) {
  return with_placement<Stack>(t, [&](const auto& pl) { return pl.preferred_node(in); });
}

template <class Stack>
std::uint64_t nearby(const dynamic_topology& t, const faults& f, node_index nid, distance_t lim) {
  return with_placement<Stack>(t, [&](const auto& pl) { return pl.score_nearby(f.view(), nid, lim); });
}

const dynamic_topology& seed000() {
  static const dynamic_topology t = presets::find("seed000-8node")->build();
  return t;
}
const dynamic_topology& opteron() {
  static const dynamic_topology t = presets::find("amd-opteron-8node")->build();
  return t;
}

}  // namespace

TEST_CASE("glueless mesh: a neighbour at 16 of 10/16/22 counts half, the farthest not at all") {
  // Node 0's neighbours at 16 are 1, 2, 4, 6; node 3 is at 22, the maximum.
  const faults f({0, 10, 7, 1000, 0, 0, 0, 0});
  CHECK(nearby<stacks::linux_modern>(opteron(), f, 0, 22) == 5 + 3);  // floor(10*6/12) + floor(7*6/12)
  CHECK(nearby<stacks::patches_1_2>(opteron(), f, 0, 22) == 8);
  // Weight: 1000 * (own + nearby) / total, and it may exceed 1000 (nearby faults are not in total).
  with_placement<stacks::linux_modern>(opteron(), [&](const auto& pl) {
    CHECK(pl.weight(f.view(), 0, 22) == 1000 * 8 / 1017);
    CHECK(pl.weight(f.view(), 3, 22) == 1000 * (1000 + 5 + 3) / 1017);  // node 3 has 1, 2, 5, 7 at 16
  });
}

TEST_CASE("backplane: nodes nearer than the hop limit count in full; the hop limit test changed in v4.19") {
  // seed000: node 0 sees 1 at 12, 2 and 3 at 17, the other quad at 19 (the maximum).
  const faults f({0, 1, 2, 4, 8, 16, 32, 64});
  CHECK(nearby<stacks::linux_modern>(seed000(), f, 0, 17) == 1);      // d < 17
  CHECK(nearby<stacks::linux_5_10>(seed000(), f, 0, 17) == 1);        // d < 17
  CHECK(nearby<stacks::patches_1_4>(seed000(), f, 0, 17) == 1 + 2 + 4);  // d <= 17 before v4.19
  CHECK(nearby<stacks::linux_modern>(seed000(), f, 0, 19) == 7);      // never the farthest nodes
  CHECK(nearby<stacks::patches_1_4>(seed000(), f, 0, 19) == 7);
}

TEST_CASE("no neighbour weighting on a direct topology") {
  const auto t = generate::fully_connected(4);
  const faults f({1, 2, 3, 4});
  CHECK(nearby<stacks::linux_modern>(t, f, 0, 20) == 0);
  with_placement<stacks::linux_modern>(t, [](const auto& pl) {
    // Weighting and group narrowing are gone; fault_scoring, imbalance_adjustment, settling
    // and the four balancing-loop policies remain.
    CHECK(pl.active_policy_count() == 7);
  });
  with_placement<stacks::linux_modern>(seed000(), [](const auto& pl) { CHECK(pl.active_policy_count() == 9); });
}

TEST_CASE("preferred node: the first strict maximum, nothing when all faults are zero") {
  const auto t = generate::fully_connected(4);
  const faults task({3, 9, 9, 1});
  CHECK(preferred<stacks::linux_modern>(t, {task.view(), {}}) == 1);
  const faults none({0, 0, 0, 0});
  CHECK(preferred<stacks::linux_modern>(t, {none.view(), {}}) == no_node);
  CHECK(preferred<stacks::vanilla>(t, {none.view(), {}}) == no_node);
}

TEST_CASE("grouped tasks: v4.19+ decides on group faults alone; older kernels gate on the task's") {
  const auto t = generate::fully_connected(4);
  const faults task({0, 0, 0, 0});
  const faults group({1, 2, 8, 3});
  const decision_input in{task.view(), group.view()};
  CHECK(preferred<stacks::linux_modern>(t, in) == 2);
  CHECK(preferred<stacks::linux_5_10>(t, in) == 2);
  CHECK(preferred<stacks::patches_1_4>(t, in) == no_node);
  CHECK(preferred<stacks::vanilla>(t, in) == no_node);

  const faults busy_task({0, 5, 0, 0});
  const decision_input in2{busy_task.view(), group.view()};
  CHECK(preferred<stacks::patches_1_4>(t, in2) == 2);  // the group's node, gated by the task's faults
  // vanilla: task (node 1) and group (node 2) disagree: best task+group weight.
  // node 1: 1000*5/5 + 1000*2/14 = 1142; node 2: 0 + 1000*8/14 = 571.
  CHECK(preferred<stacks::vanilla>(t, in2) == 1);
}

TEST_CASE("backplane: the group's node is found by narrowing to the busiest group at each level") {
  // Node 0 alone has the most faults, but quad {4-7} has more in total; inside it the pair
  // {4,5} and {6,7} tie at 120 (the first wins), then 4 and 5 tie at 60 (4 wins).
  const faults task({50, 0, 0, 0, 0, 0, 0, 0});
  const faults group({100, 0, 0, 0, 60, 60, 60, 60});
  const decision_input in{task.view(), group.view()};
  CHECK(preferred<stacks::linux_modern>(seed000(), in) == 4);
  CHECK(preferred<stacks::patches_1_4>(seed000(), in) == 4);
  CHECK(preferred<stacks::vanilla>(seed000(), in) == 0);  // no group narrowing before seed 000
  // The same faults on a direct machine: the plain maximum.
  CHECK(preferred<stacks::linux_modern>(generate::fully_connected(8), in) == 0);
}

TEST_CASE("glueless: the group's node has the best weight with nearby faults") {
  // Node 0 has 100 faults; nodes 4, 5, 6, 7 60 each. Group weights (nearby at 16 count half):
  // node 0: 100 + (60+60)/2 = 160; node 4: 60 + (100+60+60)/2 = 170 (0, 5, 6 at 16).
  const faults task({50, 0, 0, 0, 0, 0, 0, 0});
  const faults group({100, 0, 0, 0, 60, 60, 60, 60});
  const decision_input in{task.view(), group.view()};
  CHECK(preferred<stacks::linux_modern>(opteron(), in) == 4);
  CHECK(preferred<stacks::vanilla>(opteron(), in) == 0);
}

TEST_CASE("since v5.18 a CPU-less node is replaced by its nearest CPU node") {
  const auto t = presets::find("ibm-power9-gpu")->build();  // index 2 (id 250) has no CPUs
  REQUIRE_FALSE(t.has_cpu(2));
  const faults task({1, 2, 50, 0, 0, 0, 0, 0});
  CHECK(preferred<stacks::linux_modern>(t, {task.view(), {}}) == 0);  // 80 from both CPU nodes: lowest index
  CHECK(preferred<stacks::linux_5_10>(t, {task.view(), {}}) == 2);
}

TEST_CASE("decisions are noexcept") {
  with_placement<stacks::linux_modern>(seed000(), [](const auto& pl) {
    const decision_input in{};
    static_assert(noexcept(pl.preferred_node(in)));
    static_assert(noexcept(pl.group_node(in, 0)));
    static_assert(noexcept(pl.adjust_imbalance(imbalance_args{})));
    static_assert(noexcept(pl.has_capacity(node_load{}, node_load{})));
    CHECK(pl.preferred_node(in) == no_node);  // an empty input has no faults
  });
}

TEST_CASE("inputs that do not match the topology get no answer rather than a wild read") {
  const faults three({1, 2, 3});
  const faults eight({0, 0, 0, 0, 0, 0, 0, 9});
  CHECK(preferred<stacks::linux_modern>(seed000(), {three.view(), {}}) == no_node);
  CHECK(preferred<stacks::linux_modern>(seed000(), {eight.view(), three.view()}) == no_node);
  CHECK(preferred<stacks::vanilla>(seed000(), {three.view(), {}}) == no_node);
  CHECK(preferred<stacks::linux_modern>(seed000(), {eight.view(), {}}) == 7);
}
