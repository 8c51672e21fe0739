#pragma once
// The simulated machine: CPUs grouped into cores and nodes, the tasks queued on them, the
// processes they belong to, and their numa_groups. It holds state and answers questions about
// it; every kernel rule that acts on it lives in the library's policies, called from the
// engine. machine_view_of() presents it as a numaplace::machine_view.

#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "../policy/inputs.hpp"
#include "../policy/machine_view.hpp"
#include "../stats/fault_stats.hpp"
#include "../stats/numa_group.hpp"
#include "../topology/dynamic_topology.hpp"

namespace numaplace::sim {

struct machine_options {
  /// SMT siblings per core; a node's CPUs are grouped into cores in order.
  unsigned threads_per_core = 1;
  /// CPUs given to a node whose topology does not list them (but says it has CPUs).
  unsigned default_cpus_per_node = 4;
};

struct cpu_state {
  node_index node = 0;
  std::uint32_t core = 0;  // global core id
  std::vector<task_index> tasks;
};

struct task_state {
  std::uint32_t process = 0;
  std::uint32_t thread = 0;
  std::vector<std::pair<std::uint32_t, double>> accesses;  // global region, normalised weight
  cpu_index cpu = 0;
  node_index node = 0;
  node_index preferred = no_node;
  group_index group = no_group;
  fault_stats stats;
  // The task's NUMA balancing clock (task_struct's numa_* fields).
  double scan_period_ms = 0;    // numa_scan_period
  double migrate_retry_ms = 0;  // numa_migrate_retry
  std::uint32_t scan_seq = 0;   // numa_scan_seq: the mm's pass it last placed in
  double runtime_ms = 0;        // CPU time since its last window (numa_get_avg_runtime)
  double window_start_ms = 0;   // when its last window ended
  double latency = 1.0;         // mean access cost factor at its node
  double local_share = 1.0;
  double stall_ms = 0;
  double work_left_ms = 0;
  /// In a bulk-synchronous workload (workload::barrier_steps): the work one step is, what is
  /// left of the current one, and the steps left with it.
  double step_work_ms = 0;
  double step_left_ms = 0;
  std::uint32_t steps_left = 0;
  /// The work a whole tick gave it when last it ran, ms: what the part of a tick after a
  /// barrier opens is worth to it.
  double tick_work_ms = 0;
  /// Done with its step and waiting at the barrier for the others: it spins, as MPI libraries
  /// wait by default, so it stays runnable on its CPU but makes no progress and touches no memory.
  bool spinning = false;
  bool alive = true;
  /// Sleeping (blocked, off every runqueue): on no CPU; `cpu` and `node` say where it last ran.
  bool asleep = false;
  /// A garbage collector's worker thread: its work is the collector's, not the process's ops.
  bool gc_worker = false;
  /// Bound alone, not with its process (process_spec::bind_each_thread): the one node it may
  /// run on, and the node its own memory is placed on; no_node: as its process.
  node_index bound_node = no_node;
  node_index memory_home = no_node;
  explicit task_state(std::size_t nodes) : stats(nodes) {}
  /// Whether it accesses its memory now: alive, runnable and not spinning at a barrier.
  bool touches_memory() const noexcept { return alive && !asleep && !spinning; }
};

struct process_state {
  std::vector<node_index> allowed;  // hard binding: allowed nodes; empty = all
  std::uint32_t jobs_started = 0, jobs_done = 0;
  std::uint32_t live = 0;  // tasks running now
  double ops = 0, local_ops = 0;
  double finish_ms = -1;
  std::uint64_t task_moves = 0, page_moves = 0;
  double balancer_ms = 0;  // CPU time its tasks spent in NUMA balancing (world::charge_balancer)
  double next_interleave_ms = 0;
  bool interleaved = false;  // shared memory placed by the interleave policy, not by faults
  // The mm's scanner (mm_struct's numa_next_scan, numa_scan_offset, numa_scan_seq).
  double next_scan_ms = 0;
  std::uint64_t scan_offset = 0;  // in chunks, over the process's regions in order
  std::uint32_t scan_seq = 0;
  // v3.8..v3.12 only (scan_pacing_rule::v3_8): mm->first_nid, whether a thread has run off it since
  // (scanning starts then), and mm->numa_next_reset.
  node_index first_nid = no_node;
  bool scan_active = false;
  double next_reset_ms = 0;
  bool started = false;  // its threads exist (workload start_ms reached)
  // Its collector (gc.hpp): chunks allocated since the last collection, whether a pause is on
  // and the work it has left, and what the pauses added up to.
  double gc_allocated_chunks = 0;
  bool in_gc = false;
  double gc_work_left_ms = 0;
  std::uint64_t gc_collections = 0;
  double gc_pause_ms = 0;
};

class machine {
  const dynamic_topology& topo_;

