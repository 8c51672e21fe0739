// The hook table's combining rules (policy/hooks.hpp), each with small user policies, and the
// stack algebra (stack.hpp). The compile errors are test/compile_fail/hook_*.cpp and
// replace_missing_policy.cpp.
#include <doctest/doctest.h>

#include <numaplace/stacks.hpp>
#include <numaplace/topology/generators.hpp>
#include <numaplace/topology/presets.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

using namespace numaplace;

namespace {

// --- Small policies, one hook each ---------------------------------------------------------

template <node_index N>
struct always_node {
  template <class Pl>
  node_index select_preferred(const Pl&, const decision_input&) const noexcept {
    return N;
  }
};

// in_order: turns `From` into `To`, leaves every other node alone. Two of them in a row show
// the order: remap<1, 2> then remap<2, 3> turn 1 into 3; the other way round, into 2.
template <node_index From, node_index To>
struct remap {
  template <class Pl>
  node_index refine_preferred(const Pl&, const decision_input&, node_index n) const noexcept {
    return n == From ? To : n;
  }
  template <class Pl>
  node_index choose_group_node(const Pl&, const decision_input&, node_index n) const noexcept {
    return n == From ? To : n;
  }
};

template <std::uint64_t V>
struct nearby_counts {
  template <class Pl>
  std::uint64_t score_nearby(const Pl&, const fault_view&, node_index, distance_t) const noexcept {
    return V;
  }
};

template <bool Scan>
struct scans {
  template <class Pl>
  bool scan_all_nodes(const Pl&, const decision_input&) const noexcept {
    return Scan;
  }
};

// Counts its calls, to show that `all` stops at the first refusal and `any` at the first yes.
int capacity_asked = 0;
template <bool Accept>
struct capacity {
  bool has_capacity(const node_load&, const node_load&) const noexcept {
    ++capacity_asked;
    return Accept;
  }
};

struct settle_on_source {
  template <class Pl>
  node_index settle_preferred(const Pl&, const decision_input&, const migrate_outcome& m) const noexcept {
    return m.source;
  }
};

struct halve_imbalance {
  long adjust_imbalance(const imbalance_args& a) const noexcept { return a.imbalance / 2; }
  long adjust_balancer_imbalance(const balancer_args& b) const noexcept { return b.imbalance / 2; }
};

struct interleave_everywhere {
  template <class Pl>
  void interleave_nodes(const Pl&, const decision_input&, std::span<bool> out) const noexcept {
    for (bool& b : out) b = true;
  }
};

// narrow_from_faults: a group narrowing that answers 3 in its one pass (2 when asked to
// refine a node), and counts how often the one pass was asked.
int narrowed_in_one_pass = 0;
struct one_pass_narrower {
  template <class Pl>
  node_index choose_group_node(const Pl&, const decision_input&, node_index) const noexcept {
    return 2;
  }
  template <class Pl, class Maximum>
  node_index narrow_from_faults(const Pl&, const decision_input&, const Maximum&) const noexcept {
    ++narrowed_in_one_pass;
    return 3;
  }
};

template <class... Ps>
using user_stack = stack<kernel_era::modern, Ps...>;

const dynamic_topology& four_nodes() {
  static const dynamic_topology t = generate::fully_connected(4);
  return t;
}

// `f(pl)` on `Stack`'s placement for a directly connected four-node machine.
template <class Stack, class F>
auto on_four_nodes(F&& f) {
  return with_placement<Stack>(four_nodes(), f);
}

const decision_input nothing{};

}  // namespace

