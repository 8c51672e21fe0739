// check_machine_view: the reference view (simple_machine_view) keeps machine_view's laws, and
// a view that breaks one law fails on that law, with a message naming the task, CPU or node.
// (The simulator's view: test/sim/machine_view_laws_test.cpp.)
#include <doctest/doctest.h>

#include <numaplace/policy/check_machine_view.hpp>
#include <numaplace/policy/simple_machine_view.hpp>
#include <numaplace/topology/generators.hpp>

#include <string>
#include <string_view>

using namespace numaplace;

namespace {

// Two nodes 10/20 apart of two CPUs each. Tasks 0 and 1 share group 0 on node 0; task 2 on
// CPU 2 prefers node 0; task 3 queues behind it and counts no faults.
simple_machine_view two_nodes() {
  simple_machine_view m(generate::fully_connected(2), {2, 2});
  const group_index g = m.add_group({0, 30, 0, 10}, {0, 25, 0, 15});
  m.add_task(0, {0, 20, 0, 5}, g, 0);
  m.add_task(1, {0, 10, 0, 5}, g);
  m.add_task(2, {5, 0, 0, 1}, no_group, 0);
  m.add_task(2);
  return m;
}

template <machine_view M>
void breaks(const M& m, view_law law, std::string_view where) {
  const view_problem p = check_machine_view(m);
  CHECK(p.law == law);
  CHECK(p.message.starts_with(std::string(to_string(law)) + ": "));
  CHECK_MESSAGE(p.message.find(where) != std::string::npos, p.message);
}

// Views that override one reading of the reference view, to break a law its tables cannot.
struct stale_task_node : simple_machine_view {
  node_index task_node(task_index t) const noexcept { return t == 1 ? 1 : simple_machine_view::task_node(t); }
};
struct group_read_twice : simple_machine_view {
  fault_view group_faults(task_index t) const noexcept {
    fault_view f = simple_machine_view::group_faults(t);
    if (t == 1) f.total += 1;  // task 1 reads its group a moment later
    return f;
  }
};
struct group_without_group : simple_machine_view {
  fault_view group_faults(task_index t) const noexcept {
    return t == 2 ? simple_machine_view::group_faults(0) : simple_machine_view::group_faults(t);
  }
};
struct every_cpu_idle : simple_machine_view {
  bool idle_cpu(cpu_index) const noexcept { return true; }
};

}  // namespace

TEST_CASE("the reference view keeps machine_view's laws") {
  CHECK_FALSE(check_machine_view(two_nodes()));
  CHECK_FALSE(check_machine_view(simple_machine_view(generate::fully_connected(1), {1})));  // nothing queued
  // A CPU-less node, an asymmetric matrix, a task forbidden elsewhere: all lawful.
  simple_machine_view odd(dynamic_topology({{10, 21, 30}, {20, 10, 40}, {31, 41, 10}}), {2, 0, 1});
  const task_index t = odd.add_task(0, {0, 1, 0, 0, 0, 3});
  odd.forbid(t, 2);
  odd.move(t, 1);
  CHECK_FALSE(check_machine_view(odd));
  CHECK(check_machine_view(odd).message.empty());
}

TEST_CASE("a view that breaks one law fails on that law, located") {
  SUBCASE("distances") {
    auto m = two_nodes();
    m.distances[1] = 10;  // distance(0, 1) no larger than the local distance
    breaks(m, view_law::distances, "row 0, column 1");
  }
  SUBCASE("cpu_on_its_node") {
    auto m = two_nodes();
    m.cpu_node[3] = 0;
    breaks(m, view_law::cpu_on_its_node, "node 1 lists CPU 3, whose node_of_cpu is 0");
  }
  SUBCASE("cpus_dense: an index past the CPUs listed") {
    auto m = two_nodes();
    m.cpu_node.push_back(1);
    m.node_cpus[1][1] = 4;  // CPUs 0, 1, 2, 4
    breaks(m, view_law::cpus_dense, "node 1 lists CPU 4");
  }
  SUBCASE("cpus_dense: a CPU listed twice") {
    auto m = two_nodes();
    m.node_cpus[0].push_back(0);
    breaks(m, view_law::cpus_dense, "node 0 lists CPU 0 twice");
  }
  SUBCASE("task_on_its_cpu") {
    auto m = two_nodes();
    m.tasks[0].cpu = 1;  // moved in the task table, not in the queues
    breaks(m, view_law::task_on_its_cpu, "CPU 0 lists task 0, whose task_cpu is 1");
  }
  SUBCASE("task_queued_once") {
    auto m = two_nodes();
    m.queues[2].push_back(2);
    breaks(m, view_law::task_queued_once, "task 2 is listed on CPU 2 and again on CPU 2");
  }
  SUBCASE("task_node_is_cpu_node") {
    stale_task_node m{two_nodes()};
    breaks(m, view_law::task_node_is_cpu_node, "task 1 runs on CPU 1 of node 0, but its task_node is 1");
  }
  SUBCASE("preferred_in_range") {
    auto m = two_nodes();
    m.tasks[2].preferred = 2;
    breaks(m, view_law::preferred_in_range, "task 2 prefers node 2 of a 2-node machine");
  }
  SUBCASE("fault_spans_sized: a task's faults") {
    auto m = two_nodes();
    m.tasks[1].faults.push_back(7);
    breaks(m, view_law::fault_spans_sized, "task 1's task_faults memory holds 5 counters for 2 nodes");
  }
  SUBCASE("fault_spans_sized: a group's CPU faults") {
    auto m = two_nodes();
    m.groups[0].cpu.resize(2);
    breaks(m, view_law::fault_spans_sized, "task 0's group_faults cpu holds 2 counters for 2 nodes");
  }
  SUBCASE("group_faults_with_group: a group without faults") {
    auto m = two_nodes();
    m.groups[0].memory.clear();
    breaks(m, view_law::group_faults_with_group, "task 0 is in group 0 but its group faults are empty");
  }
  SUBCASE("group_faults_with_group: group faults without a group") {
    group_without_group m{two_nodes()};
    breaks(m, view_law::group_faults_with_group, "task 2 is in no group but has group faults");
  }
  SUBCASE("group_faults_shared") {
    group_read_twice m{two_nodes()};
    breaks(m, view_law::group_faults_shared, "tasks 0 and 1 of group 0 read different group faults");
  }
  SUBCASE("allowed_where_running") {
    auto m = two_nodes();
    m.forbid(3, 1);
    breaks(m, view_law::allowed_where_running, "task 3 runs on node 1, which allowed() excludes");
  }
  SUBCASE("idle_cpu_queues_nothing") {
    every_cpu_idle m{two_nodes()};
    breaks(m, view_law::idle_cpu_queues_nothing, "CPU 0 is idle but lists 1 task");
  }
}

TEST_CASE("task_h_load: the refreshed h_load scales the task's load; a stale one is the cfs_rq's own") {
  using numaplace::task_h_load;
  // A cgroup whose cfs_rq holds 2048 of load and is worth 512 at the root: a 1024 task counts a quarter.
  CHECK(task_h_load(1024, 2048, 512, true) == 1024 * 512 / 2049);
  // No refresh yet in this jiffy: the root-level refresh sets h_load to the cfs_rq's load.
  CHECK(task_h_load(1024, 2048, 512, false) == 1024 * 2048 / 2049);
  // The +1 keeps an empty cfs_rq from dividing by zero.
  CHECK(task_h_load(1024, 0, 0, true) == 0);
}
