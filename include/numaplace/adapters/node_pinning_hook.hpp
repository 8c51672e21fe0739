#pragma once
// A worker-start hook for thread pools: the pool calls hook(worker_index) on each worker's
// thread as it starts, and the hook pins that thread to one node's CPUs. Pools that take a
// per-worker start callback (Taskflow's worker interface, BS::thread_pool's init function, a
// hand-written std::thread pool) can use it unchanged; copies share one record, so a pool
// may copy it into a std::function.
//
// Two ways to choose the node:
//  - spread: worker i goes to the i-th node with CPUs, circle by circle around a start node,
//    round-robin, so a pool's workers use every node's caches and memory bandwidth;
//  - one node: every worker to a group's preferred node (preferred_node_or), the nearest node
//    with CPUs standing in for a memory-only one.

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../linux/affinity.hpp"
#include "../linux/status.hpp"
#include "../linux/usable_machine.hpp"
#include "../stats/fault_view.hpp"
#include "../topology/concept.hpp"
#include "../topology/types.hpp"
#include "node_cpus.hpp"

namespace numaplace::adapters {

/// What the hook did for one worker.
struct worker_pin {
  node_index node = no_node;  ///< the node the worker was pinned to
  std::string error;          ///< why pinning failed (sched_setaffinity's message); empty: pinned
};

class node_pinning_hook {
 public:
  /// Spreads workers over the nodes with CPUs, circle by circle around `start`.
  /// Throws std::invalid_argument for a start node not in `topology`, CPU lists not one per
  /// node, or no node with a CPU.
  template <numa_topology Topology>
  static node_pinning_hook spread(const Topology& topology, node_cpu_lists cpus, node_index start) {
    check_lists(topology, cpus);
    std::vector<node_index> order;
    for (const node_index n : circle_order(topology, start)) {
      if (!cpus[n].empty()) order.push_back(n);
    }
    return node_pinning_hook(std::move(cpus), std::move(order));
  }

  /// Every worker on node `node` (or, when it has no CPU, the nearest node that has).
  template <numa_topology Topology>
  static node_pinning_hook one_node(const Topology& topology, node_cpu_lists cpus, node_index node) {
    check_lists(topology, cpus);
    const node_index target = nearest_node_with_cpus(topology, cpus, node);
    return node_pinning_hook(std::move(cpus), target == no_node ? std::vector<node_index>{}
                                                                : std::vector<node_index>{target});
  }

  /// The same on the CPUs this process may use (os::usable_machine).
  static node_pinning_hook spread(const os::usable_machine& m, node_index start) {
    return spread(m.topology(), cpus_by_node(m), start);
  }
  static node_pinning_hook one_node(const os::usable_machine& m, node_index node) {
    return one_node(m.topology(), cpus_by_node(m), node);
  }

  /// The node worker `worker` is pinned to by this hook (known before the worker starts).
  node_index node_for(std::size_t worker) const noexcept { return state_->order[worker % state_->order.size()]; }

  /// Pins the calling thread, worker `worker`, to its node's CPUs and records the outcome.
  /// Never throws: a pool's worker start is no place for exceptions; failures are recorded.
  void operator()(std::size_t worker) const {
    worker_pin pin{node_for(worker), {}};
    if (const os::os_status s = os::pin_this_thread(state_->cpus[pin.node]); !s) pin.error = s.message;
    const std::lock_guard lock(state_->mutex);
    if (state_->pins.size() <= worker) state_->pins.resize(worker + 1);
    state_->pins[worker] = std::move(pin);
  }

  /// What the hook did for worker `worker`, once that worker has started.
  std::optional<worker_pin> pin_of(std::size_t worker) const {
    const std::lock_guard lock(state_->mutex);
    if (worker >= state_->pins.size() || !state_->pins[worker]) return std::nullopt;
    return state_->pins[worker];
  }

  /// The nodes workers are dealt to, in order.
  const std::vector<node_index>& nodes() const noexcept { return state_->order; }

 private:
  struct state {
    node_cpu_lists cpus;
    std::vector<node_index> order;
    std::mutex mutex;
    std::vector<std::optional<worker_pin>> pins;  // by worker index, filled as workers start
  };

  node_pinning_hook(node_cpu_lists cpus, std::vector<node_index> order) : state_(std::make_shared<state>()) {
    if (order.empty()) throw std::invalid_argument("node_pinning_hook: no node has a usable CPU");
    state_->cpus = std::move(cpus);
    state_->order = std::move(order);
  }

  template <numa_topology Topology>
  static void check_lists(const Topology& topology, const node_cpu_lists& cpus) {
    if (cpus.size() != topology.node_count()) {
      throw std::invalid_argument("node_pinning_hook: " + std::to_string(cpus.size()) + " CPU lists for " +
                                  std::to_string(topology.node_count()) + " nodes");
    }
  }

  std::shared_ptr<state> state_;
};

}  // namespace numaplace::adapters
