#pragma once
// The simulator: a deterministic model of a NUMA machine running a workload, with placement
// decisions made by the very placement object a runtime would embed.
//
// Time advances in ticks. Each tick every running task makes progress at a speed set by where
// its memory is (the machine's measured latency ratios, slowed where its demand and everyone
// else's load a node's memory or a link; memory_load.hpp) and by who shares its CPU or core. The NUMA scanner (numa_scan.hpp)
// arms each process's memory a slice at a time; the hinting faults it causes feed the tasks'
// statistics and groups, migrate memory and, through the stack's placement and
// task_numa_migrate, move tasks (numa_migrate.hpp). New tasks start where the stack's fork
// placement puts them (fork.hpp). A load balancer spreads runnable tasks (load_balance.hpp).
// The engine owns the clock, starts and ends tasks, and checks what must always hold.
//
// What it is not: a cycle model. Caches, coherence traffic and page tables are not modelled.

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "../topology/dynamic_topology.hpp"
#include "binding.hpp"
#include "first_touch.hpp"
#include "fork.hpp"
#include "load_balance.hpp"
#include "memory_load.hpp"
#include "numa_scan.hpp"
#include "report.hpp"
#include "result.hpp"
#include "workload.hpp"
#include "world.hpp"

namespace numaplace::sim {

template <class Placement>
class engine {
 public:
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  engine(const dynamic_topology& topology, const Placement* placement, const workload& w, const run_options& o)
      : s_(topology, w, o), pl_(placement), scanner_(make_scanner()) {
    build_workload();
  }

  /// What must always hold: every live task on exactly one CPU of an allowed node, every chunk
  /// counted once on the node it is on, every group the sum of its live members. Empty when
  /// all holds, else what broke.
  std::string check_invariants() const {
    if (auto broken = s_.m.check(); !broken.empty()) return broken;
    return s_.mem.check();
  }

  /// The machine as it stands (tasks, their groups, CPUs), for tests and probes.
  const machine& state() const noexcept { return s_.m; }

  /// Runs for `ms` more simulated milliseconds (or to the end); for tests that look in between.
  void step(double ms) { run_until(s_.now_ms + ms); }

  run_result run() {
    run_until(s_.w.seconds * 1000.0);
    report_.snapshot(s_);
    return report_.collect(s_, ticks_);
  }

 private:
  static constexpr bool numa = balances_numa<Placement>;
  using scanner_type = std::conditional_t<numa, numa_scanner<Placement>, std::monostate>;

  scanner_type make_scanner() {
    if constexpr (numa) {
      return scanner_type(s_, *pl_);
    } else {
      return {};
    }
  }

  void run_until(double end_ms) {
    end_ms = std::min(end_ms, s_.w.seconds * 1000.0);
    while (s_.now_ms < end_ms && !all_done()) {
      if (s_.now_ms >= next_refresh_) {
        load_.settle(s_.m, s_.mem, s_.w, s_.c, s_.hw);
        if constexpr (numa) scanner_.refresh();
        next_refresh_ += s_.c.refresh_interval_ms;
      }
      if (s_.now_ms >= next_snapshot_) {
        report_.snapshot(s_);
        next_snapshot_ += s_.o.snapshot_interval_s * 1000.0;
      }
      advance_tasks();
      if constexpr (numa) {
        if (s_.o.mode == balancing::numa) scanner_.scan_due();
      }
      balancer_.tick(s_, *pl_);  // each domain keeps its own interval (load_balance.hpp)
      s_.now_ms += s_.c.tick_ms;
      ++ticks_;
    }
  }

  // ---- tasks -------------------------------------------------------------------------
  void build_workload() {
    const std::size_t n = s_.m.node_count();
    for (const process_spec& ps : s_.w.processes) {
      process_state st;
      // Bindings apply to the binding baselines only; other runs ignore them.
      for (auto b : binds_cpus(s_.o.mode) ? ps.bind_nodes : std::vector<std::uint32_t>{}) {
        if (b >= n)
          throw std::invalid_argument("process " + ps.name + " binds to node index " + std::to_string(b) +
                                      " beyond the topology");
        if (!s_.topo.has_cpu(b))
          throw std::invalid_argument("process " + ps.name + " binds to node index " + std::to_string(b) +
                                      ", which has no CPUs");
        st.allowed.push_back(b);
      }
      // Memory: bound with the CPUs (numactl --membind), or, inverted, to the farthest nodes
      // (autonuma-benchmark's INVERSE_BIND); nothing migrates it, as these modes never scan.
      if (s_.o.mode == balancing::inverse_binding) {
        s_.memory_nodes.push_back(farthest_nodes(s_.topo, st.allowed));
      } else {
        s_.memory_nodes.push_back(st.allowed);
      }
      s_.m.processes.push_back(std::move(st));
      if constexpr (numa) scanner_.start_process(s_.m.processes.back());
    }
    // Every process's first threads start at once; each process's first touch follows them.
    for (std::uint32_t p = 0; p < s_.w.processes.size(); ++p) {
      const process_spec& ps = s_.w.processes[p];
      const std::size_t initial = ps.jobs > 0 ? std::min<std::size_t>(ps.threads.size(), ps.jobs) : ps.threads.size();
      for (std::uint32_t t = 0; t < initial; ++t) spawn(p, t);
    }
    for (std::uint32_t p = 0; p < s_.w.processes.size(); ++p) first_touch(s_, p);
    set_up_ = true;
  }