TEST_CASE("the table: each hook's rule as documented") {
  using hooks::combining;
  static_assert(hooks::select_preferred::rule == combining::exactly_one);
  static_assert(hooks::refine_preferred::rule == combining::in_order);
  static_assert(hooks::choose_group_node::rule == combining::in_order);
  static_assert(hooks::score_nearby::rule == combining::sum);
  static_assert(hooks::scan_all_nodes::rule == combining::any);
  static_assert(hooks::has_capacity::rule == combining::all);
  static_assert(hooks::adjust_imbalance::rule == combining::at_most_one);
  static_assert(hooks::adjust_balancer_imbalance::rule == combining::at_most_one);
  static_assert(hooks::settle_preferred::rule == combining::at_most_one);
  static_assert(hooks::interleave_nodes::rule == combining::at_most_one);
  static_assert(hooks::narrow_from_faults::rule == combining::at_most_one);
  static_assert(hooks::arithmetic::rule == combining::at_most_one);
  static_assert(hooks::scan_pacing::rule == combining::at_most_one);
  static_assert(hooks::page_migration::rule == combining::at_most_one);
  static_assert(hooks::task_migration::rule == combining::at_most_one);
  static_assert(hooks::fork_placement::rule == combining::at_most_one);
  static_assert(boost::hana::length(hooks::table) == boost::hana::size_c<16>);
}

TEST_CASE("exactly_one: the one select_preferred answers") {
  CHECK(on_four_nodes<user_stack<always_node<2>>>([](const auto& pl) { return pl.preferred_node(nothing); }) == 2);
}

TEST_CASE("in_order: each provider refines the previous one's answer, in stack order") {
  using forwards = user_stack<always_node<1>, remap<1, 2>, remap<2, 3>>;
  using backwards = user_stack<always_node<1>, remap<2, 3>, remap<1, 2>>;
  CHECK(on_four_nodes<forwards>([](const auto& pl) { return pl.preferred_node(nothing); }) == 3);
  CHECK(on_four_nodes<backwards>([](const auto& pl) { return pl.preferred_node(nothing); }) == 2);
  CHECK(on_four_nodes<forwards>([](const auto& pl) { return pl.group_node(nothing, 1); }) == 3);
  CHECK(on_four_nodes<backwards>([](const auto& pl) { return pl.group_node(nothing, 1); }) == 2);
  // No provider: the value unchanged.
  CHECK(on_four_nodes<user_stack<always_node<1>>>([](const auto& pl) { return pl.group_node(nothing, 3); }) == 3);
  // refine_preferred is not asked when there is no node to refine.
  CHECK(on_four_nodes<user_stack<always_node<no_node>, remap<no_node, 0>>>(
            [](const auto& pl) { return pl.preferred_node(nothing); }) == no_node);
}

TEST_CASE("sum: every provider's count added, in the stack's arithmetic") {
  const std::vector<std::uint64_t> counts(8, 0);
  const fault_view f{counts, {}, 0};
  constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  CHECK(on_four_nodes<user_stack<always_node<0>, nearby_counts<5>, nearby_counts<7>>>(
            [&](const auto& pl) { return pl.score_nearby(f, 0, 20); }) == 12);
  CHECK(on_four_nodes<user_stack<always_node<0>>>([&](const auto& pl) { return pl.score_nearby(f, 0, 20); }) == 0);
  // Wraps as the kernel's ulong; saturates with overflow_safe.
  CHECK(on_four_nodes<user_stack<always_node<0>, nearby_counts<max>, nearby_counts<2>>>(
            [&](const auto& pl) { return pl.score_nearby(f, 0, 20); }) == 1);
  CHECK(on_four_nodes<user_stack<always_node<0>, nearby_counts<max>, nearby_counts<2>, overflow_safe>>(
            [&](const auto& pl) { return pl.score_nearby(f, 0, 20); }) == max);
}

TEST_CASE("any and all: one yes is enough, one no is enough; neither is asked further") {
  CHECK_FALSE(on_four_nodes<user_stack<always_node<0>>>([](const auto& pl) { return pl.scan_all_nodes(nothing); }));
  CHECK_FALSE(on_four_nodes<user_stack<always_node<0>, scans<false>, scans<false>>>(
      [](const auto& pl) { return pl.scan_all_nodes(nothing); }));
  CHECK(on_four_nodes<user_stack<always_node<0>, scans<false>, scans<true>>>(
      [](const auto& pl) { return pl.scan_all_nodes(nothing); }));

  const node_load load{};
  const auto asks = [&](auto stack_type) {
    using S = typename decltype(stack_type)::type;
    capacity_asked = 0;
    const bool ok = on_four_nodes<S>([&](const auto& pl) { return pl.has_capacity(load, load); });
    return std::pair{ok, capacity_asked};
  };
  CHECK(asks(boost::hana::type_c<user_stack<always_node<0>>>) == std::pair{true, 0});
  CHECK(asks(boost::hana::type_c<user_stack<always_node<0>, capacity<true>, capacity<true>>>) == std::pair{true, 2});
  CHECK(asks(boost::hana::type_c<user_stack<always_node<0>, capacity<false>, capacity<true>>>) == std::pair{false, 1});
}

