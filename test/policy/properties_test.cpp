// Properties over generated topologies and random faults (fixed seeds, so failures repeat):
// on direct machines every stack that places tasks is plain argmax (linux-3.8 places none); on backplane machines the group's node lies
// in the top-level node group with the most faults.
#include <doctest/doctest.h>

#include <numaplace/stacks.hpp>
#include <numaplace/topology/generators.hpp>

#include <cstdint>
#include <random>
#include <string_view>
#include <type_traits>
#include <vector>

using namespace numaplace;

namespace {

struct random_faults {
  std::vector<std::uint64_t> pairs;
  std::uint64_t total = 0;
  random_faults(std::size_t nodes, std::mt19937_64& rng) : pairs(2 * nodes) {
    std::uniform_int_distribution<int> zero(0, 3);
    std::uniform_int_distribution<std::uint64_t> count(0, 5000);
    for (auto& p : pairs) {
      p = zero(rng) == 0 ? 0 : count(rng);
      total += p;
    }
  }
  fault_view view() const { return {pairs, {}, total}; }
};

node_index argmax(const fault_view& f) {
  std::uint64_t best = 0;
  node_index at = no_node;
  for (node_index i = 0; i < f.node_count(); ++i) {
    if (f.faults(i) > best) {
      best = f.faults(i);
      at = i;
    }
  }
  return at;
}

}  // namespace

TEST_CASE("on any direct topology every stack picks what plain argmax picks") {
  std::mt19937_64 rng(2014);
  for (int round = 0; round < 200; ++round) {
    const std::size_t n = 1 + rng() % 24;
    const auto remote = static_cast<distance_t>(11 + rng() % 240);
    const auto t = generate::fully_connected(n, remote);
    REQUIRE(t.kind() == numa_kind::direct);
    const random_faults task(n, rng), group(n, rng);
    for_each_stack([&](std::string_view name, auto type) {
      using S = typename decltype(type)::type;
      CAPTURE(name);
      CAPTURE(n);
      with_placement<S>(t, [&](const auto& pl) {
        using first = std::decay_t<decltype(pl.template policy<0>())>;
        if constexpr (std::is_same_v<first, page_placement_only>) {
          // linux-3.8 (balancenuma): no task placement, whatever the faults.
          CHECK(pl.preferred_node({task.view(), {}}) == no_node);
          CHECK(pl.preferred_node({task.view(), group.view()}) == no_node);
          return;
        }
        CHECK(pl.preferred_node({task.view(), {}}) == argmax(task.view()));
        if constexpr (!requires { first::rule; }) {
          // numa/core (numa_core_placement): without buddy counts, the task's own maximum.
          CHECK(pl.preferred_node({task.view(), group.view()}) == argmax(task.view()));
        } else if constexpr (first::rule >= preferred_rule::v4_19) {
          CHECK(pl.preferred_node({task.view(), group.view()}) == argmax(group.view()));
        } else if constexpr (first::rule == preferred_rule::v3_19) {
          const node_index expected = argmax(task.view()) == no_node ? no_node : argmax(group.view());
          CHECK(pl.preferred_node({task.view(), group.view()}) == expected);
        }
      });
    });
  }
}

TEST_CASE("on a backplane machine the group's node lies in the busiest top-level node group") {
  std::mt19937_64 rng(2015);
  for (int round = 0; round < 200; ++round) {
    const std::size_t inner = 1 + rng() % 4, middle = 1 + rng() % 3, outer = 2 + rng() % 3;
    const auto d1 = static_cast<distance_t>(11 + rng() % 10);
    const auto d2 = static_cast<distance_t>(d1 + 1 + rng() % 10);
    const auto d3 = static_cast<distance_t>(d2 + 1 + rng() % 10);
    const generate::level levels[] = {{inner, d1}, {middle, d2}, {outer, d3}};
    const auto t = generate::hierarchical(levels);
    if (t.kind() != numa_kind::backplane) continue;  // e.g. a single node per group at all levels
    const std::size_t n = t.node_count();
    const random_faults task(n, rng), group(n, rng);
    // Top-level groups: nodes nearer than the maximum, seeded in index order.
    std::vector<int> group_of(n, -1);
    std::vector<std::uint64_t> sums;
    for (node_index a = 0; a < n; ++a) {
      if (group_of[a] != -1) continue;
      sums.push_back(0);
      for (node_index b = 0; b < n; ++b) {
        if (group_of[b] == -1 && t.distance(a, b) < t.max_distance()) {
          group_of[b] = static_cast<int>(sums.size() - 1);
          sums.back() += group.view().faults(b);
        }
      }
    }
    std::size_t busiest = 0;
    for (std::size_t g = 1; g < sums.size(); ++g) busiest = sums[g] > sums[busiest] ? g : busiest;
    if (sums[busiest] == 0) continue;
    CAPTURE(n);
    CAPTURE(round);
    const node_index chosen = with_placement<stacks::linux_modern>(
        t, [&](const auto& pl) { return pl.preferred_node({task.view(), group.view()}); });
    REQUIRE(chosen < n);
    CHECK(group_of[chosen] == static_cast<int>(busiest));
  }
}
