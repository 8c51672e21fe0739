// A tiny user-space scheduler that asks numaplace where its worker threads should run.
//
// It keeps its own books: which CPU each worker runs on, and how many NUMA faults (here: made
// up counts, in a real runtime sampled from its own memory accesses) each has on each node.
// The books are a numaplace::simple_machine_view, so the kernel's task_numa_migrate() policy
// (task_migration<Rule>) can read them; the scheduler checks them once (check_machine_view)
// and then carries out what the policy decides. No syscalls: it prints what it would do (a real
// one would call sched_setaffinity).
#include <numaplace/numaplace.hpp>
#include <numaplace/policy/check_machine_view.hpp>
#include <numaplace/policy/simple_machine_view.hpp>
#include <numaplace/policy/task_migration.hpp>

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

namespace {

using namespace numaplace;

class scheduler {
 public:
  scheduler(const dynamic_topology& topo, unsigned cpus_per_node)
      : books_(topo, std::vector<unsigned>(topo.node_count(), cpus_per_node)) {}

  /// A worker thread started on `cpu`, with private faults counted per node.
  task_index spawn(const std::string& name, cpu_index cpu, const std::vector<std::uint64_t>& faults_per_node) {
    std::vector<std::uint64_t> faults(2 * books_.node_count(), 0);  // shared, private per node
    for (node_index n = 0; n < faults_per_node.size(); ++n) faults[2 * n + 1] = faults_per_node[n];
    names_.push_back(name);
    return books_.add_task(cpu, std::move(faults));  // always busy (nice_0_load), in no group
  }

  const std::string& name(task_index t) const { return names_[t]; }
  void set_preferred(task_index t, node_index n) { books_.tasks[t].preferred = n; }
  void run_on(task_index t, cpu_index cpu) { books_.move(t, cpu); }  // sched_setaffinity(worker, {cpu}) in a real one

  /// The books as the policies read them.
  const simple_machine_view& books() const noexcept { return books_; }

 private:
  simple_machine_view books_;
  std::vector<std::string> names_;
};

// One balancing step for worker t: task_numa_placement() picks its preferred node, then, if
// it runs elsewhere, task_numa_migrate() says where to go; the scheduler applies it.
template <class Placement>
migrate_kind balance(scheduler& s, const Placement& pl, task_index t) {
  const simple_machine_view& books = s.books();
  const node_index preferred = pl.preferred_node(input_of(books, t));
  if (preferred != no_node) s.set_preferred(t, preferred);
  std::cout << s.name(t) << " on cpu " << books.task_cpu(t) << " (node " << books.task_node(t) << ") prefers node "
            << preferred << ": ";
  const task_migration<task_migration_rule::v6_0> policy{migrate_params_for(6, 1)};
  const migrate_decision d = policy.decide(books, pl, t);
  switch (d.kind) {
    case migrate_kind::stick:
      std::cout << "stays\n";
      break;
    case migrate_kind::move:
      std::cout << "move to cpu " << d.cpu << " (node " << books.node_of_cpu(d.cpu) << "), improvement " << d.improvement
                << '\n';
      s.run_on(t, d.cpu);
      break;
    case migrate_kind::swap: {
      const cpu_index from = books.task_cpu(t);
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
  if (const view_problem p = check_machine_view(s.books())) {  // books a policy can trust
    std::cerr << "scheduler: " << p.message << '\n';
    return 1;
  }

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
