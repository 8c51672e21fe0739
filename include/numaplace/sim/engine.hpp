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
// Tasks may sleep (off every runqueue) and wake where select_task_rq_fair() would put them
// (sleep_wake.hpp): a JVM's mutators sleep through its stop-the-world collections while its
// collector threads run (gc.hpp). Processes may start late (process_spec::start_ms). A
// bulk-synchronous workload's threads wait for each other, spinning, after every step
// (workload::barrier_steps), as an MPI job's ranks do at each iteration's exchange.
// The engine owns the clock, starts, puts to sleep, wakes and ends tasks, and checks what must
// always hold.
//
// What it is not: a cycle model. Caches, coherence traffic and page tables are not modelled.

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "../topology/dynamic_topology.hpp"
#include "binding.hpp"
#include "first_touch.hpp"
#include "fork.hpp"
#include "gc.hpp"
#include "load_balance.hpp"
#include "memory_load.hpp"
#include "numa_scan.hpp"
#include "o1_scheduler.hpp"
#include "report.hpp"
#include "result.hpp"
#include "sleep_wake.hpp"
#include "workload.hpp"
#include "world.hpp"

namespace numaplace::sim {

/// What must always hold did not: a defect in the simulator, never in its input. what() says
/// what broke, when, and the seed of the run.
struct invariant_error : std::logic_error {
  using std::logic_error::logic_error;
};

template <class Placement>
class engine {
 public:
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  engine(const dynamic_topology& topology, const Placement* placement, const workload& w, const run_options& o)
      : s_(topology, w, o), pl_(placement), scanner_(make_scanner()) {
    s_.m.imb_numa_shift = imb_numa_shift_of<Placement>::value;
    build_workload();
  }

  /// What must always hold: every runnable live task on exactly one CPU of an allowed node, every
  /// sleeping one on none, every chunk counted once on the node it is on, every group the sum
  /// of its live members, every settle of memory demand at its fixed point. Empty when all
  /// holds, else what broke.
  std::string check_invariants() const {
    if (auto broken = s_.m.check(); !broken.empty()) return broken;
    if (auto broken = s_.mem.check(); !broken.empty()) return broken;
    return unsettled_loads(load_.stats());
  }

  /// The machine as it stands (tasks, their groups, CPUs), for tests and probes.
  const machine& state() const noexcept { return s_.m; }

  /// Runs for `ms` more simulated milliseconds (or to the end); for tests that look in between.
  void step(double ms) { run_until(s_.now_ms + ms); }

  /// The memory as it stands (regions, chunks and their nodes), for tests and probes.
  const memory_model& memory() const noexcept { return s_.mem; }

  /// The simulated time now, ms.
  double now_ms() const noexcept { return s_.now_ms; }

  /// NUMA hinting faults taken so far (one per armed chunk touched).
  std::uint64_t hinting_faults() const noexcept { return s_.faults; }

  /// How many times a CPU went idle because its last task slept (cpu_went_idle() calls).
  std::uint64_t idle_transitions() const noexcept { return went_idle_; }