TEST_CASE("at_most_one: the provider's answer, else the documented default") {
  const std::vector<std::uint64_t> memory{0, 1, 0, 9, 0, 0, 0, 0};
  const std::vector<std::uint64_t> cpu{0, 0, 0, 9, 0, 0, 0, 0};
  const decision_input grouped{{memory, {}, 10}, {memory, cpu, 10}};
  const migrate_outcome m{3, 0, 2, 1};  // preferred 3, ran on 0, looked at 2, moved to 1
  const imbalance_args a{6, 1, 3, 4, 2};
  const balancer_args b{6, 3, 4, 1, 2};

  using bare = user_stack<always_node<2>>;
  on_four_nodes<bare>([&](const auto& pl) {
    CHECK(pl.settle_preferred(grouped, m) == 3);  // no settling: the preferred node stays
    CHECK(pl.adjust_imbalance(a) == 6);           // no allowance
    CHECK(pl.adjust_balancer_imbalance(b) == 6);
    CHECK_FALSE(pl.has_imbalance_policy());
    CHECK_FALSE(pl.has_interleave_policy());
    static_assert(std::is_same_v<typename std::decay_t<decltype(pl)>::arithmetic, kernel_arithmetic>);
    std::array<bool, 4> out{true, true, true, true};
    pl.interleave_nodes(grouped, out);  // the preferred node alone
    CHECK(out == std::array<bool, 4>{false, false, true, false});
  });

  using provided = user_stack<always_node<2>, settle_on_source, halve_imbalance, interleave_everywhere, overflow_safe>;
  on_four_nodes<provided>([&](const auto& pl) {
    CHECK(pl.settle_preferred(grouped, m) == 0);
    CHECK(pl.adjust_imbalance(a) == 3);
    CHECK(pl.adjust_balancer_imbalance(b) == 3);
    CHECK(pl.has_imbalance_policy());
    CHECK(pl.has_interleave_policy());
    static_assert(std::is_same_v<typename std::decay_t<decltype(pl)>::arithmetic, saturating_arithmetic>);
    std::array<bool, 4> out{};
    pl.interleave_nodes(grouped, out);
    CHECK(out == std::array<bool, 4>{true, true, true, true});
  });
}

TEST_CASE("narrow_from_faults: the stack's one narrowing policy answers in one pass, else the maximum is narrowed") {
  // Group faults peak on node 1; the task's own on node 0.
  const std::array<std::uint64_t, 8> task_memory{5, 5, 1, 0, 0, 0, 0, 0};
  const std::array<std::uint64_t, 8> group_memory{1, 0, 4, 4, 2, 0, 0, 1};
  const std::array<std::uint64_t, 8> no_faults{};
  decision_input grouped;
  grouped.task = fault_view{task_memory, {}, 11};
  grouped.group = fault_view{group_memory, {}, 12};
  decision_input ungrouped;
  ungrouped.task = grouped.task;
  decision_input empty_group = grouped;
  empty_group.group = fault_view{no_faults, {}, 0};
  const auto decide = [](const decision_input& in) { return [&in](const auto& pl) { return pl.preferred_node(in); }; };

  using scoring = fault_scoring<preferred_rule::v5_18>;
  narrowed_in_one_pass = 0;
  CHECK(on_four_nodes<user_stack<scoring, one_pass_narrower>>(decide(grouped)) == 3);
  CHECK(narrowed_in_one_pass == 1);
  // Ungrouped tasks take their own maximum; the one pass is not asked.
  CHECK(on_four_nodes<user_stack<scoring, one_pass_narrower>>(decide(ungrouped)) == 0);
  CHECK(narrowed_in_one_pass == 1);
  // With a second choose_group_node provider the one pass would skip it: the maximum (node 1)
  // goes through both in order instead (2, then remap<2, 0>).
  CHECK(on_four_nodes<user_stack<scoring, one_pass_narrower, remap<2, 0>>>(decide(grouped)) == 0);
  CHECK(narrowed_in_one_pass == 1);
  // No narrowing policy: the group's maximum as it is; no faults, no node.
  CHECK(on_four_nodes<user_stack<scoring>>(decide(grouped)) == 1);
  CHECK(on_four_nodes<user_stack<scoring, remap<1, 2>>>(decide(grouped)) == 2);
  CHECK(on_four_nodes<user_stack<scoring>>(decide(empty_group)) == no_node);
}

