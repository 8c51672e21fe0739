#include <numaplace/linux/page_sampler.hpp>

#include <doctest/doctest.h>

#include <sys/mman.h>

#include <optional>
#include <string>

#include "linux_os_support.hpp"

using namespace numaplace::os;
using numaplace::access;
using numaplace::fault_stats;
using linux_os_test::mapping;
using linux_os_test::page_bytes;
using linux_os_test::this_machine;

namespace {

// A topology that knows no node id at all.
struct no_nodes {
  std::optional<numaplace::node_index> index_of(numaplace::node_id) const noexcept { return std::nullopt; }
};

}  // namespace

TEST_CASE("the sampler records exactly the present pages, on their node, against the given CPU node") {
  const std::size_t pages = 32;
  const mapping m(pages);
  for (std::size_t i = 0; i < pages; i += 2) m.touch(i);  // 16 present, 16 never touched

  fault_stats faults(this_machine().node_count());
  page_sampler sampler;
  sampler.add_range(m.base(), m.bytes());
  REQUIRE(sampler.size() == pages);
  const numaplace::node_index cpu_node = 0;
  const page_census seen = sampler.record(this_machine(), faults, cpu_node, access::private_access);
  REQUIRE_MESSAGE(seen.status.ok(), seen.status.message);
  CHECK(seen.present == 16);
  CHECK(seen.not_present == 16);
  CHECK(seen.failed == 0);
  CHECK(seen.unknown_node == 0);

  // Where the kernel says each present page is, the statistics count it.
  std::vector<std::uint64_t> per_node(this_machine().node_count(), 0);
  for (std::size_t i = 0; i < pages; ++i) {
    const int s = sampler.page_status()[i];
    if (i % 2 == 0) {
      REQUIRE(s >= 0);
      ++per_node[*this_machine().index_of(s)];
    } else {
      CHECK(s == -ENOENT);
    }
  }
  std::uint64_t total = 0;
  for (numaplace::node_index n = 0; n < this_machine().node_count(); ++n) {
    CHECK(faults.buffered_memory(n, access::private_access) == per_node[n]);
    CHECK(faults.buffered_memory(n, access::shared) == 0);
    total += faults.buffered_memory(n, access::private_access);
  }
  CHECK(total == 16);
  CHECK(faults.buffered_cpu(cpu_node, access::private_access) == 16);

  // The same pages again, as shared memory: they go to the shared counters.
  REQUIRE(sampler.record(this_machine(), faults, cpu_node, access::shared).status.ok());
  CHECK(faults.buffered_cpu(cpu_node, access::shared) == 16);
  CHECK(faults.buffered_cpu(cpu_node, access::private_access) == 16);
}

TEST_CASE("add_range with a limit spreads the samples evenly; add_page rounds down to the page") {
  const mapping m(32);
  page_sampler sampler;
  sampler.add_range(m.base(), m.bytes(), 8);
  REQUIRE(sampler.size() == 8);
  for (std::size_t i = 0; i < 8; ++i) CHECK(sampler.pages()[i] == m.page(4 * i));
  sampler.clear();
  sampler.add_page(m.page(3) + 100);
  REQUIRE(sampler.size() == 1);
  CHECK(sampler.pages()[0] == m.page(3));
  sampler.clear();
  sampler.add_range(m.page(1) + 1, page_bytes());  // straddles pages 1 and 2
  CHECK(sampler.size() == 2);
  sampler.clear();
  sampler.add_range(m.base(), 0);
  CHECK(sampler.size() == 0);
}

TEST_CASE("pages not mapped, or on a node the topology does not know, are counted, not recorded") {
  const mapping m(4);
  m.touch(0);
  m.touch(1);
  munmap(m.page(2), 2 * page_bytes());  // pages 2 and 3 are no longer mapped
  page_sampler sampler;
  sampler.add_range(m.base(), m.bytes());
  fault_stats faults(this_machine().node_count());
  const page_census seen = sampler.record(this_machine(), faults, 0, access::private_access);
  REQUIRE(seen.status.ok());
  CHECK(seen.failed == 2);
  CHECK(seen.present == 2);

  fault_stats none(this_machine().node_count());
  const page_census unknown = sampler.record(no_nodes{}, none, 0, access::private_access);
  CHECK(unknown.unknown_node == 2);
  CHECK(unknown.present == 0);
  CHECK(none.buffered_cpu(0, access::private_access) == 0);

  const page_census bad_cpu_node = sampler.record(this_machine(), none, 500, access::private_access);
  CHECK(bad_cpu_node.status.error == EINVAL);
  CHECK(bad_cpu_node.status.message.find("the CPU node index 500 is beyond the statistics'") != std::string::npos);
}

TEST_CASE("sampling a process that has exited is ESRCH with a clear message") {
  const mapping m(4);
  m.touch(0);
  const pid_t gone = linux_os_test::exited_child();
  page_sampler sampler(gone);
  sampler.add_range(m.base(), m.bytes());
  fault_stats faults(this_machine().node_count());
  const page_census seen = sampler.record(this_machine(), faults, 0, access::private_access);
  CHECK(seen.status.error == ESRCH);
  CHECK(seen.status.message == "move_pages(pid " + std::to_string(gone) +
                                   ", 4 pages, query): No such process (the task has exited, or never existed)");
  CHECK(seen.present == 0);
  CHECK(faults.buffered_cpu(0, access::private_access) == 0);
  for (const int s : sampler.page_status()) CHECK(s == -ESRCH);
}
