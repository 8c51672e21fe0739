#include <numaplace/linux/affinity.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "linux_os_support.hpp"

using namespace numaplace::os;
using linux_os_test::allowed_cpus;
using linux_os_test::this_machine;

namespace {

// Runs `f` on a thread of its own, so that pinning it leaves the test runner's thread alone.
template <class F>
void on_own_thread(F f) {
  std::thread t(f);
  t.join();
}

// The node index whose CPU list has `cpu`, or node_count() when none has.
numaplace::node_index node_of(unsigned cpu) {
  const auto& t = this_machine();
  for (numaplace::node_index n = 0; n < t.node_count(); ++n) {
    for (const unsigned c : t.cpus(n)) {
      if (c == cpu) return n;
    }
  }
  return static_cast<numaplace::node_index>(t.node_count());
}

}  // namespace

TEST_CASE("a thread pinned to one CPU runs there, on that CPU's node") {
  for (const unsigned cpu : allowed_cpus()) {
    CAPTURE(cpu);
    on_own_thread([cpu] {
      const unsigned one[] = {cpu};
      const os_status s = pin_this_thread(one);
      REQUIRE_MESSAGE(s.ok(), s.message);
      const cpu_and_node here = current_cpu_and_node();
      CHECK(here.cpu == cpu);
      CHECK(current_cpu() == cpu);
      const auto node = node_of(cpu);
      REQUIRE(node < this_machine().node_count());
      CHECK(static_cast<numaplace::node_id>(here.node) == this_machine().id_of(node));
    });
  }
}

TEST_CASE("pin_this_thread_to_nodes keeps the thread on the node's CPUs") {
  const numaplace::node_index node0[] = {0};
  const std::vector<unsigned> expected = cpus_of_nodes(this_machine(), node0);
  on_own_thread([&] {
    REQUIRE(pin_this_thread_to_nodes(this_machine(), node0).ok());
    bool inside = false;
    for (const unsigned c : expected) inside = inside || c == current_cpu();
    CHECK(inside);
  });
}

TEST_CASE("cpus_of_nodes joins the nodes' lists, ascending, and names a bad node index") {
  const std::vector<std::vector<unsigned>> per_node = {{4, 5}, {0, 1}, {2, 3}};
  const numaplace::node_index some[] = {2, 0, 2};
  CHECK(cpus_of_nodes(per_node, some) == std::vector<unsigned>{2, 3, 4, 5});
  const numaplace::node_index bad[] = {3};
  CHECK_THROWS_WITH_AS(cpus_of_nodes(per_node, bad), "numaplace::os::cpus_of_nodes: node index 3 is beyond the 3 nodes",
                       std::out_of_range);
  const numaplace::node_index beyond[] = {static_cast<numaplace::node_index>(this_machine().node_count())};
  CHECK_THROWS_AS(cpus_of_nodes(this_machine(), beyond), std::out_of_range);
}

TEST_CASE("pinning to no CPU, to CPUs that do not exist, or a bad thread id is a clear value") {
  on_own_thread([] {
    const os_status empty = pin_this_thread({});
    CHECK(empty.error == EINVAL);
    CHECK(empty.message == "sched_setaffinity(this thread, cpus none): the CPU list is empty");

    const unsigned absent[] = {60000};  // no machine here has it; the kernel refuses
    const os_status missing = pin_this_thread(absent);
    CHECK(missing.error == EINVAL);
    CHECK(missing.message.find("sched_setaffinity(this thread, cpus 60000): Invalid argument (no CPU of the set is "
                               "online") == 0);

    const unsigned huge[] = {70000};
    const os_status too_large = pin_this_thread(huge);
    CHECK(too_large.error == EINVAL);
    CHECK(too_large.message.find("CPU 70000 is beyond the largest CPU number, 65535") != std::string::npos);
  });
  const unsigned cpu0[] = {allowed_cpus().front()};
  CHECK(pin_thread(0, cpu0).message.find("use pin_this_thread") != std::string::npos);
}

TEST_CASE("pinning a thread that has exited is ESRCH, as a value") {
  const pid_t gone = linux_os_test::exited_child();
  const unsigned cpu0[] = {allowed_cpus().front()};
  const os_status s = pin_thread(gone, cpu0);
  CHECK(s.error == ESRCH);
  CHECK(s.message == "sched_setaffinity(thread " + std::to_string(gone) + ", cpus " + std::to_string(cpu0[0]) +
                         "): No such process (the task has exited, or never existed)");
}

TEST_CASE("pin_thread moves another thread of this process") {
  const std::vector<unsigned> cpus = allowed_cpus();
  const unsigned last[] = {cpus.back()};
  std::atomic<pid_t> tid{0};
  std::atomic<bool> pinned{false};
  std::atomic<unsigned> seen{~0u};
  std::thread t([&] {
    tid = gettid();
    while (!pinned) std::this_thread::yield();
    seen = current_cpu();
  });
  while (tid == 0) std::this_thread::yield();
  const os_status s = pin_thread(tid, last);
  pinned = true;
  t.join();
  REQUIRE_MESSAGE(s.ok(), s.message);
  CHECK(seen == last[0]);
}
