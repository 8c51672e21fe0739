#pragma once
// numa_group: tasks that share memory, and the statistics they share, kept as the kernel keeps
// them (task_numa_group() and task_numa_free(), v3.13 to today).
//
// A group's counters are the sum of its members' decayed counts at all times: a group is
// created with its first member's counts, a joining task brings its counts in, a leaving or
// exiting task takes its counts out, and in between every window a member ends adds its own
// differences (fault_stats::end_window with the group). numa_group_consistency() checks that
// equality, per node and kind, with overflow detected, so a counter can never wrap unnoticed.
//
// Who joins whom (task_numa_group, v3.13+): on a shared fault, a task first gets a group of its
// own if it has none. It then looks at the task that touched the page last, through the CPU
// recorded in the page's last cpupid: only if that task is still the one running on that CPU,
// and has a group, and that group is another, bigger one (equal size: the tie goes by group
// identity), does the faulting task move over. Threads of one process always join; tasks of
// different processes only on a page mapped by both. So groups merge one task at a time, the
// smaller into the bigger, and a group whose last member left is gone.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "../topology/types.hpp"
#include "fault_stats.hpp"

namespace numaplace {

/// One numa_group: its identity, its member count and the statistics its members share.
struct numa_group {
  group_index id = no_group;
  std::uint32_t nr_tasks = 0;
  fault_stats faults;
};

/// What task_numa_group() knows when a shared fault may join the faulting task to another's
/// group. Sizes and identities are of the two tasks' groups after the faulting task got one.
struct group_join_facts {
  std::uint32_t my_group_tasks = 0;
  group_index my_group = no_group;
  std::uint32_t other_group_tasks = 0;
  group_index other_group = no_group;  ///< no_group when the last toucher has none
  bool last_toucher_running = false;   ///< the page's last task still runs on the recorded CPU
  bool same_process = false;           ///< both tasks share an mm
  bool page_shared_mapping = false;    ///< TNF_SHARED: the page is mapped by several processes
};

/// task_numa_group()'s verdict on one shared fault.
enum class join_verdict : std::uint8_t {
  stay,           ///< no join; the fault stays shared
  join,           ///< the faulting task moves to the other group
  false_sharing,  ///< a join would be allowed but the tasks share no memory on purpose: the
                  ///< fault is counted private
};

/// task_numa_group() (v3.13+): whether the faulting task moves to the other task's group.
/// Ties go to the larger identity, as the kernel breaks them by the groups' addresses.
constexpr join_verdict join_group(const group_join_facts& f) noexcept {
  if (!f.last_toucher_running || f.other_group == no_group || f.other_group == f.my_group) return join_verdict::stay;
  if (f.my_group_tasks > f.other_group_tasks) return join_verdict::stay;  // the other task will join us
  if (f.my_group_tasks == f.other_group_tasks && f.my_group > f.other_group) return join_verdict::stay;
  return f.same_process || f.page_shared_mapping ? join_verdict::join : join_verdict::false_sharing;
}

/// Where a group's counters and its members' sums first differ.
struct group_mismatch {
  node_index node = no_node;  ///< no_node: the total or the member count
  std::string what;           ///< "memory shared", "cpu private", "total", "tasks", "overflow"
  std::uint64_t group_value = 0, members_sum = 0;

