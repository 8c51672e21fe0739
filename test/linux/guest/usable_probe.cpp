// numaplace-usable-probe: usable_machine against a real kernel, run as root in a test/vm guest
// (seed 000's 8 nodes, one CPU each). Prints one line per fact; test/linux/guest/vm-check
// requires them. Steps, each read back through usable_machine::refresh():
//   1. the whole machine: 8 nodes, CPU k on node k, memory on every node
//   2. sched_setaffinity of the calling thread to CPU 3
//   3. a cgroup v2 cpuset (mount cgroup2, +cpuset, CPUs 4-6, mems 5) joined by this process,
//      then its CPUs narrowed to 5 while the process is in it
//   4. the same with a cgroup v1 cpuset hierarchy (CPUs 1-2, mems 1)
//   5. CPU 7 taken offline (sysfs cpu7/online), so node 7 keeps its memory but has no CPU
// Steps 3 to 5 change the machine, so the probe runs only with --guest, and mounts cgroup2
// only on an empty /sys/fs/cgroup (a guest's; a host has its hierarchies there).
#include <numaplace/linux.hpp>

#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace {

using numaplace::node_index;
using numaplace::os::usable_machine;

std::string cpus_text(const usable_machine& m) {
  std::vector<unsigned> all;
  for (node_index n = 0; n < m.node_count(); ++n) all.insert(all.end(), m.cpus(n).begin(), m.cpus(n).end());
  std::string s;
  for (const unsigned c : all) s += (s.empty() ? "" : ",") + std::to_string(c);
  return s.empty() ? "none" : s;
}

std::string memory_text(const usable_machine& m) {
  std::string s;
  for (node_index n = 0; n < m.node_count(); ++n) {
    if (m.memory_allowed(n)) s += (s.empty() ? "" : ",") + std::to_string(m.topology().id_of(n));
  }
  return s.empty() ? "none" : s;
}

std::string list_text(const std::optional<std::vector<unsigned>>& list) {
  if (!list) return "unrestricted";
  std::string s;
  for (const unsigned v : *list) s += (s.empty() ? "" : ",") + std::to_string(v);
  return s.empty() ? "empty" : s;
}

void show(const char* step, const usable_machine& m) {
  std::printf("%s: CPUs %s; memory on nodes %s\n", step, cpus_text(m).c_str(), memory_text(m).c_str());
}

