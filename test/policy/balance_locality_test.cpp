// migrate_degrades_locality() (policy/balance_locality.hpp), the v4.2+ three-valued form, on
// hand-worked faults. Weights on a DIRECT machine are 1000 * faults(node) / total.
#include <doctest/doctest.h>

#include <numaplace/policy/balance_locality.hpp>
#include <numaplace/stacks.hpp>
#include <numaplace/topology/generators.hpp>

#include <vector>

using namespace numaplace;

namespace {

// Two nodes; the task's faults: 30 on node 0, 70 on node 1 (private), the group's reversed.
const std::vector<std::uint64_t> task_memory{0, 30, 0, 70};
const std::vector<std::uint64_t> group_memory{0, 80, 0, 20};

locality_effect effect(const balance_move& mv, bool grouped) {
  const decision_input in{{task_memory, {}, 100}, grouped ? fault_view{group_memory, {}, 100} : fault_view{}};
  return with_placement<stacks::linux_modern>(generate::fully_connected(2),
                                              [&](const auto& pl) { return migrate_degrades_locality(pl, in, mv); });
}

}  // namespace

TEST_CASE("balance_locality: leaving the preferred node degrades only while others could go instead") {
  balance_move mv{0, 1, 0, true, false, 3, 1};  // from 0 (preferred) to 1; 3 queued, 1 prefers 0
  CHECK(effect(mv, false) == locality_effect::degrades);
  mv.src_nr_preferred = 3;  // every queued task prefers node 0: none could go instead
  CHECK(effect(mv, false) == locality_effect::neutral);
}

TEST_CASE("balance_locality: to the preferred node improves; no faults or one node is neutral") {
  CHECK(effect({0, 1, 1, true, false, 2, 0}, false) == locality_effect::improves);
  CHECK(effect({0, 1, 1, false, false, 2, 0}, false) == locality_effect::neutral);  // no statistics yet
  CHECK(effect({1, 1, 0, true, false, 2, 0}, false) == locality_effect::neutral);   // same node
}

TEST_CASE("balance_locality: elsewhere, an idle destination is neutral, else the weights decide") {
  // Neither node preferred (preferred = no_node). Task weights: 300 on 0, 700 on 1.
  CHECK(effect({0, 1, no_node, true, true, 2, 0}, false) == locality_effect::neutral);  // leaving a CPU idle is worse
  CHECK(effect({0, 1, no_node, true, false, 2, 0}, false) == locality_effect::improves);  // 700 >= 300
  CHECK(effect({1, 0, no_node, true, false, 2, 0}, false) == locality_effect::degrades);  // 300 < 700
  // With a group its weights decide instead: 800 on 0, 200 on 1.
  CHECK(effect({0, 1, no_node, true, false, 2, 0}, true) == locality_effect::degrades);
  CHECK(effect({1, 0, no_node, true, false, 2, 0}, true) == locality_effect::improves);
}
