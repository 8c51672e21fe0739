// Your own stack in the simulator: linux-modern with its page migration rule swapped for
// v3.8's two-fault filter, run through run_experiment next to the named linux-modern on a small
// machine (seed 001's 4 nodes), ten seeded runs each. Prints one row per stack.
//
// A stack is any numaplace::stack (docs/placement.md: "Writing a policy"); user_stacks gives it a name an
// experiment's stack list can use, beside the named stacks and the baselines.

#include <cstdio>

#include <numaplace/sim/experiment.hpp>
#include <numaplace/sim/workload.hpp>
#include <numaplace/topology/presets.hpp>

namespace np = numaplace;

// linux-modern, except that a page moves on its second fault from a node (v3.8's filter)
// rather than as v4.19's rule decides.
using modern_v38_migration = np::replace<np::stacks::linux_modern, np::page_migration<np::page_migration_rule::v4_19>,
                                         np::page_migration<np::page_migration_rule::v3_8>>;

int main() {
  np::sim::experiment e{"user-stack", np::presets::find("seed001-4node")->build(),
                        np::sim::workloads::specjbb(2, 6, 3.0, 4), {}, {},
                        {"linux-modern", "modern-v3.8-migration"}, 10, 1};
  np::sim::user_stacks mine;
  mine.add<modern_v38_migration>("modern-v3.8-migration");

  std::printf("%-24s %14s %14s %16s\n", "stack", "throughput", "local share", "page migrations");
  for (const auto& s : np::sim::run_experiment(e, mine)) {
    double throughput = 0, local = 0, pages = 0;
    for (const auto& r : s.runs) {
      throughput += r.total_throughput();
      for (const auto& g : r.groups) {
        local += g.local_fraction / static_cast<double>(r.groups.size());
        pages += static_cast<double>(g.page_migrations);
      }
    }
    const auto n = static_cast<double>(s.runs.size());
    std::printf("%-24s %14.0f %14.3f %16.0f\n", s.stack.c_str(), throughput / n, local / n, pages / n);
  }
}
