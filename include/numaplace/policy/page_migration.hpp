#pragma once
// page_migration: whether a NUMA hinting fault moves the page to the faulting CPU's node.
//
// The kernel decides this per fault, in two places: mpol_misplaced() (mm/mempolicy.c) names the
// destination (under the default policy's MPOL_F_MORON, "migrate on reference on node", the
// faulting CPU's node), and the two-stage filter, later should_numa_migrate_memory()
// (kernel/sched/fair.c), judges whether to go there. The filter keys a page by its last
// cpupid: the node of the CPU and the task that faulted on it last. Every fault overwrites it,
// local faults included (mpol_misplaced calls the filter before it compares the nodes), so the
// caller keeps one last_cpupid per page (or per chunk) and hands it in by reference.
//
// Up to v4.18, migrate_misplaced_page() also refused pages once a destination node had taken
// ratelimit_pages in the current window: migrate_ratelimit is that limiter, and page_migration's
// second parameter says whether a stack has it (v4.19's two changes, efaffc5e40ae's removal of the
// limit and 37355bdc5a12's early migration, can so be taken one at a time).
//
// What the kernel looks at and this header does not: page_mapcount()/VM_EXEC file pages and
// dirty file pages (never migrated), the destination's free memory (migrate_balanced_pgdat),
// memory tiering (v6.0+, NUMA_BALANCING_MEMORY_TIERING), and v3.13's
// numa_balancing_migrate_deferred, which skipped a task's next 16 shared-page migrations after
// one was filtered out (removed again in v3.14).

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "../stats/active_nodes.hpp"
#include "../stats/fault_view.hpp"
#include "../topology/types.hpp"
#include "loop_inputs.hpp"
#include "machine_view.hpp"

namespace numaplace {

enum class page_migration_rule : std::uint8_t {
  v3_8,   ///< mpol_misplaced: migrate on the second fault in a row from one node (page->last_nid);
          ///< a never-faulted page (last nid -1) never passes (v3.8..v3.12)
  v3_13,  ///< last_cpupid: a never-faulted page passes the filter; everything that passes
          ///< migrates (v3.13..v3.14)
  v3_15,  ///< should_numa_migrate_memory: private or ungrouped pass; shared pages only towards
          ///< the group's active_nodes mask, from more used to less used nodes (v3.15..v4.5)
  v4_6,   ///< ACTIVE_NODE_FRACTION shortcut, else 3/4 hysteresis on CPU/memory fault ratios (v4.6..v4.18)
  v4_19,  ///< also first and private faults migrate at once early in a task's life (v4.19+)
};

/// ng->active_nodes upkeep of v3.15..v4.5 (update_numa_active_node_mask): a node joins when its
/// group CPU faults exceed 6/16 of the busiest node's and leaves when they fall below 3/16.
/// `mask` has one flag per node; nodes past the group's node count are cleared.
constexpr void update_active_node_mask(const fault_view& group, std::span<bool> mask) noexcept {
  const std::uint64_t max = max_cpu_faults(group);
  for (std::size_t n = 0; n < mask.size(); ++n) {
    if (n >= group.node_count()) {
      mask[n] = false;
      continue;
    }
    const std::uint64_t faults = group.cpu_faults(static_cast<node_index>(n));
    if (!mask[n]) {
      if (faults > max * 6 / 16) mask[n] = true;
    } else if (faults < max * 3 / 16) {
      mask[n] = false;
    }
  }
}

/// Whether misplaced-page migration is rate-limited per destination node.
enum class migrate_limit : std::uint8_t {
  ratelimit,  ///< numamigrate_update_ratelimit(): 128 MB per node per 100 ms (v3.8..v4.18)
  none,       ///< removed by efaffc5e40ae, "mm, sched/numa: Remove rate-limiting of automatic
              ///< NUMA balancing migration" (v4.19, after -rc5)
};

/// The limit a kernel of this rule has: v4.19 (the early-migration rule) came without it.
constexpr migrate_limit default_migrate_limit(page_migration_rule r) noexcept {
  return r == page_migration_rule::v4_19 ? migrate_limit::none : migrate_limit::ratelimit;
}

template <page_migration_rule Rule, migrate_limit Limit = default_migrate_limit(Rule)>
struct page_migration {
  static constexpr page_migration_rule rule = Rule;
  static constexpr migrate_limit limit = Limit;

