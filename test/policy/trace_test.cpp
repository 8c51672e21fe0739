// Decision traces (policy/trace.hpp): a traced placement decides as the untraced one does, and
// the steps its policies record end on the node it chose; adjust_numa_imbalance() records the
// tests it made with their true values.
#include <doctest/doctest.h>

#include <numaplace/stacks.hpp>
#include <numaplace/topology/generators.hpp>
#include <numaplace/topology/presets.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

using namespace numaplace;

namespace {

// The node the last step that names one names (a narrowed group by its first node, the one the
// kernel keeps), or nothing.
std::optional<node_index> last_named_node(std::span<const decision_step> trace) {
  std::optional<node_index> node;
  for (const decision_step& step : trace) {
    if (const auto* s = std::get_if<steps::fault_maximum>(&step)) node = s->node;
    if (const auto* s = std::get_if<steps::nearest_cpu_node>(&step)) node = s->node;
    if (const auto* s = std::get_if<steps::group_weight>(&step)) node = s->node;
    if (const auto* s = std::get_if<steps::combined_weight>(&step)) node = s->node;
    if (const auto* s = std::get_if<steps::narrowed>(&step)) node = s->nodes.empty() ? no_node : s->nodes.front();
  }
  return node;
}

bool says_no_answer(std::span<const decision_step> trace) {
  for (const decision_step& step : trace) {
    if (std::holds_alternative<steps::places_no_task>(step) || std::holds_alternative<steps::gated_on_task_faults>(step))
      return true;
    if (const auto* s = std::get_if<steps::fault_maximum>(&step); s != nullptr && s->node == no_node) return true;
  }
  return false;
}

// Random faults: most nodes empty, some counts large, now and then none at all.
std::vector<std::uint64_t> random_memory(std::mt19937_64& rng, std::size_t nodes) {
  std::vector<std::uint64_t> memory(2 * nodes, 0);
  if (rng() % 8 == 0) return memory;
  for (auto& m : memory) {
    if (rng() % 3 == 0) m = rng() % 1000;
  }
  return memory;
}

std::uint64_t sum(const std::vector<std::uint64_t>& v) {
  std::uint64_t s = 0;
  for (const std::uint64_t x : v) s += x;
  return s;
}

}  // namespace

TEST_CASE("every named stack decides alike traced and untraced, and its trace ends on its answer") {
  const std::array machines{generate::fully_connected(4), presets::find("amd-opteron-8node")->build(),
                            presets::find("seed000-8node")->build(), presets::find("ibm-power9-gpu")->build(),
                            generate::ring(8, 6)};
  std::mt19937_64 rng(20261207);
  int decisions = 0, answered = 0, narrowed = 0;
  for (const auto& machine : machines) {
    for (int round = 0; round < 60; ++round) {
      const std::vector<std::uint64_t> task = random_memory(rng, machine.node_count());
      const std::vector<std::uint64_t> group = random_memory(rng, machine.node_count());
      const bool grouped = rng() % 3 != 0;
      decision_input in;
      in.task = fault_view{task, {}, sum(task)};
      if (grouped) in.group = fault_view{group, {}, sum(group)};
      for_each_stack([&](std::string_view name, auto type) {
        using Stack = typename decltype(type)::type;
        CAPTURE(name);
        CAPTURE(machine.node_count());
        const node_index untraced = with_placement<Stack>(machine, [&](const auto& pl) { return pl.preferred_node(in); });
        decision_trace trace;
        const node_index traced =
            with_traced_placement<Stack>(machine, trace, [&](const auto& pl) { return pl.preferred_node(in); });
        CHECK(traced == untraced);
        ++decisions;
        if (traced == no_node) {
          CHECK(says_no_answer(trace.steps()));
        } else {
          ++answered;
          CHECK(last_named_node(trace.steps()) == traced);
        }
        for (const decision_step& step : trace.steps()) narrowed += std::holds_alternative<steps::narrowed>(step);
      });
    }
  }
  // The draws reach every branch the check is about.
  CHECK(answered > decisions / 2);
  CHECK(answered < decisions);
  CHECK(narrowed > 0);
}