 public:
  machine(const dynamic_topology& topology, const machine_options& o) : topo_(topology), groups(topology.node_count()) {
    const std::size_t n = topo_.node_count();
    node_cpus.resize(n);
    std::uint32_t core = 0;
    for (node_index a = 0; a < n; ++a) {
      if (!topo_.has_cpu(a)) continue;
      std::size_t count = topo_.cpus(a).size();
      if (count == 0) count = o.default_cpus_per_node;
      for (std::size_t i = 0; i < count; ++i) {
        if (i % o.threads_per_core == 0 && i != 0) ++core;
        node_cpus[a].push_back(static_cast<cpu_index>(cpus.size()));
        cpus.push_back({a, core, {}});
      }
      ++core;
    }
    if (cpus.empty()) throw std::invalid_argument("the topology has no CPUs to run tasks on");
    core_cpus.resize(core);
    for (cpu_index i = 0; i < cpus.size(); ++i) core_cpus[cpus[i].core].push_back(i);
  }

  const dynamic_topology& topology() const noexcept { return topo_; }
  std::size_t node_count() const noexcept { return topo_.node_count(); }

  std::size_t running_on(node_index n) const {
    std::size_t count = 0;
    for (auto c : node_cpus[n]) count += cpus[c].tasks.size();
    return count;
  }
  bool core_busy(std::uint32_t core) const {
    return std::any_of(core_cpus[core].begin(), core_cpus[core].end(),
                       [&](cpu_index c) { return !cpus[c].tasks.empty(); });
  }
  /// How many SMT threads of `cpu`'s core have work, `cpu` included when it has.
  unsigned busy_threads(cpu_index cpu) const {
    unsigned busy = 0;
    for (auto c : core_cpus[cpus[cpu].core]) busy += cpus[c].tasks.empty() ? 0 : 1;
    return busy;
  }
  bool allowed(std::uint32_t process, node_index n) const {
    const auto& a = processes[process].allowed;
    return a.empty() || std::find(a.begin(), a.end(), n) != a.end();
  }
  /// Whether task t may run on node n: its own binding, else its process's.
  bool task_allowed(task_index t, node_index n) const {
    const node_index bound = tasks[t].bound_node;
    return bound == no_node ? allowed(tasks[t].process, n) : n == bound;
  }
  /// An idle CPU of node n, on an idle core if there is one, else no_cpu.
  cpu_index idle_cpu(node_index n) const {
    cpu_index fallback = no_cpu;
    for (auto c : node_cpus[n]) {
      if (!cpus[c].tasks.empty()) continue;
      if (!core_busy(cpus[c].core)) return c;
      if (fallback == no_cpu) fallback = c;
    }
    return fallback;
  }
  /// update_numa_stats() as v3.13..v4.18 summed it, for numa_has_capacity().
  node_load load_of(node_index n) const {
    const auto running = static_cast<unsigned>(running_on(n));
    const auto count = static_cast<unsigned>(node_cpus[n].size());
    return {std::uint64_t{running} * nice_0_load, std::uint64_t{count} * nice_0_load, running, count};
  }
  /// sd->imb_numa_nr above node n as build_sched_domains sets it for a node that is one LLC (the
  /// model's nodes are): the share of the node's CPUs imb_numa_shift says; at least 1 from v6.0,
  /// while v5.18's quarter could be 0.
  int imb_numa_nr(node_index n) const {
    const int share = int(node_cpus[n].size()) >> imb_numa_shift;
    return imb_numa_shift == 2 ? share : std::max(1, share);
  }

  /// The group statistics decisions read for task t (empty without a group).
  fault_view group_view(const task_state& t) const {
    const numa_group* g = groups.find(t.group);
    return g ? g->faults.view() : fault_view{};
  }
  decision_input input_of(const task_state& t) const { return {t.stats.view(), group_view(t)}; }

  /// Moves task `id` to `to_cpu`; true when it changed node.
  bool move(task_index id, cpu_index to_cpu) {
    task_state& t = tasks[id];
    auto& from = cpus[t.cpu].tasks;
    from.erase(std::find(from.begin(), from.end(), id));
    cpus[to_cpu].tasks.push_back(id);
    const bool crossed = cpus[to_cpu].node != t.node;
    t.cpu = to_cpu;
    t.node = cpus[to_cpu].node;
    return crossed;
  }

  /// Task `id` blocks: off its CPU's queue, on none; it keeps `cpu` and `node` as where it last
  /// ran (the wakeup reads them). Its group membership and counts are unchanged.
  void sleep(task_index id) {
    task_state& t = tasks[id];
    auto& on = cpus[t.cpu].tasks;
    on.erase(std::find(on.begin(), on.end(), id));
    t.asleep = true;
  }
  /// Sleeping task `id` wakes on `cpu`'s queue; true when that is another node than it left.
  bool wake(task_index id, cpu_index cpu) {
    task_state& t = tasks[id];
    t.asleep = false;
    cpus[cpu].tasks.push_back(id);
    const bool crossed = cpus[cpu].node != t.node;
    t.cpu = cpu;
    t.node = cpus[cpu].node;
    return crossed;
  }

