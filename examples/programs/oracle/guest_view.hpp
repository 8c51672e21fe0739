#pragma once
// A running guest as the balancing-loop policies see it, rebuilt from what examples/programs/oracle/oracle-trace
// captured: one task's (and its group's) faults as a probe or a snapshot showed them, and the
// machine at one task_numa_migrate() call as a numaplace::machine_view, with the kernel's own
// per-CPU readings (load, runnable, util, capacity, numa_migrate_on, idle_cpu).
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <numaplace/policy/load_imbalance.hpp>
#include <numaplace/policy/machine_view.hpp>
#include <numaplace/stats/fault_view.hpp>
#include <numaplace/topology/dynamic_topology.hpp>

#include "guest_records.hpp"
#include "trace_events.hpp"

namespace numaplace_oracle {

using numaplace::cpu_index;
using numaplace::decision_input;
using numaplace::distance_t;
using numaplace::dynamic_topology;
using numaplace::fault_view;
using numaplace::group_index;
using numaplace::no_cpu;
using numaplace::no_group;
using numaplace::no_node;
using numaplace::no_task;
using numaplace::node_id;
using numaplace::node_index;
using numaplace::task_index;

// ---- one task's state as the kernel last showed it -------------------------------------------

/// Faults in topology index order (two per node, shared then private), as fault_view reads them.
struct faults_state {
  std::vector<std::uint64_t> task, group_mem, group_cpu;
  std::uint64_t task_total = 0, group_total = 0;
  long group = 0;  // numa_group gid, 0 for none
  std::int64_t ns = -1;
};


struct guest_layout {
  const dynamic_topology* t = nullptr;
  std::vector<node_index> index_of_guest;
  std::vector<node_id> guest_of_index;
  std::vector<node_index> node_of_cpu;  // guest CPU -> topology index
  std::size_t cpus = 0;
};

// The captured faults of event e (tfI, gfI, gcI in the guest's node order; ng 0 when none).
inline faults_state captured_faults(const trace_log& log, const trace_event& e, const guest_layout& g, bool no_groups) {
  const std::size_t n = g.t->node_count();
  faults_state f;
  f.task.assign(2 * n, 0);
  f.group_mem.assign(2 * n, 0);
  f.group_cpu.assign(2 * n, 0);
  f.ns = e.ns;
  const bool grouped = log.get(e, "ng") != 0 && !no_groups;
  for (std::size_t gnode = 0; gnode < n; ++gnode) {
    for (std::size_t priv = 0; priv < 2; ++priv) {
      const std::string i = std::to_string(2 * gnode + priv);
      const std::size_t at = 2 * g.index_of_guest[gnode] + priv;
      f.task[at] = static_cast<std::uint64_t>(log.get(e, "tf" + i));
      if (grouped) {
        f.group_mem[at] = static_cast<std::uint64_t>(log.get(e, "gf" + i));
        f.group_cpu[at] = static_cast<std::uint64_t>(log.get(e, "gc" + i));
      }
    }
  }
  if (const auto total = e.find("total")) f.task_total = static_cast<std::uint64_t>(*total);
  else for (auto v : f.task) f.task_total += v;
  if (grouped) {
    f.group = static_cast<long>(log.get(e, "gid"));
    f.group_total = static_cast<std::uint64_t>(log.get(e, "gtotal"));
  }
  return f;
}

inline faults_state sampled_faults(const record& r, const guest_layout& g, std::int64_t ns, bool no_groups) {
  const std::size_t n = g.t->node_count();
  faults_state f;
  f.task.assign(2 * n, 0);
  f.group_mem.assign(2 * n, 0);
  f.ns = ns;
  for (std::size_t gnode = 0; gnode < n; ++gnode) {
    const std::size_t at = 2 * g.index_of_guest[gnode];
    f.task[at] = r.faults[gnode].task_shared;
    f.task[at + 1] = r.faults[gnode].task_private;
    f.task_total += f.task[at] + f.task[at + 1];
    if (r.group_id != 0 && !no_groups) {
      f.group_mem[at] = r.faults[gnode].group_shared;
      f.group_mem[at + 1] = r.faults[gnode].group_private;
      f.group_total += f.group_mem[at] + f.group_mem[at + 1];
    }
  }
  f.group = no_groups ? 0 : r.group_id;
  return f;
}

inline decision_input input_of_faults(const faults_state& f) {
  decision_input in;
  in.task = fault_view{f.task, {}, f.task_total};
  if (f.group != 0) in.group = fault_view{f.group_mem, f.group_cpu, f.group_total};
  return in;
}

// ---- the machine at one task_numa_migrate() call, as a machine_view ---------------------------

class guest_view {
 public:
  struct task {
    long pid = 0;
    cpu_index cpu = no_cpu;
    node_index preferred = no_node;
    faults_state faults;
    std::uint64_t load = numaplace::nice_0_load;
    bool pinned = false;  // not a workload thread: a kernel thread or the sampler, taken as pinned
    bool kernel = false;  // a kernel thread or a task without mm, when the probe read its flags
    bool captured_now = false;  // faults probed at this call (else the task's last known ones)
  };

