#pragma once
// Where memory goes: a range's policy (mbind(2): bind, interleave, prefer, default), the calling
// thread's policy (set_mempolicy(2)), and moving a process's pages between node sets
// (migrate_pages(2)). Raw system calls with the MPOL_*
// constants of the kernel's UAPI header, so static programs link without libnuma.
//
// Nodes are the kernel's node ids, as in sysfs.

#include <linux/mempolicy.h>  // MPOL_*
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "../topology/cpulist.hpp"
#include "status.hpp"

namespace numaplace::os {

/// A node set as the kernel's memory-policy calls take it: words of bits, bit N for node N.
class node_mask {
 public:
  /// The largest node id a mask may name: get_nodes() in mm/mempolicy.c (Linux 6.1) refuses
  /// masks longer than a page of bits.
  static constexpr unsigned max_node_id = 4096 * 8 - 1;
  static constexpr std::size_t word_bits = 8 * sizeof(unsigned long);

  /// The mask of `nodes`, at least `min_words` words long (two masks of one call must agree).
  /// Throws std::out_of_range for an id beyond max_node_id (callers that return statuses
  /// check first_too_large() first).
  explicit node_mask(std::span<const unsigned> nodes, std::size_t min_words = 1) : words_(min_words, 0) {
    for (const unsigned n : nodes) {
      if (n > max_node_id) {
        throw std::out_of_range("numaplace::os::node_mask: node " + std::to_string(n) +
                                " is beyond the largest node id, " + std::to_string(max_node_id));
      }
      if (words_.size() <= n / word_bits) words_.resize(n / word_bits + 1, 0);
      words_[n / word_bits] |= 1UL << (n % word_bits);
    }
  }

  /// The first id of `nodes` beyond max_node_id, or nothing.
  static const unsigned* first_too_large(std::span<const unsigned> nodes) noexcept {
    for (const unsigned& n : nodes) {
      if (n > max_node_id) return &n;
    }
    return nullptr;
  }

  /// Words needed for the largest id of `nodes`.
  static std::size_t words_for(std::span<const unsigned> nodes) noexcept {
    std::size_t words = 1;
    for (const unsigned n : nodes) {
      if (n <= max_node_id && n / word_bits + 1 > words) words = n / word_bits + 1;
    }
    return words;
  }

  const unsigned long* data() const noexcept { return words_.data(); }
  std::size_t words() const noexcept { return words_.size(); }
  /// The `maxnode` argument: the kernel reads maxnode - 1 bits (get_nodes), so one more.
  unsigned long maxnode() const noexcept { return words_.size() * word_bits + 1; }

