// should_numa_migrate_memory and its ancestors per kernel rule, and the v3.8..v4.18 rate limit.
#include <doctest/doctest.h>

#include <numaplace/policy/page_migration.hpp>

#include <array>
#include <cstdint>
#include <vector>

using namespace numaplace;

namespace {

constexpr task_index me = 7;
constexpr task_index other = 9;

// A fault by `me` on a page on `page_node`, from a CPU on `cpu_node`.
migrate_fault fault(node_index page_node, node_index cpu_node, fault_view group = {}) {
  migrate_fault f;
  f.task = me;
  f.page_node = page_node;
  f.cpu_node = cpu_node;
  f.preferred = 0;
  f.scan_seq = 10;  // past v4.19's early window unless a test says otherwise
  f.group = group;
  return f;
}

template <page_migration_rule R>
bool migrates(last_cpupid page, const migrate_fault& f) {
  return page_migration<R>{}.should_migrate(page, f);
}

// A group whose memory and CPU faults are given per node (shared counts only; private 0).
struct group_counts {
  std::vector<std::uint64_t> memory, cpu;
  group_counts(std::initializer_list<std::uint64_t> mem, std::initializer_list<std::uint64_t> cpus) {
    for (auto m : mem) memory.insert(memory.end(), {m, 0});
    for (auto c : cpus) cpu.insert(cpu.end(), {c, 0});
  }
  fault_view view() const {
    std::uint64_t total = 0;
    for (auto m : memory) total += m;
    return {memory, cpu, total};
  }
};

}  // namespace

TEST_CASE("page_migration: every fault records the page's last cpupid, local ones too") {
  last_cpupid page{};
  CHECK(page.unset());
  page_migration<page_migration_rule::v4_6> m;
  // A local fault (page on node 1, CPU on node 1): no move, but the record is (1, me).
  CHECK(m.misplaced_target(page, fault(1, 1)) == no_node);
  CHECK(page == last_cpupid{1, me});
  // Then a fault from node 0: the previous fault came from node 1, so the filter stops it...
  CHECK(m.misplaced_target(page, fault(1, 0)) == no_node);
  CHECK(page == last_cpupid{0, me});
  // ...and the next one from node 0 passes: a private fault (me faulted last), it migrates.
  CHECK(m.misplaced_target(page, fault(1, 0)) == 0);
}

TEST_CASE("page_migration: v3.8 filters a never-faulted page, v3.13 lets it through") {
  // v3.8: the first fault's last nid is -1, which is never the faulting node.
  CHECK_FALSE(migrates<page_migration_rule::v3_8>({}, fault(1, 0)));
  CHECK(migrates<page_migration_rule::v3_8>({0, other}, fault(1, 0)));         // second fault from node 0
  CHECK_FALSE(migrates<page_migration_rule::v3_8>({1, me}, fault(1, 0)));      // previous from node 1
  // v3.13: cpupid_pid_unset passes the filter.
  CHECK(migrates<page_migration_rule::v3_13>({}, fault(1, 0)));
  CHECK(migrates<page_migration_rule::v3_13>({0, other}, fault(1, 0)));
  CHECK_FALSE(migrates<page_migration_rule::v3_13>({1, other}, fault(1, 0)));
}

TEST_CASE("page_migration: v3.15 shared pages follow the group's active_nodes mask") {
  // Group memory faults: node 0 = 40, node 1 = 100, node 2 = 70.
  const group_counts g({40, 100, 70}, {0, 0, 0});
  const std::array<bool, 3> active{false, true, true};
  migrate_fault f = fault(1, 2, g.view());
  f.active_nodes = active;
  constexpr auto R = page_migration_rule::v3_15;
  // Private (me faulted last, from node 2) and ungrouped faults always pass.
  CHECK(migrates<R>({2, me}, f));
  CHECK(migrates<R>({2, other}, fault(1, 2)));
  // Shared, both active: dst has 70 < 100 * 3 / 4 = 75 memory faults: migrate.
  CHECK(migrates<R>({2, other}, f));
  // From 1 to 2 with dst at 80: 80 < 75 fails.
  const group_counts g80({40, 100, 80}, {0, 0, 0});
  f.group = g80.view();
  CHECK_FALSE(migrates<R>({2, other}, f));
  // Towards inactive node 0: never; from inactive node 0 to active node 2: always.
  migrate_fault to0 = fault(1, 0, g.view());
  to0.active_nodes = active;
  CHECK_FALSE(migrates<R>({0, other}, to0));
  migrate_fault from0 = fault(0, 2, g.view());
  from0.active_nodes = active;
  CHECK(migrates<R>({2, other}, from0));
}

