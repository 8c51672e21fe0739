#include <numaplace/linux/memory_policy.hpp>
#include <numaplace/linux/page_sampler.hpp>

#include <doctest/doctest.h>

#include <linux/mempolicy.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <thread>
#include <vector>

#include "linux_os_support.hpp"

using namespace numaplace::os;
using linux_os_test::mapping;
using linux_os_test::policy_at;
using linux_os_test::this_machine;

namespace {

// Node id of node index 0 on this machine: every machine has it.
unsigned first_node() { return static_cast<unsigned>(this_machine().id_of(0)); }

// Every page of `m`, touched, then asked where it is: the node ids seen.
std::vector<int> touched_nodes(const mapping& m, std::size_t pages) {
  for (std::size_t i = 0; i < pages; ++i) m.touch(i);
  page_sampler sampler;
  sampler.add_range(m.base(), m.bytes());
  const page_census seen = sampler.query(this_machine());
  REQUIRE_MESSAGE(seen.status.ok(), seen.status.message);
  CHECK(seen.present == pages);
  return {sampler.page_status().begin(), sampler.page_status().end()};
}

}  // namespace

TEST_CASE("node_mask sets bit N for node N and passes one more than its bits as maxnode") {
  const unsigned nodes[] = {0, 3, 64};
  const node_mask m(nodes);
  REQUIRE(m.words() == 2);
  CHECK(m.data()[0] == 0b1001UL);
  CHECK(m.data()[1] == 1UL);
  CHECK(m.maxnode() == 129);
  const unsigned one[] = {1};
  CHECK(node_mask(one, 3).words() == 3);
  const unsigned huge[] = {node_mask::max_node_id + 1};
  CHECK_THROWS_AS(node_mask{std::span<const unsigned>(huge)}, std::out_of_range);
}

TEST_CASE("memory bound to node 0 is there, and its policy reads back as MPOL_BIND on node 0") {
  const std::size_t pages = 16;
  const mapping m(pages);
  const unsigned node[] = {first_node()};
  const os_status s = bind_memory(m.base(), m.bytes(), node, existing_pages::move);
  REQUIRE_MESSAGE(s.ok(), s.message);
  const auto policy = policy_at(m.page(pages - 1));
  CHECK(policy.mode == MPOL_BIND);
  CHECK(policy.nodes == std::vector<unsigned>{node[0]});
  for (const int n : touched_nodes(m, pages)) CHECK(n == static_cast<int>(node[0]));
}

TEST_CASE("interleaved, preferred and reset ranges read back with their mode") {
  const std::size_t pages = 8;
  const mapping m(pages);
  const unsigned node[] = {first_node()};
  REQUIRE(interleave_memory(m.base(), m.bytes(), node).ok());
  CHECK(policy_at(m.base()).mode == MPOL_INTERLEAVE);
  CHECK(policy_at(m.base()).nodes == std::vector<unsigned>{node[0]});
  for (const int n : touched_nodes(m, pages)) CHECK(n == static_cast<int>(node[0]));

  const mapping p(pages);
  REQUIRE(prefer_memory(p.base(), p.bytes(), node[0]).ok());
  CHECK(policy_at(p.base()).mode == MPOL_PREFERRED);
  REQUIRE(reset_memory_policy(p.base(), p.bytes()).ok());
  CHECK(policy_at(p.base()).mode == MPOL_DEFAULT);
}

TEST_CASE("a node that does not exist is a clear value, not a crash") {
  const mapping m(4);
  const unsigned absent[] = {99};
  const os_status s = bind_memory(m.base(), m.bytes(), absent);
  CHECK(s.error == EINVAL);
  CHECK(s.message.find(", " + std::to_string(m.bytes()) + " bytes, MPOL_BIND, nodes 99): Invalid argument (no node of the "
                       "mask is online with memory and in the task's cpuset (Mems_allowed))") != std::string::npos);
  CHECK(policy_at(m.base()).mode == MPOL_DEFAULT);  // nothing changed

  const unsigned huge[] = {0, 40000};
  const os_status too_large = interleave_memory(m.base(), m.bytes(), huge);
  CHECK(too_large.error == EINVAL);
  CHECK(too_large.message.find("MPOL_INTERLEAVE, nodes 0,40000): node 40000 is beyond the largest node id, 32767") !=
        std::string::npos);

  CHECK(bind_memory(m.base(), m.bytes(), {}).message.find("the node list is empty") != std::string::npos);
  const unsigned node[] = {first_node()};
  CHECK(bind_memory(m.page(1) + 1, 8, node).message.find("the start is not aligned to the page size") !=
        std::string::npos);
}

