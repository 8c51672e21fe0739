#pragma once
// One run's whole state: the machine, its memory, the workload, the clock and the random
// stream (random.hpp: Boost.Random, header-only). The engine owns it; the components
// (numa_scan, numa_migrate, fork, load_balance, report) each take it by reference, so each file
// holds one responsibility and none holds another's state.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "../topology/dynamic_topology.hpp"
#include "cost_model.hpp"
#include "machine_costs.hpp"
#include "machine.hpp"
#include "memory.hpp"
#include "memory_tiering.hpp"
#include "random.hpp"
#include "workload.hpp"

namespace numaplace::sim {

/// How a run balances: a placement stack, no NUMA balancing (first touch, load balancing
/// only), hard binding (each process's CPUs and memory where its bind_nodes, or cpu_nodes and
/// memory_nodes, say, as numactl would), or inverse binding (CPUs so bound, memory on the nodes
/// farthest from them: the worst case).
enum class balancing : std::uint8_t { numa, none, hard_binding, inverse_binding };

/// Which CPU scheduler the simulated kernel has: CFS's over scheduling domains (SMT, MC, NUMA
/// levels; load_balance.hpp), or the O(1) scheduler's before them, which sees every CPU as
/// equal (o1_scheduler.hpp; the `linux-2.5` baseline).
enum class cpu_scheduler : std::uint8_t { sched_domains, o1 };

/// Whether runs in mode `m` bind each process's CPUs (process_spec::bound_cpu_nodes).
constexpr bool binds_cpus(balancing m) noexcept {
  return m == balancing::hard_binding || m == balancing::inverse_binding;
}

/// The machine's CPU layout: SMT as its measured costs state it, else as `options` do.
inline machine_options machine_of(machine_options options, const std::optional<machine_costs>& hardware) {
  if (hardware && hardware->threads_per_core != 0) options.threads_per_core = hardware->threads_per_core;
  return options;
}

struct run_options {
  std::uint64_t seed = 1;
  cost_model costs{};
  machine_options machine{};
  /// What memory costs on this machine; empty: derived from SLIT (from_slit), and said so.
  std::optional<machine_costs> hardware;
  balancing mode = balancing::numa;
  cpu_scheduler scheduler = cpu_scheduler::sched_domains;
  /// Seconds between snapshots of where each group's tasks are.
  double snapshot_interval_s = 1.0;
  /// Check every group against the sum of its members after every window that changes it
  /// (numa_group_consistency); a violation throws std::logic_error naming the group.
  bool verify_groups = false;
  /// Check what must always hold (engine::check_invariants, less the solver's convergence,
  /// which a run reports instead) at every refresh of memory load, not only at the end of the
  /// run; a break throws invariant_error. `numaplace sim --check` sets it with verify_groups.
  bool full_checks = false;
  /// kernel.numa_balancing's mode, demotion and the promotion tunables (memory_tiering.hpp).
  tiering_options tiering{};
};

/// Each node's CPU count, as the cost derivation and the tiers take it.
inline std::vector<std::size_t> cpus_per_node(const machine& m) {
  std::vector<std::size_t> cpus;
  for (const auto& node : m.node_cpus) cpus.push_back(node.size());
  return cpus;
}

/// A run's hardware: the measured costs, routes completed and checked against the machine, else
/// derived from its SLIT and CPU counts (from_slit). Throws std::invalid_argument for measured
/// costs that do not fit the machine.
inline machine_costs run_costs(const dynamic_topology& topology, const std::optional<machine_costs>& measured,
                               const machine& m) {
  if (!measured) return from_slit(topology, cpus_per_node(m));
  machine_costs hw = *measured;
  complete_routes(hw);
  if (auto bad = validate(hw, topology.node_count())) throw std::invalid_argument("machine costs '" + hw.name + "': " + *bad);
  return hw;
}

/// A placement that never decides: the baselines without NUMA balancing.
struct no_placement {
  static constexpr bool has_imbalance_policy() noexcept { return false; }
};

/// Whether runs with placement P do NUMA balancing at all.
template <class P>
inline constexpr bool balances_numa = !std::is_same_v<P, no_placement>;

struct world {
  world(const dynamic_topology& topology, const workload& load, const run_options& options)
      : topo(topology),
        w(load),
        o(options),
        c(options.costs),
        rng(options.seed),
        m(topology, machine_of(options.machine, options.hardware)),
        hw(run_costs(topology, options.hardware, m)),
        mem(load, memory_model::capacities_of(topology)),
        tiers(topology, hw, cpus_per_node(m)),
        promotion(topology.node_count()) {}

  const dynamic_topology& topo;
  const workload& w;
  run_options o;
  cost_model c;
  random_engine rng;
  double now_ms = 0;
  machine m;
  machine_costs hw;
  memory_model mem;
  /// Per process, the nodes its memory is bound to (set_mempolicy(MPOL_BIND)); empty: unbound.
  std::vector<std::vector<node_index>> memory_nodes;
  std::uint64_t task_ticks = 0, faults = 0;  // the simulator's units of work
  /// The machine's memory tiers, each fast node's promotion state, and what tiering did.
  memory_tiering tiers;
  std::vector<promotion_node_state> promotion;
  tiering_stats tiering;

  /// Charges task `id` `ms` of CPU time spent in NUMA balancing (a hinting fault, a page copy):
  /// the task does no work meanwhile, and its process's balancer time (system time) grows.
  void charge_balancer(task_index id, double ms) {
    task_state& t = m.tasks[id];
    t.stall_ms += ms;
    m.processes[t.process].balancer_ms += ms;
  }

  /// Moves task `id` to `cpu`, charging a cross-node move's cache refill.
  void move_task(task_index id, cpu_index cpu) {
    task_state& t = m.tasks[id];
    if (m.move(id, cpu)) {
      t.stall_ms += c.task_move_cost_ms;
      ++m.processes[t.process].task_moves;
    }
    mem.update_latency(t);
  }
};

}  // namespace numaplace::sim
