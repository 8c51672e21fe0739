#pragma once
// Where a process's pages are, read as NUMA hinting faults. The kernel's balancer learns where
// a task's memory is from faults on pages it unmapped on purpose (task_numa_fault, Linux 6.1);
// a runtime cannot take those faults, but it can ask the kernel where sampled pages are
// (move_pages(2) with no target nodes only reports) and record each present page as one
// fault: memory on the page's node, CPU on the node the sampling thread runs on. The result is
// the same fault_stats the library's decisions read.

#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "../stats/fault_stats.hpp"
#include "../topology/types.hpp"
#include "status.hpp"

namespace numaplace::os {

/// What one query saw, page by page.
struct page_census {
  os_status status;               ///< the call itself: ESRCH when the process has exited
  std::size_t present = 0;        ///< pages on a node the topology knows (recorded, when recording)
  std::size_t not_present = 0;    ///< -ENOENT: never touched, or swapped out
  std::size_t failed = 0;         ///< other per-page errors: -EFAULT (not mapped, or the zero page)
  std::size_t unknown_node = 0;   ///< present on a node id the topology does not name (not recorded)
};

/// Anything that turns a kernel node id into its node index: dynamic_topology, static_topology.
template <class Topology>
concept maps_node_ids = requires(const Topology& t, node_id id) {
  { t.index_of(id) } -> std::convertible_to<std::optional<node_index>>;
};

/// Pages to ask about, and the kernel's answer. Keeps its buffers between rounds, so a
/// sampler reused by one thread allocates only while its largest round grows. Not thread-safe:
/// one per sampling thread.
class page_sampler {
 public:
  /// Samples the pages of process `pid` (0: this process).
  explicit page_sampler(pid_t pid = 0) noexcept : pid_(pid) {}

  pid_t pid() const noexcept { return pid_; }

  /// Queues the page that holds `address`.
  void add_page(const void* address) {
    const auto page = page_bytes();
    pages_.push_back(reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(address) / page * page));
  }

  /// Queues the pages of [start, start + bytes): all of them, or `limit` spread evenly.
  void add_range(const void* start, std::size_t bytes, std::size_t limit = std::numeric_limits<std::size_t>::max()) {
    const auto page = page_bytes();
    const auto first = reinterpret_cast<std::uintptr_t>(start) / page;
    const auto end = (reinterpret_cast<std::uintptr_t>(start) + bytes + page - 1) / page;
    const std::size_t count = bytes == 0 ? 0 : end - first;
    const std::size_t take = count < limit ? count : limit;
    for (std::size_t i = 0; i < take; ++i) {
      // Page i of `take`, spread over `count` (i * count / take without overflow for huge ranges).
      const std::size_t k = take == count ? i : static_cast<std::size_t>(static_cast<long double>(i) * count / take);
      pages_.push_back(reinterpret_cast<void*>((first + k) * page));
    }
  }

  std::size_t size() const noexcept { return pages_.size(); }
  void clear() noexcept {
    pages_.clear();
    status_.clear();
  }

  /// Asks where the queued pages are. After it, page_status() holds per page its node id or
  /// -errno. `t` sorts present pages into known and unknown nodes.
  template <maps_node_ids Topology>
  page_census query(const Topology& t) {
    return run(t, nullptr, 0, access::private_access);
  }

  /// query(), and each present page recorded into `faults` as one hinting fault: memory node =
  /// the page's node, CPU node = `cpu_node` (an index of `t`, e.g. the sampling thread's node),
  /// `kind` shared or private as the caller knows the memory to be.
  template <maps_node_ids Topology>
  page_census record(const Topology& t, fault_stats& faults, node_index cpu_node, access kind) {
    return run(t, &faults, cpu_node, kind);
  }

  /// Per queued page, as the last query left it: a node id, or -ENOENT, -EFAULT, ...
  std::span<const int> page_status() const noexcept { return status_; }
  std::span<void* const> pages() const noexcept { return pages_; }

 private:
  static std::uintptr_t page_bytes() noexcept { return static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE)); }

  template <class Topology>
  page_census run(const Topology& t, fault_stats* faults, node_index cpu_node, access kind) {
    page_census seen;
    status_.assign(pages_.size(), -EFAULT);
    if (pages_.empty()) return seen;
    if (faults != nullptr && cpu_node >= faults->node_count()) {
      seen.status = invalid_arguments(call_text(), "the CPU node index " + std::to_string(cpu_node) +
                                                       " is beyond the statistics' " +
                                                       std::to_string(faults->node_count()) + " nodes");
      return seen;
    }
    if (syscall(SYS_move_pages, pid_, pages_.size(), pages_.data(), nullptr, status_.data(), 0) != 0) {
      const int error = errno;
      status_.assign(pages_.size(), -error);
      seen.status = failure(call_text(), error, call_arguments::page_list);
      return seen;
    }
    for (const int s : status_) {
      if (s == -ENOENT) {
        ++seen.not_present;
      } else if (s < 0) {
        ++seen.failed;
      } else if (const std::optional<node_index> memory = t.index_of(static_cast<node_id>(s));
                 memory && (faults == nullptr || *memory < faults->node_count())) {
        ++seen.present;
        if (faults != nullptr) faults->record(*memory, cpu_node, kind, 1);
      } else {
        ++seen.unknown_node;
      }
    }
    return seen;
  }

  std::string call_text() const {
    return "move_pages(pid " + std::to_string(pid_) + ", " + std::to_string(pages_.size()) + " pages, query)";
  }

  pid_t pid_ = 0;
  std::vector<void*> pages_;
  std::vector<int> status_;
};

}  // namespace numaplace::os
