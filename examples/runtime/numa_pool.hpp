#pragma once
// numa_pool: a NUMA-aware task pool built on numaplace. An example of embedding the library in
// a runtime, not part of it: the kernel calls come from numaplace's Linux layer
// (numaplace/linux: pinning, memory policy, page sampling), the decisions from its placement.
//
//  - One worker per CPU this process may use, on the machine's real topology (sysfs), each
//    pinned to its CPU (os::pin_this_thread, from the worker itself before it takes work).
//  - Task groups: what the kernel calls a numa_group, tasks that share memory. Each group has
//    numaplace fault statistics, fed from real memory: after each task, its worker samples some
//    pages of the group's memory (os::page_sampler: move_pages(2) in query mode) and records
//    them as hinting faults against its own node.
//  - Decisions from the library, once per window (end_window()): each group's preferred node
//    (placement::preferred_node of the stack the placement was built with); a new group's home
//    node by concentric_spread (the nearest empty node, circle by circle); a shared group's
//    memory interleaved (os::interleave_memory) over the shared_interleave policy's node mask;
//    a private group's memory moved (os::prefer_memory, moving its pages) when its preferred
//    node changes.
//  - Work stealing: a worker takes its own queue, then the queues of its node, then circle by
//    circle by distance (numaplace::circles).
//
// With placement off the pool is a plain work-stealing pool: unpinned workers, tasks dealt
// round-robin, stealing in worker order, no statistics and no memory policy.
//
// Thread safety: submit() may be called from any thread, also from tasks; add_group,
// add_memory, end_window and the read-outs from the thread that owns the pool while no tasks
// of the groups concerned run (wait() first).

#include <numaplace/placement.hpp>
#include <numaplace/policy/concentric_spread.hpp>
#include <numaplace/policy/shared_interleave.hpp>
#include <numaplace/stats/fault_stats.hpp>
#include <numaplace/topology/dynamic_topology.hpp>
#include <numaplace/topology/load_sysfs.hpp>

#include <numaplace/linux/affinity.hpp>
#include <numaplace/linux/memory_policy.hpp>
#include <numaplace/linux/page_sampler.hpp>

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <latch>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace numa_runtime {

using numaplace::node_index;
using numaplace::no_node;

inline constexpr std::size_t page_size = 4096;

/// The machine the pool runs on: its topology, and which of the CPUs this process may use
/// (sched_getaffinity) are on which node.
struct machine {
  numaplace::dynamic_topology topology;
  std::vector<std::vector<unsigned>> cpus;  ///< per node index: the usable CPUs

  static machine from_sysfs(const std::filesystem::path& root = "/sys/devices/system/node") {
    return from_topology(numaplace::load::sysfs(root));
  }

  /// Any topology whose nodes list their CPUs (load::sysfs, load::hwloc_this_machine).
  static machine from_topology(numaplace::dynamic_topology t) {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
      throw std::runtime_error(std::string("sched_getaffinity: ") + std::strerror(errno));
    }
    machine m{std::move(t), {}};
    m.cpus.resize(m.topology.node_count());
    for (node_index n = 0; n < m.topology.node_count(); ++n) {
      for (const unsigned cpu : m.topology.cpus(n)) {
        if (cpu < CPU_SETSIZE && CPU_ISSET(cpu, &allowed)) m.cpus[n].push_back(cpu);
      }
    }
    return m;
  }

  std::size_t cpu_count() const noexcept {
    std::size_t c = 0;
    for (const auto& v : cpus) c += v.size();
    return c;
  }
};

enum class sharing : std::uint8_t {
  private_memory,  ///< one task's memory (the kernel's private faults; no numa_group)
  shared_memory    ///< memory the group's tasks share (shared faults, a numa_group)
};

struct pool_options {
  bool placement = true;       ///< false: a plain pool (no pinning, statistics or memory policy)
  unsigned sample_pages = 16;  ///< pages sampled with move_pages after each task
  bool move_memory = true;     ///< mbind a group's memory after a decision changes it
};

using group_id = std::size_t;

