#pragma once
// numaplace-balance's decision for one process: its /proc snapshot turned into fault
// statistics, a placement stack's preferred node, and a node set widened circle by circle.
//
// The approximation (the kernel's hinting faults are not visible from user space):
//  - every resident page on node N counts as one fault on N (in 4 KiB units, so a 2 MiB huge
//    page counts 512);
//  - private or shared: anonymous pages of a single-threaded process are private (only it
//    touches them); all other pages (file-backed ones, and everything of a multi-threaded
//    process, whose threads share its memory) are shared;
//  - a multi-threaded process is one numa_group whose faults are its pages; the task view is
//    the same counts (per-thread faults are unknown);
//  - CPU faults (where the tasks run) are the pages spread evenly over its threads, each
//    thread's share on the node of the CPU it last ran on (/proc/PID/task/TID/stat).
// The set: the preferred node, then each circle of nodes at the next distance (numaplace's
// concentric circles) until the set has a CPU per thread and its nodes' MemTotal holds the
// resident pages; only nodes in Mems_allowed and CPUs in Cpus_allowed count.

#include <numaplace/topology/dynamic_topology.hpp>
#include <numaplace/stats/fault_view.hpp>
#include <numaplace/topology/types.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "proc_files.hpp"

namespace balancer {

struct advice {
  int pid = 0;
  std::string name;
  std::size_t threads = 0;
  std::uint64_t bytes = 0;
  std::vector<std::uint64_t> bytes_per_node;  ///< by node index
  numaplace::node_index preferred = numaplace::no_node;
  std::vector<numaplace::node_index> nodes;  ///< the recommended set, by node index, nearest first
  std::vector<unsigned> cpus;                ///< the set's allowed CPUs, ascending
  std::vector<std::string> why;
};

/// The advice of stack `stack` (a numaplace named stack) for `p` on topology `t`.
/// Throws std::invalid_argument for an unknown stack name.
advice advise(const numaplace::dynamic_topology& t, const process_snapshot& p, std::string_view stack);

/// "0-3,8" from ascending numbers (format_cpulist), "-" for none.
std::string list_text(const std::vector<unsigned>& v);

}  // namespace balancer
