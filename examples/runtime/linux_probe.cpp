// numaplace-linux-probe: shows numaplace's Linux layer at work on the machine it runs on (this
// host, or a test/vm guest): pinning, memory binding, interleaving and moving, page sampling,
// errors.
//
//   numaplace-linux-probe [--sys DIR]
//
// Prints what the kernel reports after each step and, last, "linux-probe: all as expected" or
// what was not; the exit status is 0 only when all was as expected. Steps needing nodes the
// machine lacks (interleaving over nodes 2-3 needs four) say that they were skipped.
#include <numaplace/linux/affinity.hpp>
#include <numaplace/linux/memory_policy.hpp>
#include <numaplace/linux/page_sampler.hpp>
#include <numaplace/linux/usable_machine.hpp>
#include <numaplace/stats/fault_stats.hpp>
#include <numaplace/topology/cpulist.hpp>

#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

namespace os = numaplace::os;
using numaplace::node_index;
using numaplace::os::usable_machine;

std::size_t page_bytes() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }

// Fresh anonymous pages (none present until touched), unmapped at scope end.
class mapping {
 public:
  explicit mapping(std::size_t pages) : bytes_(pages * page_bytes()) {
    base_ = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base_ == MAP_FAILED) throw std::runtime_error("mmap of " + std::to_string(bytes_) + " bytes failed");
  }
  mapping(const mapping&) = delete;
  mapping& operator=(const mapping&) = delete;
  ~mapping() { munmap(base_, bytes_); }

  void* base() const noexcept { return base_; }
  std::size_t bytes() const noexcept { return bytes_; }
  void touch(std::size_t page) const noexcept { static_cast<volatile char*>(base_)[page * page_bytes()] = 1; }
  void touch_all() const noexcept {
    for (std::size_t p = 0; p < bytes_ / page_bytes(); ++p) touch(p);
  }

 private:
  void* base_ = nullptr;
  std::size_t bytes_ = 0;
};

struct probe {
  const usable_machine& m;
  std::vector<std::string> problems;

  unsigned id(node_index n) const { return static_cast<unsigned>(m.topology().id_of(n)); }
  void expect(bool ok, const std::string& what) {
    if (!ok) problems.push_back(what);
  }

  // Pages per node id of the pages of `buffer`, from one move_pages query.
  std::vector<std::size_t> pages_by_node(const mapping& buffer) {
    os::page_sampler sampler;
    sampler.add_range(buffer.base(), buffer.bytes());
    const os::page_census seen = sampler.query(m.topology());
    if (!seen.status) throw os::os_error(seen.status);
    std::vector<std::size_t> count(m.topology().node_count(), 0);
    for (const int s : sampler.page_status()) {
      if (s < 0) continue;
      if (const auto n = m.topology().index_of(s)) ++count[*n];
    }
    return count;
  }

  // A thread pinned to each node's usable CPUs, asked where it runs.
  void pinning() {
    std::size_t tried = 0, held = 0;
    for (node_index n = 0; n < m.topology().node_count(); ++n) {
      if (m.cpus(n).empty()) {
        std::cout << "pin node " << id(n) << ": no usable CPU; skipped\n";
        continue;
      }
      ++tried;
      os::os_status status;
      os::cpu_and_node here;
      std::thread([&] {
        const node_index one[] = {n};
        status = os::pin_this_thread(os::cpus_of_nodes(m, one));
        here = os::current_cpu_and_node();
      }).join();
      if (!status) {
        std::cout << "pin node " << id(n) << ": " << status.message << '\n';
        continue;
      }
      std::cout << "pin node " << id(n) << ": getcpu says cpu " << here.cpu << ", node " << here.node << '\n';
      if (here.node == id(n)) ++held;
    }
    std::cout << "pinning: " << held << " of " << tried << " nodes as pinned\n";
    expect(held == tried, "a pinned thread ran on another node");
  }

