// usable_machine on fixture trees (test/data/linux: status and cgroup files, cgroup v1 and v2
// cpusets, over the 8-node sysfs tree test/data/sysfs/seed000), and on this machine.
#include <doctest/doctest.h>

#include <numaplace/linux.hpp>

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "../support/topology_errors.hpp"

namespace {

namespace fs = std::filesystem;
using numaplace::node_index;
using numaplace::os::roots;
using numaplace::os::usable_machine;
using numaplace::test::error_of;

const fs::path data = fs::path(NUMAPLACE_TEST_DATA);
const fs::path seed000 = data / "sysfs" / "seed000";

roots fixture(const fs::path& folder, const fs::path& sysfs = seed000) {
  roots r;
  r.sysfs_nodes = sysfs;
  r.process = folder / "process";
  r.cgroups.unified = folder / "cgroup2";
  r.cgroups.cpuset = folder / "cpuset";
  return r;
}

std::vector<unsigned> range(unsigned first, unsigned last) {
  std::vector<unsigned> v;
  for (unsigned c = first; c <= last; ++c) v.push_back(c);
  return v;
}

std::vector<unsigned> join(std::vector<unsigned> a, const std::vector<unsigned>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<unsigned> as_vector(std::span<const unsigned> s) { return {s.begin(), s.end()}; }

// A scratch copy of a fixture, to change files under a machine already read.
struct scratch {
  fs::path root;
  explicit scratch(const fs::path& from, const std::string& name) {
    root = fs::temp_directory_path() / ("numaplace-linux-" + name + "-" + std::to_string(getpid()));
    fs::remove_all(root);
    fs::create_directories(root);
    fs::copy(from, root / "tree", fs::copy_options::recursive);
    fs::copy(seed000, root / "sysfs", fs::copy_options::recursive);
  }
  ~scratch() { fs::remove_all(root); }
  roots where() const { return fixture(root / "tree", root / "sysfs"); }
  void write(const fs::path& file, const std::string& text) const { std::ofstream(root / file) << text; }
};

}  // namespace

TEST_CASE("cgroup v2: affinity (Cpus_allowed_list) ∩ the nearest cpuset ∩ Mems_allowed") {
  // Affinity 0-29,80-99; job1.scope has no cpuset files, so jobs.slice's 5-25,85-95 bind it;
  // Mems_allowed 0-3 and the cpuset's mems 1-2,5 leave nodes 1 and 2.
  const auto m = usable_machine::read(fixture(data / "linux" / "v2"));
  REQUIRE(m.node_count() == 8);
  CHECK(as_vector(m.cpus(0)) == join(range(5, 9), range(85, 89)));
  CHECK(as_vector(m.cpus(1)) == join(range(10, 19), range(90, 95)));
  CHECK(as_vector(m.cpus(2)) == range(20, 25));
  for (node_index n = 3; n < 8; ++n) CHECK(m.cpus(n).empty());
  CHECK(m.cpu_count() == 32);
  CHECK_FALSE(m.memory_allowed(0));
  CHECK(m.memory_allowed(1));
  CHECK(m.memory_allowed(2));
  CHECK_FALSE(m.memory_allowed(5));  // in the cpuset, but not in Mems_allowed
  CHECK(m.usable_nodes() == std::vector<node_index>{0, 1, 2});
  // The topology is the whole machine, every CPU of every node.
  CHECK(m.topology().cpus(7).size() == 20);
}

TEST_CASE("cgroup v1: the cpuset hierarchy wins over v2, effective lists over configured ones") {
  const auto m = usable_machine::read(fixture(data / "linux" / "v1"));
  CHECK(as_vector(m.cpus(4)) == join(range(40, 49), range(120, 124)));
  CHECK(m.cpu_count() == 15);
  CHECK(m.usable_nodes() == std::vector<node_index>{4});
  CHECK(m.memory_allowed(4));
  CHECK_FALSE(m.memory_allowed(0));

  // Kernels before 3.16 have only cpuset.cpus and cpuset.mems.
  const auto old = usable_machine::read(fixture(data / "linux" / "v1-old"));
  CHECK(as_vector(old.cpus(6)) == range(60, 65));
  CHECK(old.usable_nodes() == std::vector<node_index>{6});
}

TEST_CASE("no cpuset controller: only the affinity and Mems_allowed restrict") {
  const auto m = usable_machine::read(fixture(data / "linux" / "none"));
  CHECK(as_vector(m.cpus(0)) == std::vector<unsigned>{0, 1, 2, 3, 8});
  CHECK(m.cpu_count() == 5);
  CHECK(m.memory_allowed(0));
  CHECK_FALSE(m.memory_allowed(1));
  CHECK(m.memory_allowed(2));
  CHECK(m.usable_nodes() == std::vector<node_index>{0, 2});

  // No cgroup file at all (a kernel without cgroups) is no restriction either.
  scratch s(data / "linux" / "none", "nocgroup");
  fs::remove(s.root / "tree" / "process" / "cgroup");
  CHECK(usable_machine::read(s.where()).cpu_count() == 5);
}

TEST_CASE("node_of_cpu: the node whose cpulist has the CPU, by index, usable or not") {
  const auto m = usable_machine::read(fixture(data / "linux" / "none"));
  CHECK(m.node_of_cpu(0) == 0);
  CHECK(m.node_of_cpu(9) == 0);
  CHECK(m.node_of_cpu(10) == 1);
  CHECK(m.node_of_cpu(159) == 7);
  CHECK(m.node_of_cpu(160) == numaplace::no_node);
  // Node ids with a hole (0, 2, 3): indexes are dense.
  const auto holes = usable_machine::read(fixture(data / "linux" / "none", data / "sysfs" / "holes"));
  CHECK(holes.node_of_cpu(5) == 1);
  CHECK(holes.topology().id_of(1) == 2);
  CHECK(holes.node_of_cpu(11) == 2);
  CHECK(holes.node_of_cpu(12) == numaplace::no_node);
  CHECK(holes.memory_allowed(1));  // Mems_allowed 0,2 names ids, not indexes
  CHECK_FALSE(holes.memory_allowed(2));
}

TEST_CASE("a memory-only node is usable for its memory; a node without memory never allows it") {
  // cxl: nodes 0-1 with CPUs 0-15 and 16-31, node 2 memory only. Mems_allowed_list 0,2.
  const auto m = usable_machine::read(fixture(data / "linux" / "none", data / "sysfs" / "cxl"));
  CHECK(m.cpus(2).empty());
  CHECK(m.memory_allowed(2));
  CHECK_FALSE(m.memory_allowed(1));
  CHECK(as_vector(m.cpus(0)) == std::vector<unsigned>{0, 1, 2, 3, 8});
  CHECK(m.cpus(1).empty());
  CHECK(m.usable_nodes() == std::vector<node_index>{0, 2});

  // Node 7 without memory (has_memory 0-6), though Mems_allowed_list names it.
  scratch s(data / "linux" / "none", "memoryless");
  s.write("sysfs/has_memory", "0-6\n");
  s.write("tree/process/status", "Name:\tx\nPid:\t1\nThreads:\t1\nCpus_allowed_list:\t0-159\nMems_allowed_list:\t0-7\n");
  const auto memoryless = usable_machine::read(s.where());
  CHECK(memoryless.memory_allowed(6));
  CHECK_FALSE(memoryless.memory_allowed(7));
  CHECK(memoryless.cpus(7).size() == 20);
}

TEST_CASE("the kernel's memory tiers: a CXL node below DRAM is not top tier") {
  // The cxl tree as /sys lays it out, memory_tiering beside: nodes 0-1 in tier 4, node 2 in 22.
  const fs::path tiered = data / "sysfs-tiers" / "cxl" / "devices" / "system" / "node";
  const auto m = usable_machine::read(fixture(data / "linux" / "none", tiered));
  REQUIRE(m.memory_tiers().size() == 2);
  CHECK(m.memory_tiers()[1].id == 22);
  CHECK(m.top_tier(0));
  CHECK(m.top_tier(1));
  CHECK_FALSE(m.top_tier(2));
  CHECK(m.memory_allowed(2));  // still memory the process may spill into
  // The same nodes as a bare tree: no tiers known, every node top tier.
  const auto bare = usable_machine::read(fixture(data / "linux" / "none", data / "sysfs" / "cxl"));
  CHECK(bare.memory_tiers().empty());
  CHECK(bare.top_tier(2));
}

TEST_CASE("an injected affinity source replaces Cpus_allowed_list") {
  std::vector<unsigned> affinity = {3, 11, 12};
  const auto m = usable_machine::read(fixture(data / "linux" / "none"), [&] { return affinity; });
  CHECK(as_vector(m.cpus(0)) == std::vector<unsigned>{3});
  CHECK(as_vector(m.cpus(1)) == std::vector<unsigned>{11, 12});
}

TEST_CASE("refresh: sees the affinity, the cpuset and Mems_allowed change, and nothing else") {
  scratch s(data / "linux" / "v2", "refresh");
  std::vector<unsigned> affinity = range(0, 159);
  auto m = usable_machine::read(s.where(), [&] { return affinity; });
  CHECK(m.cpu_count() == 21 + 11);
  CHECK_FALSE(m.refresh());

  s.write("tree/cgroup2/jobs.slice/cpuset.cpus.effective", "5-6\n");
  CHECK(m.refresh());
  CHECK(as_vector(m.cpus(0)) == range(5, 6));
  CHECK(m.cpu_count() == 2);
  CHECK_FALSE(m.refresh());

  affinity = {6};
  CHECK(m.refresh());
  CHECK(as_vector(m.cpus(0)) == std::vector<unsigned>{6});

  s.write("tree/process/status", "Name:\tx\nPid:\t1\nThreads:\t1\nCpus_allowed_list:\t0-159\nMems_allowed_list:\t0-7\n");
  CHECK(m.refresh());
  CHECK(m.memory_allowed(5));
  CHECK(m.usable_nodes() == std::vector<node_index>{0, 1, 2, 5});
}

TEST_CASE("refresh: a node gone offline is nodes_changed, and the machine stays as it was") {
  scratch s(data / "linux" / "none", "offline");
  auto m = usable_machine::read(s.where());
  s.write("sysfs/online", "0-6\n");
  const std::string online = (s.root / "sysfs" / "online").string();
  CHECK(error_of([&] { m.refresh(); }) ==
        online + ":1: node 7 went offline; the topology is out of date: read the machine again");
  try {
    m.refresh();
    FAIL("no nodes_changed");
  } catch (const numaplace::os::nodes_changed& e) {
    CHECK(e.went_offline() == std::vector<numaplace::node_id>{7});
    CHECK(e.came_online().empty());
  }
  CHECK(m.node_count() == 8);
  CHECK(m.cpu_count() == 5);
  s.write("sysfs/online", "0,2-7\n");
  CHECK(error_of([&] { m.refresh(); }) ==
        online + ":1: node 1 went offline; the topology is out of date: read the machine again");
  s.write("sysfs/online", "0-8\n");
  CHECK(error_of([&] { m.refresh(); }) ==
        online + ":1: node 8 came online; the topology is out of date: read the machine again");
  s.write("sysfs/online", "0-7\n");
  CHECK_FALSE(m.refresh());
}

TEST_CASE("malformed or missing files name the file and line") {
  scratch s(data / "linux" / "v2", "bad");
  const fs::path tree = s.root / "tree";
  s.write("tree/process/cgroup", "0::/jobs.slice/job1.scope\n0::/again\n");
  CHECK(error_of([&] { usable_machine::read(s.where()); }) ==
        (tree / "process" / "cgroup").string() + ":2: a second cgroup v2 line (the first is line 1)");

  s.write("tree/process/cgroup", "0::/jobs.slice/job1.scope\n");
  s.write("tree/cgroup2/jobs.slice/cpuset.mems.effective", "1-x\n");
  CHECK(error_of([&] { usable_machine::read(s.where()); }) ==
        (tree / "cgroup2" / "jobs.slice" / "cpuset.mems.effective").string() +
            ":1: '1-x' is not a number or a range such as 0-3");

  // A file turning bad under a machine already read: refresh throws and changes nothing.
  s.write("tree/cgroup2/jobs.slice/cpuset.mems.effective", "1\n");
  auto m = usable_machine::read(s.where());
  s.write("tree/cgroup2/jobs.slice/cpuset.cpus.effective", "5-25\n26\n");
  CHECK(error_of([&] { m.refresh(); }) ==
        (tree / "cgroup2" / "jobs.slice" / "cpuset.cpus.effective").string() +
            ":2: a second line (a cpuset file holds one list)");
  CHECK(m.cpu_count() == 32);

  s.write("tree/process/status", "Name:\tx\nPid:\tme\n");
  CHECK(error_of([&] { m.refresh(); }) == (tree / "process" / "status").string() + ":2: Pid 'me' is not a process id");

  // A process that has exited: its /proc folder is gone.
  fs::remove_all(tree / "process");
  CHECK(error_of([&] { m.refresh(); }) ==
        (tree / "process").string() + ": no such process (it has exited, or never existed)");
}

TEST_CASE("this machine: the usable CPUs are the calling thread's, and refresh sees sched_setaffinity") {
  auto m = usable_machine::this_process();
  REQUIRE(m.cpu_count() >= 1);
  REQUIRE(!m.usable_nodes().empty());
  // What sched_getaffinity says, node by node.
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0);
  CHECK(m.cpu_count() == static_cast<std::size_t>(CPU_COUNT(&set)));
  for (const node_index n : m.usable_nodes()) {
    for (const unsigned cpu : m.cpus(n)) {
      CHECK(CPU_ISSET(cpu, &set));
      CHECK(m.node_of_cpu(cpu) == n);
    }
  }
  const unsigned first = m.cpus(m.usable_nodes().front()).front();