  // The node a process's new task is forked from: its first live task's, else node 0.
  node_index parent_node(std::uint32_t p) const {
    for (const auto& t : s_.m.tasks) {
      if (t.alive && t.process == p) return t.node;
    }
    return 0;
  }

  task_index spawn(std::uint32_t p, std::uint32_t thread) {
    const process_spec& ps = s_.w.processes[p];
    task_state t(s_.m.node_count());
    t.process = p;
    t.thread = thread;
    double sum = 0;
    for (const access& a : ps.threads[thread].accesses) sum += a.weight;
    for (const access& a : ps.threads[thread].accesses) {
      if (a.region >= ps.regions.size())
        throw std::invalid_argument("process " + ps.name + ": a thread accesses a region it does not have");
      t.accesses.emplace_back(s_.mem.region_base[p] + a.region, sum > 0 ? a.weight / sum : 0.0);
    }
    t.work_left_ms = ps.jobs > 0 ? ps.job_work_ms : s_.w.work_per_thread_ms;
    const cpu_index cpu = place_new_task(s_, *pl_, p, parent_node(p));
    t.cpu = cpu;
    t.node = s_.m.cpus[cpu].node;
    if constexpr (numa) scanner_.start_task(t);
    const auto id = static_cast<task_index>(s_.m.tasks.size());
    s_.m.tasks.push_back(std::move(t));
    s_.m.cpus[cpu].tasks.push_back(id);
    ++s_.m.processes[p].live;
    if (ps.jobs > 0) {
      // A job started later allocates fresh private memory where it starts (first touch);
      // the first ones get theirs from first_touch() when the workload is set up.
      if (set_up_) {
        for (const auto& [r, weight] : s_.m.tasks[id].accesses) {
          if (!s_.mem.regions[r].shared) {
            memory_model::rehome(s_.mem.regions[r], memory_node_for(s_, p, s_.m.tasks[id].node, id));
          }
        }
      }
      ++s_.m.processes[p].jobs_started;
    }
    return id;
  }

  void advance_tasks() {
    for (task_index id = 0; id < s_.m.tasks.size(); ++id) {
      task_state& t = s_.m.tasks[id];
      if (!t.alive) continue;
      const cpu_state& cpu = s_.m.cpus[t.cpu];
      ++s_.task_ticks;
      double ms = s_.c.tick_ms / double(cpu.tasks.size());
      t.runtime_ms += ms;
      ms *= s_.c.smt_speed(s_.m.busy_threads(t.cpu));
      const double stalled = std::min(ms, t.stall_ms);
      t.stall_ms -= stalled;
      ms -= stalled;
      const double mb = s_.w.processes[t.process].memory_bound;
      const double work = ms / (1.0 - mb + mb * t.latency);
      process_state& ps = s_.m.processes[t.process];
      ps.ops += work;
      ps.local_ops += work * t.local_share;
      if (s_.w.report_elapsed) {
        t.work_left_ms -= work;
        if (t.work_left_ms <= 0) finish(id);  // t may dangle after this: last use
      }
    }
  }

  void finish(task_index id) {
    // spawn() may grow the task list: keep copies, not references into it.
    const std::uint32_t p = s_.m.tasks[id].process;
    const std::uint32_t thread = s_.m.tasks[id].thread;
    const cpu_index cpu = s_.m.tasks[id].cpu;
    {
      task_state& t = s_.m.tasks[id];
      t.alive = false;
      auto& on_cpu = s_.m.cpus[t.cpu].tasks;
      on_cpu.erase(std::find(on_cpu.begin(), on_cpu.end(), id));
      // task_numa_free(): the group loses the task's counts with it.
      if (t.group != no_group) s_.m.groups.leave(t.stats, t.group);
      t.group = no_group;
      // A finished task keeps its id (chunks remember who touched them last) but not its memory.
      t.stats = fault_stats(0);
      t.accesses = {};
    }
    process_state& ps = s_.m.processes[p];
    --ps.live;
    const process_spec& spec = s_.w.processes[p];
    if (spec.jobs > 0) {
      ++ps.jobs_done;
      if (ps.jobs_started < spec.jobs) spawn(p, thread);
    }
    if (process_done(p) && ps.finish_ms < 0) ps.finish_ms = s_.now_ms + s_.c.tick_ms;
    balancer_.newidle(s_, *pl_, cpu);  // the CPU pulls at once if it is left idle
  }

  bool process_done(std::uint32_t p) const {
    const process_spec& spec = s_.w.processes[p];
    return s_.m.processes[p].live == 0 && (spec.jobs == 0 || s_.m.processes[p].jobs_done >= spec.jobs);
  }

  bool all_done() const {
    if (!s_.w.report_elapsed) return false;
    return std::all_of(s_.m.processes.begin(), s_.m.processes.end(), [](const auto& p) { return p.finish_ms >= 0; });
  }

  world s_;
  const Placement* pl_;
  [[no_unique_address]] scanner_type scanner_;
  memory_load load_;
  load_balancer balancer_;
  reporter report_;
  double next_refresh_ = 0, next_snapshot_ = 0;
  std::uint64_t ticks_ = 0;
  bool set_up_ = false;
};

}  // namespace numaplace::sim
