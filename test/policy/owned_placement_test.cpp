// owned_placement and any_placement decide exactly as with_placement does, on every kind, and
// survive what a class member goes through: copies, moves, the original's destruction, and
// decisions from several threads at once.
#include <doctest/doctest.h>

#include <numaplace/any_placement.hpp>
#include <numaplace/owned_placement.hpp>
#include <numaplace/stacks.hpp>
#include <numaplace/topology/presets.hpp>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

using namespace numaplace;

namespace {

// Random grouped faults for `nodes` nodes (a fixed seed, so failures repeat).
struct inputs {
  std::vector<std::vector<std::uint64_t>> task, group;
  std::vector<std::uint64_t> task_total, group_total;
  inputs(std::size_t nodes, std::size_t count, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::uint64_t> faults(0, 4000);
    for (std::size_t i = 0; i < count; ++i) {
      task.emplace_back(2 * nodes);
      group.emplace_back(2 * nodes);
      std::uint64_t tt = 0, gt = 0;
      for (std::size_t k = 0; k < 2 * nodes; ++k) {
        task.back()[k] = rng() % 3 == 0 ? 0 : faults(rng);
        group.back()[k] = task.back()[k] + faults(rng);
        tt += task.back()[k];
        gt += group.back()[k];
      }
      task_total.push_back(tt);
      group_total.push_back(gt);
    }
  }
  decision_input at(std::size_t i) const {
    return {{task[i], {}, task_total[i]}, {group[i], {}, group_total[i]}};
  }
  std::size_t size() const { return task.size(); }
};

dynamic_topology preset(const char* name) { return presets::find(name)->build(); }

// One machine of each kind the variant holds: direct, glueless, backplane, and CPU-less nodes.
const char* const machines[] = {"seed003-4node", "amd-opteron-8node", "seed000-8node", "ibm-power9-gpu"};

}  // namespace

TEST_CASE("owned_placement decides as with_placement does, on every kind") {
  for (const char* name : machines) {
    CAPTURE(name);
    const dynamic_topology t = preset(name);
    const owned_placement<stacks::linux_modern> owned(t);
    const inputs in(t.node_count(), 64, 11);
    with_placement<stacks::linux_modern>(t, [&](const auto& pl) {
      CHECK(owned.kind() == std::decay_t<decltype(pl)>::kind);
      for (std::size_t i = 0; i < in.size(); ++i) {
        const decision_input d = in.at(i);
        const node_index nid = pl.preferred_node(d);
        REQUIRE(owned.preferred_node(d) == nid);
        if (nid != no_node) CHECK(owned.group_node(d, nid) == pl.group_node(d, nid));
        CHECK(owned.weight(d.group, 0, t.max_distance()) == pl.weight(d.group, 0, t.max_distance()));
      }
    });
  }
}

TEST_CASE("the kind follows the stack's era") {
  // seed 000's backplane is a backplane to every era; whatever the era, owned and classify agree.
  const dynamic_topology t = preset("seed000-8node");
  CHECK(owned_placement<stacks::vanilla>(t).kind() == classify(t, stacks::vanilla::era).kind);
  CHECK(owned_placement<stacks::linux_modern>(t).kind() == classify(t, stacks::linux_modern::era).kind);
  CHECK(owned_placement<stacks::linux_modern>(preset("ibm-power9-gpu")).kind() ==
        classify(preset("ibm-power9-gpu"), kernel_era::modern).kind);
}

namespace {

// A runtime's class that keeps its placement as a member.
class scheduler {
 public:
  explicit scheduler(dynamic_topology t) : placement_(std::move(t)) {}
  node_index home_of(const decision_input& in) const noexcept { return placement_.preferred_node(in); }
  const owned_placement<stacks::linux_modern>& placement() const noexcept { return placement_; }

 private:
  owned_placement<stacks::linux_modern> placement_;
};

}  // namespace

TEST_CASE("a class member survives copies, moves and the original's destruction") {
  const dynamic_topology t = preset("seed000-8node");
  const inputs in(t.node_count(), 64, 12);
  std::vector<node_index> expected;
  with_placement<stacks::linux_modern>(t, [&](const auto& pl) {
    for (std::size_t i = 0; i < in.size(); ++i) expected.push_back(pl.preferred_node(in.at(i)));
  });

  std::optional<scheduler> first(std::in_place, t);
  scheduler copied = *first;
  scheduler moved = std::move(*first);
  first.reset();  // the views inside `copied` and `moved` must not point into the destroyed one
  std::vector<scheduler> many;
  for (int i = 0; i < 8; ++i) many.push_back(copied);  // reallocations move the members again
  for (std::size_t i = 0; i < in.size(); ++i) {
    CHECK(copied.home_of(in.at(i)) == expected[i]);
    CHECK(moved.home_of(in.at(i)) == expected[i]);
    CHECK(many.back().home_of(in.at(i)) == expected[i]);
  }
  CHECK(&copied.placement().topology() == &moved.placement().topology());  // one shared topology
}

TEST_CASE("one placement answers several threads at once") {
  const scheduler s(preset("seed000-8node"));
  const inputs in(8, 256, 13);
  std::vector<node_index> expected;
  for (std::size_t i = 0; i < in.size(); ++i) expected.push_back(s.home_of(in.at(i)));
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&, k] {
      for (int round = 0; round < 50; ++round) {
        for (std::size_t i = 0; i < in.size(); ++i) mismatches[k] += s.home_of(in.at(i)) != expected[i];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int m : mismatches) CHECK(m == 0);
}

TEST_CASE("any_placement: a stack named at run time decides as that stack does") {
  for (const char* name : machines) {
    CAPTURE(name);
    const dynamic_topology t = preset(name);
    const inputs in(t.node_count(), 64, 14);
    for_each_stack([&](std::string_view stack_name, auto type) {
      using S = typename decltype(type)::type;
      CAPTURE(stack_name);
      const std::optional<any_placement> any = any_placement::named(stack_name, t);
      REQUIRE(any.has_value());
      CHECK(any->stack_name() == stack_name);
      const owned_placement<S> owned(t);
      CHECK(any->kind() == owned.kind());
      for (std::size_t i = 0; i < in.size(); ++i) REQUIRE(any->preferred_node(in.at(i)) == owned.preferred_node(in.at(i)));
    });
  }
}

TEST_CASE("any_placement: an unknown name is no placement, and copies share one") {
  const dynamic_topology t = preset("seed003-4node");
  CHECK_FALSE(any_placement::named("linux-9.9", t).has_value());
  const any_placement a{owned_placement<stacks::vanilla>(t)};
  const any_placement b = a;
  CHECK(&a.topology() == &b.topology());
  CHECK(a.stack_name() == "(unnamed)");
}
