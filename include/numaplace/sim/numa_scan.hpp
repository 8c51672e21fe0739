#pragma once
// The NUMA scanner and the hinting faults it causes, driven as the kernel drives them; every
// decision on the way is the stack's (its scan pace, page migration, placement, groups' join
// rule and task_numa_migrate). This file moves the state.
//
// The scanner works per process (per mm), not per thread (task_numa_work): when the mm's next
// scan is due, one of its threads (the cmpxchg winner on numa_next_scan) marks the next
// scan_size of the process's memory from the mm's scan offset and sets the next scan one of
// its own scan periods later. At the end of the address space the offset wraps and the mm's
// pass count (numa_scan_seq) advances. A marked chunk faults once, on its first access, taken
// by a thread drawn in proportion to how often each thread touches it. The fault (do_numa_page,
// then task_numa_fault) may migrate the chunk, may join the thread to a group, is recorded,
// and once the thread's migrate-retry time has passed its placement runs (ending a window once
// per pass of its mm) and, away from its preferred node, it tries to move there.
//
// From 6.4 (scan_pacing_rule::v6_11) the scan walks the process's VMAs and skips some by their
// own history and by the thread that scans (policy/vma_scan.hpp). The address space is then
// laid out as a process's usually is: its threads' stacks first (mmap hands out addresses top
// down, and threads start after the data they work on is allocated), newest lowest, each a
// VMA that only its thread touches and too small to simulate its pages; then the workload's
// mappings (region::mapping), in region order.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "../policy/machine_view.hpp"
#include "../policy/page_migration.hpp"
#include "../policy/scan_pacing.hpp"
#include "../policy/vma_scan.hpp"
#include "../stats/fault_stats.hpp"
#include "../stats/numa_group.hpp"
#include "access_index.hpp"
#include "buddies.hpp"
#include "group_join.hpp"
#include "interleave.hpp"
#include "numa_migrate.hpp"
#include "random.hpp"
#include "world.hpp"

namespace numaplace::sim {

template <class Placement>
class numa_scanner {
  using page_policy = std::remove_cvref_t<decltype(std::declval<const Placement&>().page_migration())>;
  // A page policy's kernel rule and rate limit, when it names them (a user's own policy may not).
  static constexpr bool has_page_rule = requires { page_policy::rule; };
  static constexpr bool rate_limited = [] {
    if constexpr (requires { page_policy::limit; }) return page_policy::limit == migrate_limit::ratelimit;
    return false;
  }();
  static constexpr bool keeps_active_mask = [] {
    if constexpr (has_page_rule) return page_policy::rule == page_migration_rule::v3_15;
    return false;
  }();
  using pace_policy = std::remove_cvref_t<decltype(std::declval<const Placement&>().scan_pacing())>;
  // The pace's era, when it names one (scan_pacing does; a user's own pace may not).
  static constexpr scan_tunables era_tunables = [] {
    if constexpr (requires { pace_policy::tunables; }) return pace_policy::tunables;
    return scan_tunables{};
  }();
  static constexpr bool paces_per_fault = requires { requires pace_policy::paces_per_fault; };
  static constexpr bool filters_vmas = requires { requires pace_policy::filters_vmas; };
  static constexpr bool waits_for_new_node = requires { requires pace_policy::waits_for_new_node; };
  static constexpr bool skips_saturated_node = requires { requires pace_policy::skips_saturated_node; };
  static constexpr unsigned period_reset_ms = [] {
    if constexpr (requires { pace_policy::period_reset_ms; }) return pace_policy::period_reset_ms;
    return 0u;
  }();

 public:
  numa_scanner(world& s, const Placement& pl) : s_(s), pl_(pl), ratelimit_(s.m.node_count()) {}

  /// Rebuilds who touches what (after tasks moved, started or finished).
  void refresh() { touchers_.rebuild(s_.m, s_.mem.regions.size()); }