  // A buffer bound to each node, touched, then asked where its pages are.
  void binding() {
    constexpr std::size_t pages = 16;
    std::size_t held = 0;
    for (node_index n = 0; n < m.topology().node_count(); ++n) {
      const mapping buffer(pages);
      const unsigned node[] = {id(n)};
      if (const os::os_status s = os::bind_memory(buffer.base(), buffer.bytes(), node); !s) {
        std::cout << "bind node " << id(n) << ": " << s.message << '\n';
        continue;
      }
      buffer.touch_all();
      const std::size_t there = pages_by_node(buffer)[n];
      std::cout << "bind node " << id(n) << ": " << there << " of " << pages << " pages on node " << id(n) << '\n';
      if (there == pages) ++held;
    }
    std::cout << "binding: " << held << " of " << m.topology().node_count() << " nodes as bound\n";
    expect(held == m.topology().node_count(), "a bound buffer had pages elsewhere");
  }

  // 32 pages interleaved over node indices 2 and 3: page by page, 16 each.
  void interleaving() {
    if (m.topology().node_count() < 4) {
      std::cout << "interleave nodes 2-3: skipped (" << m.topology().node_count() << " nodes)\n";
      return;
    }
    constexpr std::size_t pages = 32;
    const mapping buffer(pages);
    const unsigned nodes[] = {id(2), id(3)};
    const os::os_status s = os::interleave_memory(buffer.base(), buffer.bytes(), nodes);
    if (!s) {
      std::cout << "interleave nodes " << nodes[0] << "," << nodes[1] << ": " << s.message << '\n';
      expect(false, "interleaving failed");
      return;
    }
    buffer.touch_all();
    const std::vector<std::size_t> count = pages_by_node(buffer);
    const std::size_t elsewhere = pages - count[2] - count[3];
    std::cout << "interleave nodes " << numaplace::format_cpulist({nodes[0], nodes[1]}) << ": " << count[2]
              << " pages on node " << nodes[0] << ", " << count[3] << " on node " << nodes[1] << ", " << elsewhere
              << " elsewhere\n";
    expect(count[2] == pages / 2 && count[3] == pages / 2, "the interleaved pages did not split evenly");
  }

  // Pages already placed, moved: mbind with MPOL_MF_MOVE to the last node, then
  // migrate_pages from there to the first node.
  void moving() {
    const node_index last = static_cast<node_index>(m.topology().node_count() - 1);
    if (last == 0) {
      std::cout << "move: skipped (1 node)\n";
      return;
    }
    constexpr std::size_t pages = 16;
    const mapping buffer(pages);
    buffer.touch_all();  // first touch: wherever this thread runs
    const unsigned to_last[] = {id(last)};
    const os::os_status bound = os::bind_memory(buffer.base(), buffer.bytes(), to_last, os::existing_pages::move);
    if (!bound) {
      std::cout << "move: " << bound.message << '\n';
      expect(false, "mbind with MPOL_MF_MOVE failed");
      return;
    }
    const std::size_t on_last = pages_by_node(buffer)[last];
    std::cout << "move to node " << id(last) << ": " << on_last << " of " << pages << " pages there\n";
    // The binding is lifted first, so that after the migration the range's policy and its
    // pages agree.
    if (const os::os_status s = os::reset_memory_policy(buffer.base(), buffer.bytes()); !s) {
      std::cout << "move: " << s.message << '\n';
      expect(false, "resetting the policy failed");
      return;
    }
    const unsigned to_first[] = {id(0)};
    const os::pages_migrated moved = os::migrate_process_pages(0, to_last, to_first);
    if (!moved.status) {
      std::cout << "migrate: " << moved.status.message << '\n';
      expect(false, "migrate_pages failed");
      return;
    }
    const std::size_t on_first = pages_by_node(buffer)[0];
    std::cout << "migrate node " << id(last) << " to node " << id(0) << ": " << on_first << " of " << pages
              << " pages there, " << moved.not_moved << " not moved\n";
    expect(on_last == pages && on_first == pages, "moved pages were not where they were sent");
  }