  /// What breaks the barriers of a bulk-synchronous workload (workload::barrier_steps), "" if
  /// nothing: only a runnable task spins, and the live workload threads are all on one step, or
  /// the ones a step ahead wait spinning for the rest.
  std::string lockstep_broken() const {
    std::uint32_t most = 0, least = ~std::uint32_t{0};
    for (const task_state& t : tasks) {
      if (t.spinning && (!t.alive || t.asleep)) return "a finished or sleeping task spins at a barrier";
      if (!t.alive || t.gc_worker) continue;
      most = std::max(most, t.steps_left);
      least = std::min(least, t.steps_left);
    }
    if (least == ~std::uint32_t{0} || most == least) return {};
    if (most - least > 1) return "threads of a bulk-synchronous workload are more than one step apart";
    for (task_index id = 0; id < tasks.size(); ++id) {
      const task_state& t = tasks[id];
      if (t.alive && !t.gc_worker && t.steps_left < most && !t.spinning)
        return "task " + std::to_string(id) + " went past a barrier the others have not reached";
    }
    return {};
  }

  /// Every runnable live task on exactly one CPU of its node, every sleeping one on none, every
  /// group the sum of its live members (sleeping or not), and the threads of a bulk-synchronous
  /// workload in step (lockstep_broken()).
  std::string check() const {
    if (auto broken = lockstep_broken(); !broken.empty()) return broken;
    std::vector<std::uint32_t> seen(tasks.size(), 0);
    for (cpu_index c = 0; c < cpus.size(); ++c) {
      for (auto id : cpus[c].tasks) {
        if (id >= tasks.size() || !tasks[id].alive) return "cpu " + std::to_string(c) + " holds a dead or unknown task";
        if (tasks[id].cpu != c)
          return "task " + std::to_string(id) + " is listed on cpu " + std::to_string(c) +
                 " but thinks it is elsewhere";
        ++seen[id];
      }
    }
    std::vector<std::vector<const fault_stats*>> members(groups.created());
    for (task_index id = 0; id < tasks.size(); ++id) {
      const task_state& t = tasks[id];
      if (!t.alive) {
        if (t.group != no_group)
          return "task " + std::to_string(id) + " finished but is still in group " + std::to_string(t.group);
        continue;
      }
      if (seen[id] != (t.asleep ? 0u : 1u))
        return "task " + std::to_string(id) + (t.asleep ? " sleeps but is on " : " is on ") + std::to_string(seen[id]) +
               " cpus";
      if (t.node != cpus[t.cpu].node) return "task " + std::to_string(id) + " has a stale node";
      if (!task_allowed(id, t.node))
        return "task " + std::to_string(id) + " runs on node " + std::to_string(t.node) + ", outside its binding";
      if (t.group != no_group) {
        if (groups.find(t.group) == nullptr)
          return "task " + std::to_string(id) + " is in released group " + std::to_string(t.group);
        members[t.group].push_back(&t.stats);
      }
    }
    for (group_index g = 0; g < groups.created(); ++g) {
      const numa_group* grp = groups.find(g);
      if (grp == nullptr) continue;
      if (const auto bad = numa_group_consistency(*grp, members[g])) return bad->message(g);
    }
    return {};
  }

  std::vector<cpu_state> cpus;
  std::vector<std::vector<cpu_index>> node_cpus;
  std::vector<std::vector<cpu_index>> core_cpus;
  std::vector<task_state> tasks;
  std::vector<process_state> processes;
  numa_group_set groups;
  /// imb_numa_nr's share of a node: a quarter (2) in v5.18 and v5.19 (e496132ebedd), an eighth
  /// (3, at least 1) from v6.0 (026b98a93bbd). The engine sets it from its kernel's allowance.
  unsigned imb_numa_shift = 3;
};

/// The machine as a numaplace::machine_view, for the balancing-loop policies.
class machine_view_of {
 public:
  explicit machine_view_of(const machine& m) : m_(m) {}
  std::size_t node_count() const noexcept { return m_.node_count(); }
  distance_t distance(node_index a, node_index b) const { return m_.topology().distance(a, b); }
  std::span<const cpu_index> cpus_of(node_index n) const { return m_.node_cpus[n]; }
  node_index node_of_cpu(cpu_index c) const { return m_.cpus[c].node; }
  std::span<const task_index> tasks_on(cpu_index c) const { return m_.cpus[c].tasks; }
  cpu_index task_cpu(task_index t) const { return m_.tasks[t].cpu; }
  node_index task_node(task_index t) const { return m_.tasks[t].node; }
  node_index task_preferred(task_index t) const { return m_.tasks[t].preferred; }
  fault_view task_faults(task_index t) const { return m_.tasks[t].stats.view(); }
  fault_view group_faults(task_index t) const { return m_.group_view(m_.tasks[t]); }
  group_index group_of(task_index t) const { return m_.tasks[t].group; }
  bool allowed(task_index t, node_index n) const { return m_.task_allowed(t, n); }
  std::uint64_t task_load(task_index) const { return nice_0_load; }
  /// The NUMA domain's imb_numa_nr above node n (task_numa_migrate reads the source's).
  int imb_numa_nr(node_index n) const { return m_.imb_numa_nr(n); }

 private:
  const machine& m_;
};

static_assert(machine_view<machine_view_of>);

}  // namespace numaplace::sim
