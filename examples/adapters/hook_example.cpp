// A worker-start hook on a plain std::thread pool: each worker calls hook(i) as it starts and
// is pinned to a node, workers spread over the nodes circle by circle from --start (node 0 by
// default), or all on --node N. Each worker then reports where it runs (getcpu).
//
//   numaplace-hook-example [--workers W] [--start S | --node N] [--node-cpus LIST]...
#include <numaplace/adapters/node_pinning_hook.hpp>
#include <numaplace/linux/affinity.hpp>

#include "example_machine.hpp"

#include <cstddef>
#include <exception>
#include <functional>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

int main(int argc, char** argv) try {
  std::vector<std::string> args(argv + 1, argv + argc);
  const adapter_example::machine m = adapter_example::read_machine(args);
  adapter_example::print_machine(m);
  const unsigned workers = adapter_example::unsigned_option(args, "--workers", 4);
  const unsigned start = adapter_example::unsigned_option(args, "--start", 0);
  const unsigned one_node = adapter_example::unsigned_option(args, "--node", ~0u);

  using numaplace::adapters::node_pinning_hook;
  const node_pinning_hook hook = one_node == ~0u ? node_pinning_hook::spread(m.topology, m.cpus, start)
                                                 : node_pinning_hook::one_node(m.topology, m.cpus, one_node);
  // What a pool keeps: a start callback it calls on each worker's thread.
  const std::function<void(std::size_t)> on_worker_start = hook;

  std::mutex out;
  std::vector<std::thread> pool;
  for (std::size_t w = 0; w < workers; ++w) {
    pool.emplace_back([&, w] {
      on_worker_start(w);
      const auto here = numaplace::os::current_cpu_and_node();
      const std::lock_guard lock(out);
      std::cout << "ran worker-" << w << " on cpu " << here.cpu << " node " << here.node << " want node "
                << hook.node_for(w) << '\n';
    });
  }
  for (auto& t : pool) t.join();

  unsigned failures = 0;
  for (std::size_t w = 0; w < workers; ++w) {
    const auto pin = hook.pin_of(w);
    if (!pin || !pin->error.empty()) {
      ++failures;
      std::cerr << "worker " << w << ": " << (pin ? pin->error : std::string("never started")) << '\n';
    }
  }
  std::cout << "pinning failures " << failures << '\n' << "expect runs " << workers << '\n';
  return 0;
} catch (const std::exception& e) {
  std::cerr << "numaplace-hook-example: " << e.what() << '\n';
  return 1;
}