TEST_CASE("the balancing loop's roles: the stack's own policy, else 6.1's") {
  using bare = user_stack<always_node<2>>;
  on_four_nodes<bare>([&](const auto& pl) {
    static_assert(std::is_same_v<std::decay_t<decltype(pl.scan_pacing())>, scan_pacing<scan_pacing_rule::v4_14>>);
    static_assert(std::is_same_v<std::decay_t<decltype(pl.page_migration())>, page_migration<page_migration_rule::v4_19>>);
    static_assert(std::is_same_v<std::decay_t<decltype(pl.task_migration())>, task_migration<task_migration_rule::v6_0>>);
    static_assert(std::is_same_v<std::decay_t<decltype(pl.fork_placement())>, fork_placement<fork_placement_rule::v6_0>>);
    CHECK(pl.task_migration().params.imbalance_pct == 108);
    CHECK(pl.task_migration().params.cpu_nodes_only);
  });
  using old = user_stack<always_node<2>, scan_pacing<scan_pacing_rule::v3_17>, page_migration<page_migration_rule::v3_15>,
                         kernel_numa_migration<3, 18>, fork_placement<fork_placement_rule::v3_8>>;
  on_four_nodes<old>([&](const auto& pl) {
    using Pl = std::decay_t<decltype(pl)>;
    static_assert(std::is_same_v<std::decay_t<decltype(pl.scan_pacing())>, scan_pacing<scan_pacing_rule::v3_17>>);
    static_assert(std::is_same_v<std::decay_t<decltype(pl.page_migration())>, page_migration<page_migration_rule::v3_15>>);
    static_assert(std::is_same_v<std::decay_t<decltype(pl.task_migration())>, kernel_numa_migration<3, 18>>);
    static_assert(std::is_same_v<std::decay_t<decltype(pl.fork_placement())>, fork_placement<fork_placement_rule::v3_8>>);
    static_assert(!hooks::provides<fault_scoring<>, hooks::task_migration, Pl>);
    // The policy the stack lists is the one handed back, with the kernel's parameters.
    CHECK(pl.task_migration().params.imbalance_pct == 112);
    CHECK_FALSE(pl.task_migration().params.cpu_nodes_only);
    CHECK(pl.scan_pacing().migrate_retry_jiffies(3200) == 200);  // v3.17: min(1 s, 3200 ms / 16)
  });
}

TEST_CASE("every named stack lists its whole balancing loop") {
  for_each_stack([&](std::string_view name, auto type) {
    using S = typename decltype(type)::type;
    INFO(name);
    with_placement<S>(four_nodes(), [&](const auto& pl) {
      using Pl = std::decay_t<decltype(pl)>;
      int roles = 0;
      pl.for_each_policy([&](const auto& p) {
        using P = std::decay_t<decltype(p)>;
        roles += hooks::provides<P, hooks::scan_pacing, Pl> + hooks::provides<P, hooks::page_migration, Pl> +
                 hooks::provides<P, hooks::task_migration, Pl> + hooks::provides<P, hooks::fork_placement, Pl>;
      });
      CHECK(roles == 4);
    });
  });
}

TEST_CASE("the detecting concept, and rules counted over the policies that take part") {
  with_placement<stacks::linux_modern>(presets::find("seed000-8node")->build(), [](const auto& pl) {
    using Pl = std::decay_t<decltype(pl)>;
    static_assert(hooks::provides<fault_scoring<>, hooks::select_preferred, Pl>);
    static_assert(!hooks::provides<fault_scoring<>, hooks::settle_preferred, Pl>);
    static_assert(hooks::provides<neighbour_weighting<>, hooks::score_nearby, Pl>);
    static_assert(hooks::provides<overflow_safe, hooks::arithmetic, Pl>);
  });
}

