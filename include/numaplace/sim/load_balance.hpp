#pragma once
// The load balancer: spreads runnable tasks over idle cores inside each node, then lets a node
// with an idle CPU pull from the busiest node when their difference exceeds what the stack's
// NUMA imbalance allowance forgives (adjust_numa_imbalance in calculate_imbalance). Flat: one
// level between nodes, every balance_interval_ms. Which task goes follows can_migrate_task():
// with NUMA balancing the library's migrate_degrades_locality() keeps tasks where their
// locality is, until balancing has failed often enough.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../policy/balance_locality.hpp"
#include "world.hpp"

namespace numaplace::sim {

namespace detail {

// How many failed attempts a NUMA domain tolerates before it pulls a cache-hot or
// locality-degrading task anyway (sd_init() sets cache_nice_tries = 2 on SD_NUMA levels).
inline constexpr unsigned numa_cache_nice_tries = 2;

// detach_tasks()/can_migrate_task(): the first task of `src` the stack lets go to `dst`. With
// NUMA balancing, a move that degrades the task's locality is refused until balancing has
// failed more than cache_nice_tries times in a row.
template <class Placement>
task_index pick_task_to_pull(const world& s, const Placement& pl, node_index src, node_index dst, bool desperate) {
  task_index fallback = no_task;
  for (auto c : s.m.node_cpus[src]) {
    const auto& queue = s.m.cpus[c].tasks;
    unsigned prefer_src = 0;
    for (auto id : queue) prefer_src += s.m.tasks[id].preferred == src ? 1u : 0u;
    for (auto id : queue) {
      const task_state& t = s.m.tasks[id];
      if (!s.m.allowed(t.process, dst)) continue;
      if constexpr (balances_numa<Placement>) {
        if (s.o.mode != balancing::numa) return id;  // numa_balancing off: no locality test
        const balance_move mv{src, dst, t.preferred, t.stats.total() != 0, true, unsigned(queue.size()), prefer_src};
        if (migrate_degrades_locality(pl, s.m.input_of(t), mv) == locality_effect::degrades) {
          if (fallback == no_task) fallback = id;
          continue;
        }
      }
      return id;
    }
  }
  return desperate ? fallback : no_task;
}

// An idle CPU of node n that `task` may use, on an idle core if possible.
inline cpu_index idle_cpu_for(const world& s, node_index n, task_index task) {
  return s.m.allowed(s.m.tasks[task].process, n) ? s.m.idle_cpu(n) : no_cpu;
}

}  // namespace detail

class load_balancer {
 public:
  template <class Placement>
  void run(world& s, const Placement& pl) {
    machine& m = s.m;
    failed_.resize(m.node_count(), 0);
    // Inside a node: spread over idle cores first, then idle CPUs.
    for (node_index n = 0; n < m.node_count(); ++n) {
      for (auto c : m.node_cpus[n]) {
        while (m.cpus[c].tasks.size() > 1) {
          const cpu_index idle = detail::idle_cpu_for(s, n, m.cpus[c].tasks.back());
          if (idle == no_cpu) break;
          s.move_task(m.cpus[c].tasks.back(), idle);
        }
      }
    }
    // Between nodes: an idle node pulls from the busiest one.
    for (node_index dst = 0; dst < m.node_count(); ++dst) {
      for (int guard = 0; guard < 64; ++guard) {
        const cpu_index idle = m.idle_cpu(dst);
        if (idle == no_cpu) break;
        node_index src = no_node;
        long most = 0;
        for (node_index from = 0; from < m.node_count(); ++from) {
          if (from == dst) continue;
          const long diff = long(m.running_on(from)) - long(m.running_on(dst));
          const bool overloaded = m.running_on(from) > m.node_cpus[from].size();
          if ((overloaded || diff >= 2) && diff > most) {
            most = diff;
            src = from;
          }
        }
        if (src == no_node) break;
        long imbalance = std::max(1L, most / 2);
        const bool overloaded = m.running_on(src) > m.node_cpus[src].size();
        if constexpr (Placement::has_imbalance_policy()) {
          if (!overloaded) {
            imbalance = pl.adjust_balancer_imbalance({imbalance, int(m.running_on(src)), int(m.node_cpus[src].size()),
                                                      int(m.running_on(dst)), m.imb_numa_nr(dst)});
          }
        }
        if (imbalance <= 0) break;
        const task_index pick =
            detail::pick_task_to_pull(s, pl, src, dst, failed_[dst] > detail::numa_cache_nice_tries);
        if (pick == no_task) {
          ++failed_[dst];
          break;
        }
        failed_[dst] = 0;
        s.move_task(pick, idle);
      }
    }
  }

 private:
  std::vector<unsigned> failed_;  // sd->nr_balance_failed, per pulling node
};

}  // namespace numaplace::sim