TEST_CASE("migrate_pages: this process works, an exited one is ESRCH") {
  const unsigned node[] = {first_node()};
  const pages_migrated self = migrate_process_pages(0, node, node);
  REQUIRE_MESSAGE(self.status.ok(), self.status.message);
  CHECK(self.not_moved == 0);

  const pid_t gone = linux_os_test::exited_child();
  const pages_migrated none = migrate_process_pages(gone, node, node);
  CHECK(none.status.error == ESRCH);
  CHECK(none.status.message.find("migrate_pages(pid " + std::to_string(gone) + ", from nodes " +
                                 std::to_string(node[0]) + ", to nodes " + std::to_string(node[0]) +
                                 "): No such process (the task has exited") == 0);

  const unsigned huge[] = {50000};
  CHECK(migrate_process_pages(0, node, huge).status.message.find("node 50000 is beyond") != std::string::npos);
  CHECK(migrate_process_pages(0, {}, node).status.message.find("the source node list is empty") != std::string::npos);
}

namespace {

// The calling thread's policy, read back with get_mempolicy (no address: the thread's own).
linux_os_test::policy_read thread_policy() {
  constexpr unsigned long words = 16;
  unsigned long mask[words] = {};
  linux_os_test::policy_read out;
  REQUIRE(syscall(SYS_get_mempolicy, &out.mode, mask, words * 64, nullptr, 0UL) == 0);
  for (unsigned n = 0; n < words * 64; ++n) {
    if (mask[n / 64] >> (n % 64) & 1UL) out.nodes.push_back(n);
  }
  return out;
}

// Runs `body` on a thread of its own, so that the policy it sets dies with that thread.
template <class Body>
void on_own_thread(Body body) {
  std::thread t(body);
  t.join();
}

}  // namespace

TEST_CASE("the calling thread's memory policy: bind, interleave, prefer and local read back as set") {
  const unsigned node[] = {first_node()};
  on_own_thread([&] {
    const os_status bound = bind_thread_memory(node);
    REQUIRE_MESSAGE(bound.ok(), bound.message);
    const auto b = thread_policy();
    CHECK(b.mode == MPOL_BIND);
    CHECK(b.nodes == std::vector<unsigned>{node[0]});
    REQUIRE(interleave_thread_memory(node).ok());
    CHECK(thread_policy().mode == MPOL_INTERLEAVE);
    REQUIRE(prefer_thread_memory(node[0]).ok());
    const auto p = thread_policy();
    CHECK(p.mode == MPOL_PREFERRED);
    CHECK(p.nodes == std::vector<unsigned>{node[0]});
    REQUIRE(local_thread_memory().ok());
    CHECK(thread_policy().mode == MPOL_LOCAL);
  });
}

TEST_CASE("a thread memory policy the kernel refuses is a status naming the call, never a throw") {
  on_own_thread([] {
    // Node 1000 is never online on a test machine (the largest kernel config has 1024 nodes).
    const unsigned absent[] = {1000};
    const os_status s = bind_thread_memory(absent);
    CHECK(s.error == EINVAL);
    CHECK(s.message.find("set_mempolicy(MPOL_BIND, nodes 1000): Invalid argument (no node of the mask is online") !=
          std::string::npos);
    CHECK(bind_thread_memory({}).message == "set_mempolicy(MPOL_BIND, nodes none): the node list is empty");
    const unsigned huge[] = {node_mask::max_node_id + 1};
    CHECK(interleave_thread_memory(huge).message.find("is beyond the largest node id") != std::string::npos);
    CHECK(thread_policy().mode == MPOL_DEFAULT);  // nothing above took effect
  });
}