  /// init_numa_balancing(): a new task's clock. Its first period is the scan delay; the first
  /// time it scans it switches to task_scan_start (task_tick_numa).
  void start_task(task_state& t) {
    t.scan_period_ms = 0;
    t.migrate_retry_ms = 0;
    t.scan_seq = s_.m.processes[t.process].scan_seq;
    t.window_start_ms = s_.now_ms;
    t.runtime_ms = 0;
  }

  /// A new mm's first scan waits numa_balancing_scan_delay_ms.
  void start_process(process_state& ps) {
    ps.next_scan_ms = s_.now_ms + tunables_.delay_ms;
    ps.next_reset_ms = s_.now_ms + period_reset_ms;
  }

  /// Runs every mm scan that is due now.
  void scan_due() {
    for (std::uint32_t p = 0; p < s_.m.processes.size(); ++p) {
      process_state& ps = s_.m.processes[p];
      if (ps.live == 0 || ps.next_scan_ms > s_.now_ms) continue;
      const task_index winner = a_live_task(p);
      if (winner == no_task) continue;
      task_state& t = s_.m.tasks[winner];
      if constexpr (waits_for_new_node) {
        // v3.8: the first attempt notes its node; none scans until a thread runs elsewhere.
        if (ps.first_nid == no_node) ps.first_nid = t.node;
        if (!ps.scan_active) {
          if (t.node == ps.first_nid) continue;
          ps.scan_active = true;
        }
      }
      if constexpr (period_reset_ms != 0) {
        if (s_.now_ms > ps.next_reset_ms) {  // v3.8: back to the fastest pace once a minute
          t.scan_period_ms = tunables_.period_min_ms;
          ps.next_reset_ms = s_.now_ms + period_reset_ms;
        }
      }
      ps.next_scan_ms = s_.now_ms + period_of(t);
      if constexpr (skips_saturated_node) {
        if (ratelimit_.saturated(t.node, static_cast<std::uint64_t>(s_.now_ms * 1e6))) continue;
      }
      if constexpr (filters_vmas) {
        scan_vmas(p, winner);
      } else {
        scan_step(p);
      }
    }
  }

 private:
  // task_numa_work(): arm the next scan_size of process p's memory, then deliver its faults.
  void scan_step(std::uint32_t p) {
    process_state& ps = s_.m.processes[p];
    auto regions = s_.mem.of_process(p);
    const std::uint64_t total = chunks_of(regions);
    if (total == 0) return;
    const std::uint64_t pages = std::uint64_t{tunables_.size_mb} << (20 - page_shift);
    const std::uint64_t step = std::clamp<std::uint64_t>(pages / s_.c.pages_per_chunk, 1, total);
    // Chunks walked count against virtpages (8 x scan_size), marked ones against pages; they
    // differ only where tiering-only mode leaves the top tier's chunks alone.
    const std::uint64_t walk = std::min(step * virtual_factor, total);
    armed_.clear();
    for (std::uint64_t walked = 0, marked = 0; walked < walk && marked < step; ++walked) {
      const auto [r, c] = locate(regions, ps.scan_offset);
      if (mark(regions[r], r, c)) ++marked;
      if (++ps.scan_offset == total) {
        ps.scan_offset = 0;
        ++ps.scan_seq;  // a full pass of the address space
      }
    }
    const std::uint32_t base = s_.mem.region_base[p];
    for (const auto& [r, c] : armed_) {
      const task_index who = touchers_.first_toucher(base + r, s_.m, s_.rng);
      if (who == no_task) continue;  // nobody touches it: it stays armed
      fault(who, regions[r], regions[r].chunks[c]);
    }
  }

