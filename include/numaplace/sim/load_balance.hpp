#pragma once
// The load balancer over scheduling domains (lb_domains.hpp), as rebalance_domains() and
// load_balance() run it: every domain has per-group intervals (min_interval sd_weight ms,
// doubled while balanced up to max_interval, times busy_factor while the balancing CPU is busy);
// only one CPU per group balances a domain (should_we_balance(): its first idle CPU, else its
// first CPU); it pulls what find_busiest_group() and calculate_imbalance() of its kernel decide
// (lb_rules.hpp) from the busiest CPU of the busiest group. can_migrate_task() leaves the
// running task, and, on NUMA domains with NUMA balancing, refuses moves the library's
// migrate_degrades_locality() calls degrading until nr_balance_failed exceeds cache_nice_tries;
// after cache_nice_tries + 2 failures active balancing moves the running task (need_active_balance).
// A CPU that becomes idle balances at once, bottom-up (newidle_balance()).
//
// Simplifications: a NUMA domain's pulled tasks land on idle CPUs of the local group (where the
// lower levels would spread them within milliseconds), not all on the balancing CPU; task_hot()
// is not modelled (a queued task is cold); newidle balancing has no cost cutoff.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "../placement.hpp"
#include "../policy/balance_locality.hpp"
#include "../policy/imbalance_adjustment.hpp"
#include "lb_domains.hpp"
#include "lb_rules.hpp"
#include "world.hpp"

namespace numaplace::sim {

/// The balancer of placement P's kernel: v3.19's without an imbalance policy, v5.5's with none
/// (v5.5) or the source-based allowance (v5.6..v5.9), v5.10's with the later ones.
template <class P>
struct lb_rule_of {
  static constexpr lb_rule value = lb_rule::v5_10;  // no NUMA balancing: the default kernel's
};
template <class View, class... Ps>
struct lb_rule_of<placement<View, Ps...>> {
  static constexpr bool v5_9 = (std::is_same_v<Ps, imbalance_adjustment<imbalance_rule::v5_5>> || ...) ||
                               (std::is_same_v<Ps, imbalance_adjustment<imbalance_rule::v5_7>> || ...);
  static constexpr lb_rule value = !placement<View, Ps...>::has_imbalance_policy() ? lb_rule::v3_19
                                   : v5_9                                          ? lb_rule::v5_5
                                                                                   : lb_rule::v5_10;
};

/// machine::imb_numa_shift for placement P's kernel: 2 (a quarter of a node) under v5.18's
/// allowance, which v5.19 kept; 3 (an eighth) from v6.0, and for kernels that never read it.
template <class P>
struct imb_numa_shift_of {
  static constexpr unsigned value = 3;
};
template <class View, class... Ps>
struct imb_numa_shift_of<placement<View, Ps...>> {
  static constexpr unsigned value =
      (std::is_same_v<Ps, imbalance_adjustment<imbalance_rule::v5_18>> || ...) ? 2u : 3u;
};

class load_balancer {
 public:
  /// Periodic balancing (rebalance_domains()): call once per tick; domains not due cost nothing.
  template <class Placement>
  void tick(world& s, const Placement& pl) {
    ensure_built<Placement>(s);
    if (s.now_ms < next_check_) return;
    next_check_ = std::numeric_limits<double>::infinity();
    for (std::uint32_t id = 0; id < d_.domains.size(); ++id) {
      lb_domain& d = d_.domains[id];
      if (s.now_ms >= d.next_check_ms) check(s, pl, d);
      next_check_ = std::min(next_check_, d.next_check_ms);
    }
  }

  /// newidle_balance(): CPU `cpu` has just become idle; it pulls at once, bottom-up through its
  /// domains, and stops at the first level that gave it a task.
  template <class Placement>
  void newidle(world& s, const Placement& pl, cpu_index cpu) {
    ensure_built<Placement>(s);
    if (!s.m.cpus[cpu].tasks.empty()) return;
    for (const auto& [id, local] : d_.chain[cpu]) {
      lb_domain& d = d_.domains[id];
      refresh(s, d);
      if (balance(s, pl, d, local, lb_idle::newly_idle, cpu) > 0) return;
    }
  }

  /// The domains (after the first tick or newidle), for tests.
  const lb_domains& domains() const noexcept { return d_; }
  lb_domains& domains() noexcept { return d_; }

