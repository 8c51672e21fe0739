#pragma once
// Tasks that block and wake. A sleeping task is on no runqueue (dequeue_task() on block); it
// keeps the CPU it last ran on, which its wakeup starts from. Its numa_group membership and
// fault counts do not change while it sleeps (task_numa_free() runs only when it exits).
//
// Where a woken task goes follows the CFS wakeup path, select_task_rq_fair() with
// SD_BALANCE_WAKE unset on the NUMA levels (as since v3.x): the target is the previous CPU
// (wake_affine() pulling towards the waker is not modelled: the waker here is a JVM's own
// safepoint or collector thread, and the model has no CPU for it), then select_idle_sibling():
//   - the target itself when it is idle (every version since v2.6.38);
//   - else an idle CPU sharing its last-level cache, a whole idle core first: before v4.9 the
//     first fully idle group of sd_llc, from v4.9 select_idle_core() then select_idle_cpu()
//     (kernel/sched/fair.c); the model's nodes are one LLC each, so that is an idle CPU of the
//     previous CPU's node, on an idle core if there is one (machine::idle_cpu);
//   - else the target, the previous CPU, queued behind what runs there.
// A sleeping task never changes node, so a wakeup never leaves the LLC it slept in.

#include <cstdint>

#include "machine.hpp"

namespace numaplace::sim {

/// The CPU sleeping task `id` wakes on, as select_task_rq_fair() / select_idle_sibling() choose
/// it (above).
inline cpu_index select_wake_cpu(const machine& m, task_index id) {
  const task_state& t = m.tasks[id];
  const cpu_index prev = t.cpu;
  if (m.cpus[prev].tasks.empty()) return prev;
  if (const cpu_index idle = m.idle_cpu(m.cpus[prev].node); idle != no_cpu) return idle;
  return prev;
}

}  // namespace numaplace::sim