  // A thread pinned to one CPU sees only that one after refresh (when there was more than one).
  bool changed = false;
  std::size_t pinned_count = 0;
  unsigned pinned_cpu = ~0u;
  int pin_result = -1;
  std::thread([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    pin_result = sched_setaffinity(0, sizeof one, &one);
    changed = m.refresh();
    pinned_count = m.cpu_count();
    pinned_cpu = m.cpus(m.node_of_cpu(first)).front();
  }).join();
  REQUIRE(pin_result == 0);
  CHECK(changed == (CPU_COUNT(&set) > 1));
  CHECK(pinned_count == 1);
  CHECK(pinned_cpu == first);
  // Back on this thread, whose affinity did not change.
  CHECK(m.refresh() == (CPU_COUNT(&set) > 1));
  CHECK(m.cpu_count() == static_cast<std::size_t>(CPU_COUNT(&set)));

}

TEST_CASE("this machine: another process, from its status file; one that has exited says so") {
  const auto self = usable_machine::of_process(getpid());
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0);
  CHECK(self.cpu_count() == static_cast<std::size_t>(CPU_COUNT(&set)));
  CHECK(self.usable_nodes() == usable_machine::this_process().usable_nodes());

  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) _exit(0);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(error_of([&] { usable_machine::of_process(child); }) ==
        "/proc/" + std::to_string(child) + ": no such process (it has exited, or never existed)");
}