  /// Builds the domains for `s`'s machine now (else the first call does), for tests.
  template <class Placement>
  void ensure_built(const world& s) {
    if (built_) return;
    d_ = lb_domains(s.m, sd_rule_of(lb_rule_of<Placement>::value));
    built_ = true;
  }

 private:
  static constexpr unsigned nr_migrate = 32;  // sysctl_sched_nr_migrate: tasks per pass, at most

  lb_domains d_;
  std::vector<lb_group_stats> stats_;
  double next_check_ = 0;
  bool built_ = false;

  void refresh(const world& s, const lb_domain& d) {
    stats_.clear();
    for (const auto& g : d.groups) {
      stats_.push_back(group_stats_of(g.cpus, d.p.imbalance_pct,
                                      [&](cpu_index c) { return unsigned(s.m.cpus[c].tasks.size()); }));
    }
  }

  // One domain's due groups balance, each from its balancing CPU (should_we_balance()).
  template <class Placement>
  void check(world& s, const Placement& pl, lb_domain& d) {
    refresh(s, d);
    double next = std::numeric_limits<double>::infinity();
    for (std::uint32_t g = 0; g < d.groups.size(); ++g) {
      lb_group& grp = d.groups[g];
      cpu_index dst = grp.cpus.front();
      for (auto c : grp.cpus) {
        if (s.m.cpus[c].tasks.empty()) {
          dst = c;
          break;
        }
      }
      const bool idle = s.m.cpus[dst].tasks.empty();
      // get_sd_balance_interval(): busy CPUs wait busy_factor times longer.
      const double due = grp.last_ms + grp.interval_ms * (idle ? 1.0 : double(d.p.busy_factor));
      if (s.now_ms >= due) {
        grp.last_ms = s.now_ms;
        if (balance(s, pl, d, g, idle ? lb_idle::idle : lb_idle::not_idle, dst) > 0) refresh(s, d);
      }
      next = std::min(next, grp.last_ms + grp.interval_ms);
    }
    d.next_check_ms = next;
  }

  // load_balance(): pulls into group `local` of `d`, to `dst`; the number of tasks moved.
  template <class Placement>
  unsigned balance(world& s, const Placement& pl, lb_domain& d, std::uint32_t local, lb_idle idle, cpu_index dst) {
    lb_group& grp = d.groups[local];
    const bool newidle = idle == lb_idle::newly_idle;
    lb_env env{d.p, d.prefer_sibling, idle, s.m.imb_numa_nr(s.m.cpus[dst].node)};
    lb_decision dec;
    if constexpr (lb_rule_of<Placement>::value == lb_rule::v3_19) {
      dec = decide_v3_19(stats_, local, env);
    } else {
      dec = decide_v5_5(stats_, local, env, [&](const balancer_args& a) -> long {
        if constexpr (Placement::has_imbalance_policy()) {
          return pl.adjust_balancer_imbalance(a);
        } else {
          return a.imbalance;
        }
      });
    }
    if (dec.balanced()) {
      // out_balanced: no failure to remember; a balanced domain is looked at less often.
      if (!newidle) {
        grp.failed = 0;
        grp.interval_ms = std::min(grp.interval_ms * 2.0, d.max_interval());
      }
      return 0;
    }
    // find_busiest_queue(): the busiest group's CPU with most tasks; retried without a CPU
    // whose tasks are all pinned away from dst (LBF_ALL_PINNED's redo).
    std::vector<cpu_index> pinned;
    unsigned moved = 0;
    cpu_index src = no_cpu;
    for (int redo = 0; redo < 4; ++redo) {
      src = busiest_queue(s, d.groups[dec.busiest], pinned);
      if (src == no_cpu) break;
      if (s.m.cpus[src].tasks.size() <= 1) break;  // only its running task: active balance may take it
      bool all_pinned = true;
      moved = detach_tasks(s, pl, d, grp, dec, src, dst, all_pinned);
      if (moved > 0 || !all_pinned) break;
      pinned.push_back(src);
    }
    if (moved > 0) {
      if (!newidle) {
        grp.failed = 0;
        grp.interval_ms = d.min_interval();
      }
      return moved;
    }
    if (newidle) return 0;
    if (src == no_cpu) {  // out_all_pinned: balanced as far as affinity allows
      grp.failed = 0;
      grp.interval_ms = std::min(grp.interval_ms * 2.0, d.max_interval());
      return 0;
    }
    ++grp.failed;
    grp.interval_ms = d.min_interval();
    // need_active_balance(): after cache_nice_tries + 2 failures the running task is pushed
    // (active_load_balance_cpu_fn), and the failures set just past cache_nice_tries.
    if (grp.failed > d.p.cache_nice_tries + 2) {
      grp.failed = d.p.cache_nice_tries + 1;
      const auto& queue = s.m.cpus[src].tasks;
      if (!queue.empty() && s.m.task_allowed(queue.front(), s.m.cpus[dst].node)) {
        move(s, queue.front(), target_cpu(s, grp, dst, queue.front()));
        return 1;
      }
    }
    return 0;
  }

