// The worker-start hook's choice of node per worker, and its record of what it did.
#include <doctest/doctest.h>

#include <numaplace/adapters/node_pinning_hook.hpp>
#include <numaplace/linux/affinity.hpp>
#include <numaplace/linux/usable_machine.hpp>
#include <numaplace/topology/presets.hpp>

#include <functional>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace numaplace;
using adapters::node_cpu_lists;
using adapters::node_pinning_hook;

namespace {
dynamic_topology preset(const char* name) { return presets::find(name)->build(); }
}  // namespace

TEST_CASE("spread deals workers to the nodes circle by circle, round-robin") {
  const dynamic_topology t = preset("seed000-8node");
  const auto hook = node_pinning_hook::spread(t, adapters::cpus_by_node(t), 5);
  CHECK(hook.nodes() == std::vector<node_index>{5, 4, 6, 7, 0, 1, 2, 3});
  CHECK(hook.node_for(0) == 5);
  CHECK(hook.node_for(1) == 4);
  CHECK(hook.node_for(7) == 3);
  CHECK(hook.node_for(8) == 5);
}

TEST_CASE("nodes without usable CPUs get no workers") {
  const dynamic_topology t = preset("ibm-power9-gpu");
  const auto spread = node_pinning_hook::spread(t, adapters::cpus_by_node(t), 4);
  CHECK(spread.nodes() == std::vector<node_index>{0, 1});
  // A group preferring GPU-memory node 4 (index) runs on the nearest node with CPUs.
  CHECK(node_pinning_hook::one_node(t, adapters::cpus_by_node(t), 4).nodes() == std::vector<node_index>{0});
  CHECK(node_pinning_hook::one_node(t, adapters::cpus_by_node(t), 1).node_for(3) == 1);
}

TEST_CASE("the hook pins the calling thread and records it; copies share the record") {
  const auto usable = os::usable_machine::this_process();
  const node_cpu_lists cpus = adapters::cpus_by_node(usable);
  const auto hook = node_pinning_hook::spread(usable, usable.usable_nodes().front());
  const std::function<void(std::size_t)> copy = hook;
  CHECK_FALSE(hook.pin_of(0).has_value());
  std::thread([&] {
    copy(0);
    CHECK(std::find(cpus[hook.node_for(0)].begin(), cpus[hook.node_for(0)].end(), os::current_cpu()) !=
          cpus[hook.node_for(0)].end());
  }).join();
  REQUIRE(hook.pin_of(0).has_value());
  CHECK(hook.pin_of(0)->node == hook.node_for(0));
  CHECK(hook.pin_of(0)->error.empty());
  CHECK_FALSE(hook.pin_of(1).has_value());
}

TEST_CASE("a CPU that does not exist is a recorded failure, not an exception") {
  const dynamic_topology t = generate::fully_connected(1);
  const auto hook = node_pinning_hook::spread(t, node_cpu_lists{{65000}}, 0);
  std::thread([&] { hook(0); }).join();
  REQUIRE(hook.pin_of(0).has_value());
  CHECK(hook.pin_of(0)->error.find("sched_setaffinity(this thread, cpus 65000)") == 0);
}

TEST_CASE("bad input names what was wrong") {
  const dynamic_topology t = preset("seed000-8node");
  CHECK_THROWS_WITH_AS(node_pinning_hook::spread(t, node_cpu_lists(8), 0), "node_pinning_hook: no node has a usable CPU",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(node_pinning_hook::spread(t, node_cpu_lists(2), 0), "node_pinning_hook: 2 CPU lists for 8 nodes",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(node_pinning_hook::one_node(t, adapters::cpus_by_node(t), 9),
                       "circle_order: start node index 9 is not in the 8-node topology", std::invalid_argument);
}