 private:
  std::vector<unsigned long> words_;
};

/// What mbind does with pages the range already has that do not follow the new policy.
enum class existing_pages : std::uint8_t {
  stay,     ///< only future allocations follow the policy
  move,     ///< MPOL_MF_MOVE: move the pages only this process maps
  move_all  ///< MPOL_MF_MOVE_ALL: move shared pages too (needs CAP_SYS_NICE)
};

namespace detail {

inline std::string nodes_text(std::span<const unsigned> nodes) {
  return nodes.empty() ? std::string("none") : format_cpulist({nodes.begin(), nodes.end()});
}

inline std::string address_text(const void* p) {
  char buf[2 + 2 * sizeof(void*) + 1];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

inline const char* mode_name(int mode) noexcept {
  switch (mode) {
    case MPOL_DEFAULT: return "MPOL_DEFAULT";
    case MPOL_PREFERRED: return "MPOL_PREFERRED";
    case MPOL_BIND: return "MPOL_BIND";
    case MPOL_INTERLEAVE: return "MPOL_INTERLEAVE";
    case MPOL_LOCAL: return "MPOL_LOCAL";
    default: return "MPOL_?";
  }
}

inline unsigned move_flags(existing_pages pages) noexcept {
  switch (pages) {
    case existing_pages::move: return MPOL_MF_MOVE;
    case existing_pages::move_all: return MPOL_MF_MOVE_ALL;
    case existing_pages::stay: break;
  }
  return 0;
}

inline os_status set_range_policy(void* start, std::size_t bytes, int mode, std::span<const unsigned> nodes,
                                  existing_pages pages) {
  std::string call = "mbind(" + address_text(start) + ", " + std::to_string(bytes) + " bytes, " + mode_name(mode);
  if (mode != MPOL_DEFAULT) call += ", nodes " + nodes_text(nodes);
  if (pages == existing_pages::move) call += ", MPOL_MF_MOVE";
  if (pages == existing_pages::move_all) call += ", MPOL_MF_MOVE_ALL";
  call += ")";
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  if (reinterpret_cast<std::uintptr_t>(start) % page != 0) {
    return invalid_arguments(call, "the start is not aligned to the page size, " + std::to_string(page) + " bytes");
  }
  if (mode != MPOL_DEFAULT && nodes.empty()) return invalid_arguments(call, "the node list is empty");
  if (const unsigned* n = node_mask::first_too_large(nodes)) {
    return invalid_arguments(call, "node " + std::to_string(*n) + " is beyond the largest node id, " +
                                       std::to_string(node_mask::max_node_id));
  }
  const node_mask mask(nodes);
  const long rc = mode == MPOL_DEFAULT
                      ? syscall(SYS_mbind, start, bytes, mode, nullptr, 0UL, move_flags(pages))
                      : syscall(SYS_mbind, start, bytes, mode, mask.data(), mask.maxnode(), move_flags(pages));
  if (rc == 0) return {};
  const int error = errno;
  return failure(call, error, call_arguments::range_and_nodes);
}

}  // namespace detail

/// Memory of [start, start + bytes) comes only from `nodes` (MPOL_BIND). `start` must be
/// page-aligned; the length is rounded up to whole pages.
inline os_status bind_memory(void* start, std::size_t bytes, std::span<const unsigned> nodes,
                             existing_pages pages = existing_pages::stay) {
  return detail::set_range_policy(start, bytes, MPOL_BIND, nodes, pages);
}

/// The range's pages go round-robin over `nodes`, page by page (MPOL_INTERLEAVE).
inline os_status interleave_memory(void* start, std::size_t bytes, std::span<const unsigned> nodes,
                                   existing_pages pages = existing_pages::stay) {
  return detail::set_range_policy(start, bytes, MPOL_INTERLEAVE, nodes, pages);
}

/// The range's memory comes from `node` while it has free memory, then from the nearest
/// others (MPOL_PREFERRED).
inline os_status prefer_memory(void* start, std::size_t bytes, unsigned node,
                               existing_pages pages = existing_pages::stay) {
  const unsigned one[] = {node};
  return detail::set_range_policy(start, bytes, MPOL_PREFERRED, one, pages);
}

/// The range follows the thread's policy again (MPOL_DEFAULT: by default, first touch).
inline os_status reset_memory_policy(void* start, std::size_t bytes) {
  return detail::set_range_policy(start, bytes, MPOL_DEFAULT, {}, existing_pages::stay);
}

namespace detail {

inline os_status set_thread_policy(int mode, std::span<const unsigned> nodes) {
  std::string call = std::string("set_mempolicy(") + mode_name(mode);
  if (mode != MPOL_LOCAL) call += ", nodes " + nodes_text(nodes);
  call += ")";
  if (mode != MPOL_LOCAL && nodes.empty()) return invalid_arguments(call, "the node list is empty");
  if (const unsigned* n = node_mask::first_too_large(nodes)) {
    return invalid_arguments(call, "node " + std::to_string(*n) + " is beyond the largest node id, " +
                                       std::to_string(node_mask::max_node_id));
  }
  const node_mask mask(nodes);
  const long rc = mode == MPOL_LOCAL ? syscall(SYS_set_mempolicy, mode, nullptr, 0UL)
                                     : syscall(SYS_set_mempolicy, mode, mask.data(), mask.maxnode());
  if (rc == 0) return {};
  const int error = errno;
  return failure(call, error, call_arguments::node_mask);
}

}  // namespace detail

// The calling thread's policy covers its allocations outside any mbind range. fork copies it
// and execve keeps it (mm/mempolicy.c, Linux 6.1: the policy lives in the task, not the mm), so
// a launcher sets it and then runs the program, as numactl does.

/// The calling thread's memory comes only from `nodes` (set_mempolicy(MPOL_BIND)).
inline os_status bind_thread_memory(std::span<const unsigned> nodes) {
  return detail::set_thread_policy(MPOL_BIND, nodes);
}

/// The calling thread's pages go round-robin over `nodes` (set_mempolicy(MPOL_INTERLEAVE)).
inline os_status interleave_thread_memory(std::span<const unsigned> nodes) {
  return detail::set_thread_policy(MPOL_INTERLEAVE, nodes);
}

/// The calling thread's memory comes from `node` while it has free memory, then from the
/// nearest others (set_mempolicy(MPOL_PREFERRED)).
inline os_status prefer_thread_memory(unsigned node) {
  const unsigned one[] = {node};
  return detail::set_thread_policy(MPOL_PREFERRED, one);
}

/// The calling thread's memory comes from the node it runs on when it faults
/// (set_mempolicy(MPOL_LOCAL), Linux 3.8).
inline os_status local_thread_memory() { return detail::set_thread_policy(MPOL_LOCAL, {}); }

/// What migrate_process_pages did.
struct pages_migrated {
  os_status status;
  std::size_t not_moved = 0;  ///< pages the kernel could not move (busy, pinned, or no room)
};

/// Moves the pages of process `pid` (0: this one) that are on nodes `from` to nodes `to`
/// (migrate_pages(2); the k-th node of `from` maps to the k-th of `to` when the sets have the
/// same size, else pages spread over `to`). Another user's process needs CAP_SYS_NICE (EPERM);
/// one that has exited is ESRCH.
inline pages_migrated migrate_process_pages(pid_t pid, std::span<const unsigned> from,
                                            std::span<const unsigned> to) {
  pages_migrated out;
  const std::string call = "migrate_pages(pid " + std::to_string(pid) + ", from nodes " + detail::nodes_text(from) +
                           ", to nodes " + detail::nodes_text(to) + ")";
  if (from.empty() || to.empty()) {
    out.status = invalid_arguments(call, from.empty() ? "the source node list is empty" : "the target node list is empty");
    return out;
  }
  for (const auto nodes : {from, to}) {
    if (const unsigned* n = node_mask::first_too_large(nodes)) {
      out.status = invalid_arguments(call, "node " + std::to_string(*n) + " is beyond the largest node id, " +
                                               std::to_string(node_mask::max_node_id));
      return out;
    }
  }
  const std::size_t words = std::max(node_mask::words_for(from), node_mask::words_for(to));
  const node_mask old_nodes(from, words), new_nodes(to, words);
  const long left = syscall(SYS_migrate_pages, pid, old_nodes.maxnode(), old_nodes.data(), new_nodes.data());
  if (left < 0) {
    const int error = errno;
    out.status = failure(call, error, call_arguments::node_mask);
    return out;
  }
  out.not_moved = static_cast<std::size_t>(left);
  return out;
}

}  // namespace numaplace::os