  static cpu_index busiest_queue(const world& s, const lb_group& g, const std::vector<cpu_index>& skip) {
    cpu_index best = no_cpu;
    std::size_t most = 0;
    for (auto c : g.cpus) {
      const std::size_t n = s.m.cpus[c].tasks.size();
      if (n > most && std::find(skip.begin(), skip.end(), c) == skip.end()) {
        most = n;
        best = c;
      }
    }
    return best;
  }

  // detach_tasks(): from the tail of src's queue, never its running task (the first).
  template <class Placement>
  unsigned detach_tasks(world& s, const Placement& pl, const lb_domain& d, const lb_group& grp, const lb_decision& dec,
                        cpu_index src, cpu_index dst, bool& all_pinned) {
    const node_index src_node = s.m.cpus[src].node, dst_node = s.m.cpus[dst].node;
    long left = dec.imbalance;
    unsigned moved = 0, looked = 0;
    const bool nice_exhausted = grp.failed > d.p.cache_nice_tries;
    for (std::size_t i = s.m.cpus[src].tasks.size(); i-- > 1 && left > 0 && looked < nr_migrate;) {
      const auto& queue = s.m.cpus[src].tasks;
      if (i >= queue.size()) continue;
      ++looked;
      const task_index id = queue[i];
      const task_state& t = s.m.tasks[id];
      if (!s.m.task_allowed(id, dst_node)) continue;
      all_pinned = false;
      if constexpr (balances_numa<Placement>) {
        if (d.p.numa && s.o.mode == balancing::numa && !nice_exhausted) {
          unsigned prefer_src = 0;
          for (auto q : queue) prefer_src += s.m.tasks[q].preferred == src_node ? 1u : 0u;
          const balance_move mv{src_node, dst_node, t.preferred, t.stats.total() != 0, s.m.cpus[dst].tasks.empty(),
                                unsigned(queue.size()), prefer_src};
          if (migrate_degrades_locality(pl, s.m.input_of(t), mv) == locality_effect::degrades) continue;
        }
      }
      // How much of the imbalance this task is (one task: 1024 of load or utilisation).
      if (dec.type == lb_migration::task) {
        left -= 1;
      } else if (dec.type == lb_migration::util) {
        left -= 1024;
      } else {
        // migrate_load: up to v5.9 a task whose half-load exceeds what is left stays; v5.10
        // ("sched/fair: relax constraint on task's load during load balance") halves the load
        // it compares once per failure so far (shr_bound(load, nr_balance_failed)).
        const long weight = lb_rule_of<Placement>::value == lb_rule::v5_10 ? 1024L >> std::min(grp.failed, 10u) : 512L;
        if (weight > left) continue;
        left -= 1024;
      }
      move(s, id, target_cpu(s, grp, dst, id));
      ++moved;
    }
    return moved;
  }

  // Where a pulled task runs: the balancing CPU while idle, else an idle CPU of the local
  // group the task may use (an idle core first), else the balancing CPU.
  static cpu_index target_cpu(const world& s, const lb_group& grp, cpu_index dst, task_index id) {
    if (s.m.cpus[dst].tasks.empty()) return dst;
    cpu_index fallback = no_cpu;
    for (auto c : grp.cpus) {
      if (!s.m.cpus[c].tasks.empty() || !s.m.task_allowed(id, s.m.cpus[c].node)) continue;
      if (!s.m.core_busy(s.m.cpus[c].core)) return c;
      if (fallback == no_cpu) fallback = c;
    }
    return fallback != no_cpu ? fallback : dst;
  }

  static void move(world& s, task_index id, cpu_index to) {
    if (!s.m.task_allowed(id, s.m.cpus[to].node))
      throw std::logic_error("load balancer: task " + std::to_string(id) + " moved to node " +
                             std::to_string(s.m.cpus[to].node) + ", which its binding does not allow");
    s.move_task(id, to);
  }
};

}  // namespace numaplace::sim