TEST_CASE("every named stack names its settling rule and keeps every rule, on every kind") {
  const std::array machines{generate::fully_connected(4), presets::find("amd-opteron-8node")->build(),
                            presets::find("seed000-8node")->build()};
  for_each_stack([&](std::string_view name, auto type) {
    using S = typename decltype(type)::type;
    for (const auto& t : machines) {
      INFO(name << " on " << t.node_count() << " nodes");
      // Building the placement checks every rule at compile time; count the settling rules.
      with_placement<S>(t, [&](const auto& pl) {
        using Pl = std::decay_t<decltype(pl)>;
        int settling = 0;
        pl.for_each_policy([&](const auto& p) {
          if constexpr (hooks::provides<std::decay_t<decltype(p)>, hooks::settle_preferred, Pl>) ++settling;
        });
        // numa/core (v17, Nov 2012) moved tasks by sched_rebalance_to(), before
        // task_numa_migrate() and its settling existed, and linux-3.8 moved none: they name none.
        const bool before_settling = name == "numa-core" || name == "numa-core-interleave" || name == "linux-3.8";
        CHECK(settling == (before_settling ? 0 : 1));
      });
    }
  });
}

TEST_CASE("extend, replace and with_era: the expected policy lists") {
  static_assert(std::is_same_v<extend<user_stack<always_node<0>>, scans<true>, capacity<true>>,
                               user_stack<always_node<0>, scans<true>, capacity<true>>>);
  static_assert(std::is_same_v<extend<stacks::linux_modern>, stacks::linux_modern>);
  static_assert(std::is_same_v<stacks::linux_modern_safe,
                               stack<kernel_era::modern, fault_scoring<preferred_rule::v5_18>,
                                     neighbour_weighting<nearby_rule::v5_18>, group_preferred_pull<group_rule::v5_18>,
                                     imbalance_adjustment<imbalance_rule::v5_19>,
                                     preferred_settling<settle_rule::v4_19>, scan_pacing<scan_pacing_rule::v4_14>,
                                     page_migration<page_migration_rule::v4_19>, kernel_numa_migration<6, 1>,
                                     fork_placement<fork_placement_rule::v6_0>, overflow_safe>>);
  static_assert(std::is_same_v<stacks::shared_interleave, extend<stacks::linux_modern, shared_interleave>>);

  // Swapped in place, the era kept: linux-5.10 with 5.9's imbalance rule and task_numa_migrate
  // is linux-5.9.
  static_assert(std::is_same_v<replace<replace<stacks::linux_5_10, imbalance_adjustment<imbalance_rule::v5_10>,
                                               imbalance_adjustment<imbalance_rule::v5_7>>,
                                       kernel_numa_migration<5, 10>, kernel_numa_migration<5, 9>>,
                               stacks::linux_5_9>);
  static_assert(std::is_same_v<replace<user_stack<remap<1, 2>, scans<true>, remap<1, 2>>, remap<1, 2>, scans<false>>,
                               user_stack<scans<false>, scans<true>, scans<false>>>);  // every occurrence
  static_assert(stack_lists<stacks::linux_modern, preferred_settling<settle_rule::v4_19>>);
  static_assert(!stack_lists<stacks::linux_modern, overflow_safe>);

  using old_classification = with_era<stacks::linux_modern, kernel_era::v3_19>;
  static_assert(old_classification::era == kernel_era::v3_19);
  static_assert(std::is_same_v<with_era<old_classification, kernel_era::modern>, stacks::linux_modern>);
}

TEST_CASE("with_named_placement: with_stack and with_placement in one call") {
  node_index chosen = no_node;
  const std::vector<std::uint64_t> faults{0, 1, 0, 8, 0, 2, 0, 0};
  const decision_input task{{faults, {}, 11}, {}};
  CHECK(with_named_placement("linux-modern", four_nodes(), [&](const auto& pl) { chosen = pl.preferred_node(task); }));
  CHECK(chosen == 1);
  CHECK_FALSE(with_named_placement("linux-9.99", four_nodes(), [&](const auto&) { chosen = 0; }));
  CHECK(chosen == 1);
}