  // task_numa_work() from 6.4: walk process p's VMAs from the mm's offset, skip those the
  // history rules out, arm up to scan_size of the rest, then deliver their faults. A walk that
  // reached the end having skipped VMAs the scanning thread had not touched walks again from the
  // same offset, forced, and scans one VMA whatever its threads.
  void scan_vmas(std::uint32_t p, task_index scanner) {
    process_state& ps = s_.m.processes[p];
    address_space& as = space_of(p);
    auto regions = s_.mem.of_process(p);
    const std::uint64_t pages = std::uint64_t{tunables_.size_mb} << (20 - page_shift);
    std::uint64_t budget = std::max<std::uint64_t>(pages / s_.c.pages_per_chunk, 1);
    std::uint64_t walk_budget = budget * virtual_factor;  // virtpages
    vma_scan_context c;
    c.now_ms = s_.now_ms;
    c.delay_ms = tunables_.delay_ms;
    c.pid = scanner;
    c.nr_threads = threads_of(as);
    armed_.clear();
    bool skipped = false;
    for (;;) {
      if (as.at >= as.vmas.size()) new_pass(as, ps);  // nothing left after the offset
      bool stopped = false;
      for (std::size_t i = as.at; i < as.vmas.size() && !stopped; ++i) {
        vma& v = as.vmas[i];
        if (v.stack_of != no_task && !s_.m.tasks[v.stack_of].alive) continue;  // not mapped
        c.scan_seq = ps.scan_seq;
        c.offset_inside = i == as.at && as.chunk > 0;
        if (!v.history.seen) first_seen(v.history, c);
        const vma_skip why = vma_scan_verdict(v.history, c);
        if (why == vma_skip::seq_completed) {
          as.at = i + 1;
          as.chunk = 0;
        }
        skipped = skipped || why == vma_skip::pid_inactive;
        if (why != vma_skip::none) continue;
        // change_prot_numa() from the offset, or the VMA's start, while the budget lasts.
        if (v.stack_of != no_task) record_access(v.history, v.stack_of);  // its thread faults on it when it runs
        std::uint32_t k = c.offset_inside ? as.chunk : 0;
        for (; k < v.chunks && budget > 0 && walk_budget > 0; ++k, --walk_budget) {
          if (arm(regions, v, k)) --budget;
        }
        if (budget == 0 || walk_budget == 0) {  // the walk stops here; the next starts after what it armed
          as.at = k == v.chunks ? i + 1 : i;
          as.chunk = k == v.chunks ? 0 : k;
          stopped = true;
        } else {
          scan_completed(v.history, ps.scan_seq);
          if (c.forced) {
            as.at = i + 1;
            as.chunk = 0;
            stopped = true;
          }
        }
      }
      if (stopped) break;
      if (!c.forced && skipped) {
        c.forced = true;
        continue;
      }
      new_pass(as, ps);  // reset_ptenuma_scan()
      break;
    }
    const std::uint32_t base = s_.mem.region_base[p];
    for (const auto& [r, k] : armed_) {
      const task_index who = touchers_.first_toucher(base + r, s_.m, s_.rng);
      if (who == no_task) continue;
      fault(who, regions[r], regions[r].chunks[k]);
    }
  }

  // One VMA: `chunks` chunks of the process's regions from `first` on, or none: a thread's stack.
  struct vma {
    std::uint32_t first = 0, chunks = 0;
    task_index stack_of = no_task;
    vma_scan_state history{};
  };
  struct address_space {
    std::vector<vma> vmas;  // in address order
    std::size_t at = 0;     // mm->numa_scan_offset: in this VMA...
    std::uint32_t chunk = 0;  // ...at this chunk of it
  };

  // The layout above, built the first time process p is scanned.
  address_space& space_of(std::uint32_t p) {
    if (spaces_.empty()) {
      spaces_.resize(s_.m.processes.size());
      vma_of_region_.assign(s_.mem.regions.size(), 0);
    }
    address_space& as = spaces_[p];
    if (!as.vmas.empty()) return as;
    for (task_index id = task_index(s_.m.tasks.size()); id-- > 0;) {
      if (s_.m.tasks[id].process == p) as.vmas.push_back({0, 0, id, {}});
    }
    const auto& spec = s_.w.processes[p].regions;
    const std::uint32_t base = s_.mem.region_base[p];
    for (std::uint32_t r = 0; r < spec.size(); ++r) {
      const bool joins = r > 0 && spec[r].mapping != region::own_mapping && spec[r].mapping == spec[r - 1].mapping;
      if (!joins) as.vmas.push_back({r, 0, no_task, {}});
      vma& v = as.vmas.back();
      v.chunks += static_cast<std::uint32_t>(s_.mem.regions[base + r].chunks.size());
      vma_of_region_[base + r] = static_cast<std::uint32_t>(as.vmas.size() - 1);
    }
    return as;
  }