/// What one end_window() decided for a group.
struct group_decision {
  node_index preferred = no_node;  ///< placement::preferred_node (no_node: no faults yet)
  node_index runs_on = no_node;    ///< where the group's tasks are queued now
  std::vector<bool> interleave;    ///< shared groups: the mask the memory interleaves over
  bool memory_moved = false;       ///< the memory policy changed, pages already there moved
  std::string mbind_error;         ///< why the memory policy could not be set, if it could not
};

template <class Placement>
class numa_pool {
 public:
  using task = std::function<void()>;

  numa_pool(const Placement& pl, const machine& m, pool_options options = {})
      : pl_(pl), machine_(m), options_(options), next_on_node_(m.topology.node_count()) {
    for (node_index n = 0; n < m.topology.node_count(); ++n) {
      for (const unsigned cpu : m.cpus[n]) workers_.push_back(std::make_unique<worker>(cpu, n));
    }
    if (workers_.empty()) throw std::runtime_error("numa_pool: no usable CPU on any node");
    workers_on_node_.resize(m.topology.node_count());
    for (std::size_t w = 0; w < workers_.size(); ++w) workers_on_node_[workers_[w]->node].push_back(w);
    for (std::size_t w = 0; w < workers_.size(); ++w) workers_[w]->steal_order = make_steal_order(w);
    // Each worker pins itself before it takes work; the pool is ready once all have tried.
    std::latch pinned(static_cast<std::ptrdiff_t>(workers_.size()));
    for (std::size_t w = 0; w < workers_.size(); ++w) {
      workers_[w]->thread = std::thread([this, w, &pinned] {
        if (options_.placement) pin_self(w);
        pinned.count_down();
        run(w);
      });
    }
    pinned.wait();
    window_start_ = clock::now();
  }

  numa_pool(const numa_pool&) = delete;
  numa_pool& operator=(const numa_pool&) = delete;

  ~numa_pool() {
    {
      const std::lock_guard lock(sleep_mutex_);
      stop_ = true;
    }
    sleep_cv_.notify_all();
    for (auto& w : workers_) w->thread.join();
  }

  std::size_t worker_count() const noexcept { return workers_.size(); }
  unsigned worker_cpu(std::size_t w) const noexcept { return workers_[w]->cpu; }
  node_index worker_node(std::size_t w) const noexcept { return workers_[w]->node; }
  /// The workers `w` steals from, in order: its node's, then circle by circle.
  const std::vector<std::size_t>& steal_order(std::size_t w) const noexcept { return workers_[w]->steal_order; }
  /// Whether pinning failed for some worker, and why (the first failure's message).
  bool pinning_failed() const noexcept { return pin_failures_.load() > 0; }
  const std::string& pinning_error() const noexcept { return pin_error_; }
  /// Tasks that ran on another CPU than their (pinned) worker's: 0 when pinning holds.
  std::uint64_t off_cpu_runs() const noexcept { return off_cpu_runs_.load(); }

  /// A new group. With placement on, its home is concentric_spread's choice: the nearest node,
  /// circle by circle from node 0, that no group calls home yet (then the least loaded).
  group_id add_group(sharing kind) {
    const std::size_t nodes = machine_.topology.node_count();
    auto g = std::make_unique<group>(nodes, kind);
    if (options_.placement) {
      std::vector<unsigned> running(nodes, 0), cpus(nodes, 0);
      for (const auto& other : groups_) {
        if (other->node != no_node) ++running[other->node];
      }
      for (node_index n = 0; n < nodes; ++n) cpus[n] = static_cast<unsigned>(machine_.cpus[n].size());
      const node_index from = workers_.front()->node;
      g->node = numaplace::concentric_spread{}.spread_target(pl_, from, running, cpus);
    }
    groups_.push_back(std::move(g));
    return groups_.size() - 1;
  }

