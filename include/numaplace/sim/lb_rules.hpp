#pragma once
// find_busiest_group() and calculate_imbalance() by kernel: what one balancing CPU decides
// from its domain's group statistics. Pure: statistics in, a decision out.
//
// Before v5.5 the balancer averages load (every task here weighs NICE_0_LOAD, 1024): the
// busiest group is the overloaded one, else the most loaded per CPU, and the imbalance is what
// brings both towards the domain's average (v3.19's form). From v5.5 (Vincent Guittot's
// rework) groups have a type (has_spare, fully_busy, overloaded) and the imbalance a unit: a
// number of tasks, spare utilisation, or load. There, NUMA domains forgive a small imbalance
// through the stack's adjust_numa_imbalance (policy/imbalance_adjustment.hpp).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../policy/inputs.hpp"
#include "../policy/load_imbalance.hpp"
#include "../topology/sched_domains.hpp"

namespace numaplace::sim {

/// Which balancer the simulated kernel has.
enum class lb_rule : std::uint8_t {
  v3_19,  ///< load averaging, sd_init() of v3.19 (busy_factor 32, NUMA imbalance_pct 125)
  v5_5,   ///< group types (v5.5, 0b0695f2b34a), sd_init() as before v5.10: linux-5.5 to linux-5.9
  v5_10,  ///< group types, sd_init() of v5.10 and later (busy_factor 16, imbalance_pct 117)
};

constexpr sd_init_rule sd_rule_of(lb_rule r) noexcept {
  return r == lb_rule::v5_10 ? sd_init_rule::v5_10 : sd_init_rule::v3_19;
}

/// enum cpu_idle_type: why the balancing CPU balances.
enum class lb_idle : std::uint8_t { idle, not_idle, newly_idle };

/// enum migration_type (v5.5+); before v5.5 always load.
enum class lb_migration : std::uint8_t { load, util, task };

/// struct sg_lb_stats, as the model sees a group: every task weighs 1024, every CPU 1024.
struct lb_group_stats {
  unsigned nr_running = 0;  ///< sum_nr_running
  unsigned weight = 0;      ///< group_weight
  unsigned idle_cpus = 0;
  numa_type type = numa_type::has_spare;  ///< group_classify() (v5.5+)