  // Marks chunk k of VMA v (counted over its regions); whether it did.
  bool arm(std::span<region_state> regions, const vma& v, std::uint32_t k) {
    std::uint32_t r = v.first;
    while (k >= regions[r].chunks.size()) k -= static_cast<std::uint32_t>(regions[r++].chunks.size());
    return mark(regions[r], r, k);
  }

  // change_prot_numa() on chunk c of the process's region r: tiering-only mode leaves a top-tier
  // chunk alone (change_pte_range(), 6.0); a chunk marked already keeps its stamp, as the walk
  // skips PROT_NONE entries. Whether it is marked now.
  bool mark(region_state& rs, std::uint32_t r, std::uint32_t c) {
    chunk_state& ch = rs.chunks[c];
    if (!s_.o.tiering.normal() && s_.tiers.toptier(ch.node)) return false;
    if (!ch.armed) {
      ch.armed = true;
      ch.scanned_ms = static_cast<std::uint32_t>(s_.now_ms);
    }
    armed_.emplace_back(r, c);
    return true;
  }

  // get_nr_threads(): the process's threads now (a stack per live thread).
  std::uint32_t threads_of(const address_space& as) const {
    std::uint32_t n = 0;
    for (const vma& v : as.vmas) n += v.stack_of != no_task && s_.m.tasks[v.stack_of].alive;
    return std::max<std::uint32_t>(n, 1);
  }

  static void new_pass(address_space& as, process_state& ps) {
    as.at = 0;
    as.chunk = 0;
    ++ps.scan_seq;
  }

  // do_numa_page() and task_numa_fault() for task `id` touching armed chunk `ch`.
  void fault(task_index id, region_state& rs, chunk_state& ch) {
    machine& m = s_.m;
    task_state& t = m.tasks[id];
    ch.armed = false;
    ++s_.faults;
    if constexpr (filters_vmas) {  // vma_set_access_pid_bit(), on every hinting fault
      const auto r = static_cast<std::size_t>(&rs - s_.mem.regions.data());
      record_access(spaces_[t.process].vmas[vma_of_region_[r]].history, id);
    }
    if (s_.o.tiering.tiering() && !s_.tiers.toptier(ch.node)) {
      fault_on_lower_tier(id, rs, ch);
      return;
    }
    const last_cpupid last = ch.last;
    // mpol_misplaced(): the stack's filter sees the page's last cpupid and records this fault.
    node_index target = pl_.page_migration().misplaced_target(ch.last, migrate_fault_of(t, id, ch));
    const bool policy_placed = m.processes[t.process].interleaved && rs.shared;
    if (policy_placed || !m.allowed(t.process, t.node)) target = no_node;
    bool failed = false;
    if (target != no_node && rate_limited) {
      failed = ratelimit_.limited(target, s_.c.pages_per_chunk, static_cast<std::uint64_t>(s_.now_ms * 1e6));
    }
    // migrate_misplaced_page(): a target node without free memory takes no page, and the
    // fault counts as a failed migration (migrate_balanced_pgdat(), since v3.8).
    if (target != no_node && !failed && !s_.mem.has_room(target)) {
      failed = true;
      ++s_.mem.full.migrations_refused;
    }
    node_index recorded_node = ch.node;
    const bool migrated = target != no_node && !failed;
    if (migrated) {
      s_.mem.place(rs, ch, target);
      recorded_node = target;
      s_.charge_balancer(id, s_.c.page_migrate_cost_ms);
      ++m.processes[t.process].page_moves;
    }
    s_.charge_balancer(id, s_.c.hinting_fault_cost_ms);
    if constexpr (paces_per_fault) {
      t.scan_period_ms = pl_.scan_pacing().after_fault(static_cast<unsigned>(period_of(t)), migrated, tunables_);
    }
    // First accesses count as private; then private when the same task faulted last, unless a
    // shared fault turns out to be false sharing.
    bool is_private = last.unset() || last.task == id;
    if constexpr (Placement::forms_groups()) {
      if (!is_private) {
        is_private = join_on_shared_fault(m, id, last, s_.rng) == join_verdict::false_sharing;
        if constexpr (keeps_active_mask) grow_masks();
      }
    }
    if (s_.now_ms >= t.migrate_retry_ms) {
      place(id);
      migrate_preferred(id);
    }
    const auto kind = is_private ? numaplace::access::private_access : numaplace::access::shared;
    m.tasks[id].stats.record(recorded_node, m.tasks[id].node, kind, s_.c.pages_per_chunk, failed);
  }

