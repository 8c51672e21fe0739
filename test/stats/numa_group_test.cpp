// numa_group: creation seeded with the creator, transfer on join, removal on exit, the join
// rule of task_numa_group, and the consistency check that catches a wrapped counter.
#include <doctest/doctest.h>

#include <numaplace/stats/numa_group.hpp>

#include <array>
#include <cstdint>
#include <vector>

using namespace numaplace;

namespace {

// Decayed counts (shared, private per node) for two nodes, with CPU faults of the same shape.
fault_stats task_with(std::array<std::uint64_t, 4> memory, std::array<std::uint64_t, 4> cpu) {
  return fault_stats::from_counts(memory, cpu);
}

std::vector<std::uint64_t> copy(std::span<const std::uint64_t> s) { return {s.begin(), s.end()}; }

}  // namespace

TEST_CASE("a group is created with its creator's counts, so it sums its one member") {
  numa_group_set groups(2);
  const fault_stats a = task_with({4, 6, 0, 2}, {1, 1, 0, 0});
  const group_index g = groups.create(a);
  const numa_group& grp = *groups.find(g);
  CHECK(grp.nr_tasks == 1);
  CHECK(copy(grp.faults.memory()) == std::vector<std::uint64_t>{4, 6, 0, 2});
  CHECK(copy(grp.faults.cpu()) == std::vector<std::uint64_t>{1, 1, 0, 0});
  CHECK(grp.faults.total() == 12);
  const std::array<const fault_stats*, 1> members{&a};
  CHECK_FALSE(numa_group_consistency(grp, members).has_value());
}

TEST_CASE("joining moves the task's counts from its group to the other; the emptied group is released") {
  numa_group_set groups(2);
  const fault_stats a = task_with({4, 6, 0, 2}, {2, 0, 0, 0});
  const fault_stats b = task_with({1, 0, 8, 1}, {0, 0, 3, 1});
  const group_index ga = groups.create(a);
  const group_index gb = groups.create(b);
  CHECK(groups.live_count() == 2);
  groups.move(b, gb, ga);  // b joins a's group
  CHECK(groups.find(gb) == nullptr);
  CHECK(groups.live_count() == 1);
  const numa_group& grp = *groups.find(ga);
  CHECK(grp.nr_tasks == 2);
  // 4+1, 6+0, 0+8, 2+1 and the CPU counts likewise.
  CHECK(copy(grp.faults.memory()) == std::vector<std::uint64_t>{5, 6, 8, 3});
  CHECK(copy(grp.faults.cpu()) == std::vector<std::uint64_t>{2, 0, 3, 1});
  CHECK(grp.faults.total() == 22);
  const std::array<const fault_stats*, 2> members{&a, &b};
  CHECK_FALSE(numa_group_consistency(grp, members).has_value());
}

TEST_CASE("an exiting task takes its counts out (task_numa_free)") {
  numa_group_set groups(2);
  const fault_stats a = task_with({4, 6, 0, 2}, {2, 0, 0, 0});
  const fault_stats b = task_with({1, 0, 8, 1}, {0, 0, 3, 1});
  const group_index g = groups.create(a);
  groups.move(b, no_group, g);
  CHECK_FALSE(groups.leave(a, g));
  const numa_group& grp = *groups.find(g);
  CHECK(copy(grp.faults.memory()) == std::vector<std::uint64_t>{1, 0, 8, 1});
  CHECK(grp.faults.total() == 10);
  const std::array<const fault_stats*, 1> members{&b};
  CHECK_FALSE(numa_group_consistency(grp, members).has_value());
  CHECK(groups.leave(b, g));
  CHECK(groups.find(g) == nullptr);
  CHECK_THROWS_AS(groups.leave(b, g), std::logic_error);
}