// What the cpuset reader alone says, and from which files.
void show_cpuset(const char* step) {
  const auto limits = numaplace::os::read_cpuset_of("/proc/thread-self");
  std::printf("%s cpuset files: %s = %s; %s = %s\n", step, limits.cpus_source.c_str(), list_text(limits.cpus).c_str(),
              limits.mems_source.c_str(), list_text(limits.mems).c_str());
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.flush();
  if (!out) {
    std::printf("probe: cannot write '%s' to %s: %s\n", text.c_str(), path.c_str(), std::strerror(errno));
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  if (argc != 2 || std::string(argv[1]) != "--guest") {
    std::fprintf(stderr, "usage: numaplace-usable-probe --guest (it changes cgroups and CPUs: run it in a test/vm guest)\n");
    return 2;
  }
  try {
    auto m = usable_machine::this_process();
    std::printf("usable: %zu nodes, %zu usable CPUs, usable nodes %zu\n", m.node_count(), m.cpu_count(),
                m.usable_nodes().size());
    show("start", m);
    std::string homes;
    for (unsigned cpu = 0; cpu < 9; ++cpu) {
      const node_index n = m.node_of_cpu(cpu);
      homes += ' ' + (n == numaplace::no_node ? std::string("-") : std::to_string(n));
    }
    std::printf("node_of_cpu 0..8:%s\n", homes.c_str());

    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(3, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) std::printf("probe: sched_setaffinity: %s\n", std::strerror(errno));
    std::printf("pinned to cpu 3: refresh %s\n", m.refresh() ? "changed" : "unchanged");
    show("pinned", m);
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int c = 0; c < 8; ++c) CPU_SET(c, &all);
    sched_setaffinity(0, sizeof all, &all);
    std::printf("unpinned: refresh %s\n", m.refresh() ? "changed" : "unchanged");

    // A cgroup v2 cpuset. The guest mounts only proc, sys and dev.
    const std::string root = "/sys/fs/cgroup";
    std::error_code ec;
    if (!std::filesystem::is_empty(root, ec) || ec) {
      std::printf("probe: %s is not an empty folder: not a guest, stopping\n", root.c_str());
      return 1;
    }
    if (::mount("cgroup2", root.c_str(), "cgroup2", 0, nullptr) != 0 && errno != EBUSY) {
      std::printf("probe: mount cgroup2: %s\n", std::strerror(errno));
    }
    const std::string group = root + "/probe";
    ::mkdir(group.c_str(), 0755);
    if (write_file(root + "/cgroup.subtree_control", "+cpuset") && write_file(group + "/cpuset.cpus", "4-6") &&
        write_file(group + "/cpuset.mems", "5") && write_file(group + "/cgroup.procs", std::to_string(getpid()))) {
      std::printf("in cpuset 4-6 / 5: refresh %s\n", m.refresh() ? "changed" : "unchanged");
      show("cpuset", m);
      show_cpuset("v2");
      const auto fresh = usable_machine::this_process();
      std::printf("read again in the cpuset: CPUs %s; memory on nodes %s\n", cpus_text(fresh).c_str(),
                  memory_text(fresh).c_str());
      write_file(group + "/cpuset.cpus", "5");
      std::printf("cpuset narrowed to 5: refresh %s\n", m.refresh() ? "changed" : "unchanged");
      show("narrowed", m);
      // Out again, to the root cgroup (every CPU, every node).
      write_file(root + "/cgroup.procs", std::to_string(getpid()));
      sched_setaffinity(0, sizeof all, &all);
      std::printf("left the cpuset: refresh %s\n", m.refresh() ? "changed" : "unchanged");
      show("left", m);

      // cgroup v1: the cpuset controller leaves v2 (it can be on one hierarchy only), and a v1
      // cpuset hierarchy is mounted where the usual layout has it, under a tmpfs.
      write_file(root + "/cgroup.subtree_control", "-cpuset");
      ::rmdir(group.c_str());
      if (::umount(root.c_str()) != 0) std::printf("probe: umount cgroup2: %s\n", std::strerror(errno));
      const std::string v1 = root + "/cpuset";
      // The controller leaves v2 only once the removed cgroup is freed, which the kernel defers
      // (EBUSY until then): try for up to 5 seconds.
      const auto mount_v1 = [&] {
        for (int attempt = 0; attempt < 50; ++attempt) {
          if (::mount("cpuset", v1.c_str(), "cgroup", 0, "cpuset") == 0) return true;
          if (errno != EBUSY) return false;
          ::usleep(100 * 1000);
        }
        return false;
      };
      if (::mount("tmpfs", root.c_str(), "tmpfs", 0, nullptr) == 0 && ::mkdir(v1.c_str(), 0755) == 0 && mount_v1()) {
        const std::string batch = v1 + "/batch";
        ::mkdir(batch.c_str(), 0755);
        if (write_file(batch + "/cpuset.cpus", "1-2") && write_file(batch + "/cpuset.mems", "1") &&
            write_file(batch + "/tasks", std::to_string(getpid()))) {
          std::printf("in v1 cpuset 1-2 / 1: refresh %s\n", m.refresh() ? "changed" : "unchanged");
          show("v1 cpuset", m);
          show_cpuset("v1");
          write_file(v1 + "/tasks", std::to_string(getpid()));
          sched_setaffinity(0, sizeof all, &all);
          std::printf("left the v1 cpuset: refresh %s\n", m.refresh() ? "changed" : "unchanged");
        }
      } else {
        std::printf("probe: mounting a v1 cpuset hierarchy: %s\n", std::strerror(errno));
      }
    }

    if (write_file("/sys/devices/system/cpu/cpu7/online", "0")) {
      std::printf("cpu 7 offline: refresh %s\n", m.refresh() ? "changed" : "unchanged");
      show("cpu7 offline", m);
    }
    std::printf("probe: done\n");
    return 0;
  } catch (const std::exception& e) {
    std::printf("probe: error: %s\n", e.what());
    return 1;
  }
}
