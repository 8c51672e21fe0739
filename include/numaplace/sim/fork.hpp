#pragma once
// Where a new task starts. With NUMA balancing, the stack's fork placement chooses the node
// (find_idlest_group's NUMA level, from the parent's node); the baselines without it spread by
// load as find_idlest_group did before v5.5 (fork_placement_rule::v3_8). Inside the node an idle core is
// taken first, then an idle CPU, then the least loaded: the levels below NUMA (MC, SMT), which
// no kernel era changed in a way the model can see.

#include <cstdint>
#include <stdexcept>

#include "../policy/fork_placement.hpp"
#include "../policy/task_migration.hpp"
#include "machine.hpp"
#include "world.hpp"

namespace numaplace::sim {

namespace detail {

/// The NUMA domain's sd->imbalance_pct as task_numa_migrate halves it (100 + (pct - 100) / 2):
/// 125 for 112, 117 for 108.
constexpr unsigned domain_imbalance_pct(unsigned migrate_pct) noexcept { return 100 + 2 * (migrate_pct - 100); }

template <class Fork>
cpu_index place_with(world& s, const Fork& fork, std::uint32_t p, node_index parent, unsigned imbalance_pct) {
  machine& m = s.m;
  fork_args a;
  a.parent = parent;
  a.imbalance_pct = imbalance_pct;
  a.imb_numa_nr = static_cast<unsigned>(m.imb_numa_nr(parent));
  const machine_view_of view(m);
  const node_index node = fork.find_idlest_node(view, a, [&](node_index n) { return m.allowed(p, n); });
  if (node == no_node) throw std::invalid_argument("process " + s.w.processes[p].name + " may run on no CPU");
  if (const cpu_index idle = m.idle_cpu(node); idle != no_cpu) return idle;
  return find_idlest_group_cpu(view, node);
}

}  // namespace detail

/// A CPU of `node` for a new task bound to it alone: an idle one (an idle core first), else
/// the idlest.
inline cpu_index place_on_node(world& s, node_index node) {
  if (const cpu_index idle = s.m.idle_cpu(node); idle != no_cpu) return idle;
  return find_idlest_group_cpu(machine_view_of(s.m), node);
}

template <class Placement>
cpu_index place_new_task(world& s, const Placement& pl, std::uint32_t p, node_index parent) {
  if constexpr (balances_numa<Placement>) {
    unsigned pct = 125;  // sd_init's default before v5.10
    if constexpr (requires { pl.task_migration().params.imbalance_pct; }) {
      pct = detail::domain_imbalance_pct(pl.task_migration().params.imbalance_pct);
    }
    return detail::place_with(s, pl.fork_placement(), p, parent, pct);
  } else {
    return detail::place_with(s, fork_placement<fork_placement_rule::v3_8>{}, p, parent, 125);
  }
}

}  // namespace numaplace::sim
