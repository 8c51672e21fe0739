#pragma once
// The O(1) scheduler before scheduling domains, for the `linux-2.5` baseline: one runqueue per
// CPU and no topology at all. Every CPU is equal to every other, SMT siblings included (Linux
// 2.5 and 2.6.0-2.6.6 without CONFIG_NUMA; sched domains with their SMT level came in v2.6.7).
// As kernel/sched.c of 2.5.40 to 2.5.58 has it (the NUMA scheduler of 2.5.59 changes nothing
// here on a machine without CONFIG_NUMA):
//   - fork: the child starts on its parent's CPU (wake_up_forked_process()); without
//     CONFIG_NUMA nothing moves it at exec (sched_balance_exec() is NUMA-only);
//   - wakeup: on the CPU the task last ran on (try_to_wake_up(); only a sync wakeup pulls it to
//     the waker's CPU, and the model's wakers have no CPU);
//   - idle_tick()/busy rebalancing: an idle CPU balances every IDLE_REBALANCE_TICK (1 ms), a
//     busy one every BUSY_REBALANCE_TICK (250 ms), and schedule() balances at once on a CPU left
//     with nothing to run; load_balance() pulls from find_busiest_queue()'s longest runqueue,
//     two tasks longer than its own at least, never the running task: one task when idle; when
//     busy, half the difference, and only when that half is a quarter of the longest queue.
// So nothing in it keeps two tasks off the siblings of one core while whole cores idle: that is
// what seed 002's HT-as-nodes topology gave the NUMA scheduler to see.
//
// Simplifications: the model's 10 ms tick stands for the idle interval (an idle CPU balances
// every tick); the balancing CPUs of one jiffy take the busiest runqueue's lock in no set order,
// so each round goes in a random order; prev_cpu_load's smoothing of runqueue lengths (one
// busy interval of hysteresis) and cache_decay_ticks' hot tasks are not modelled.

#include <algorithm>
#include <cstddef>
#include <vector>

#include "random.hpp"
#include "world.hpp"

namespace numaplace::sim {

/// The CPU a new task of process `p` starts on under the O(1) scheduler: its parent's,
/// `parent` (the CPU of the task that forked it), or for a process's first task the first CPU
/// it may use (the model has no CPU for the shell that starts it).
inline cpu_index o1_fork_cpu(const world& s, std::uint32_t p, cpu_index parent) {
  if (parent != no_cpu && s.m.allowed(p, s.m.cpus[parent].node)) return parent;
  for (const auto& t : s.m.tasks) {
    if (t.alive && !t.asleep && t.process == p) return t.cpu;
  }
  for (cpu_index c = 0; c < s.m.cpus.size(); ++c) {
    if (s.m.allowed(p, s.m.cpus[c].node)) return c;
  }
  return no_cpu;
}

/// rebalance_tick() and load_balance() of the O(1) scheduler over all CPUs as one set.
class o1_balancer {
 public:
  static constexpr double busy_interval_ms = 250;  // BUSY_REBALANCE_TICK (HZ/4)

  /// Every tick: the idle CPUs balance, in a random order; every 250 ms the busy ones too.
  void tick(world& s) {
    order_.resize(s.m.cpus.size());
    for (cpu_index c = 0; c < order_.size(); ++c) order_[c] = c;
    for (std::size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[random_index(s.rng, i)]);
    const bool busy_due = s.now_ms >= next_busy_ms_;
    if (busy_due) next_busy_ms_ = s.now_ms + busy_interval_ms;
    for (const cpu_index c : order_) {
      const bool idle = s.m.cpus[c].tasks.empty();
      if (idle || busy_due) balance(s, c, idle);
    }
  }

  /// schedule() on a CPU with nothing left to run: load_balance() as idle, at once.
  void newidle(world& s, cpu_index cpu) {
    if (s.m.cpus[cpu].tasks.empty()) balance(s, cpu, true);
  }

  /// load_balance(): CPU `dst` pulls from the longest runqueue; the number of tasks moved.
  static unsigned balance(world& s, cpu_index dst, bool idle) {
    const std::size_t here = s.m.cpus[dst].tasks.size();
    // find_busiest_queue(): the longest other queue (the first found), of two tasks or more.
    cpu_index busiest = no_cpu;
    std::size_t most = 1;
    for (cpu_index c = 0; c < s.m.cpus.size(); ++c) {
      const std::size_t n = s.m.cpus[c].tasks.size();
      if (c != dst && n > most) {
        busiest = c;
        most = n;
      }
    }
    if (busiest == no_cpu || most <= here + 1) return 0;  // two longer at least
    const std::size_t imbalance = (most - here) / 2;
    if (!idle && imbalance < (most + 3) / 4) return 0;  // "at least ~25 % imbalance"
    // From the tail of the queue, never the running task (the first): an idle CPU takes one
    // task, a busy one the imbalance.
    const node_index to = s.m.cpus[dst].node;
    const std::size_t want = idle ? 1 : imbalance;
    unsigned moved = 0;
    for (std::size_t i = s.m.cpus[busiest].tasks.size(); i-- > 1 && moved < want;) {
      const auto& queue = s.m.cpus[busiest].tasks;
      if (i >= queue.size()) continue;
      const task_index id = queue[i];
      if (!s.m.task_allowed(id, to)) continue;
      s.move_task(id, dst);
      ++moved;
    }
    return moved;
  }

 private:
  std::vector<cpu_index> order_;
  double next_busy_ms_ = 0;
};

}  // namespace numaplace::sim
