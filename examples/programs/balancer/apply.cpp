#include "apply.hpp"

#include <numaplace/linux/affinity.hpp>
#include <numaplace/linux/memory_policy.hpp>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

namespace balancer {

apply_report apply_advice(const numaplace::dynamic_topology& t, const std::filesystem::path& proc_root,
                          const process_snapshot& p, const advice& a) {
  apply_report r;
  const auto refuse = [&](const numaplace::os::os_status& s) {
    r.status = s.error == ESRCH   ? apply_status::gone
               : s.error == EPERM ? apply_status::not_permitted
                                  : apply_status::failed;
    r.message = s.message;
    return r;
  };
  const auto process_gone = [&] {
    r.status = apply_status::gone;
    r.message = "process " + std::to_string(p.pid) + ": no such process";
    return r;
  };
  if (a.nodes.empty() || a.cpus.empty()) {
    r.status = apply_status::failed;
    r.message = "the recommended set has no CPUs; nothing applied";
    return r;
  }

  const std::vector<int> tids = list_threads(proc_root, p.pid);
  if (tids.empty()) return process_gone();
  for (const int tid : tids) {
    const numaplace::os::os_status s = numaplace::os::pin_thread(tid, a.cpus);
    if (s) {
      ++r.threads_set;
    } else if (s.error == ESRCH) {
      ++r.threads_gone;  // exited since /proc was read
    } else {
      return refuse(s);
    }
  }
  if (r.threads_set == 0) return process_gone();

  // Memory: from the nodes it has pages on outside the set, to the set.
  std::vector<unsigned> from, to;
  for (numaplace::node_index i = 0; i < t.node_count(); ++i) {
    const bool in_set = std::find(a.nodes.begin(), a.nodes.end(), i) != a.nodes.end();
    const auto id = static_cast<unsigned>(t.id_of(i));
    if (in_set) to.push_back(id);
    else if (a.bytes_per_node[i] > 0) from.push_back(id);
  }
  if (from.empty()) return r;
  const numaplace::os::pages_migrated moved = numaplace::os::migrate_process_pages(p.pid, from, to);
  if (!moved.status) return refuse(moved.status);
  r.memory_moved = true;
  r.pages_not_moved = static_cast<long>(moved.not_moved);
  return r;
}

}  // namespace balancer
