#pragma once
// oneTBB: one tbb::task_arena per node with usable CPUs, and work routed to the arena of the
// node it belongs on (a group's preferred node, or a node the caller names).
//
// Each arena has a task_scheduler_observer that pins every thread entering it to the node's
// CPUs with sched_setaffinity (numaplace::os::pin_this_thread). TBB's own NUMA support
// (task_arena::constraints with a numa_id) is not used: it works only when the tbbbind
// library finds a matching hwloc at run time, otherwise tbb::info::numa_nodes() reports a
// single node and the constraint is silently ignored; and it knows nothing of the CPUs a
// cpuset or the caller's affinity leaves this process. Pinning here is explicit and checked.
//
// A thread that calls execute() works in the arena too, so it is pinned while inside and gets
// its previous CPUs back when it leaves; an execute nested in another arena's work returns the
// thread to the outer arena's CPUs. TBB's worker threads are shared by all arenas; each entry
// pins them to the arena they join.
//
// Needs oneTBB (CMake target numaplace::tbb) and the Linux layer (numaplace::linux).

#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_scheduler_observer.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../linux/affinity.hpp"
#include "../linux/status.hpp"
#include "../linux/usable_machine.hpp"
#include "../stats/fault_stats.hpp"
#include "../topology/concept.hpp"
#include "../topology/types.hpp"
#include "group_node.hpp"
#include "node_cpus.hpp"

namespace numaplace::adapters {

/// Pinning failures seen by the arenas' observers (counted; the first one kept in words).
class pinning_record {
 public:
  void fail(std::string why) {
    if (failures_.fetch_add(1, std::memory_order_relaxed) == 0) {
      const std::lock_guard lock(mutex_);
      first_ = std::move(why);
    }
  }
  std::uint64_t failures() const noexcept { return failures_.load(std::memory_order_relaxed); }
  std::string first_failure() const {
    const std::lock_guard lock(mutex_);
    return first_;
  }

 private:
  std::atomic<std::uint64_t> failures_{0};
  mutable std::mutex mutex_;
  std::string first_;
};

namespace detail {

// Pins threads entering one arena to its node's CPUs, and on leaving gives a thread back what
// it had: an external thread its own CPUs, a thread leaving a nested arena the enclosing
// arena's CPUs. Callbacks must not throw into TBB: failures go to the record.
class node_pinning_observer final : public tbb::task_scheduler_observer {
 public:
  node_pinning_observer(tbb::task_arena& arena, std::vector<unsigned> cpus, pinning_record& record)
      : tbb::task_scheduler_observer(arena), cpus_(std::move(cpus)), record_(&record) {
    observe(true);
  }
  ~node_pinning_observer() override { observe(false); }

  void on_scheduler_entry(bool is_worker) override {
    thread_pins& t = pins();
    std::vector<unsigned> restore;  // empty: nothing to restore (a worker's own arena)
    if (!t.restore_on_exit.empty()) {
      restore = t.pinned_to;
    } else if (!is_worker) {
      try {
        restore = os::calling_thread_affinity();
      } catch (const std::exception& e) {
        record_->fail(e.what());
      }
    }
    t.restore_on_exit.push_back(std::move(restore));
    pin(cpus_);
  }

  void on_scheduler_exit(bool) override {
    thread_pins& t = pins();
    if (t.restore_on_exit.empty()) return;  // entered before this observer observed
    std::vector<unsigned> restore = std::move(t.restore_on_exit.back());
    t.restore_on_exit.pop_back();
    if (!restore.empty()) pin(restore);
  }

 private:
  // Per thread: what to restore on each exit, innermost last, and the CPUs it is pinned to.
  struct thread_pins {
    std::vector<std::vector<unsigned>> restore_on_exit;
    std::vector<unsigned> pinned_to;
  };
  static thread_pins& pins() {
    thread_local thread_pins p;
    return p;
  }

  void pin(const std::vector<unsigned>& cpus) {
    if (const os::os_status s = os::pin_this_thread(cpus); !s) {
      record_->fail(s.message);
      return;
    }
    pins().pinned_to = cpus;
  }

