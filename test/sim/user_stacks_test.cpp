// A user's own stack in run_experiment: the same stack type under another name gives the named
// stack's results to the bit; a stack with one policy changed gives others; names are checked.

#include <numaplace/sim/user_stacks.hpp>
#include <numaplace/topology/presets.hpp>

#include "sim_support.hpp"

using namespace sim_test;

namespace {

experiment small(std::vector<std::string> stacks) {
  return {"user-stacks", presets::find("seed001-4node")->build(), workloads::specjbb(2, 6, 3.0, 4), {}, {},
          std::move(stacks), 3, 7};
}

using modern_v38_migration =
    replace<stacks::linux_modern, page_migration<page_migration_rule::v4_19>, page_migration<page_migration_rule::v3_8>>;

}  // namespace

TEST_CASE("a named stack's type under another name runs exactly as the named stack") {
  user_stacks mine;
  mine.add<stacks::linux_modern>("my-modern");
  const auto results = run_experiment(small({"linux-modern", "my-modern"}), mine, 2);
  REQUIRE(results.size() == 2);
  CHECK(results[1].stack == "my-modern");
  REQUIRE(results[0].runs.size() == 3);
  REQUIRE(results[1].runs.size() == 3);
  for (std::size_t r = 0; r < 3; ++r) {
    INFO("run " << r);
    CHECK(first_difference(results[0].runs[r], results[1].runs[r]) == "");
  }
}

TEST_CASE("a user stack with another policy gives other results") {
  user_stacks mine;
  mine.add<modern_v38_migration>("modern-v3.8-migration");
  const auto results = run_experiment(small({"linux-modern", "modern-v3.8-migration"}), mine, 2);
  REQUIRE(results.size() == 2);
  std::size_t differing = 0;
  for (std::size_t r = 0; r < 3; ++r) differing += first_difference(results[0].runs[r], results[1].runs[r]) != "";
  CHECK(differing == 3);
}

TEST_CASE("a user stack is the baselines' kernel when it is the experiment's first stack") {
  // numa-core's fork placement and era, not the default linux-modern's, under no-balancing.
  user_stacks mine;
  mine.add<stacks::numa_core>("mine");
  const auto results = run_experiment(small({"mine", "no-balancing"}), mine, 1);
  run_options o;
  o.seed = 7;
  o.mode = balancing::none;
  const auto t = presets::find("seed001-4node")->build();
  const auto w = workloads::specjbb(2, 6, 3.0, 4);
  CHECK(first_difference(results[1].runs[0], run_engine<stacks::numa_core>(t, w, o)) == "");
  CHECK(first_difference(results[1].runs[0], run_engine<stacks::linux_modern>(t, w, o)) != "");
}

TEST_CASE("user stack names: taken names and unknown stacks are refused, by name") {
  user_stacks mine;
  CHECK_THROWS_WITH_AS(mine.add<stacks::vanilla>("linux-modern"), "stack name 'linux-modern' is taken",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(mine.add<stacks::vanilla>("no-balancing"), "stack name 'no-balancing' is taken",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(mine.add<stacks::vanilla>(""), "a user stack needs a name", std::invalid_argument);
  mine.add<stacks::vanilla>("old");
  CHECK_THROWS_WITH_AS(mine.add<stacks::numa_core>("old"), "stack name 'old' is taken", std::invalid_argument);
  CHECK(mine.names() == std::vector<std::string>{"old"});
  // Without the set, a user stack's name is unknown.
  CHECK_THROWS_WITH_AS(run_experiment(small({"old"})), "unknown stack 'old'", std::invalid_argument);
}