  std::uint64_t capacity() const noexcept { return std::uint64_t{weight} * 1024; }
  std::uint64_t load() const noexcept { return std::uint64_t{nr_running} * 1024; }
  /// avg_load: load scaled by capacity.
  std::uint64_t avg_load() const noexcept { return weight == 0 ? 0 : load() * 1024 / capacity(); }
  /// v3.19's group_overloaded: more tasks than CPUs (sum_nr_running > group_capacity_factor).
  bool overloaded_v3() const noexcept { return nr_running > weight; }
};

/// update_sg_lb_stats() for CPUs with `queue_len(c)` tasks; the type by group_classify() (v5.5,
/// here numa_classify's test: the same utilisation and runnable thresholds).
template <class QueueLength>
lb_group_stats group_stats_of(const std::vector<cpu_index>& cpus, unsigned imbalance_pct, QueueLength&& queue_len) {
  lb_group_stats g;
  for (auto c : cpus) {
    const unsigned q = queue_len(c);
    g.nr_running += q;
    g.idle_cpus += q == 0 ? 1u : 0u;
  }
  g.weight = unsigned(cpus.size());
  numa_stats ns;
  ns.nr_running = g.nr_running;
  ns.weight = g.weight;
  ns.compute_capacity = g.capacity();
  ns.util = std::uint64_t{g.weight - g.idle_cpus} * 1024;
  ns.runnable = g.load();
  g.type = numa_classify(imbalance_pct, ns);
  return g;
}

/// What one balancing pass decided: nothing (busiest == none), or how much to pull from whom.
struct lb_decision {
  static constexpr std::uint32_t none = ~std::uint32_t{0};
  std::uint32_t busiest = none;
  lb_migration type = lb_migration::load;
  long imbalance = 0;
  bool balanced() const noexcept { return busiest == none || imbalance <= 0; }
};

/// The domain as calculate_imbalance() reads it.
struct lb_env {
  sched_domain_params p;
  bool prefer_sibling = false;
  lb_idle idle = lb_idle::idle;
  int imb_numa_nr = 1;  ///< sd->imb_numa_nr (v5.18+), for the allowance
};

namespace detail {

inline std::uint64_t domain_avg_load(const std::vector<lb_group_stats>& groups) {
  std::uint64_t load = 0, capacity = 0;
  for (const auto& g : groups) {
    load += g.load();
    capacity += g.capacity();
  }
  return capacity == 0 ? 0 : load * 1024 / capacity;
}

// fix_small_imbalance() (v3.19), tasks of equal weight: move one task when that narrows the
// per-CPU load gap by at least one task's share, or when it fills an idle CPU of local from
// an overloaded busiest (the throughput test).
inline long fix_small_imbalance(const lb_group_stats& local, const lb_group_stats& busiest) {
  const long scaled = long(1024 * 1024 / std::max<std::uint64_t>(1, busiest.capacity()));
  const long gap = long(busiest.avg_load()) - long(local.avg_load());
  if (gap + scaled >= 2 * scaled) return 1024;
  if (local.idle_cpus > 0 && busiest.overloaded_v3()) return 1024;
  return 0;
}

// update_sd_pick_busiest()'s walk: the group, other than local and with tasks, that no other
// beats; `busier(g, b)` is the era's rule for whether g beats b.
template <class Busier>
std::uint32_t pick_busiest(const std::vector<lb_group_stats>& groups, std::uint32_t local_id, Busier&& busier) {
  std::uint32_t busiest = lb_decision::none;
  for (std::uint32_t i = 0; i < groups.size(); ++i) {
    if (i == local_id || groups[i].nr_running == 0) continue;
    if (busiest == lb_decision::none || busier(groups[i], groups[busiest])) busiest = i;
  }
  return busiest;
}

}  // namespace detail

/// find_busiest_group() and calculate_imbalance() of v3.19 (load averaging).
inline lb_decision decide_v3_19(const std::vector<lb_group_stats>& groups, std::uint32_t local_id, const lb_env& env) {
  lb_decision d;
  const lb_group_stats& local = groups[local_id];
  // update_sd_pick_busiest(): overloaded first, then the higher avg_load.
  d.busiest = detail::pick_busiest(groups, local_id, [](const lb_group_stats& g, const lb_group_stats& b) {
    return g.overloaded_v3() != b.overloaded_v3() ? g.overloaded_v3() : g.avg_load() > b.avg_load();
  });
  if (d.busiest == lb_decision::none) return d;
  const lb_group_stats& busiest = groups[d.busiest];
  const std::uint64_t avg = detail::domain_avg_load(groups);
  const bool force = env.idle == lb_idle::newly_idle && local.nr_running < local.weight && busiest.overloaded_v3();
  if (!force) {
    if (local.avg_load() >= busiest.avg_load() || local.avg_load() >= avg) return {};
    if (env.idle == lb_idle::idle) {
      if (!busiest.overloaded_v3() && local.idle_cpus <= busiest.idle_cpus + 1) return {};
    } else if (100 * busiest.avg_load() <= env.p.imbalance_pct * local.avg_load()) {
      return {};
    }
  }
  // calculate_imbalance() (v3.19).
  d.type = lb_migration::load;
  if (busiest.avg_load() <= avg || local.avg_load() >= avg) {
    d.imbalance = detail::fix_small_imbalance(local, busiest);
    return d;
  }
  std::uint64_t above = ~std::uint64_t{0};
  if (busiest.overloaded_v3() && local.overloaded_v3()) {
    above = std::uint64_t{busiest.nr_running - busiest.weight} * 1024 * 1024 / busiest.capacity();
  }
  const std::uint64_t max_pull = std::min(busiest.avg_load() - avg, above);
  d.imbalance = long(std::min(max_pull * busiest.capacity(), (avg - local.avg_load()) * local.capacity()) / 1024);
  if (d.imbalance < 1024) d.imbalance = detail::fix_small_imbalance(local, busiest);
  return d;
}

/// find_busiest_group() and calculate_imbalance() of v5.5 onwards (group types). `adjust` is
/// the stack's NUMA allowance (balancer_args -> imbalance), called on NUMA domains only.
template <class Adjust>
lb_decision decide_v5_5(const std::vector<lb_group_stats>& groups, std::uint32_t local_id, const lb_env& env,
                        Adjust&& adjust) {
  lb_decision d;
  const lb_group_stats& local = groups[local_id];
  // update_sd_pick_busiest() (v5.5): the higher type; among overloaded or fully busy groups the
  // higher avg_load; among groups with spare capacity the fewer idle CPUs, then more tasks.
  d.busiest = detail::pick_busiest(groups, local_id, [](const lb_group_stats& g, const lb_group_stats& b) {
    if (g.type != b.type) return g.type > b.type;
    if (g.type == numa_type::has_spare) {
      return g.idle_cpus < b.idle_cpus || (g.idle_cpus == b.idle_cpus && g.nr_running > b.nr_running);
    }
    return g.avg_load() > b.avg_load();
  });
  if (d.busiest == lb_decision::none) return d;
  const lb_group_stats& busiest = groups[d.busiest];
  const std::uint64_t avg = detail::domain_avg_load(groups);
  // find_busiest_group() (v5.5).
  if (local.type > busiest.type) return {};
  if (local.type == numa_type::overloaded) {
    if (local.avg_load() >= busiest.avg_load() || local.avg_load() >= avg) return {};
    if (100 * busiest.avg_load() <= env.p.imbalance_pct * local.avg_load()) return {};
  }
  const bool force =
      env.prefer_sibling && local.type == numa_type::has_spare && busiest.nr_running > local.nr_running + 1;
  if (!force && busiest.type != numa_type::overloaded) {
    if (env.idle == lb_idle::not_idle) return {};
    if (busiest.weight > 1 && local.idle_cpus <= busiest.idle_cpus + 1) return {};
    if (busiest.nr_running == 1) return {};
  }
  // calculate_imbalance() (v5.5; the allowance's arguments as policy/imbalance_adjustment.hpp).
  if (local.type == numa_type::has_spare) {
    if (busiest.type > numa_type::fully_busy && !env.p.share_pkg_resources) {
      d.type = lb_migration::util;  // fill local's spare capacity
      d.imbalance = long(local.idle_cpus) * 1024;
      if (env.idle != lb_idle::not_idle && d.imbalance == 0) {
        d.type = lb_migration::task;
        d.imbalance = 1;
      }
      return d;
    }
    d.type = lb_migration::task;
    if (busiest.weight == 1 || env.prefer_sibling) {
      d.imbalance = std::max(0L, long(busiest.nr_running) - long(local.nr_running)) >> 1;
    } else {
      d.imbalance = std::max(0L, long(local.idle_cpus) - long(busiest.idle_cpus)) >> 1;
    }
    if (env.p.numa) {
      d.imbalance = adjust(balancer_args{d.imbalance, int(busiest.nr_running), int(busiest.weight),
                                         int(local.nr_running), env.imb_numa_nr});
    }
    return d;
  }
  if (local.type < numa_type::overloaded && local.avg_load() >= busiest.avg_load()) return {};
  d.type = lb_migration::load;
  const long over = long(busiest.avg_load()) - long(avg);
  const long under = long(avg) - long(local.avg_load());
  d.imbalance = std::max(0L, std::min(over * long(busiest.capacity()), under * long(local.capacity())) / 1024);
  return d;
}

}  // namespace numaplace::sim