TEST_CASE("page_migration: v3.15 active mask joins above 6/16 and leaves below 3/16 of the busiest") {
  // CPU faults 160, 61, 60, 29: 6/16 of 160 = 60, 3/16 = 30.
  const group_counts g({0, 0, 0, 0}, {160, 61, 60, 29});
  std::array<bool, 4> mask{false, false, true, true};
  update_active_node_mask(g.view(), mask);
  CHECK(mask[0]);         // 160 > 60: joins
  CHECK(mask[1]);         // 61 > 60: joins
  CHECK(mask[2]);         // active, 60 is not below 30: stays
  CHECK_FALSE(mask[3]);   // active, 29 < 30: leaves
  std::array<bool, 4> fresh{};
  update_active_node_mask(g.view(), fresh);
  CHECK_FALSE(fresh[2]);  // inactive, 60 is not above 60: stays out
}

TEST_CASE("page_migration: v4.6 ACTIVE_NODE_FRACTION shortcut and the 3/4 CPU/memory hysteresis") {
  constexpr auto R = page_migration_rule::v4_6;
  // src = 0, dst = 1. CPU faults 10 and 31: 31 > 10 * 3 = 30, migrate whatever the memory says.
  const group_counts shortcut({1000, 1}, {10, 31});
  CHECK(migrates<R>({1, other}, fault(0, 1, shortcut.view())));
  // CPU 10 and 30: 30 > 30 fails; hysteresis: cpu(dst)*mem(src)*3 = 30*100*3 = 9000 against
  // cpu(src)*mem(dst)*4 = 10*200*4 = 8000: 9000 > 8000, migrate.
  const group_counts pass({100, 200}, {10, 30});
  CHECK(migrates<R>({1, other}, fault(0, 1, pass.view())));
  // mem(dst) 230: 10*230*4 = 9200 >= 9000, stays.
  const group_counts stay({100, 230}, {10, 30});
  CHECK_FALSE(migrates<R>({1, other}, fault(0, 1, stay.view())));
  // mem(dst) 225: 10*225*4 = 9000, equal: stays (strict >).
  const group_counts equal({100, 225}, {10, 30});
  CHECK_FALSE(migrates<R>({1, other}, fault(0, 1, equal.view())));
  // The same shared fault under v3.15 without an active mask never migrates; v3.13 always does.
  CHECK_FALSE(migrates<page_migration_rule::v3_15>({1, other}, fault(0, 1, pass.view())));
  CHECK(migrates<page_migration_rule::v3_13>({1, other}, fault(0, 1, stay.view())));
}

TEST_CASE("page_migration: v4.19 migrates first and private faults early in a task's life") {
  constexpr auto R = page_migration_rule::v4_19;
  const group_counts stay({100, 230}, {10, 30});  // the hysteresis says no (see v4.6)
  migrate_fault early = fault(0, 1, stay.view());
  early.scan_seq = 4;
  // A first fault, and a private fault whose previous fault came from another node (which the
  // filter would stop): both migrate while scan_seq <= 4.
  CHECK(migrates<R>({}, early));
  CHECK(migrates<R>({0, me}, early));
  CHECK_FALSE(migrates<page_migration_rule::v4_6>({0, me}, early));
  // Shared faults get no early pass: back to the filter (previous from node 0: stop).
  CHECK_FALSE(migrates<R>({0, other}, early));
  // scan_seq 5 with a preferred node: the early pass is over.
  early.scan_seq = 5;
  CHECK_FALSE(migrates<R>({0, me}, early));
  // No preferred node: early again whatever the scan count.
  early.preferred = no_node;
  CHECK(migrates<R>({0, me}, early));
  // After the early window v4.19 is v4.6: the shared hysteresis case stays.
  CHECK_FALSE(migrates<R>({1, other}, fault(0, 1, stay.view())));
  // The early pass still records the fault.
  last_cpupid page{0, me};
  early.scan_seq = 0;
  CHECK(page_migration<R>{}.should_migrate(page, early));
  CHECK(page == last_cpupid{1, me});
}

