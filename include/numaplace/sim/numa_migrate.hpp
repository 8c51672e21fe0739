#pragma once
// numa_migrate_preferred()'s move: the stack's task_numa_migrate decides over the machine's
// view (a move to a CPU, a swap with the task running there, or stick), the machine carries it
// out, and the task's preferred node becomes what the stack's settling says.

#include <cstdint>

#include "../policy/task_migration.hpp"
#include "machine.hpp"
#include "world.hpp"

namespace numaplace::sim {

template <class Placement>
void numa_migrate(world& s, const Placement& pl, task_index id) {
  const migrate_decision d = pl.task_migration().decide(machine_view_of(s.m), pl, id);
  if (d.kind == migrate_kind::swap) {
    const cpu_index from = s.m.tasks[id].cpu;
    s.move_task(d.swap_with, from);
  }
  if (d.kind != migrate_kind::stick) s.move_task(id, d.cpu);
  s.m.tasks[id].preferred = d.preferred_after;
}

}  // namespace numaplace::sim