  // do_numa_page() on a slower tier's chunk in tiering mode (6.0..7.3): should_numa_migrate_memory()
  // promotes a hot one to the faulting CPU's node (tier_promotion.hpp), and task_numa_fault()
  // counts nothing for it, so no placement follows. Memory an interleave policy placed stays
  // (mpol_misplaced()). Crossing tiers forgets the page's last cpupid (folio_migrate_flags()).
  void fault_on_lower_tier(task_index id, region_state& rs, chunk_state& ch) {
    machine& m = s_.m;
    const task_state& t = m.tasks[id];
    s_.charge_balancer(id, s_.c.hinting_fault_cost_ms);
    const bool policy_placed = m.processes[t.process].interleaved && rs.shared;
    const node_index to = t.node;
    if (policy_placed || !s_.topo.has_memory(to) || !s_.tiers.toptier(to)) return;
    const std::uint64_t capacity = s_.mem.capacity[to];
    promotion_fault f;
    f.now_ms = static_cast<unsigned>(s_.now_ms);
    f.scanned_ms = ch.scanned_ms;
    f.pages = s_.c.pages_per_chunk;
    f.plenty_free = plenty_free(capacity * memory_model::chunk_bytes, s_.mem.used[to] * memory_model::chunk_bytes,
                                capacity == memory_model::unlimited);
    const promotion_verdict verdict = should_promote(s_.promotion[to], f, s_.o.tiering.promotion, page_shift);
    if (verdict == promotion_verdict::too_cold) ++s_.tiering.too_cold;
    if (verdict == promotion_verdict::rate_limited) ++s_.tiering.rate_limited;
    if (!promotes(verdict)) return;
    if (!s_.mem.has_room(to)) {  // migrate_misplaced_folio_prepare(): wake kswapd, try again later
      ++s_.tiering.node_full;
      wake_kswapd(to);
      return;
    }
    s_.mem.place(rs, ch, to);
    ch.last = {};
    ++s_.tiering.promoted;
    ++m.processes[t.process].page_moves;
    s_.charge_balancer(id, s_.c.page_migrate_cost_ms);
  }

