#include <numaplace/numaplace.hpp>
#include <numaplace/policy/concentric_spread.hpp>  // circles()
#include <numaplace/stats/fault_stats.hpp>

#include <iostream>
#include <thread>
#include <vector>

int main() {
  // The machine, read once (in a runtime: numaplace::load::sysfs() reads this machine's).
  const numaplace::dynamic_topology machine(numaplace::presets::seed000_8node);

  // The placement is built once, for the stack chosen at compile time; its decisions are const,
  // noexcept and allocation-free, so every worker may share it.
  return numaplace::with_placement<numaplace::stacks::linux_modern>(machine, [&](const auto& pl) {
    // One task group (a numa_group: tasks that share memory) and its fault statistics.
    numaplace::fault_stats group(machine.node_count());

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
    const numaplace::decision_input in{group.view(), group.view()};
    const numaplace::node_index home = pl.preferred_node(in);
    std::cout << "run the group on node " << home << '\n';  // 2

    // Work stealing: an idle worker on `home` tries its own node, then circle by circle.
    for (const numaplace::circle c : numaplace::circles(pl.topology(), home)) {
      std::cout << "  then at distance " << c.distance << ':';
      for (const numaplace::node_index n : c.nodes) std::cout << ' ' << n;
      std::cout << '\n';
    }
    return home == 2 ? 0 : 1;
  });
}
