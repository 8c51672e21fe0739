#pragma once
// The balancing loop's hooks: the four policies that act over time rather than on one
// decision's faults. Each is a role that one policy of a stack fills as a whole (the scan pace
// is four related functions of one kernel era, not four separate choices), so each hook hands
// back the policy itself, and the caller asks it what it needs. All four are at_most_one; a
// stack that names none gets the current kernel's (6.1) policy.
//
//   hook                               filled by (policy/...)         default
//   scan_pacing(pl) -> const P&        scan_period<scan_rule>         scan_period<scan_rule::v4_14>
//   page_migration(pl) -> const P&     memory_migration<page_migrate_rule>   memory_migration<v4_19>
//   task_migration(pl) -> const P&     numa_migration<migrate_rule>   numa_migration<v6_0>, 6.1's params
//   fork_balancing(pl) -> const P&     fork_placement<fork_rule>      fork_placement<fork_rule::v6_0>
//
// A policy fills a role by having the role's members (detected as below); a user's own scan
// pace, say, needs task_scan_start, task_scan_max, update_task_scan_period, backs_off and
// migrate_retry_jiffies with scan_period's signatures.

#include <concepts>
#include <cstdint>
#include <span>

#include "../stats/fault_stats.hpp"
#include "../stats/fault_view.hpp"
#include "../topology/types.hpp"
#include "combining.hpp"
#include "fork_placement.hpp"
#include "machine_view.hpp"
#include "memory_migration.hpp"
#include "scan_period.hpp"
#include "task_migrate.hpp"

namespace numaplace::hooks {

namespace detail {

/// The least machine_view, declared only: policies that read a view are detected against it.
struct machine_view_archetype {
  std::size_t node_count() const;
  distance_t distance(node_index, node_index) const;
  std::span<const cpu_index> cpus_of(node_index) const;
  node_index node_of_cpu(cpu_index) const;
  std::span<const task_index> tasks_on(cpu_index) const;
  cpu_index task_cpu(task_index) const;
  node_index task_node(task_index) const;
  node_index task_preferred(task_index) const;
  fault_view task_faults(task_index) const;
  fault_view group_faults(task_index) const;
  group_index group_of(task_index) const;
  bool allowed(task_index, node_index) const;
  std::uint64_t task_load(task_index) const;
};
static_assert(machine_view<machine_view_archetype>);

/// A role's hook: at_most_one, the provider itself or `Default`.
template <const auto& Default>
struct role {
  static constexpr combining rule = combining::at_most_one;
  static const auto& call(const auto& p, const auto&) noexcept { return p; }
  static const auto& fallback(const auto&) noexcept { return Default; }
};

inline constexpr scan_period<scan_rule::v4_14> modern_scan_pacing{};
inline constexpr memory_migration<page_migrate_rule::v4_19> modern_page_migration{};
inline constexpr numa_migration<migrate_rule::v6_0> modern_task_migration{migrate_params_for(6, 1)};
inline constexpr fork_placement<fork_rule::v6_0> modern_fork_balancing{};

}  // namespace detail

/// scan_pacing(pl): how fast the NUMA scanner walks a process's memory (task_scan_start,
/// task_scan_max, update_task_scan_period) and how often a task retries its preferred node
/// (numa_migrate_preferred's interval).
///   OPTIONAL (at_most_one): defaults to scan_period<scan_rule::v4_14> (v4.14..6.1).
struct scan_pacing : detail::role<detail::modern_scan_pacing> {
  template <class P, class Placement>
  static constexpr bool provided_by = requires(const P& p, const fault_window& w) {
    { p.task_scan_start(std::uint64_t{}, scan_tunables{}, scan_group{}) } -> std::convertible_to<unsigned>;
    { p.task_scan_max(std::uint64_t{}, scan_tunables{}, scan_group{}) } -> std::convertible_to<unsigned>;
    { p.update_task_scan_period(0u, 0u, 0u, 0u, w) } -> std::convertible_to<unsigned>;
    { p.migrate_retry_jiffies(0u) } -> std::convertible_to<unsigned long>;
    { p.backs_off(w) } -> std::convertible_to<bool>;
  };
};

/// page_migration(pl): whether a hinting fault moves the page to the faulting CPU's node
/// (mpol_misplaced and should_numa_migrate_memory), as misplaced_target(page, fault).
///   OPTIONAL (at_most_one): defaults to memory_migration<page_migrate_rule::v4_19>.
///   Postcondition of misplaced_target: the page's last cpupid records this fault.
struct page_migration : detail::role<detail::modern_page_migration> {
  template <class P, class Placement>
  static constexpr bool provided_by = requires(const P& p, last_cpupid& page, const migrate_fault& f) {
    { p.misplaced_target(page, f) } -> std::same_as<node_index>;
  };
};

/// task_migration(pl): task_numa_migrate(), where a task away from its preferred node should
/// run, as decide(view, pl, task) over a machine_view.
///   OPTIONAL (at_most_one): defaults to numa_migration<migrate_rule::v6_0> with 6.1's params.
struct task_migration : detail::role<detail::modern_task_migration> {
  template <class P, class Placement>
  static constexpr bool provided_by = requires(const P& p, const Placement& pl, const detail::machine_view_archetype& m,
                                               task_index t) {
    { p.decide(m, pl, t) } -> std::same_as<migrate_decision>;
  };
};

/// fork_balancing(pl): find_idlest_group()'s NUMA level and find_idlest_group_cpu(), the CPU a
/// new task starts on, as select_fork_cpu(view, args, allowed).
///   OPTIONAL (at_most_one): defaults to fork_placement<fork_rule::v6_0>.
struct fork_balancing : detail::role<detail::modern_fork_balancing> {
  template <class P, class Placement>
  static constexpr bool provided_by = requires(const P& p, const detail::machine_view_archetype& m,
                                               const fork_args& a) {
    { p.select_fork_cpu(m, a) } -> std::same_as<cpu_index>;
  };
};

}  // namespace numaplace::hooks