TEST_CASE("members' windows keep the group equal to their sum") {
  numa_group_set groups(2);
  fault_stats a(2), b(2);
  a.record(0, 0, access::private_access, 100);
  a.end_window(1'000'000, 1'000'000);
  const group_index g = groups.create(a);
  b.record(1, 1, access::shared, 40);
  b.end_window(1'000'000, 1'000'000);  // before joining: b's counts are its own
  groups.move(b, no_group, g);
  for (int w = 0; w < 5; ++w) {
    a.record(1, 0, access::shared, 7 + w);
    b.record(0, 1, access::shared, 3);
    a.end_window(500'000, 1'000'000, &groups.find(g)->faults);
    b.end_window(1'000'000, 1'000'000, &groups.find(g)->faults);
    const std::array<const fault_stats*, 2> members{&a, &b};
    INFO("window " << w);
    CHECK_FALSE(numa_group_consistency(*groups.find(g), members).has_value());
  }
}

TEST_CASE("a group created empty, as the simulator once did, is caught: its counters wrap") {
  // The defect this header fixes: a group that starts at zero while its first member already
  // has counts. The member's next window halves its counts, and the group, adding the negative
  // difference, wraps below zero.
  numa_group g{0, 1, fault_stats(2)};
  fault_stats a = task_with({0, 100, 0, 0}, {0, 0, 0, 0});
  a.end_window(1'000'000, 1'000'000, &g.faults);  // private on node 0: 100 -> 50, diff -50
  CHECK(g.faults.memory()[1] > (std::uint64_t{1} << 63));
  const std::array<const fault_stats*, 1> members{&a};
  const auto mismatch = numa_group_consistency(g, members);
  REQUIRE(mismatch.has_value());
  CHECK(mismatch->node == 0);
  CHECK(mismatch->what == "memory private");
  CHECK(mismatch->message(0).find("node index 0") != std::string::npos);
}

TEST_CASE("the consistency check reports a member count that does not match and a sum that overflows") {
  const fault_stats big = task_with({~std::uint64_t{0} - 1, 0, 0, 0}, {0, 0, 0, 0});
  const fault_stats one = task_with({2, 0, 0, 0}, {0, 0, 0, 0});
  numa_group g{3, 2, fault_stats::seeded_from(big)};
  const std::array<const fault_stats*, 1> too_few{&big};
  CHECK(numa_group_consistency(g, too_few)->what == "tasks");
  const std::array<const fault_stats*, 2> members{&big, &one};
  CHECK(numa_group_consistency(g, members)->what == "overflow");
}

TEST_CASE("task_numa_group's join rule (v3.13+)") {
  group_join_facts f;
  f.my_group = 5;
  f.my_group_tasks = 1;
  f.other_group = 2;
  f.other_group_tasks = 3;
  f.last_toucher_running = true;
  f.same_process = true;
  CHECK(join_group(f) == join_verdict::join);  // smaller joins bigger
  SUBCASE("not when the last toucher no longer runs on the recorded CPU") {
    f.last_toucher_running = false;
    CHECK(join_group(f) == join_verdict::stay);
  }
  SUBCASE("not into a smaller group: the other task joins us instead") {
    f.my_group_tasks = 4;
    CHECK(join_group(f) == join_verdict::stay);
  }
  SUBCASE("equal sizes: the tie goes to the larger identity") {
    f.my_group_tasks = 3;
    CHECK(join_group(f) == join_verdict::stay);  // mine (5) is larger: stay
    f.my_group = 1;
    CHECK(join_group(f) == join_verdict::join);
  }
  SUBCASE("another process only through a page both map; otherwise the fault is private") {
    f.same_process = false;
    CHECK(join_group(f) == join_verdict::false_sharing);
    f.page_shared_mapping = true;
    CHECK(join_group(f) == join_verdict::join);
  }
  SUBCASE("never into its own group, nor into none") {
    f.other_group = f.my_group;
    CHECK(join_group(f) == join_verdict::stay);
    f.other_group = no_group;
    CHECK(join_group(f) == join_verdict::stay);
  }
}