  /// Memory of group `g` (page-aligned) that its tasks use: sampled, and moved by decisions.
  void add_memory(group_id g, void* base, std::size_t bytes) {
    if (reinterpret_cast<std::uintptr_t>(base) % page_size != 0) {
      throw std::invalid_argument("numa_pool::add_memory: the region must be page-aligned");
    }
    auto& grp = *groups_.at(g);
    grp.regions.push_back({static_cast<std::byte*>(base), bytes});
    grp.pages += (bytes + page_size - 1) / page_size;
    // A private group's memory prefers its home node from the start, so that pages first
    // touched by a thief on another node still land at home (the kernel would migrate them on
    // the next hinting faults). A shared group's memory is placed by first touch until its
    // first decision.
    if (options_.placement && options_.move_memory && grp.kind == sharing::private_memory && grp.node != no_node) {
      std::vector<bool> home(machine_.topology.node_count(), false);
      home[grp.node] = true;
      std::string ignored;
      apply_policy(grp, home, ignored, grp.regions.size() - 1);
    }
  }

  /// Queues `t` for group `g`: on the group's node (placement on) or on `node` when given (a
  /// shared group's tasks spread over nodes), else dealt round-robin.
  void submit(group_id g, task t, node_index node = no_node) {
    std::size_t w = 0;
    if (options_.placement) {
      if (node == no_node) node = groups_.at(g)->node;
      w = node == no_node ? next_any_++ % workers_.size() : pick_worker(node);
    } else {
      w = next_any_++ % workers_.size();
    }
    pending_.fetch_add(1);
    {
      const std::lock_guard lock(workers_[w]->mutex);
      workers_[w]->queue.push_back(job{g, std::move(t)});
    }
    queued_.fetch_add(1);
    {
      const std::lock_guard lock(sleep_mutex_);
    }
    sleep_cv_.notify_one();
  }

  /// Blocks until every submitted task has run.
  void wait() {
    std::unique_lock lock(done_mutex_);
    done_cv_.wait(lock, [&] { return pending_.load() == 0; });
  }

