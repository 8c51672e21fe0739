#pragma once
// Where threads run: pinning a thread to CPUs (sched_setaffinity(2)), the CPU and node the
// calling thread runs on now (getcpu(2)), and the CPUs of a node set.
//
// CPUs are the kernel's CPU numbers and nodes the kernel's node ids, as in sysfs. Sets are
// sized to the largest CPU named (CPU_ALLOC), so machines beyond CPU_SETSIZE (1024) work.

#include <sched.h>  // sched_setaffinity, CPU_ALLOC; getcpu since glibc 2.29 (_GNU_SOURCE)
#include <sys/types.h>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "../topology/concept.hpp"
#include "../topology/cpulist.hpp"
#include "../topology/types.hpp"
#include "status.hpp"

namespace numaplace::os {

/// A kernel task id: gettid() of a thread, or a process's pid (its main thread).
using thread_id = pid_t;

namespace detail {

struct cpu_set_deleter {
  void operator()(cpu_set_t* set) const noexcept { CPU_FREE(set); }
};

// `cpus` as a kernel CPU set. Empty lists and numbers beyond max_cpu_number are refused by
// the callers before this runs.
class cpu_mask {
 public:
  explicit cpu_mask(std::span<const unsigned> cpus) {
    unsigned largest = 0;
    for (const unsigned c : cpus) largest = c > largest ? c : largest;
    const auto count = static_cast<int>(largest) + 1;
    set_.reset(CPU_ALLOC(count));
    if (!set_) throw std::bad_alloc();
    bytes_ = CPU_ALLOC_SIZE(count);
    CPU_ZERO_S(bytes_, set_.get());
    for (const unsigned c : cpus) CPU_SET_S(c, bytes_, set_.get());
  }

  const cpu_set_t* get() const noexcept { return set_.get(); }
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  std::unique_ptr<cpu_set_t, cpu_set_deleter> set_;
  std::size_t bytes_ = 0;
};

inline std::string cpus_text(std::span<const unsigned> cpus) {
  return cpus.empty() ? std::string("none") : format_cpulist({cpus.begin(), cpus.end()});
}

// sched_setaffinity(tid) for `who` ("thread 1234", "this thread") in messages.
inline os_status set_affinity(thread_id tid, const std::string& who, std::span<const unsigned> cpus) {
  const std::string call = "sched_setaffinity(" + who + ", cpus " + cpus_text(cpus) + ")";
  if (cpus.empty()) return invalid_arguments(call, "the CPU list is empty");
  for (const unsigned c : cpus) {
    if (c > max_cpu_number) {
      return invalid_arguments(call, "CPU " + std::to_string(c) + " is beyond the largest CPU number, " +
                                         std::to_string(max_cpu_number));
    }
  }
  const cpu_mask mask(cpus);
  if (sched_setaffinity(tid, mask.bytes(), mask.get()) == 0) return {};
  const int error = errno;
  return failure(call, error, call_arguments::cpu_set);
}

}  // namespace detail

/// Lets the calling thread run only on `cpus`. Failures are values: an empty list, a CPU
/// number beyond max_cpu_number, EINVAL from the kernel (none of them online and allowed).
inline os_status pin_this_thread(std::span<const unsigned> cpus) {
  return detail::set_affinity(0, "this thread", cpus);
}

/// Lets thread `tid` run only on `cpus`. A thread that has exited is ESRCH, as a value;
/// another user's thread needs CAP_SYS_NICE (EPERM).
inline os_status pin_thread(thread_id tid, std::span<const unsigned> cpus) {
  if (tid <= 0) {
    return invalid_arguments("sched_setaffinity(thread " + std::to_string(tid) + ")",
                             "a thread id is positive (use pin_this_thread for the calling thread)");
  }
  return detail::set_affinity(tid, "thread " + std::to_string(tid), cpus);
}

/// The CPU and the node the calling thread ran on when asked. Both come from one getcpu(2)
/// call, so they agree with each other; the thread may have moved since unless it is pinned.
struct cpu_and_node {
  unsigned cpu = 0;
  unsigned node = 0;  ///< the kernel's node id
};

/// getcpu(2). Throws os_error only where the kernel has no getcpu (before Linux 2.6.19).
inline cpu_and_node current_cpu_and_node() {
  cpu_and_node here;
  if (::getcpu(&here.cpu, &here.node) != 0) {
    const int error = errno;
    throw os_error(failure("getcpu", error));
  }
  return here;
}

/// The CPU the calling thread runs on (getcpu(2)).
inline unsigned current_cpu() { return current_cpu_and_node().cpu; }

/// The node id of the CPU the calling thread runs on (getcpu(2)).
inline unsigned current_node() { return current_cpu_and_node().node; }

/// The CPUs of the nodes `nodes` (indices into `cpus_per_node`), ascending without repeats.
/// Throws std::out_of_range naming the index when one is beyond the list.
inline std::vector<unsigned> cpus_of_nodes(std::span<const std::vector<unsigned>> cpus_per_node,
                                           std::span<const node_index> nodes) {
  std::vector<unsigned> out;
  for (const node_index n : nodes) {
    if (n >= cpus_per_node.size()) {
      throw std::out_of_range("numaplace::os::cpus_of_nodes: node index " + std::to_string(n) + " is beyond the " +
                              std::to_string(cpus_per_node.size()) + " nodes");
    }
    out.insert(out.end(), cpus_per_node[n].begin(), cpus_per_node[n].end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

/// The CPUs of the nodes `nodes` (node indices of `m`), ascending without repeats.
template <lists_node_cpus Machine>
std::vector<unsigned> cpus_of_nodes(const Machine& m, std::span<const node_index> nodes) {
  std::vector<unsigned> out;
  for (const node_index n : nodes) {
    if (n >= m.node_count()) {
      throw std::out_of_range("numaplace::os::cpus_of_nodes: node index " + std::to_string(n) + " is beyond the " +
                              std::to_string(m.node_count()) + " nodes");
    }
    for (const auto cpu : m.cpus(n)) out.push_back(static_cast<unsigned>(cpu));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

/// Lets the calling thread run only on the CPUs of `nodes` (node indices of `m`).
template <lists_node_cpus Machine>
os_status pin_this_thread_to_nodes(const Machine& m, std::span<const node_index> nodes) {
  return pin_this_thread(cpus_of_nodes(m, nodes));
}

}  // namespace numaplace::os