  // Half of a buffer bound to one node touched, sampled from a thread pinned to another node:
  // the touched pages become private faults, memory on the first node, CPU on the second.
  void sampling() {
    const node_index nodes = static_cast<node_index>(m.topology().node_count());
    const node_index memory_node = std::min<node_index>(5, nodes - 1);
    node_index cpu_node = std::min<node_index>(1, nodes - 1);
    while (m.cpus(cpu_node).empty() && cpu_node + 1 < nodes) ++cpu_node;
    constexpr std::size_t pages = 32;
    const mapping buffer(pages);
    const unsigned node[] = {id(memory_node)};
    if (const os::os_status s = os::bind_memory(buffer.base(), buffer.bytes(), node); !s) {
      std::cout << "sample: " << s.message << '\n';
      expect(false, "binding the sampled buffer failed");
      return;
    }
    for (std::size_t p = 0; p < pages; p += 2) buffer.touch(p);

    numaplace::fault_stats faults(nodes);
    os::page_census seen;
    unsigned ran_on = 0;
    std::thread([&] {
      const node_index one[] = {cpu_node};
      if (!os::pin_this_thread(os::cpus_of_nodes(m, one))) return;
      ran_on = os::current_node();
      os::page_sampler sampler;
      sampler.add_range(buffer.base(), buffer.bytes());
      seen = sampler.record(m.topology(), faults, cpu_node, numaplace::access::private_access);
    }).join();
    if (!seen.status) {
      std::cout << "sample: " << seen.status.message << '\n';
      expect(false, "sampling failed");
      return;
    }
    std::cout << "sample: buffer bound to node " << id(memory_node) << ", read on node " << ran_on << ": "
              << seen.present << " present, " << seen.not_present + seen.failed << " absent (-ENOENT "
              << seen.not_present << ", other errors " << seen.failed << ")\n";
    std::cout << "sample faults by memory node:";
    for (node_index n = 0; n < nodes; ++n) std::cout << ' ' << faults.buffered_memory(n, numaplace::access::private_access);
    std::cout << "\nsample faults by cpu node:";
    for (node_index n = 0; n < nodes; ++n) std::cout << ' ' << faults.buffered_cpu(n, numaplace::access::private_access);
    std::cout << '\n';
    // Untouched pages are -ENOENT, or -EFAULT on Linux 6.1 (see page_census::failed).
    expect(seen.present == pages / 2 && seen.not_present + seen.failed == pages / 2,
           "the sampler saw other pages than touched");
    expect(faults.buffered_memory(memory_node, numaplace::access::private_access) == pages / 2 &&
               faults.buffered_cpu(cpu_node, numaplace::access::private_access) == pages / 2,
           "the faults were not recorded on the expected nodes");
    expect(ran_on == id(cpu_node), "the sampling thread ran on another node");
  }

  // Bad input and a task that has exited: values with clear messages.
  void errors() {
    const mapping buffer(4);
    const unsigned absent[] = {99};
    const os::os_status bad = os::bind_memory(buffer.base(), buffer.bytes(), absent);
    std::cout << "bad node 99: " << bad.message << '\n';
    expect(bad.error == EINVAL, "binding to node 99 did not fail with EINVAL");

    const pid_t child = fork();
    if (child == 0) _exit(0);
    if (child < 0) throw std::runtime_error("fork failed");
    waitpid(child, nullptr, 0);
    const unsigned cpu[] = {m.cpus(0).empty() ? 0u : m.cpus(0).front()};
    const os::os_status gone = os::pin_thread(child, cpu);
    std::cout << "exited task: " << gone.message << '\n';
    os::page_sampler sampler(child);
    sampler.add_range(buffer.base(), buffer.bytes());
    const os::page_census unseen = sampler.query(m.topology());
    std::cout << "exited task: " << unseen.status.message << '\n';
    expect(gone.error == ESRCH && unseen.status.error == ESRCH, "an exited task was not ESRCH");
  }
};

}  // namespace

int main(int argc, char** argv) try {
  std::string sys = os::roots{}.sysfs_nodes;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--sys" && i + 1 < argc) {
      sys = argv[++i];
    } else {
      std::cerr << "usage: numaplace-linux-probe [--sys DIR]\n";
      return 2;
    }
  }
  os::roots where;
  where.sysfs_nodes = sys;
  const usable_machine m = usable_machine::read(where, os::calling_thread_affinity);
  std::cout << "linux-probe: " << m.topology().node_count() << " nodes, " << m.cpu_count() << " usable CPUs\n";
  probe p{m, {}};
  p.pinning();
  p.binding();
  p.interleaving();
  p.moving();
  p.sampling();
  p.errors();
  if (p.problems.empty()) {
    std::cout << "linux-probe: all as expected\n";
    return 0;
  }
  for (const auto& problem : p.problems) std::cout << "linux-probe: NOT as expected: " << problem << '\n';
  return 1;
} catch (const std::exception& e) {
  std::cerr << "numaplace-linux-probe: " << e.what() << '\n';
  return 2;
}
