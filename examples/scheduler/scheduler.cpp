// A tiny user-space scheduler that asks numaplace where its worker threads should run.
//
// It keeps its own books: which CPU each worker runs on, and how many NUMA faults (here: made
// up counts, in a real runtime sampled from its own memory accesses) each has on each node.
// The books implement numaplace::machine_view, so the kernel's task_numa_migrate() policy
// (numa_migration<Rule>) can read them; the scheduler then carries out what it decides. No
// syscalls: it prints what it would do (a real one would call sched_setaffinity).
#include <numaplace/numaplace.hpp>
#include <numaplace/policy/task_migrate.hpp>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace numaplace;

class scheduler {
 public:
  scheduler(const dynamic_topology& topo, unsigned cpus_per_node) : topo_(topo), node_cpus_(topo.node_count()) {
    for (node_index n = 0; n < topo.node_count(); ++n) {
      for (unsigned i = 0; i < cpus_per_node; ++i) {
        node_cpus_[n].push_back(static_cast<cpu_index>(cpu_node_.size()));
        cpu_node_.push_back(n);
      }
    }
    queues_.resize(cpu_node_.size());
  }

  /// A worker thread started on `cpu`, with private faults counted per node.
  task_index spawn(const std::string& name, cpu_index cpu, std::vector<std::uint64_t> faults_per_node) {
    worker w{name, cpu, no_node, std::vector<std::uint64_t>(2 * node_count(), 0), 0};
    for (node_index n = 0; n < faults_per_node.size(); ++n) {
      w.memory[2 * n + 1] = faults_per_node[n];
      w.total += faults_per_node[n];
    }
    workers_.push_back(std::move(w));
    queues_[cpu].push_back(static_cast<task_index>(workers_.size() - 1));
    return static_cast<task_index>(workers_.size() - 1);
  }

  const std::string& name(task_index t) const { return workers_[t].name; }
  void set_preferred(task_index t, node_index n) { workers_[t].preferred = n; }
  void run_on(task_index t, cpu_index cpu) {  // sched_setaffinity(worker, {cpu}) in a real one
    std::erase(queues_[workers_[t].cpu], t);
    queues_[cpu].push_back(t);
    workers_[t].cpu = cpu;
  }

  // ---- numaplace::machine_view ----------------------------------------------------------
  std::size_t node_count() const noexcept { return topo_.node_count(); }
  distance_t distance(node_index a, node_index b) const noexcept { return topo_.distance(a, b); }
  std::span<const cpu_index> cpus_of(node_index n) const noexcept { return node_cpus_[n]; }
  node_index node_of_cpu(cpu_index c) const noexcept { return cpu_node_[c]; }
  std::span<const task_index> tasks_on(cpu_index c) const noexcept { return queues_[c]; }
  cpu_index task_cpu(task_index t) const noexcept { return workers_[t].cpu; }
  node_index task_node(task_index t) const noexcept { return cpu_node_[workers_[t].cpu]; }
  node_index task_preferred(task_index t) const noexcept { return workers_[t].preferred; }
  fault_view task_faults(task_index t) const noexcept { return {workers_[t].memory, {}, workers_[t].total}; }
  fault_view group_faults(task_index) const noexcept { return {}; }  // no thread groups here
  group_index group_of(task_index) const noexcept { return no_group; }
  bool allowed(task_index, node_index) const noexcept { return true; }
  std::uint64_t task_load(task_index) const noexcept { return nice_0_load; }  // always busy

 private:
  struct worker {
    std::string name;
    cpu_index cpu;
    node_index preferred;
    std::vector<std::uint64_t> memory;  // shared, private per node
    std::uint64_t total;
  };
  const dynamic_topology& topo_;
  std::vector<std::vector<cpu_index>> node_cpus_;
  std::vector<node_index> cpu_node_;
  std::vector<std::vector<task_index>> queues_;
  std::vector<worker> workers_;
};

static_assert(machine_view<scheduler>);

// One balancing step for worker t: task_numa_placement() picks its preferred node, then, if
// it runs elsewhere, task_numa_migrate() says where to go; the scheduler applies it.
template <class Placement>
migrate_kind balance(scheduler& s, const Placement& pl, task_index t) {
  const node_index preferred = pl.preferred_node(input_of(s, t));
  if (preferred != no_node) s.set_preferred(t, preferred);
  std::cout << s.name(t) << " on cpu " << s.task_cpu(t) << " (node " << s.task_node(t) << ") prefers node "
            << preferred << ": ";
  const numa_migration<migrate_rule::v6_0> policy{migrate_params_for(6, 1)};
  const migrate_decision d = policy.decide(s, pl, t);
  switch (d.kind) {
    case migrate_kind::stick:
      std::cout << "stays\n";
      break;
    case migrate_kind::move:
      std::cout << "move to cpu " << d.cpu << " (node " << s.node_of_cpu(d.cpu) << "), improvement " << d.improvement
                << '\n';
      s.run_on(t, d.cpu);
      break;
    case migrate_kind::swap: {
      const cpu_index from = s.task_cpu(t);
      std::cout << "swap with " << s.name(d.swap_with) << " on cpu " << d.cpu << ", improvement " << d.improvement
                << '\n';
      s.run_on(d.swap_with, from);
      s.run_on(t, d.cpu);
      break;
    }
  }
  s.set_preferred(t, d.preferred_after);
  return d.kind;
}

}  // namespace

int main() {
  // Two nodes of two CPUs; every CPU runs one worker, two of them far from their memory.
  const auto machine = generate::fully_connected(2, 20, {2, 0});
  scheduler s(machine, 2);
  const task_index a = s.spawn("worker-a", 0, {10, 90});  // on node 0, memory on node 1
  s.spawn("worker-b", 1, {90, 10});
  const task_index c = s.spawn("worker-c", 2, {90, 10});  // on node 1, memory on node 0
  s.spawn("worker-d", 3, {10, 90});

  return with_placement<stacks::linux_modern>(machine, [&](const auto& pl) {
    // Both nodes fully busy: a move would leave them 1 and 3 tasks, so only a swap. With c:
    // (900 - 100) + (900 - 100) = 1600; with d: 800 + 100 - 900 = 0.
    const bool swapped = balance(s, pl, a) == migrate_kind::swap;
    // c is now on node 0 with its memory: nothing to do.
    const bool settled = balance(s, pl, c) == migrate_kind::stick;
    // A fifth worker queued on cpu 1 with its memory on node 1: node 0 runs 3, node 1 runs 2;
    // moving leaves 2 and 3, no worse, so it may move onto a busy CPU of node 1 (800).
    const task_index e = s.spawn("worker-e", 1, {10, 90});
    const bool moved = balance(s, pl, e) == migrate_kind::move;
    std::cout << (swapped && settled && moved ? "scheduler: all decisions as expected" : "scheduler: unexpected")
              << '\n';
    return swapped && settled && moved ? 0 : 1;
  });
}