TEST_CASE("page_migration: the rate limit exists up to v4.18, and either v4.19 change can come alone") {
  CHECK(page_migration<page_migration_rule::v3_8>::limit == migrate_limit::ratelimit);
  CHECK(page_migration<page_migration_rule::v4_6>::limit == migrate_limit::ratelimit);
  CHECK(page_migration<page_migration_rule::v4_19>::limit == migrate_limit::none);
  // efaffc5e40ae alone (the limit gone, no early migration) and 37355bdc5a12 alone.
  CHECK(page_migration<page_migration_rule::v4_6, migrate_limit::none>::limit == migrate_limit::none);
  CHECK(page_migration<page_migration_rule::v4_19, migrate_limit::ratelimit>::limit == migrate_limit::ratelimit);
  CHECK(migrate_ratelimit::default_pages == 32768);  // 128 MB of 4 KiB pages
}

TEST_CASE("page_migration: numamigrate_update_ratelimit counts pages per destination and window") {
  // Limit 4 pages per 100 ns window, two nodes.
  migrate_ratelimit rl(2, 4, 100);
  // t = 1: 1 > next_window 0, the window opens until 101. 3 pages + 2 pages: taken 0 and 3 are
  // not above 4, both admitted: taken 5 (the kernel's overshoot).
  CHECK_FALSE(rl.limited(0, 3, 1));
  CHECK_FALSE(rl.limited(0, 2, 50));
  CHECK(rl.taken(0) == 5);
  // taken 5 > 4: refused, not counted.
  CHECK(rl.limited(0, 1, 60));
  CHECK(rl.taken(0) == 5);
  // Node 1 has its own window.
  CHECK_FALSE(rl.limited(1, 1, 60));
  // t = 101 is not after 101: same window, still refused; t = 102 opens a new one.
  CHECK(rl.limited(0, 1, 101));
  CHECK_FALSE(rl.limited(0, 1, 102));
  CHECK(rl.taken(0) == 1);
  // Exactly at the limit (taken 4) is still admitted: the check is strict.
  migrate_ratelimit at(1, 4, 100);
  CHECK_FALSE(at.limited(0, 4, 1));
  CHECK_FALSE(at.limited(0, 1, 2));
  CHECK(at.limited(0, 1, 3));
}

TEST_CASE("page_migration: migrate_ratelimited says a node is saturated until a second after its full window") {
  // 128 MB per 100 ms (32768 pages), PTE updates held back up to 1 s after the window closes.
  constexpr std::uint64_t ms = 1'000'000;
  migrate_ratelimit rl(2);
  CHECK_FALSE(rl.saturated(0, 0));  // nothing taken
  CHECK_FALSE(rl.limited(0, migrate_ratelimit::default_pages - 1, 1 * ms));  // window until 101 ms
  CHECK_FALSE(rl.saturated(0, 2 * ms));  // one page short of the rate
  CHECK_FALSE(rl.limited(0, 1, 2 * ms));
  CHECK(rl.saturated(0, 2 * ms));                // the full rate taken
  CHECK_FALSE(rl.saturated(1, 2 * ms));          // per node
  CHECK(rl.saturated(0, 1101 * ms));             // the window closed at 101 ms: 1 s later still
  CHECK_FALSE(rl.saturated(0, 1101 * ms + 1));   // then no longer, though no fault reopened it
  CHECK_FALSE(rl.saturated(7, 2 * ms));          // a node past the limiter's count never is
}