  std::string message(group_index id) const {
    return "numa_group " + std::to_string(id) + ": " + what +
           (node == no_node ? std::string() : " on node index " + std::to_string(node)) + " is " +
           std::to_string(group_value) + " but its members sum to " + std::to_string(members_sum);
  }
};

/// Checks the invariant: every counter of `g` equals the sum of its members' (per node and
/// kind, memory and CPU), its total equals both its members' totals and the sum of its memory
/// counters, and it has as many members as it counts. A sum that overflows 64 bits is a
/// mismatch too ("overflow"): no counter may wrap. `members` are the live tasks' statistics.
inline std::optional<group_mismatch> numa_group_consistency(const numa_group& g,
                                                            std::span<const fault_stats* const> members) {
  const std::size_t counters = g.faults.memory().size();
  const auto add = [](std::uint64_t& sum, std::uint64_t v) {
    if (v > std::numeric_limits<std::uint64_t>::max() - sum) return false;
    sum += v;
    return true;
  };
  if (members.size() != g.nr_tasks) return group_mismatch{no_node, "tasks", g.nr_tasks, members.size()};
  std::uint64_t total = 0, memory_sum = 0;
  for (const fault_stats* m : members) {
    if (m->memory().size() != counters) return group_mismatch{no_node, "node count", counters / 2, m->node_count()};
    if (!add(total, m->total())) return group_mismatch{no_node, "overflow", g.faults.total(), total};
  }
  const char* kinds[2] = {"shared", "private"};
  for (std::size_t i = 0; i < counters; ++i) {
    std::uint64_t memory = 0, cpu = 0;
    for (const fault_stats* m : members) {
      if (!add(memory, m->memory()[i]) || !add(cpu, m->cpu()[i])) {
        return group_mismatch{node_index(i / 2), "overflow", g.faults.memory()[i], memory};
      }
    }
    const auto node = node_index(i / 2);
    if (memory != g.faults.memory()[i]) {
      return group_mismatch{node, std::string("memory ") + kinds[i % 2], g.faults.memory()[i], memory};
    }
    if (cpu != g.faults.cpu()[i]) return group_mismatch{node, std::string("cpu ") + kinds[i % 2], g.faults.cpu()[i], cpu};
    if (!add(memory_sum, g.faults.memory()[i])) return group_mismatch{node, "overflow", g.faults.total(), memory_sum};
  }
  if (total != g.faults.total()) return group_mismatch{no_node, "total", g.faults.total(), total};
  if (memory_sum != g.faults.total()) return group_mismatch{no_node, "total against its counters", g.faults.total(), memory_sum};
  return std::nullopt;
}

/// The groups of one machine, with stable identities (a group's index is its id). Creating,
/// joining and leaving keep every group equal to the sum of its members; a group whose last
/// member left is released and its id never reused.
class numa_group_set {
 public:
  explicit numa_group_set(std::size_t node_count) : nodes_(node_count) {}

  /// A new group whose one member is `creator` (task_numa_group's allocation).
  group_index create(const fault_stats& creator) {
    if (creator.node_count() != nodes_) throw std::invalid_argument("numaplace::numa_group_set: statistics of another node count");
    const auto id = static_cast<group_index>(groups_.size());
    groups_.push_back(numa_group{id, 1, fault_stats::seeded_from(creator)});
    ++live_;
    return id;
  }

  /// Moves `member`'s counts from group `from` to group `to` (both live; `from` may be
  /// no_group for a task joining from none). Returns `to`.
  group_index move(const fault_stats& member, group_index from, group_index to) {
    numa_group& dst = live(to);
    if (from != no_group) leave(member, from);
    dst.faults.add_member(member);
    ++dst.nr_tasks;
    return to;
  }

  /// `member` leaves group `g` (task_numa_free, or the first half of a join). True when that
  /// was the group's last member, which releases it.
  bool leave(const fault_stats& member, group_index g) {
    numa_group& grp = live(g);
    grp.faults.remove_member(member);
    if (--grp.nr_tasks == 0) {
      grp.faults = fault_stats(0);
      --live_;
      return true;
    }
    return false;
  }

  /// The group `g`, or nullptr when there is none (no_group, released, unknown).
  const numa_group* find(group_index g) const noexcept {
    return g < groups_.size() && groups_[g].nr_tasks > 0 ? &groups_[g] : nullptr;
  }
  numa_group* find(group_index g) noexcept {
    return g < groups_.size() && groups_[g].nr_tasks > 0 ? &groups_[g] : nullptr;
  }

  /// How many groups have members now.
  std::size_t live_count() const noexcept { return live_; }
  /// How many groups were ever created (ids are 0..created()-1).
  std::size_t created() const noexcept { return groups_.size(); }

 private:
  numa_group& live(group_index g) {
    numa_group* grp = find(g);
    if (grp == nullptr) throw std::logic_error("numaplace::numa_group_set: group " + std::to_string(g) + " has no members");
    return *grp;
  }

  std::size_t nodes_;
  std::size_t live_ = 0;
  std::deque<numa_group> groups_;  // a deque: references stay valid as groups are created
};

}  // namespace numaplace