  /// The two-stage filter and, from v3.15, should_numa_migrate_memory(): records this fault as
  /// the page's last cpupid and says whether the page may move to f.cpu_node. Call it for every
  /// hinting fault, local ones too (the record matters); whether the page actually moves is
  /// misplaced_target()'s answer.
  constexpr bool should_migrate(last_cpupid& page, const migrate_fault& f) const noexcept {
    const last_cpupid last = page;  // page_cpupid_xchg_last(page, this_cpupid)
    page = {f.cpu_node, f.task};
    const bool private_fault = !last.unset() && last.task == f.task;  // cpupid_match_pid

    if constexpr (Rule == page_migration_rule::v3_8) {
      // v3.8 mpol_misplaced: last_nid = page_xchg_last_nid(page, polnid); if (last_nid != polnid) out.
      return last.node == f.cpu_node;
    } else {
      if constexpr (Rule == page_migration_rule::v4_19) {
        // v4.19 (37355bdc5a12): first or private faults migrate at once while the task has no
        // preferred node or has completed at most 4 scan passes ("two full passes of the
        // multi-stage filter"). v5.1 spells -1 as NUMA_NO_NODE; the rule is unchanged since.
        if ((f.preferred == no_node || f.scan_seq <= 4) && (last.unset() || private_fault)) return true;
      }
      // The two-stage filter (v3.13 mpol_misplaced, v3.15+ should_numa_migrate_memory).
      if (!last.unset() && last.node != f.cpu_node) return false;
      if constexpr (Rule == page_migration_rule::v3_13) {
        return true;
      } else {
        if (private_fault) return true;        // "Always allow migrate on private faults"
        if (f.group.empty()) return true;      // "A shared fault, but p->numa_group has not been set up yet"
        const node_index src = f.page_node;
        const node_index dst = f.cpu_node;
        if constexpr (Rule == page_migration_rule::v3_15) {
          // v3.15 (10f39042711b): only towards a node in the active mask; from an inactive
          // node always; between active nodes only when dst has under 3/4 of src's memory faults.
          const auto active = [&](node_index n) { return n < f.active_nodes.size() && f.active_nodes[n]; };
          if (!active(dst)) return false;
          if (!active(src)) return true;
          return mem(f.group, dst) < mem(f.group, src) * 3 / 4;
        } else {
          // v4.6 (4142c3ebb685): a destination with more than ACTIVE_NODE_FRACTION (3) times the
          // source's CPU faults wins outright; otherwise memory follows CPU use with 3/4 hysteresis:
          //   cpu(dst)/mem(dst) * 3/4 > cpu(src)/mem(src), cross-multiplied in ulong.
          if (cpu(f.group, dst) > cpu(f.group, src) * active_node_fraction) return true;
          return cpu(f.group, dst) * mem(f.group, src) * 3 > cpu(f.group, src) * mem(f.group, dst) * 4;
        }
      }
    }
  }

  /// mpol_misplaced() under the default policy (MPOL_F_MOF | MPOL_F_MORON): the node the page
  /// should move to, or no_node when it stays. The filter runs first and records the fault
  /// even when the page is already on the faulting CPU's node.
  constexpr node_index misplaced_target(last_cpupid& page, const migrate_fault& f) const noexcept {
    if (!should_migrate(page, f)) return no_node;
    return f.page_node != f.cpu_node ? f.cpu_node : no_node;
  }

 private:
  static constexpr std::uint64_t mem(const fault_view& g, node_index n) noexcept {
    return n < g.node_count() ? g.faults(n) : 0;
  }
  static constexpr std::uint64_t cpu(const fault_view& g, node_index n) noexcept {
    return n < g.node_count() ? g.cpu_faults(n) : 0;
  }
};

/// numamigrate_update_ratelimit() of v3.8..v4.18 (mm/migrate.c): at most `pages_per_window`
/// pages (ratelimit_pages = 128 MB of base pages) migrate to one destination node per window
/// (migrate_interval_millisecs = 100 ms); the window restarts at the first request after it
/// ends. The check is `taken > limit` before counting, so the last batch admitted may overshoot
/// the limit by up to its own size, as in the kernel.
///
/// Stateful (the kernel keeps it in each pg_data_t, updated without a lock); not thread-safe.
class migrate_ratelimit {
 public:
  /// 128 MB in 4 KiB pages (128 << (20 - PAGE_SHIFT)).
  static constexpr std::uint64_t default_pages = 128u << (20 - 12);
  static constexpr std::uint64_t default_window_ns = 100'000'000;
  static constexpr std::uint64_t pte_update_interval_ns = 1'000'000'000;

  explicit migrate_ratelimit(std::size_t node_count, std::uint64_t pages_per_window = default_pages,
                             std::uint64_t window_ns = default_window_ns)
      : limit_(pages_per_window), window_ns_(window_ns), nodes_(node_count) {}

  /// Asks to migrate `pages` (1, or HPAGE_PMD_NR for a huge page) to `dst` at time `now_ns`.
  /// True: rate-limited, the page stays. False: admitted and counted. A node past the
  /// limiter's node count is never limited.
  bool limited(node_index dst, std::uint64_t pages, std::uint64_t now_ns) noexcept {
    if (dst >= nodes_.size()) return false;
    node_window& w = nodes_[dst];
    if (now_ns > w.next_window_ns) {  // time_after(jiffies, next_window)
      w.taken = 0;
      w.next_window_ns = now_ns + window_ns_;
    }
    if (w.taken > limit_) return true;
    w.taken += pages;
    return false;
  }

  /// migrate_ratelimited() (v3.8..v3.12, for the scanner of that era): whether `node` has taken
  /// its full rate in a window that closed at most a second ago (pteupdate_interval_millisecs:
  /// the window only restarts on a fault, so a quiet node stops counting as saturated).
  bool saturated(node_index node, std::uint64_t now_ns) const noexcept {
    if (node >= nodes_.size()) return false;
    const node_window& w = nodes_[node];
    if (now_ns > w.next_window_ns + pte_update_interval_ns) return false;
    return w.taken >= limit_;
  }

  /// Pages admitted to `dst` in its current window.
  std::uint64_t taken(node_index dst) const noexcept { return dst < nodes_.size() ? nodes_[dst].taken : 0; }

 private:
  struct node_window {
    std::uint64_t taken = 0;
    std::uint64_t next_window_ns = 0;
  };
  std::uint64_t limit_;
  std::uint64_t window_ns_;
  std::vector<node_window> nodes_;
};

}  // namespace numaplace
