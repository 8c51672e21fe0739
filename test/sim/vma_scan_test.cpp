// The scan of 6.4 onwards in the simulator (linux-6.12): a thread's walk skips the VMAs only
// other threads touch, and the forced walk that follows marks one of them, so a process whose
// threads each keep their own mapping needs several scans per pass where 6.1 marks every
// mapping in one scan_size; and no mapping goes unscanned. Checked against linux-modern (6.1's
// scan, the same decisions) on random machines.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>

#include "sim_support.hpp"

using namespace sim_test;

namespace {

// numa02 whose threads each allocate their own part (a mapping each, as glibc gives each
// thread its own arena) instead of slicing one buffer.
workload private_mappings(std::size_t threads, std::uint32_t chunks_per_thread) {
  workload w = workloads::numa02(threads, chunks_per_thread, 60'000);
  for (region& r : w.processes.at(0).regions) r.mapping = region::own_mapping;
  w.seconds = 30;
  return w;
}

struct scan_record {
  std::uint32_t passes = 0;
  std::uint64_t faults = 0;
  std::size_t chunks_never_faulted = 0;
};

template <class Stack>
scan_record scan_of(const dynamic_topology& t, const workload& w) {
  scan_record s;
  with_engine<Stack>(t, w, run_options{}, [&](auto& e) {
    e.run();
    s.passes = e.state().processes.at(0).scan_seq;
    s.faults = e.hinting_faults();
    for (const region_state& r : e.memory().regions) {
      for (const chunk_state& c : r.chunks) s.chunks_never_faulted += c.last.unset();
    }
  });
  return s;
}

}  // namespace

TEST_CASE("linux-6.12: a single thread's process is scanned as on 6.1") {
  on_random_machines(611, 3, 2, 3, [&](const dynamic_topology& t, const shape&) {
    // Its one thread touches every mapping, so nothing is skipped: the same passes, the same faults.
    workload w = workloads::numa02(1, 64, 60'000);
    w.seconds = 30;
    const scan_record before = scan_of<stacks::linux_modern>(t, w);
    const scan_record now = scan_of<stacks::linux_6_12>(t, w);
    INFO("passes " << before.passes << " on 6.1, " << now.passes << " on 6.12");
    CHECK(before.passes >= 5);
    CHECK(now.passes == before.passes);
    CHECK(now.faults == before.faults);
  });
}

TEST_CASE("linux-6.12: the threads' stacks hold back each pass over a buffer they all touch") {
  on_random_machines(612, 4, 4, 3, [&](const dynamic_topology& t, const shape& c) {
    // numa02 as written: one buffer sliced among the threads, 128 MiB in all, so that every
    // scan (256 MB) reaches the end of the address space. A thread's walk marks its own stack
    // and the buffer and skips the other threads' stacks (past their first two passes); reaching
    // the end so, it walks again forced and marks one of them. The pass ends only when each
    // stack has been marked so, one a scan: 6.1 marks everything in every scan.
    const std::size_t threads = c.nodes * c.cpus;
    workload w = workloads::numa02(threads, static_cast<std::uint32_t>(std::max<std::size_t>(1, 64 / threads)), 60'000);
    w.seconds = 30;
    const scan_record before = scan_of<stacks::linux_modern>(t, w);
    const scan_record now = scan_of<stacks::linux_6_12>(t, w);
    INFO(threads << " threads: passes " << before.passes << " on 6.1, " << now.passes << " on 6.12");
    CHECK(before.passes >= 5);
    CHECK(now.passes * 10 <= before.passes * 7);
    CHECK(now.chunks_never_faulted == 0);
  });
}

TEST_CASE("linux-6.12: no mapping goes unscanned when each thread keeps its own") {
  on_random_machines(613, 4, 2, 3, [&](const dynamic_topology& t, const shape& c) {
    // The forced walks, and the rule that scans a mapping left out for more passes than the
    // process has threads, reach every thread's mapping.
    const scan_record now = scan_of<stacks::linux_6_12>(t, private_mappings(c.nodes * c.cpus, 4));
    INFO("passes " << now.passes << ", faults " << now.faults);
    CHECK(now.passes >= 2);
    CHECK(now.chunks_never_faulted == 0);
  });
}
