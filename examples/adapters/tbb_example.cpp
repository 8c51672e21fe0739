// oneTBB placed by numaplace: one task_arena per node (tbb_node_arenas), parallel work
// executed in each node's arena, tasks enqueued to each, and a group's work routed to the
// node its faults prefer. Every piece of work reports where it ran (getcpu); the calling
// thread must get its own CPUs back.
//
//   numaplace-tbb-example [--items I] [--node-cpus LIST]...
#include <numaplace/adapters/tbb_arenas.hpp>
#include <numaplace/linux/affinity.hpp>
#include <numaplace/linux/usable_machine.hpp>
#include <numaplace/stacks.hpp>
#include <numaplace/stats/fault_stats.hpp>

#include "example_machine.hpp"

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>

#include <cstddef>
#include <exception>
#include <iostream>
#include <latch>
#include <mutex>
#include <new>
#include <sstream>
#include <string>
#include <vector>

namespace {

// "ran WHAT on cpu C node K want node N", one line per piece of work, from any thread.
class run_log {
 public:
  void ran(const std::string& what, numaplace::node_index want) {
    const auto here = numaplace::os::current_cpu_and_node();
    std::ostringstream line;
    line << "ran " << what << " on cpu " << here.cpu << " node " << here.node << " want node " << want;
    const std::lock_guard lock(mutex_);
    lines_.push_back(line.str());
  }
  const std::vector<std::string>& lines() const { return lines_; }

 private:
  std::mutex mutex_;
  std::vector<std::string> lines_;
};

void run(const adapter_example::machine& m, unsigned items) {
  const std::vector<unsigned> caller_before = numaplace::os::calling_thread_affinity();

  numaplace::adapters::tbb_node_arenas arenas(m.topology, m.cpus);
  run_log log;
  std::size_t expected = 0;
  std::vector<numaplace::node_index> with_arena;
  for (numaplace::node_index n = 0; n < arenas.node_count(); ++n) {
    if (!arenas.has_arena(n)) continue;
    with_arena.push_back(n);
    std::cout << "arena for node " << n << ": " << arenas.arena(n).max_concurrency() << " slots\n";
  }

  // Parallel work in each node's arena; the calling thread joins in, pinned there meanwhile.
  for (const numaplace::node_index n : with_arena) {
    arenas.execute(n, [&] {
      tbb::parallel_for(0u, items, [&](unsigned i) {
        log.ran("node-" + std::to_string(n) + "-item-" + std::to_string(i), n);
      });
    });
    expected += items;
  }

  // Fire-and-forget tasks, enqueued to each arena; TBB's workers run them.
  std::latch done(static_cast<std::ptrdiff_t>(with_arena.size() * 2));
  for (const numaplace::node_index n : with_arena) {
    for (int t = 0; t < 2; ++t) {
      arenas.enqueue(n, [&, n, t] {
        log.ran("enqueued-" + std::to_string(n) + "-" + std::to_string(t), n);
        done.count_down();
      });
    }
    expected += 2;
  }
  done.wait();

  // A group whose memory faults are all on the last node: its work goes to that node's arena.
  const numaplace::node_index home = with_arena.back();
  numaplace::with_placement<numaplace::stacks::linux_modern>(m.topology, [&](const auto& pl) {
    numaplace::fault_stats group(m.topology.node_count());
    group.record(home, with_arena.front(), numaplace::access::private_access, 512);
    group.end_window(40'000'000, 100'000'000);
    std::cout << "group with its faults on node " << home << ": preferred node "
              << numaplace::adapters::preferred_node_or(pl, group, with_arena.front()) << '\n';
    arenas.execute(pl, group, with_arena.front(), [&] { log.ran("group-work", home); });
  });
  expected += 1;

  for (const auto& line : log.lines()) std::cout << line << '\n';
  std::cout << "caller cpus before " << numaplace::format_cpulist(caller_before) << " after "
            << numaplace::format_cpulist(numaplace::os::calling_thread_affinity()) << '\n';
  std::cout << "pinning failures " << arenas.pinning_failures() << '\n';
  if (arenas.pinning_failures() != 0) std::cerr << "first: " << arenas.first_pinning_failure() << '\n';
  std::cout << "expect runs " << expected << '\n';
}

}  // namespace

int main(int argc, char** argv) try {
  // Held until the end, then finalize: TBB's workers are joined before the process exits, so
  // that nothing they still hold (an observer's proxy) is left behind (LeakSanitizer sees it).
  tbb::task_scheduler_handle scheduler{tbb::attach{}};
  std::vector<std::string> args(argv + 1, argv + argc);
  const adapter_example::machine m = adapter_example::read_machine(args);
  adapter_example::print_machine(m);
  run(m, adapter_example::unsigned_option(args, "--items", 8));
  if (!tbb::finalize(scheduler, std::nothrow)) std::cerr << "numaplace-tbb-example: TBB's workers did not finish\n";
  return 0;
} catch (const std::exception& e) {
  std::cerr << "numaplace-tbb-example: " << e.what() << '\n';
  return 1;
}
