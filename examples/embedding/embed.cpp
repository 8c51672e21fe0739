#include <numaplace/numaplace.hpp>
#include <numaplace/owned_placement.hpp>
#include <numaplace/policy/concentric_spread.hpp>  // circles()
#include <numaplace/stats/fault_stats.hpp>

#include <iostream>
#include <thread>
#include <vector>

// A runtime's scheduler keeps its placement as a member: built once from the machine, copyable,
// and asked from any thread (decisions are const, noexcept and allocation-free).
class scheduler {
 public:
  explicit scheduler(numaplace::dynamic_topology machine) : placement_(std::move(machine)) {}

  // Where a task group should run, from its fault statistics (task_numa_placement's answer).
  numaplace::node_index home_of(const numaplace::fault_stats& group) const noexcept {
    return placement_.preferred_node({group.view(), group.view()});
  }

  // Work stealing: an idle worker on `home` tries its own node, then circle by circle.
  void print_steal_order(numaplace::node_index home) const {
    for (const numaplace::circle c : numaplace::circles(placement_.topology(), home)) {
      std::cout << "  then at distance " << c.distance << ':';
      for (const numaplace::node_index n : c.nodes) std::cout << ' ' << n;
      std::cout << '\n';
    }
  }

  std::size_t node_count() const noexcept { return placement_.node_count(); }

 private:
  numaplace::owned_placement<numaplace::stacks::linux_modern> placement_;
};

int main() {
  // The machine, read once (in a runtime: numaplace::os::usable_machine, or load::sysfs()).
  const scheduler sched{numaplace::dynamic_topology(numaplace::presets::seed000_8node)};

  // One task group (a numa_group: tasks that share memory) and its fault statistics.
  numaplace::fault_stats group(sched.node_count());

  // Workers record what they saw, from any thread, without locks: a worker running on node 3
  // found 96 of the group's pages on node 2 and 8 on node 5 (e.g. by move_pages(2) queries).
  std::vector<std::thread> workers;
  for (int w = 0; w < 4; ++w) {
    workers.emplace_back([&group] {
      group.record(/*mem_node=*/2, /*cpu_node=*/3, numaplace::access::shared, 96);
      group.record(/*mem_node=*/5, /*cpu_node=*/3, numaplace::access::shared, 8);
    });
  }
  for (auto& w : workers) w.join();

  // Once per scan window, from one thread: fold the window into the decayed counts
  // (the group's CPU time and the window's length in nanoseconds), then decide.
  group.end_window(/*runtime_ns=*/40'000'000, /*period_ns=*/100'000'000);
  const numaplace::node_index home = sched.home_of(group);
  std::cout << "run the group on node " << home << '\n';  // 2
  sched.print_steal_order(home);
  return home == 2 ? 0 : 1;
}