  // kswapd on fast node n, woken by a promotion the node had no room for. With demotion on it
  // moves the node's coldest chunks to its demotion targets until WMARK_PROMO is free
  // (demote_folio_list()); without, it finds nothing to reclaim here (no swap, no page cache).
  // The kernel's LRU orders pages by when they were last touched; the simulator knows no
  // per-page recency, so it takes the regions least touched now first (per chunk: the running
  // threads' memory-bound shares times their access shares), chunks in address order within
  // one. Once a tick at most.
  void wake_kswapd(node_index n) {
    if (!s_.o.tiering.demotion || s_.mem.capacity[n] == memory_model::unlimited) return;
    if (kswapd_ran_ms_.empty()) kswapd_ran_ms_.assign(s_.m.node_count(), -1.0);
    if (kswapd_ran_ms_[n] == s_.now_ms) return;
    kswapd_ran_ms_[n] = s_.now_ms;
    const std::uint64_t want = promotion_watermark_chunks(s_.mem.capacity[n]);
    const std::uint64_t free = s_.mem.capacity[n] - std::min(s_.mem.used[n], s_.mem.capacity[n]);
    if (free >= want) return;
    std::uint64_t need = want - free;
    auto& regions = s_.mem.regions;
    std::vector<double> heat(regions.size(), 0.0);
    for (const task_state& t : s_.m.tasks) {
      if (!t.touches_memory()) continue;
      const double rate = s_.w.processes[t.process].memory_bound;
      for (const auto& [r, weight] : t.accesses) heat[r] += rate * weight / double(regions[r].chunks.size());
    }
    std::vector<std::uint32_t> order;
    for (std::uint32_t r = 0; r < regions.size(); ++r) {
      if (regions[r].on_node[n] != 0 && !regions[r].released) order.push_back(r);
    }
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return heat[a] < heat[b]; });
    for (const std::uint32_t r : order) {
      for (chunk_state& ch : regions[r].chunks) {
        if (ch.node != n) continue;
        const auto& targets = s_.tiers.demotion_targets(n);
        const auto to = std::find_if(targets.begin(), targets.end(), [&](node_index d) { return s_.mem.has_room(d); });
        if (to == targets.end()) return;  // every slower node is full too
        s_.mem.place(regions[r], ch, *to);
        ch.last = {};
        ++s_.tiering.demoted;
        if (--need == 0) return;
      }
    }
  }

  // task_numa_placement(): once per pass of the mm, the window ends and the stack decides.
  void place(task_index id) {
    machine& m = s_.m;
    task_state& t = m.tasks[id];
    if (t.scan_seq == m.processes[t.process].scan_seq) return;
    t.scan_seq = m.processes[t.process].scan_seq;
    const auto& pace = pl_.scan_pacing();
    const std::uint64_t rss = rss_pages(t.process);
    // numa_scan_period_max is read as the placement starts; update_task_scan_period() clamps by
    // task_scan_max() again after the window has changed the group's faults (v4.14 scales by them).
    const unsigned period_max = pace.task_scan_max(rss, tunables_, scan_group_of(t));
    const auto runtime_ns = static_cast<std::uint64_t>(t.runtime_ms * 1e6);
    const auto period_ns = static_cast<std::uint64_t>(std::max(0.0, s_.now_ms - t.window_start_ms) * 1e6);
    t.runtime_ms = 0;
    t.window_start_ms = s_.now_ms;
    numa_group* g = m.groups.find(t.group);
    const fault_window w = t.stats.end_window(runtime_ns, period_ns, g ? &g->faults : nullptr);
    if (g != nullptr) {
      if (s_.o.verify_groups) verify_group(m, t.group);
      if constexpr (keeps_active_mask) update_active_node_mask(g->faults.view(), mask_of(t.group));
    }
    decision_input in = m.input_of(t);
    // numa/core (policy/numa_core.hpp) also reads where the task's buddies run.
    if constexpr (Placement::reads_buddies()) in.buddies = buddies_.of(m, id);
    const node_index preferred = pl_.preferred_node(in);
    if (preferred != no_node) t.preferred = preferred;
    const unsigned smin = task_scan_min(rss, tunables_);
    const unsigned smax = pace.task_scan_max(rss, tunables_, scan_group_of(t));
    t.scan_period_ms = pace.update_task_scan_period(static_cast<unsigned>(period_of(t)), period_max, smin, smax, w);
    if (pace.backs_off(w)) m.processes[t.process].next_scan_ms = s_.now_ms + t.scan_period_ms;
    if constexpr (Placement::has_interleave_policy()) apply_interleave(s_, pl_, t.process, in, id);
  }

  // numa_migrate_preferred(): retry the move to the preferred node every so often.
  void migrate_preferred(task_index id) {
    task_state& t = s_.m.tasks[id];
    if (t.preferred == no_node) return;
    t.migrate_retry_ms = s_.now_ms + double(pl_.scan_pacing().migrate_retry_jiffies(unsigned(period_of(t))));
    if (t.node == t.preferred) return;
    numa_migrate(s_, pl_, id);
  }

  // The task's numa_scan_period: the scan delay until it first scans, then task_scan_start.
  double period_of(task_state& t) {
    if (t.scan_period_ms == 0) {
      t.scan_period_ms = pl_.scan_pacing().task_scan_start(rss_pages(t.process), tunables_, scan_group_of(t));
    }
    return t.scan_period_ms;
  }

  migrate_fault migrate_fault_of(const task_state& t, task_index id, const chunk_state& ch) const {
    migrate_fault f;
    f.task = id;
    f.page_node = ch.node;
    f.cpu_node = t.node;
    f.preferred = t.preferred;
    f.scan_seq = t.scan_seq;
    f.group = s_.m.group_view(t);
    if constexpr (keeps_active_mask) {
      if (t.group != no_group) f.active_nodes = mask_of(t.group);
    }
    return f;
  }

  scan_group scan_group_of(const task_state& t) const {
    const numa_group* g = s_.m.groups.find(t.group);
    return g ? scan_group{g->faults.view(), g->nr_tasks} : scan_group{};
  }

  std::uint64_t rss_pages(std::uint32_t p) const { return chunks_of(s_.mem.of_process(p)) * s_.c.pages_per_chunk; }

  // ng->active_nodes of v3.15..v4.5, one mask per group id.
  void grow_masks() {
    while (masks_.size() < s_.m.groups.created()) {
      masks_.emplace_back(new bool[s_.m.node_count()]());
      std::fill_n(masks_.back().get(), s_.m.node_count(), false);
    }
  }
  std::span<bool> mask_of(group_index g) const { return {masks_[g].get(), s_.m.node_count()}; }

  task_index a_live_task(std::uint32_t p) {
    live_.clear();
    for (task_index id = 0; id < s_.m.tasks.size(); ++id) {
      // task_numa_work() runs from task_tick_numa(): only a thread that runs can scan.
      const task_state& t = s_.m.tasks[id];
      if (t.alive && !t.asleep && t.process == p) live_.push_back(id);
    }
    if (live_.empty()) return no_task;
    return live_[random_index(s_.rng, live_.size())];
  }

  static std::uint64_t chunks_of(std::span<const region_state> regions) {
    std::uint64_t n = 0;
    for (const auto& rs : regions) n += rs.chunks.size();
    return n;
  }
  static std::pair<std::uint32_t, std::uint32_t> locate(std::span<region_state> regions, std::uint64_t offset) {
    for (std::uint32_t r = 0; r < regions.size(); ++r) {
      if (offset < regions[r].chunks.size()) return {r, std::uint32_t(offset)};
      offset -= regions[r].chunks.size();
    }
    return {0, 0};
  }

  static constexpr unsigned page_shift = 12;  // 4 KiB pages
  // task_numa_work()'s virtpages: the walk may pass over eight times scan_size of address space.
  static constexpr std::uint64_t virtual_factor = 8;
  world& s_;
  const Placement& pl_;
  scan_tunables tunables_ = era_tunables;
  migrate_ratelimit ratelimit_;
  access_index touchers_;
  buddy_counter buddies_;
  std::vector<std::unique_ptr<bool[]>> masks_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> armed_;
  std::vector<double> kswapd_ran_ms_;  // per node, when its kswapd last demoted
  std::vector<task_index> live_;
  std::vector<address_space> spaces_;         // per process, for the scan of 6.4 onwards
  std::vector<std::uint32_t> vma_of_region_;  // a region's VMA in its process's space
};

}  // namespace numaplace::sim