  guest_view(const guest_layout& g, int imb_numa_nr) : g_(g), imb_(imb_numa_nr) {
    node_cpus_.resize(g.t->node_count());
    for (cpu_index c = 0; c < g.cpus; ++c) node_cpus_[g.node_of_cpu[c]].push_back(c);
    queues_.resize(g.cpus);
    curr_.assign(g.cpus, no_task);
    load_.assign(g.cpus, 0);
    runnable_.assign(g.cpus, 0);
    util_.assign(g.cpus, 0);
    cap_.assign(g.cpus, numaplace::cpu_capacity_scale);
    migrate_on_.assign(g.cpus, false);
    idle_.assign(g.cpus, false);
  }

  task_index add(task t) {
    tasks_.push_back(std::move(t));
    return static_cast<task_index>(tasks_.size() - 1);
  }
  task& at(task_index t) { return tasks_[t]; }
  const task& at(task_index t) const { return tasks_[t]; }
  void set_cpu(cpu_index c, task_index curr, unsigned nr, std::uint64_t load, std::uint64_t runnable, std::uint64_t util,
               std::uint64_t cap) {
    curr_[c] = curr;
    auto& q = queues_[c];
    q.clear();
    if (curr != no_task && nr > 0) q.push_back(curr);  // with nr 0, curr is about to run or to leave
    while (q.size() < nr) q.push_back(filler(c));
    load_[c] = load, runnable_[c] = runnable, util_[c] = util, cap_[c] = cap;
  }

  // ---- machine_view ----
  std::size_t node_count() const noexcept { return g_.t->node_count(); }
  distance_t distance(node_index a, node_index b) const noexcept { return g_.t->distance(a, b); }
  std::span<const cpu_index> cpus_of(node_index n) const noexcept { return node_cpus_[n]; }
  node_index node_of_cpu(cpu_index c) const noexcept { return g_.node_of_cpu[c]; }
  std::span<const task_index> tasks_on(cpu_index c) const noexcept { return queues_[c]; }
  cpu_index task_cpu(task_index t) const noexcept { return tasks_[t].cpu; }
  node_index task_node(task_index t) const noexcept {
    return tasks_[t].cpu == no_cpu ? no_node : g_.node_of_cpu[tasks_[t].cpu];
  }
  node_index task_preferred(task_index t) const noexcept { return tasks_[t].preferred; }
  fault_view task_faults(task_index t) const noexcept { return input_of_faults(tasks_[t].faults).task; }
  fault_view group_faults(task_index t) const noexcept { return input_of_faults(tasks_[t].faults).group; }
  group_index group_of(task_index t) const noexcept {
    return tasks_[t].faults.group == 0 ? no_group : static_cast<group_index>(tasks_[t].faults.group);
  }
  bool allowed(task_index t, node_index n) const noexcept { return !tasks_[t].pinned || task_node(t) == n; }
  std::uint64_t task_load(task_index t) const noexcept { return tasks_[t].load; }
  bool kernel_thread(task_index t) const noexcept { return tasks_[t].kernel; }
  // The kernel's own per-CPU readings (load_imbalance.hpp's optional members).
  task_index current_task(cpu_index c) const noexcept { return curr_[c]; }
  std::uint64_t cpu_load(cpu_index c) const noexcept { return load_[c]; }
  std::uint64_t cpu_runnable(cpu_index c) const noexcept { return runnable_[c]; }
  std::uint64_t cpu_util(cpu_index c) const noexcept { return util_[c]; }
  std::uint64_t cpu_capacity(cpu_index c) const noexcept { return cap_[c]; }
  int imb_numa_nr(node_index) const noexcept { return imb_; }
  bool numa_migrate_on(cpu_index c) const noexcept { return migrate_on_[c]; }
  bool idle_cpu(cpu_index c) const noexcept { return idle_[c]; }
  void set_migrate_on(cpu_index c, bool on) { migrate_on_[c] = on; }
  void set_idle(cpu_index c, bool idle) { idle_[c] = idle; }

 public:
  // A runnable task on CPU c the capture does not name (only its count is known): never a candidate.
  task_index filler(cpu_index c) {
    task t;
    t.cpu = c;
    t.pinned = true;
    return add(std::move(t));
  }

  // The kernel's tasks of one numa_group read one struct; captured at different times, ours may
  // differ. Every member takes the group faults of a member captured at this call (the first
  // one added, which is the mover in its group), else of the first member added.
  void share_group_faults() {
    std::map<long, std::size_t> source;
    for (std::size_t i = 0; i < tasks_.size(); ++i) {
      const long gid = tasks_[i].faults.group;
      if (gid == 0) continue;
      auto [it, added] = source.try_emplace(gid, i);
      if (!added && !tasks_[it->second].captured_now && tasks_[i].captured_now) it->second = i;
    }
    for (auto& t : tasks_) {
      if (t.faults.group == 0) continue;
      const faults_state& from = tasks_[source.at(t.faults.group)].faults;
      t.faults.group_mem = from.group_mem;
      t.faults.group_cpu = from.group_cpu;
      t.faults.group_total = from.group_total;
    }
  }

 private:
  const guest_layout& g_;
  int imb_;
  std::vector<std::vector<cpu_index>> node_cpus_;
  std::vector<std::vector<task_index>> queues_;
  std::vector<task_index> curr_;
  std::vector<std::uint64_t> load_, runnable_, util_, cap_;
  std::vector<bool> migrate_on_, idle_;
  std::vector<task> tasks_;
};
static_assert(numaplace::machine_view<guest_view>);

}  // namespace numaplace_oracle
