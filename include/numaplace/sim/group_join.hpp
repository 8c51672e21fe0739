#pragma once
// task_numa_group() on the simulated machine: the facts a shared hinting fault gives the
// library's join rule (stats/numa_group.hpp), and the group bookkeeping that follows it.

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "../policy/page_migration.hpp"
#include "../stats/numa_group.hpp"
#include "random.hpp"
#include "world.hpp"

namespace numaplace::sim {

/// A shared fault by task `id` on a page last faulted by `last`: the task gets a group of its
/// own if it has none (seeded with its counts), then joins the last toucher's group if the
/// rule says so (its counts move with it).
template <class Rng>
join_verdict join_on_shared_fault(machine& m, task_index id, const last_cpupid& last, Rng& rng) {
  task_state& t = m.tasks[id];
  if (t.group == no_group) t.group = m.groups.create(t.stats);
  const task_state& other = m.tasks[last.task];
  // The page's cpupid names a CPU: its current task must be the last toucher. The model keeps
  // the node, not the CPU; a toucher still on that node is running there a share of the time.
  bool running = false;
  if (other.alive && !other.asleep && other.node == last.node) {
    const auto queued = m.cpus[other.cpu].tasks.size();
    running = queued == 1 || random_index(rng, queued) == 0;
  }
  const numa_group* mine = m.groups.find(t.group);
  const numa_group* theirs = m.groups.find(other.group);
  group_join_facts f;
  f.my_group = t.group;
  f.my_group_tasks = mine->nr_tasks;
  f.other_group = theirs ? other.group : no_group;
  f.other_group_tasks = theirs ? theirs->nr_tasks : 0;
  f.last_toucher_running = running;
  f.same_process = other.process == t.process;
  const join_verdict v = join_group(f);
  if (v == join_verdict::join) t.group = m.groups.move(t.stats, t.group, other.group);
  return v;
}

/// Throws std::logic_error, naming the group and where it differs, unless group g equals the
/// sum of its live members.
inline void verify_group(const machine& m, group_index g) {
  std::vector<const fault_stats*> members;
  for (const auto& t : m.tasks) {
    if (t.alive && t.group == g) members.push_back(&t.stats);
  }
  if (const auto bad = numa_group_consistency(*m.groups.find(g), members)) throw std::logic_error(bad->message(g));
}

}  // namespace numaplace::sim
