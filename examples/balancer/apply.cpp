#include "apply.hpp"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "numa_syscalls.hpp"

namespace balancer {

apply_report apply_advice(const numaplace::dynamic_topology& t, const std::filesystem::path& proc_root,
                          const process_snapshot& p, const advice& a) {
  apply_report r;
  const auto refuse = [&](apply_status s, const std::string& what, int error) {
    r.status = s;
    r.message = what + ": " + std::strerror(error);
    if (s == apply_status::not_permitted) {
      r.message += " (moving another user's process needs root or CAP_SYS_NICE)";
    }
    return r;
  };
  if (a.nodes.empty() || a.cpus.empty()) {
    r.status = apply_status::failed;
    r.message = "the recommended set has no CPUs; nothing applied";
    return r;
  }

  cpu_set_t set;
  CPU_ZERO(&set);
  for (const unsigned c : a.cpus) {
    if (c < CPU_SETSIZE) CPU_SET(c, &set);
  }
  const std::vector<int> tids = list_threads(proc_root, p.pid);
  if (tids.empty()) return refuse(apply_status::gone, "process " + std::to_string(p.pid), ESRCH);
  for (const int tid : tids) {
    if (sched_setaffinity(tid, sizeof set, &set) == 0) {
      ++r.threads_set;
      continue;
    }
    const int e = errno;
    if (e == ESRCH) {
      ++r.threads_gone;
      continue;
    }
    if (e == EPERM) return refuse(apply_status::not_permitted, "sched_setaffinity(" + std::to_string(tid) + ")", e);
    return refuse(apply_status::failed, "sched_setaffinity(" + std::to_string(tid) + ")", e);
  }
  if (r.threads_set == 0) return refuse(apply_status::gone, "process " + std::to_string(p.pid), ESRCH);

  // Memory: from the nodes it has pages on outside the set, to the set.
  std::vector<unsigned> from, to;
  for (numaplace::node_index i = 0; i < t.node_count(); ++i) {
    const bool in_set = std::find(a.nodes.begin(), a.nodes.end(), i) != a.nodes.end();
    const auto id = static_cast<unsigned>(t.id_of(i));
    if (in_set) to.push_back(id);
    else if (a.bytes_per_node[i] > 0) from.push_back(id);
  }
  if (from.empty()) return r;
  std::size_t words = 1;
  for (const unsigned id : from) words = std::max<std::size_t>(words, id / numa_runtime::sys::mask_bits + 1);
  for (const unsigned id : to) words = std::max<std::size_t>(words, id / numa_runtime::sys::mask_bits + 1);
  const long left = numa_runtime::sys::migrate_process_pages(p.pid, numa_runtime::sys::make_mask(from, words),
                                                             numa_runtime::sys::make_mask(to, words));
  if (left < 0) {
    const int e = errno;
    if (e == ESRCH) return refuse(apply_status::gone, "process " + std::to_string(p.pid), e);
    if (e == EPERM) return refuse(apply_status::not_permitted, "migrate_pages(" + std::to_string(p.pid) + ")", e);
    return refuse(apply_status::failed, "migrate_pages(" + std::to_string(p.pid) + ")", e);
  }
  r.memory_moved = true;
  r.pages_not_moved = left;
  return r;
}

}  // namespace balancer