  /// Ends the statistics window of every group and applies the placement's decisions.
  /// Call between wait() and the next submit(). Does nothing with placement off.
  std::vector<group_decision> end_window() {
    std::vector<group_decision> out(groups_.size());
    if (!options_.placement) return out;
    const auto now = clock::now();
    const auto period = static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now - window_start_).count());
    window_start_ = now;
    for (std::size_t i = 0; i < groups_.size(); ++i) out[i] = decide(*groups_[i], period);
    return out;
  }

  /// Where each page of group `g`'s memory is now, per node index (move_pages query).
  std::vector<std::size_t> pages_per_node(group_id g) const {
    std::vector<std::size_t> count(machine_.topology.node_count(), 0);
    numaplace::os::page_sampler pages;
    for (const auto& r : groups_.at(g)->regions) pages.add_range(r.base, r.bytes);
    if (!pages.query(machine_.topology).status) return count;
    for (const int s : pages.page_status()) {
      if (s < 0) continue;
      if (const auto idx = machine_.topology.index_of(static_cast<numaplace::node_id>(s))) ++count[*idx];
    }
    return count;
  }

  node_index group_node(group_id g) const { return groups_.at(g)->node; }
  const numaplace::fault_stats& group_faults(group_id g) const { return groups_.at(g)->task_faults; }

 private:
  using clock = std::chrono::steady_clock;

  struct job {
    group_id group = 0;
    task fn;
  };

  struct worker {
    worker(unsigned c, node_index n) : cpu(c), node(n) {}
    unsigned cpu;
    node_index node;
    std::mutex mutex;
    std::deque<job> queue;
    std::vector<std::size_t> steal_order;
    std::thread thread;
    numaplace::os::page_sampler sampler;  // used by the worker's thread only
  };

  struct region {
    std::byte* base = nullptr;
    std::size_t bytes = 0;
  };

  struct group {
    group(std::size_t nodes, sharing k) : task_faults(nodes), group_faults(nodes), kind(k), mask(nodes, false) {}
    numaplace::fault_stats task_faults;   // recorded by workers, thread-safe
    numaplace::fault_stats group_faults;  // the numa_group's (shared groups)
    sharing kind;
    std::vector<region> regions;
    std::size_t pages = 0;
    node_index node = no_node;  // where its tasks go
    std::vector<bool> mask;     // the interleave mask applied last
    std::atomic<std::uint64_t> runtime_ns{0};
    std::atomic<std::uint64_t> cursor{0};  // next page to sample
  };

  std::vector<std::size_t> make_steal_order(std::size_t self) const {
    std::vector<std::size_t> order;
    if (!options_.placement) {
      for (std::size_t i = 1; i < workers_.size(); ++i) order.push_back((self + i) % workers_.size());
      return order;
    }
    // Its own node first (the circle at distance 0 is the node itself), then outwards.
    for (const numaplace::circle c : numaplace::circles(pl_.topology(), workers_[self]->node)) {
      for (const node_index n : c.nodes) {
        for (const std::size_t w : workers_on_node_[n]) {
          if (w != self) order.push_back(w);
        }
      }
    }
    return order;
  }

  // On worker w's own thread, before it takes work.
  void pin_self(std::size_t w) {
    const unsigned cpu[] = {workers_[w]->cpu};
    const numaplace::os::os_status s = numaplace::os::pin_this_thread(cpu);
    // Only the first failure writes the message; readers wait for the constructor's latch.
    if (!s && pin_failures_.fetch_add(1) == 0) pin_error_ = s.message;
  }

  // A worker on `node`, or on the nearest node that has workers.
  std::size_t pick_worker(node_index node) {
    for (const numaplace::circle c : numaplace::circles(pl_.topology(), node)) {
      for (const node_index n : c.nodes) {
        const auto& on = workers_on_node_[n];
        if (!on.empty()) return on[next_on_node_[n].fetch_add(1) % on.size()];
      }
    }
    return 0;
  }

  bool take(std::size_t w, job& out) {
    const auto try_queue = [&](worker& q, bool front) {
      const std::lock_guard lock(q.mutex);
      if (q.queue.empty()) return false;
      if (front) {
        out = std::move(q.queue.front());
        q.queue.pop_front();
      } else {  // thieves take the oldest work from the other end
        out = std::move(q.queue.back());
        q.queue.pop_back();
      }
      return true;
    };
    if (try_queue(*workers_[w], true)) return true;
    for (const std::size_t v : workers_[w]->steal_order) {
      if (try_queue(*workers_[v], false)) return true;
    }
    return false;
  }

  void run(std::size_t w) {
    worker& self = *workers_[w];
    while (true) {
      job j;
      if (take(w, j)) {
        queued_.fetch_sub(1);
        const auto start = clock::now();
        j.fn();
        if (options_.placement) {
          if (sched_getcpu() != static_cast<int>(self.cpu) && pin_failures_.load() == 0) off_cpu_runs_.fetch_add(1);
          group& g = *groups_[j.group];
          g.runtime_ns.fetch_add(static_cast<std::uint64_t>(
              std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - start).count()));
          sample(self, g);
        }
        if (pending_.fetch_sub(1) == 1) {
          const std::lock_guard lock(done_mutex_);
          done_cv_.notify_all();
        }
        continue;
      }
      std::unique_lock lock(sleep_mutex_);
      if (stop_) return;
      sleep_cv_.wait(lock, [&] { return stop_ || queued_.load() > 0; });
      if (stop_ && queued_.load() == 0) return;
    }
  }

  // The worker's hinting faults: where some of the group's pages are, recorded against the
  // node the worker runs on.
  void sample(worker& self, group& g) {
    if (g.pages == 0 || options_.sample_pages == 0) return;
    self.sampler.clear();
    const std::uint64_t first = g.cursor.fetch_add(options_.sample_pages);
    for (unsigned i = 0; i < options_.sample_pages; ++i) {
      // Stride through the group's pages with a step coprime to most sizes, so consecutive
      // samples land far apart.
      std::size_t page = static_cast<std::size_t>((first + i) * 7919u % g.pages);
      for (const auto& r : g.regions) {
        const std::size_t in_region = (r.bytes + page_size - 1) / page_size;
        if (page < in_region) {
          self.sampler.add_page(r.base + page * page_size);
          break;
        }
        page -= in_region;
      }
    }
    const auto kind = g.kind == sharing::shared_memory ? numaplace::access::shared : numaplace::access::private_access;
    // Pages not touched yet are not present and not recorded; a failed query records nothing.
    (void)self.sampler.record(machine_.topology, g.task_faults, self.node, kind);
  }

  group_decision decide(group& g, std::uint64_t period_ns) {
    group_decision d;
    const bool shared = g.kind == sharing::shared_memory;
    g.task_faults.end_window(g.runtime_ns.exchange(0), period_ns, shared ? &g.group_faults : nullptr);
    const numaplace::decision_input in{g.task_faults.view(), shared ? g.group_faults.view() : numaplace::fault_view{}};
    d.preferred = pl_.preferred_node(in);
    const std::size_t nodes = machine_.topology.node_count();
    if (shared) {
      // shared_interleave's advice, whichever stack chose the preferred node.
      std::unique_ptr<bool[]> mask(new bool[nodes]());
      numaplace::shared_interleave{}.interleave_nodes(pl_, in, std::span<bool>(mask.get(), nodes));
      d.interleave.assign(mask.get(), mask.get() + nodes);
      const auto used = std::count(d.interleave.begin(), d.interleave.end(), true);
      if (used > 0 && d.interleave != g.mask && options_.move_memory) {
        d.memory_moved = apply_policy(g, d.interleave, d.mbind_error);
        if (d.memory_moved) g.mask = d.interleave;
      }
      // A shared group's tasks are placed by the caller (spread); keep its node as advice.
      if (d.preferred != no_node) g.node = d.preferred;
    } else if (d.preferred != no_node && d.preferred != g.node) {
      g.node = d.preferred;
      if (options_.move_memory) {
        std::vector<bool> one(nodes, false);
        one[d.preferred] = true;
        d.memory_moved = apply_policy(g, one, d.mbind_error);
      }
    }
    d.runs_on = g.node;
    return d;
  }

  // Every region of `g` (only region `only` when given) prefers the one node of `nodes` (node
  // indices), or interleaves over several; pages already there move.
  bool apply_policy(group& g, const std::vector<bool>& nodes, std::string& error,
                    std::size_t only = static_cast<std::size_t>(-1)) {
    std::vector<unsigned> ids;
    for (node_index n = 0; n < nodes.size(); ++n) {
      if (nodes[n]) ids.push_back(static_cast<unsigned>(machine_.topology.id_of(n)));
    }
    if (ids.empty()) return false;
    constexpr auto move = numaplace::os::existing_pages::move;
    for (std::size_t i = 0; i < g.regions.size(); ++i) {
      if (only != static_cast<std::size_t>(-1) && i != only) continue;
      const region& r = g.regions[i];
      const numaplace::os::os_status s = ids.size() == 1 ? numaplace::os::prefer_memory(r.base, r.bytes, ids[0], move)
                                                         : numaplace::os::interleave_memory(r.base, r.bytes, ids, move);
      if (!s) {
        error = s.message;
        return false;
      }
    }
    return true;
  }

  const Placement& pl_;
  const machine& machine_;
  pool_options options_;
  std::vector<std::unique_ptr<worker>> workers_;
  std::vector<std::vector<std::size_t>> workers_on_node_;
  std::vector<std::atomic<std::size_t>> next_on_node_;
  std::vector<std::unique_ptr<group>> groups_;
  std::atomic<std::size_t> next_any_{0};
  std::atomic<std::size_t> queued_{0};
  std::atomic<std::size_t> pending_{0};
  std::atomic<unsigned> pin_failures_{0};
  std::string pin_error_;
  std::atomic<std::uint64_t> off_cpu_runs_{0};
  std::mutex sleep_mutex_;
  std::condition_variable sleep_cv_;
  bool stop_ = false;
  std::mutex done_mutex_;
  std::condition_variable done_cv_;
  clock::time_point window_start_;
};

}  // namespace numa_runtime