  /// Runs to the end. Throws invariant_error when what must always hold does not, at the end
  /// (a pass over tasks, CPUs, groups and chunks: a small part of a run) and, with
  /// run_options::full_checks, at every refresh of memory load.
  run_result run() {
    run_until(s_.w.seconds * 1000.0);
    require_invariants();
    report_.snapshot(s_);
    run_result r = report_.collect(s_, ticks_);
    r.settles = load_.stats();
    return r;
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

  // check_invariants() less the solver's convergence, which the run reports (run_result::settles).
  void require_invariants() const {
    std::string broken = s_.m.check();
    if (broken.empty()) broken = s_.mem.check();
    if (broken.empty()) return;
    throw invariant_error("simulator invariant broken at " + std::to_string(s_.now_ms) + " ms of the run with seed " +
                          std::to_string(s_.o.seed) + ": " + broken);
  }

  void run_until(double end_ms) {
    end_ms = std::min(end_ms, s_.w.seconds * 1000.0);
    while (s_.now_ms < end_ms && !all_done()) {
      start_due_processes();
      if (s_.now_ms >= next_refresh_) {
        if (s_.o.full_checks) require_invariants();
        load_.settle(s_.m, s_.mem, s_.w, s_.c, s_.hw);
        if constexpr (numa) scanner_.refresh();
        next_refresh_ += s_.c.refresh_interval_ms;
      }
      if (s_.now_ms >= next_snapshot_) {
        report_.snapshot(s_);
        next_snapshot_ += s_.o.snapshot_interval_s * 1000.0;
      }
      advance_tasks();
      if (s_.w.barrier_steps > 0) {
        pass_barrier();
        // Threads that began or ended waiting changed what memory is asked for: settle it
        // again now, not at the next refresh, or a step's start would run at the last step's
        // end's loads (the whole job unloaded for up to a refresh interval).
        if (std::exchange(waiting_changed_, false)) load_.settle(s_.m, s_.mem, s_.w, s_.c, s_.hw);
      }
      collect_garbage();
      if constexpr (numa) {
        if (s_.o.mode == balancing::numa) scanner_.scan_due();
      }
      if (o1()) {
        o1_.tick(s_);  // every CPU as one set (o1_scheduler.hpp)
      } else {
        balancer_.tick(s_, *pl_);  // each domain keeps its own interval (load_balance.hpp)
      }
      s_.now_ms += s_.c.tick_ms;
      ++ticks_;
    }
  }

  // ---- tasks -------------------------------------------------------------------------
  void build_workload() {
    const std::size_t n = s_.m.node_count();
    for (const process_spec& ps : s_.w.processes) {
      process_state st;
      // Bindings apply to the binding baselines only; other runs ignore them. A process whose
      // threads are bound one by one (spawn) has no binding of its own.
      const bool binds_process = binds_cpus(s_.o.mode) && !ps.bind_each_thread;
      if (binds_process) {
        check_binding(ps, s_.topo);
        st.allowed.assign(ps.bound_cpu_nodes().begin(), ps.bound_cpu_nodes().end());
      }
      for (const auto f : ps.first_touch_nodes) {
        if (f >= n)
          throw std::invalid_argument("process " + ps.name + " first touches its memory on node index " +
                                      std::to_string(f) + " beyond the topology");
      }
      // Memory: bound where the process says (numactl --membind: its bind_nodes or
      // memory_nodes), or, inverted, to the nodes farthest from its CPUs (autonuma-benchmark's
      // INVERSE_BIND, for the processes it inverts); nothing migrates it, as these modes never
      // scan.
      if (s_.o.mode == balancing::inverse_binding && binds_process && ps.inverse_moves_memory) {
        s_.memory_nodes.push_back(farthest_nodes(s_.topo, st.allowed));
      } else if (binds_process) {
        s_.memory_nodes.emplace_back(ps.bound_memory_nodes().begin(), ps.bound_memory_nodes().end());
      } else {
        s_.memory_nodes.emplace_back();
      }
      s_.m.processes.push_back(std::move(st));
      const gc_spec& gc = ps.gc;
      if (gc.young_region != gc_spec::no_young && gc.young_region >= ps.regions.size())
        throw std::invalid_argument("process " + ps.name + ": its collector's young region is not one of its regions");
    }
    std::size_t at = s_.w.processes.size();
    if (const std::string why = barriers_refused(s_.w, at); !why.empty()) {
      throw std::invalid_argument("workload " + s_.w.name +
                                  (at < s_.w.processes.size() ? ": process " + s_.w.processes[at].name + " " : ": ") + why);
    }
    mutators_.resize(s_.w.processes.size());
    gc_workers_.resize(s_.w.processes.size());
    // The processes that start at once: every one's first threads, then every one's first
    // touch after them. The others start when their time comes (start_due_processes).
    for (std::uint32_t p = 0; p < s_.w.processes.size(); ++p) {
      if (s_.w.processes[p].start_ms <= 0) start_threads(p);
    }
    for (std::uint32_t p = 0; p < s_.w.processes.size(); ++p) {
      if (s_.w.processes[p].start_ms <= 0) finish_start(p);
    }
  }

  // Process p's first threads start (a JVM's warehouse threads, make's first jobs).
  void start_threads(std::uint32_t p) {
    const process_spec& ps = s_.w.processes[p];
    if constexpr (numa) scanner_.start_process(s_.m.processes[p]);
    const std::size_t initial = ps.jobs > 0 ? std::min<std::size_t>(ps.threads.size(), ps.jobs) : ps.threads.size();
    for (std::uint32_t t = 0; t < initial; ++t) mutators_[p].push_back(spawn(p, ps.threads[t].accesses, t));
  }

  // Process p's collector threads start (HotSpot creates them at VM start-up), its memory is
  // first touched by the threads that started (and the collector's, for what it promotes),
  // then the collector's threads block, waiting for the first collection.
  void finish_start(std::uint32_t p) {
    const process_spec& ps = s_.w.processes[p];
    s_.m.processes[p].started = true;
    if (!ps.gc.enabled()) {
      first_touch(s_, p);
      return;
    }
    const std::vector<access> young{{ps.gc.young_region, 1.0}};
    const unsigned workers = gc_threads_for(s_, p);
    const auto first = static_cast<std::uint32_t>(ps.threads.size());
    // All are forked before any blocks, so fork placement spreads them as it spreads running
    // threads; each then waits where it was placed.
    for (unsigned k = 0; k < workers; ++k) {
      const task_index id = spawn(p, young, first + k);
      s_.m.tasks[id].gc_worker = true;
      gc_workers_[p].push_back(id);
    }
    first_touch(s_, p);
    for (const task_index id : gc_workers_[p]) sleep_task(id);
  }

  // Processes whose start time has come start now.
  void start_due_processes() {
    for (std::uint32_t p = 0; p < s_.w.processes.size(); ++p) {
      if (s_.m.processes[p].started || s_.w.processes[p].start_ms > s_.now_ms) continue;
      start_threads(p);
      finish_start(p);
    }
  }

  // ---- sleeping and waking -------------------------------------------------------------
  // Task `id` blocks (machine::sleep); when that leaves its CPU with nothing to run, the CPU
  // goes idle.
  void sleep_task(task_index id) {
    const cpu_index cpu = s_.m.tasks[id].cpu;
    s_.m.sleep(id);
    if (s_.m.cpus[cpu].tasks.empty()) cpu_went_idle(cpu);
  }

  // Sleeping task `id` wakes where select_task_rq_fair() puts it; a wakeup onto another node
  // costs the cache refill a move does.
  void wake_task(task_index id) {
    task_state& t = s_.m.tasks[id];
    if (s_.m.wake(id, o1() ? t.cpu : select_wake_cpu(s_.m, id))) {
      t.stall_ms += s_.c.task_move_cost_ms;
      ++s_.m.processes[t.process].task_moves;
    }
    s_.mem.update_latency(t);
  }

  // `cpu` has just gone idle because the task it ran blocked: the kernel balances at once
  // (schedule() -> pick_next_task_fair() -> newidle_balance(), idle_balance() before v5.7),
  // pulling work from a busier CPU before the CPU idles.
  void cpu_went_idle(cpu_index cpu) {
    ++went_idle_;
    pull_if_idle(cpu);
  }

  // newidle_balance() (schedule()'s load_balance() on the O(1) scheduler): a CPU left with
  // nothing to run pulls before it idles.
  void pull_if_idle(cpu_index cpu) {
    if (o1()) {
      o1_.newidle(s_, cpu);
    } else {
      balancer_.newidle(s_, *pl_, cpu);
    }
  }

  bool o1() const noexcept { return s_.o.scheduler == cpu_scheduler::o1; }

  // ---- garbage collection ----------------------------------------------------------------
  // Each collecting process's pause starts once its mutators have filled eden and ends once
  // its workers have done the collection's work (gc.hpp).
  void collect_garbage() {
    for (std::uint32_t p = 0; p < s_.w.processes.size(); ++p) {
      const process_spec& spec = s_.w.processes[p];
      process_state& ps = s_.m.processes[p];
      if (ps.in_gc) ps.gc_pause_ms += s_.c.tick_ms;
      switch (gc_due(spec, ps)) {
        case gc_event::none: break;
        case gc_event::begin_pause:
          // Safepoint: every mutator blocks, then the VM thread wakes the workers.
          for (const task_index id : mutators_[p]) {
            if (s_.m.tasks[id].alive && !s_.m.tasks[id].asleep) sleep_task(id);
          }
          ps.in_gc = true;
          ps.gc_allocated_chunks = 0;
          ps.gc_work_left_ms = gc_pause_work_ms(spec);
          ++ps.gc_collections;
          for (const task_index id : gc_workers_[p]) wake_task(id);
          break;
        case gc_event::end_pause:
          for (const task_index id : gc_workers_[p]) sleep_task(id);
          ps.in_gc = false;
          for (const task_index id : mutators_[p]) {
            if (s_.m.tasks[id].alive && s_.m.tasks[id].asleep) wake_task(id);
          }
          break;
      }
    }
  }

  // The node a process's new task is forked from: its first live task's, else node 0.
  node_index parent_node(std::uint32_t p) const {
    for (const auto& t : s_.m.tasks) {
      if (t.alive && t.process == p) return t.node;
    }
    return 0;
  }

  // A new task of process p, `thread` its index (the workload's threads, then its collector's),
  // accessing `accesses`, forked on CPU `parent` (no_cpu: by the process's first live task).
  task_index spawn(std::uint32_t p, const std::vector<access>& accesses, std::uint32_t thread,
                   cpu_index parent = no_cpu) {
    const process_spec& ps = s_.w.processes[p];
    task_state t(s_.m.node_count());
    t.process = p;
    t.thread = thread;
    double sum = 0;
    for (const access& a : accesses) sum += a.weight;
    for (const access& a : accesses) {
      if (a.region >= ps.regions.size())
        throw std::invalid_argument("process " + ps.name + ": a thread accesses a region it does not have");
      t.accesses.emplace_back(s_.mem.region_base[p] + a.region, sum > 0 ? a.weight / sum : 0.0);
    }
    t.work_left_ms = ps.jobs > 0 ? ps.job_work_ms : thread_work_ms(ps, s_.hw, s_.w.work_per_thread_ms);
    if (s_.w.barrier_steps > 0) {
      t.steps_left = s_.w.barrier_steps;
      t.step_work_ms = t.step_left_ms = t.work_left_ms / double(s_.w.barrier_steps);
    }
    if (binds_cpus(s_.o.mode) && ps.bind_each_thread && thread < ps.threads.size()) {
      const thread_binding b = bind_thread(s_.topo, ps.threads.size(), thread);
      t.memory_home = b.home;
      t.bound_node = s_.o.mode == balancing::hard_binding ? b.home : b.mirrored;
    }
    const cpu_index cpu = t.bound_node != no_node ? place_on_node(s_, t.bound_node)
                          : o1()                  ? o1_fork_cpu(s_, p, parent)
                                                  : place_new_task(s_, *pl_, p, parent_node(p));
    if (cpu == no_cpu) throw std::invalid_argument("process " + ps.name + " may run on no CPU");
    t.cpu = cpu;
    t.node = s_.m.cpus[cpu].node;
    if constexpr (numa) scanner_.start_task(t);
    const auto id = static_cast<task_index>(s_.m.tasks.size());
    s_.m.tasks.push_back(std::move(t));
    s_.m.cpus[cpu].tasks.push_back(id);
    ++s_.m.processes[p].live;
    if (ps.jobs > 0) {
      // A job started later allocates fresh private memory where it starts (first touch);
      // the first ones get theirs from first_touch() when the process starts.
      if (s_.m.processes[p].started) {
        for (const auto& [r, weight] : s_.m.tasks[id].accesses) {
          if (!s_.mem.regions[r].shared) allocate_fresh(s_, p, s_.mem.regions[r], s_.m.tasks[id].node, id);
        }
      }
      ++s_.m.processes[p].jobs_started;
    }
    return id;
  }

  void advance_tasks() {
    for (task_index id = 0; id < s_.m.tasks.size(); ++id) {
      task_state& t = s_.m.tasks[id];
      if (!t.alive || t.asleep) continue;
      const cpu_state& cpu = s_.m.cpus[t.cpu];
      ++s_.task_ticks;
      double ms = s_.c.tick_ms / double(cpu.tasks.size());
      t.runtime_ms += ms;
      ms *= s_.c.smt_speed(s_.m.busy_threads(t.cpu));
      const double mb = s_.w.processes[t.process].memory_bound;
      const double slowdown = 1.0 - mb + mb * t.latency;
      if (t.spinning) {  // its share of the CPU goes on polling
        t.tick_work_ms = ms / slowdown;
        continue;
      }
      const double stalled = std::min(ms, t.stall_ms);
      t.stall_ms -= stalled;
      ms -= stalled;
      const double work = ms / slowdown;
      process_state& ps = s_.m.processes[t.process];
      if (t.gc_worker) {
        ps.gc_work_left_ms -= work;
        continue;
      }
      if (t.steps_left > 0) {
        advance_step(t, work);
        continue;
      }
      ps.ops += work;
      ps.gc_allocated_chunks += work / 1000.0 * s_.w.processes[t.process].gc.alloc_chunks_per_s;
      ps.local_ops += work * t.local_share;
      if (s_.w.report_elapsed) {
        t.work_left_ms -= work;
        if (t.work_left_ms <= 0) finish(id);  // t may dangle after this: last use
      }
    }
  }

  // A bulk-synchronous thread's work this tick goes to its step, and no further: once the
  // step is done it waits at the barrier. When in the tick it got there is kept (tick_unused_),
  // so that the next step starts then, not at the tick's end.
  void advance_step(task_state& t, double work) {
    t.tick_work_ms = work;
    const double done = std::min(work, t.step_left_ms);
    count_step_work(t, done);
    if (t.step_left_ms <= 0) {
      --t.steps_left;
      t.spinning = true;
      waiting_changed_ = true;
      tick_unused_ = std::min(tick_unused_, work > 0 ? (work - done) / work : 0.0);
    }
  }

  void count_step_work(task_state& t, double work) {
    process_state& ps = s_.m.processes[t.process];
    ps.ops += work;
    ps.local_ops += work * t.local_share;
    t.work_left_ms -= work;
    t.step_left_ms -= work;
  }

  // Once every workload thread waits at the barrier, all go on to the next step together, or
  // leave together after the last one. The barrier opened when the last of them got there,
  // tick_unused_ of the tick before its end: each has done that part of a tick of the next
  // step already (steps shorter than a tick still take one).
  void pass_barrier() {
    const double unused = std::exchange(tick_unused_, 1.0);
    bool anyone_waits = false;
    for (const task_state& t : s_.m.tasks) {
      if (!t.alive || t.gc_worker) continue;
      if (!t.spinning) return;  // someone is still working on this step
      anyone_waits = true;
    }
    if (!anyone_waits) return;
    waiting_changed_ = true;
    for (task_index id = 0; id < s_.m.tasks.size(); ++id) {
      task_state& t = s_.m.tasks[id];
      if (!t.alive || t.gc_worker) continue;
      t.spinning = false;
      if (t.steps_left == 0) {
        finish(id);
      } else {
        t.step_left_ms = t.step_work_ms;
        count_step_work(t, std::min(t.step_work_ms, unused * t.tick_work_ms));
      }
    }
  }

  void finish(task_index id) {
    // spawn() may grow the task list: keep copies, not references into it.
    const std::uint32_t p = s_.m.tasks[id].process;
    const std::uint32_t thread = s_.m.tasks[id].thread;
    // Where it ran, for the newidle pull below; a task exiting from sleep leaves no CPU idle.
    const cpu_index cpu = s_.m.tasks[id].asleep ? no_cpu : s_.m.tasks[id].cpu;
    retire(id);
    process_state& ps = s_.m.processes[p];
    const process_spec& spec = s_.w.processes[p];
    if (spec.jobs > 0) {
      ++ps.jobs_done;
      // The next job: make, woken where this one exited, forks it there (on the O(1)
      // scheduler it stays; fork placement may move it).
      if (ps.jobs_started < spec.jobs) mutators_[p].push_back(spawn(p, spec.threads[thread].accesses, thread, cpu));
    }
    // The last workload thread gone, the collector's threads exit with the process.
    if (ps.live == gc_workers_[p].size() && (spec.jobs == 0 || ps.jobs_started >= spec.jobs)) {
      for (const task_index w : gc_workers_[p]) {
        if (s_.m.tasks[w].alive) retire(w);
      }
    }
    if (process_done(p) && ps.finish_ms < 0) {
      ps.finish_ms = s_.now_ms + s_.c.tick_ms;
      s_.mem.release(p);  // its memory is free for the processes still running
    }
    if (cpu != no_cpu) pull_if_idle(cpu);  // the CPU pulls at once if it is left idle
  }

  // Task `id` exits, from its CPU or from sleep.
  void retire(task_index id) {
    task_state& t = s_.m.tasks[id];
    t.alive = false;
    if (!t.asleep) {
      auto& on_cpu = s_.m.cpus[t.cpu].tasks;
      on_cpu.erase(std::find(on_cpu.begin(), on_cpu.end(), id));
    }
    t.asleep = false;
    // task_numa_free(): the group loses the task's counts with it.
    if (t.group != no_group) s_.m.groups.leave(t.stats, t.group);
    t.group = no_group;
    // A finished task keeps its id (chunks remember who touched them last) but not its memory.
    t.stats = fault_stats(0);
    t.accesses = {};
    --s_.m.processes[t.process].live;
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
  o1_balancer o1_;
  reporter report_;
  double next_refresh_ = 0, next_snapshot_ = 0;
  std::uint64_t ticks_ = 0;
  std::uint64_t went_idle_ = 0;
  // The latest a bulk-synchronous thread finished its step in this tick, as the share of the
  // tick left after it (pass_barrier).
  double tick_unused_ = 1.0;
  // Whether a bulk-synchronous thread began or stopped waiting in this tick.
  bool waiting_changed_ = false;
  std::vector<std::vector<task_index>> mutators_;    // per process: its workload threads' tasks
  std::vector<std::vector<task_index>> gc_workers_;  // per process: its collector's threads
};

}  // namespace numaplace::sim