  std::vector<unsigned> cpus_;
  pinning_record* record_;
};

}  // namespace detail

class tbb_node_arenas {
 public:
  /// One arena per node of `topology` whose entry in `cpus` is not empty, as many slots as
  /// the node has CPUs. Throws std::invalid_argument when `cpus` does not have one list per
  /// node or no node has a CPU.
  template <numa_topology Topology>
  tbb_node_arenas(const Topology& topology, node_cpu_lists cpus) : cpus_(std::move(cpus)) {
    if (cpus_.size() != topology.node_count()) {
      throw std::invalid_argument("tbb_node_arenas: " + std::to_string(cpus_.size()) + " CPU lists for " +
                                  std::to_string(topology.node_count()) + " nodes");
    }
    // Work for a node without CPUs (memory only) goes to the nearest node with an arena.
    routes_.resize(cpus_.size());
    for (node_index n = 0; n < cpus_.size(); ++n) routes_[n] = nearest_node_with_cpus(topology, cpus_, n);
    if (routes_.empty() || routes_.front() == no_node) {
      throw std::invalid_argument("tbb_node_arenas: no node has a usable CPU");
    }
    nodes_.resize(cpus_.size());
    for (node_index n = 0; n < cpus_.size(); ++n) {
      if (!cpus_[n].empty()) nodes_[n] = std::make_unique<node_arena>(cpus_[n], record_);
    }
  }

  /// The CPUs this process may use on each node (os::usable_machine).
  explicit tbb_node_arenas(const os::usable_machine& m) : tbb_node_arenas(m.topology(), cpus_by_node(m)) {}

  tbb_node_arenas(const tbb_node_arenas&) = delete;
  tbb_node_arenas& operator=(const tbb_node_arenas&) = delete;

  std::size_t node_count() const noexcept { return nodes_.size(); }
  bool has_arena(node_index n) const noexcept { return n < nodes_.size() && nodes_[n] != nullptr; }
  /// The CPUs of node `n`'s arena (empty for a node without one).
  std::span<const unsigned> cpus(node_index n) const {
    check_node(n);
    return cpus_[n];
  }

  /// The node whose arena runs work meant for node `n`: `n` when it has CPUs, else the
  /// nearest node that has, circle by circle. Throws std::invalid_argument for a node that
  /// is not in the topology (no_node included).
  node_index arena_node(node_index n) const {
    check_node(n);
    return routes_[n];
  }

  /// The arena of node arena_node(n).
  tbb::task_arena& arena(node_index n) { return nodes_[arena_node(n)]->arena; }

  /// Runs `f` in node `n`'s arena and waits for it (task_arena::execute); the calling thread
  /// joins the arena, pinned to the node's CPUs until it returns.
  template <class F>
  decltype(auto) execute(node_index n, F&& f) {
    return arena(n).execute(std::forward<F>(f));
  }

  /// Queues `f` in node `n`'s arena without waiting (task_arena::enqueue); a worker runs it.
  template <class F>
  void enqueue(node_index n, F&& f) {
    arena(n).enqueue(std::forward<F>(f));
  }

  /// In the arena of the group's preferred node (preferred_node_or), `fallback` while its
  /// faults give no answer.
  template <class Placement, class F>
  decltype(auto) execute(const Placement& pl, const fault_stats& group, node_index fallback, F&& f) {
    return execute(preferred_node_or(pl, group, fallback), std::forward<F>(f));
  }
  template <class Placement, class F>
  void enqueue(const Placement& pl, const fault_stats& group, node_index fallback, F&& f) {
    enqueue(preferred_node_or(pl, group, fallback), std::forward<F>(f));
  }

  /// How often pinning a thread (or giving a caller its CPUs back) failed, and the first
  /// failure's message ("sched_setaffinity(this thread, cpus 4-7): Invalid argument (...)").
  std::uint64_t pinning_failures() const noexcept { return record_.failures(); }
  std::string first_pinning_failure() const { return record_.first_failure(); }

 private:
  void check_node(node_index n) const {
    if (n >= routes_.size()) {
      throw std::invalid_argument("tbb_node_arenas: node index " +
                                  (n == no_node ? std::string("no_node") : std::to_string(n)) +
                                  " is not in the " + std::to_string(routes_.size()) + "-node topology");
    }
  }

  struct node_arena {
    node_arena(const std::vector<unsigned>& cpus, pinning_record& record)
        : arena(static_cast<int>(cpus.size())), observer((arena.initialize(), arena), cpus, record) {}
    tbb::task_arena arena;
    detail::node_pinning_observer observer;
  };

  node_cpu_lists cpus_;
  pinning_record record_;  // before nodes_: observers report into it until they are gone
  std::vector<std::unique_ptr<node_arena>> nodes_;
  std::vector<node_index> routes_;
};

}  // namespace numaplace::adapters