TEST_CASE("the backplane narrowing records each level: the group, its distance, its faults of the level above") {
  // seed 000's quads: group faults 100 on node 0, and 60, 20, 70, 90 on nodes 4 to 7.
  const auto machine = presets::find("seed000-8node")->build();
  const std::vector<std::uint64_t> task{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  const std::vector<std::uint64_t> group{0, 100, 0, 0, 0, 0, 0, 0, 0, 60, 0, 20, 0, 70, 0, 90};
  decision_input in;
  in.task = fault_view{task, {}, 1};
  in.group = fault_view{group, {}, 340};
  decision_trace trace;
  const node_index nid =
      with_traced_placement<stacks::linux_modern>(machine, trace, [&](const auto& pl) { return pl.preferred_node(in); });
  CHECK(nid == 7);
  std::vector<steps::narrowed> levels;
  for (const decision_step& step : trace.steps()) {
    if (const auto* s = std::get_if<steps::narrowed>(&step)) levels.push_back(*s);
  }
  REQUIRE(levels.size() == 3);
  CHECK(levels[0].nodes == std::vector<node_index>{4, 5, 6, 7});
  CHECK(levels[0].distance == 19);
  CHECK(levels[0].faults == 240);
  CHECK(levels[0].of == 340);
  CHECK(levels[1].nodes == std::vector<node_index>{6, 7});
  CHECK(levels[1].distance == 17);
  CHECK(levels[1].faults == 160);
  CHECK(levels[1].of == 240);
  CHECK(levels[2].nodes == std::vector<node_index>{7});
  CHECK(levels[2].distance == 12);
  CHECK(levels[2].faults == 90);
  CHECK(levels[2].of == 160);
}

TEST_CASE("adjust_numa_imbalance records its tests with their true values, and the answer it gives untraced") {
  std::mt19937_64 rng(7);
  const auto holds = [](const steps::comparison& c) {
    const std::string_view r = c.relation;
    if (r == "<") return c.left_value < c.right_value;
    if (r == "<=") return c.left_value <= c.right_value;
    if (r == ">") return c.left_value > c.right_value;
    return c.left_value >= c.right_value;
  };
  const auto check_rule = [&](auto policy, std::size_t most_tests) {
    for (int i = 0; i < 500; ++i) {
      imbalance_args a;
      a.imbalance = static_cast<long>(rng() % 6);
      a.src_running = static_cast<int>(rng() % 6);
      a.dst_running = static_cast<int>(rng() % 6);
      a.dst_weight = static_cast<int>(rng() % 24);
      a.imb_numa_nr = static_cast<int>(rng() % 6);
      decision_trace trace;
      const long traced = policy.adjust_imbalance(a, trace);
      CHECK(traced == policy.adjust_imbalance(a));
      std::size_t tests = 0;
      bool all_held = true;
      for (const decision_step& step : trace.steps()) {
        if (const auto* c = std::get_if<steps::comparison>(&step)) {
          ++tests;
          CHECK(c->holds == holds(*c));
          all_held = all_held && c->holds;
        }
      }
      CHECK(tests <= most_tests);
      // Forgiven exactly when some test was made and every one held.
      CHECK((traced == 0 && a.imbalance != 0) == (tests > 0 && all_held && a.imbalance != 0));
      const auto* outcome = std::get_if<steps::imbalance_outcome>(&trace.steps().back());
      REQUIRE(outcome != nullptr);
      CHECK(outcome->imbalance == a.imbalance);
      CHECK(outcome->result == traced);
    }
  };
  check_rule(imbalance_adjustment<imbalance_rule::v5_5>{}, 0);
  check_rule(imbalance_adjustment<imbalance_rule::v5_7>{}, 1);
  check_rule(imbalance_adjustment<imbalance_rule::v5_10>{}, 1);
  check_rule(imbalance_adjustment<imbalance_rule::v5_11>{}, 2);
  check_rule(imbalance_adjustment<imbalance_rule::v5_18>{}, 2);
  check_rule(imbalance_adjustment<imbalance_rule::v5_19>{}, 2);
}

TEST_CASE("a traced placement's imbalance hook records through the stack's rule") {
  decision_trace trace;
  imbalance_args a;
  a.imbalance = 2;
  a.dst_running = 1;
  a.imb_numa_nr = 4;
  const long result = with_traced_placement<stacks::linux_modern>(
      generate::fully_connected(2), trace, [&](const auto& pl) { return pl.adjust_imbalance(a); });
  CHECK(result == 0);
  REQUIRE(trace.steps().size() == 3);  // dst_running <= imb_numa_nr, imbalance <= 2, the outcome
  CHECK(std::string_view(std::get<steps::comparison>(trace.steps()[0]).right) == "imb_numa_nr");
}
