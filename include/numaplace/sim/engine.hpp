#pragma once
// The simulator: a deterministic model of a NUMA machine running a workload, with placement
// decisions made by the very placement object a runtime would embed.
//
// Time advances in ticks. Each tick every running task makes progress at a speed set by where
// its memory is (access cost in proportion to SLIT distance, slowed by node bandwidth
// contention) and by who shares its CPU or core. Once per scan period a task's memory is
// sampled: each sampled chunk raises a NUMA hinting fault (private when the task touched it
// last), may join the task to its process's numa_group (a shared fault with a fellow thread),
// and may migrate after the kernel's two-stage filter. The window then ends, the placement
// decides the preferred node, and the task tries to move there (task_numa_migrate: an idle CPU
// or a swap that improves both tasks' weights). A load balancer spreads runnable tasks, using
// the stack's imbalance allowance.
//
// What it is not: a cycle model. Caches, interconnect topology beyond SLIT, page tables and
// the kernel's adaptive scan rate are not modelled (the scan period is fixed).

#include <algorithm>
#include <cmath>
#include <memory>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "../policy/inputs.hpp"
#include "../stats/fault_stats.hpp"
#include "../topology/dynamic_topology.hpp"
#include "cost_model.hpp"
#include "result.hpp"
#include "workload.hpp"

namespace numaplace::sim {

/// How a run balances: a placement stack, no NUMA balancing (first touch, load balancing
/// only), or hard binding (each process on its bind_nodes, as numactl would).
enum class balancing : std::uint8_t { numa, none, hard_binding };

struct machine_options {
  /// SMT siblings per core; a node's CPUs are grouped into cores in order.
  unsigned threads_per_core = 1;
  /// CPUs given to a node whose topology does not list them (but says it has CPUs).
  unsigned default_cpus_per_node = 4;
};

struct run_options {
  std::uint64_t seed = 1;
  cost_model costs{};
  machine_options machine{};
  balancing mode = balancing::numa;
  /// Seconds between snapshots of where each group's tasks are.
  double snapshot_interval_s = 1.0;
};

/// A placement that never decides: the "no NUMA balancing" baseline.
struct no_placement {
  static constexpr bool has_imbalance_policy() noexcept { return false; }
};

template <class Placement>
class engine {
 public:
  engine(const dynamic_topology& topology, const Placement* placement, const workload& w, const run_options& o)
      : topo_(topology), pl_(placement), w_(w), o_(o), c_(o.costs), rng_(o.seed) {
    build_machine();
    build_workload();
  }

  /// What must always hold: every live task on exactly one CPU of an allowed node, every chunk
  /// counted once on the node it is on. Empty when all holds, else what broke.
  std::string check_invariants() const {
    std::vector<std::uint32_t> seen(tasks_.size(), 0);
    for (std::uint32_t c = 0; c < cpus_.size(); ++c) {
      for (auto id : cpus_[c].tasks) {
        if (id >= tasks_.size() || !tasks_[id].alive) return "cpu " + std::to_string(c) + " holds a dead or unknown task";
        if (tasks_[id].cpu != c) return "task " + std::to_string(id) + " is listed on cpu " + std::to_string(c) + " but thinks it is elsewhere";
        ++seen[id];
      }
    }
    for (std::uint32_t id = 0; id < tasks_.size(); ++id) {
      if (tasks_[id].alive && seen[id] != 1) return "task " + std::to_string(id) + " is on " + std::to_string(seen[id]) + " cpus";
      if (tasks_[id].alive && tasks_[id].node != cpus_[tasks_[id].cpu].node) return "task " + std::to_string(id) + " has a stale node";
    }
    for (std::size_t r = 0; r < regions_.size(); ++r) {
      std::vector<std::uint32_t> count(topo_.node_count(), 0);
      for (const auto& ch : regions_[r].chunks) ++count[ch.node];
      if (count != regions_[r].on_node) return "region " + std::to_string(r) + " miscounts its chunks per node";
    }
    return {};
  }

  /// Runs for `ms` more simulated milliseconds (or to the end); for tests that look in between.
  void step(double ms) { run_until(now_ms_ + ms); }

  run_result run() {
    run_until(w_.seconds * 1000.0);
    snapshot();
    return collect();
  }

 private:
  void run_until(double end_ms) {
    end_ms = std::min(end_ms, w_.seconds * 1000.0);
    while (now_ms_ < end_ms && !all_done()) {
      if (now_ms_ >= next_refresh) {
        refresh_latency();
        next_refresh += c_.refresh_interval_ms;
      }
      if (now_ms_ >= next_snapshot) {
        snapshot();
        next_snapshot += o_.snapshot_interval_s * 1000.0;
      }
      advance_tasks();
      if (o_.mode == balancing::numa) scan_due_tasks();
      if (now_ms_ >= next_balance) {
        balance();
        next_balance += c_.balance_interval_ms;
      }
      now_ms_ += c_.tick_ms;
      ++ticks_;
    }
  }

  double next_balance = 0, next_refresh = 0, next_snapshot = 0;

  // ---- state -------------------------------------------------------------------------
  struct cpu_state {
    node_index node = 0;
    std::uint32_t core = 0;  // global core id
    std::vector<std::uint32_t> tasks;
  };
  struct chunk_state {
    node_index node = 0;
    std::int32_t last_task = -1;
    node_index last_nid = no_node;
  };
  struct region_state {
    std::uint32_t process = 0;
    bool shared = false;  // a heap every thread of the process works on
    std::vector<chunk_state> chunks;
    std::vector<std::uint32_t> on_node;  // chunks per node
    std::vector<double> cost_from;       // mean access cost from each node, refreshed
  };
  struct task_state {
    std::uint32_t process = 0;
    std::uint32_t thread = 0;
    std::vector<std::pair<std::uint32_t, double>> accesses;  // global region, normalised weight
    std::uint32_t cpu = 0;
    node_index node = 0;
    node_index preferred = no_node;
    fault_stats stats;
    double next_scan_ms = 0;
    double latency = 1.0;  // mean access cost factor at its node
    double local_share = 1.0;
    double stall_ms = 0;
    double work_left_ms = 0;
    bool alive = true;
    explicit task_state(std::size_t nodes) : stats(nodes) {}
  };
  struct process_state {
    std::optional<fault_stats> group;
    std::vector<node_index> allowed;  // hard binding: allowed nodes; empty = all
    std::uint32_t jobs_started = 0, jobs_done = 0;
    std::uint32_t live = 0;  // tasks running now
    double ops = 0, local_ops = 0;
    double finish_ms = -1;
    std::uint64_t task_moves = 0, page_moves = 0;
    double next_interleave_ms = 0;
    bool interleaved = false;  // shared memory placed by the interleave policy, not by faults
  };

  // ---- construction ------------------------------------------------------------------
  void build_machine() {
    const std::size_t n = topo_.node_count();
    node_cpus_.resize(n);
    std::uint32_t core = 0;
    for (node_index a = 0; a < n; ++a) {
      if (!topo_.has_cpu(a)) continue;
      std::size_t count = topo_.cpus(a).size();
      if (count == 0) count = o_.machine.default_cpus_per_node;
      for (std::size_t i = 0; i < count; ++i) {
        if (i % o_.machine.threads_per_core == 0 && i != 0) ++core;
        node_cpus_[a].push_back(static_cast<std::uint32_t>(cpus_.size()));
        cpus_.push_back({a, core, {}});
      }
      ++core;
    }
    if (cpus_.empty()) throw std::invalid_argument("the topology has no CPUs to run tasks on");
    for (auto& cpu : cpus_) core_cpus_.resize(std::max<std::size_t>(core_cpus_.size(), cpu.core + 1));
    for (std::uint32_t i = 0; i < cpus_.size(); ++i) core_cpus_[cpus_[i].core].push_back(i);
  }

  void build_workload() {
    const std::size_t n = topo_.node_count();
    for (std::uint32_t p = 0; p < w_.processes.size(); ++p) {
      const process_spec& ps = w_.processes[p];
      process_state st;
      // Bindings apply to the hard-binding baseline only; other runs ignore them.
      for (auto b : o_.mode == balancing::hard_binding ? ps.bind_nodes : std::vector<std::uint32_t>{}) {
        if (b >= n) throw std::invalid_argument("process " + ps.name + " binds to node index " + std::to_string(b) + " beyond the topology");
        st.allowed.push_back(b);
      }
      processes_.push_back(std::move(st));
      region_base_.push_back(static_cast<std::uint32_t>(regions_.size()));
      for (const region& r : ps.regions) {
        region_state rs;
        rs.process = p;
        rs.shared = r.first_touch_by_all;
        rs.chunks.resize(r.chunks);
        rs.on_node.assign(n, 0);
        rs.cost_from.assign(n, 1.0);
        regions_.push_back(std::move(rs));
      }
    }
    // Threads start spread over the machine, as fork balancing spreads them; each process's
    // first touch follows its threads.
    for (std::uint32_t p = 0; p < w_.processes.size(); ++p) {
      const process_spec& ps = w_.processes[p];
      const std::size_t initial = ps.jobs > 0 ? std::min<std::size_t>(ps.threads.size(), ps.jobs) : ps.threads.size();
      for (std::uint32_t t = 0; t < initial; ++t) spawn(p, t);
    }
    for (std::uint32_t p = 0; p < w_.processes.size(); ++p) first_touch(p);
    set_up_ = true;
  }

  std::uint32_t spawn(std::uint32_t p, std::uint32_t thread) {
    const process_spec& ps = w_.processes[p];
    task_state t(topo_.node_count());
    t.process = p;
    t.thread = thread;
    double sum = 0;
    for (const access& a : ps.threads[thread].accesses) sum += a.weight;
    for (const access& a : ps.threads[thread].accesses) {
      if (a.region >= ps.regions.size()) throw std::invalid_argument("process " + ps.name + ": a thread accesses a region it does not have");
      t.accesses.emplace_back(region_base_[p] + a.region, sum > 0 ? a.weight / sum : 0.0);
    }
    t.work_left_ms = ps.jobs > 0 ? ps.job_work_ms : w_.work_per_thread_ms;
    std::uniform_real_distribution<double> offset(0, c_.scan_period_ms);
    t.next_scan_ms = now_ms_ + offset(rng_);
    const std::uint32_t cpu = place_new_task(p);
    t.cpu = cpu;
    t.node = cpus_[cpu].node;
    const auto id = static_cast<std::uint32_t>(tasks_.size());
    tasks_.push_back(std::move(t));
    cpus_[cpu].tasks.push_back(id);
    ++processes_[p].live;
    if (ps.jobs > 0) {
      // A job started later allocates fresh private memory where it starts (first touch);
      // the first ones get theirs from first_touch() when the workload is set up.
      if (set_up_) {
        for (const auto& [r, weight] : tasks_[id].accesses) {
          if (!regions_[r].shared) rehome(regions_[r], tasks_[id].node);
        }
      }
      ++processes_[p].jobs_started;
    }
    return id;
  }

  void rehome(region_state& rs, node_index node) {
    std::fill(rs.on_node.begin(), rs.on_node.end(), 0u);
    rs.on_node[node] = static_cast<std::uint32_t>(rs.chunks.size());
    for (auto& ch : rs.chunks) ch = {node, -1, no_node};
  }

  bool allowed_node(std::uint32_t p, node_index n) const {
    const auto& allowed = processes_[p].allowed;
    return allowed.empty() || std::find(allowed.begin(), allowed.end(), n) != allowed.end();
  }

  // Fork placement. NUMA-aware kernels pick the idlest node, then an idle core; the baseline
  // without NUMA awareness sees every CPU as equal and takes any idle one.
  std::uint32_t place_new_task(std::uint32_t p) {
    std::vector<std::uint32_t> candidates;
    for (std::uint32_t c = 0; c < cpus_.size(); ++c) {
      if (allowed_node(p, cpus_[c].node)) candidates.push_back(c);
    }
    if (candidates.empty()) throw std::invalid_argument("process " + w_.processes[p].name + " may run on no CPU");
    if (o_.mode == balancing::none) {
      std::vector<std::uint32_t> idle;
      for (auto c : candidates) {
        if (cpus_[c].tasks.empty()) idle.push_back(c);
      }
      const auto& from = idle.empty() ? candidates : idle;
      return from[std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(rng_)];
    }
    // Lowest load per CPU on the node, then an idle core, then an idle CPU; ties rotate from a
    // seeded start so runs differ only by their seed.
    const std::size_t start = std::uniform_int_distribution<std::size_t>(0, candidates.size() - 1)(rng_);
    std::uint32_t best = candidates[start];
    double best_key = 1e300;
    // Each node's load once, not once per candidate CPU (nothing moves during the choice).
    std::vector<double> load(topo_.node_count(), 0.0);
    for (node_index node = 0; node < topo_.node_count(); ++node) {
      if (!node_cpus_[node].empty()) load[node] = double(running_on_node(node)) / double(node_cpus_[node].size());
    }
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const std::uint32_t c = candidates[(start + i) % candidates.size()];
      const node_index node = cpus_[c].node;
      const double node_load = load[node];
      const double key = node_load * 4 + (core_busy(cpus_[c].core) ? 2 : 0) + double(cpus_[c].tasks.size());
      if (key < best_key) {
        best_key = key;
        best = c;
      }
    }
    return best;
  }

  void first_touch(std::uint32_t p) {
    const process_spec& ps = w_.processes[p];
    std::vector<node_index> toucher_nodes;
    for (std::uint32_t id = 0; id < tasks_.size(); ++id) {
      if (tasks_[id].process == p) toucher_nodes.push_back(tasks_[id].node);
    }
    for (std::uint32_t r = 0; r < ps.regions.size(); ++r) {
      region_state& rs = regions_[region_base_[p] + r];
      // The region's first thread: the one whose accesses name it, else the process's first.
      node_index home = toucher_nodes.empty() ? 0 : toucher_nodes.front();
      for (std::uint32_t id = 0; id < tasks_.size(); ++id) {
        const auto& t = tasks_[id];
        if (t.process != p) continue;
        for (const auto& a : t.accesses) {
          if (a.first == region_base_[p] + r && !ps.regions[r].first_touch_by_all) {
            home = t.node;
            goto found;
          }
        }
      }
    found:
      for (std::size_t c = 0; c < rs.chunks.size(); ++c) {
        node_index node = home;
        if (ps.regions[r].first_touch_by_all && !toucher_nodes.empty()) {
          node = toucher_nodes[std::uniform_int_distribution<std::size_t>(0, toucher_nodes.size() - 1)(rng_)];
        }
        if (!allowed_node(p, node)) node = processes_[p].allowed[c % processes_[p].allowed.size()];
        rs.chunks[c].node = node;
        ++rs.on_node[node];
      }
    }
  }

  // ---- per-tick work -----------------------------------------------------------------
  std::size_t running_on_node(node_index n) const {
    std::size_t count = 0;
    for (auto c : node_cpus_[n]) count += cpus_[c].tasks.size();
    return count;
  }
  bool core_busy(std::uint32_t core) const {
    for (auto c : core_cpus_[core]) {
      if (!cpus_[c].tasks.empty()) return true;
    }
    return false;
  }
  double smt_speed(std::uint32_t cpu) const {
    for (auto c : core_cpus_[cpus_[cpu].core]) {
      if (c != cpu && !cpus_[c].tasks.empty()) return c_.smt_busy_speed;
    }
    return 1.0;
  }

  // Mean access cost of each region from each node, with bandwidth contention on the nodes
  // the memory is on; then each task's latency at its node.
  void refresh_latency() {
    const std::size_t n = topo_.node_count();
    // The nodes each region has chunks on, in node order (region r's are occupied[first[r] ..
    // first[r + 1]]): the sums below add only those, in that order, without walking every node
    // for every region (on 64 nodes most regions are on one or a few).
    std::vector<node_index> occupied;
    std::vector<std::size_t> first(regions_.size() + 1, 0);
    for (std::size_t r = 0; r < regions_.size(); ++r) {
      first[r] = occupied.size();
      for (node_index m = 0; m < n; ++m) {
        if (regions_[r].on_node[m] != 0) occupied.push_back(m);
      }
    }
    first[regions_.size()] = occupied.size();
    const auto nodes_of = [&](std::size_t r) {
      return std::span<const node_index>(occupied.data() + first[r], first[r + 1] - first[r]);
    };
    std::vector<double> demand(n, 0.0), capacity(n, 0.0);
    for (node_index a = 0; a < n; ++a) capacity[a] = std::max(1.0, double(node_cpus_[a].size()) * c_.bandwidth_cpus_fraction);
    for (const auto& t : tasks_) {
      if (!t.alive) continue;
      const double mb = w_.processes[t.process].memory_bound;
      for (const auto& [r, weight] : t.accesses) {
        const auto& rs = regions_[r];
        const double total = double(rs.chunks.size());
        for (const node_index m : nodes_of(r)) demand[m] += mb * weight * double(rs.on_node[m]) / total;
      }
    }
    std::vector<double> slowdown(n);
    for (node_index m = 0; m < n; ++m) slowdown[m] = std::max(1.0, demand[m] / capacity[m]);
    const double local = topo_.local_distance();
    for (std::size_t r = 0; r < regions_.size(); ++r) {
      region_state& rs = regions_[r];
      const double total = double(rs.chunks.size());
      for (node_index from = 0; from < n; ++from) {
        double cost = 0;
        for (const node_index m : nodes_of(r)) cost += double(rs.on_node[m]) / total * topo_.distance(from, m) / local * slowdown[m];
        rs.cost_from[from] = cost;
      }
    }
    for (auto& t : tasks_) {
      if (t.alive) update_task_latency(t);
    }
  }

  void update_task_latency(task_state& t) {
    t.latency = 0;
    t.local_share = 0;
    for (const auto& [r, weight] : t.accesses) {
      const auto& rs = regions_[r];
      t.latency += weight * rs.cost_from[t.node];
      t.local_share += weight * double(rs.on_node[t.node]) / double(rs.chunks.size());
    }
  }

  void advance_tasks() {
    for (std::uint32_t id = 0; id < tasks_.size(); ++id) {
      task_state& t = tasks_[id];
      if (!t.alive) continue;
      const cpu_state& cpu = cpus_[t.cpu];
      ++task_ticks_;
      double ms = c_.tick_ms / double(cpu.tasks.size()) * smt_speed(t.cpu);
      const double stalled = std::min(ms, t.stall_ms);
      t.stall_ms -= stalled;
      ms -= stalled;
      const double mb = w_.processes[t.process].memory_bound;
      const double work = ms / (1.0 - mb + mb * t.latency);
      process_state& ps = processes_[t.process];
      ps.ops += work;
      ps.local_ops += work * t.local_share;
      if (w_.report_elapsed) {
        t.work_left_ms -= work;
        if (t.work_left_ms <= 0) finish(id);  // t may dangle after this: last use
      }
    }
  }

  void finish(std::uint32_t id) {
    // spawn() may grow tasks_: keep copies, not references into it.
    const std::uint32_t p = tasks_[id].process;
    const std::uint32_t thread = tasks_[id].thread;
    tasks_[id].alive = false;
    auto& on_cpu = cpus_[tasks_[id].cpu].tasks;
    on_cpu.erase(std::find(on_cpu.begin(), on_cpu.end(), id));
    // A finished task keeps its id (chunks remember who touched them last) but not its memory.
    tasks_[id].stats = fault_stats(0);
    tasks_[id].accesses = {};
    process_state& ps = processes_[p];
    --ps.live;
    const process_spec& spec = w_.processes[p];
    if (spec.jobs > 0) {
      ++ps.jobs_done;
      if (ps.jobs_started < spec.jobs) spawn(p, thread);
    }
    if (process_done(p) && ps.finish_ms < 0) ps.finish_ms = now_ms_ + c_.tick_ms;
  }

  bool process_done(std::uint32_t p) const {
    const process_spec& spec = w_.processes[p];
    return processes_[p].live == 0 && (spec.jobs == 0 || processes_[p].jobs_done >= spec.jobs);
  }

  bool all_done() const {
    if (!w_.report_elapsed) return false;
    for (const auto& p : processes_) {
      if (p.finish_ms < 0) return false;
    }
    return true;
  }

  // ---- NUMA balancing ----------------------------------------------------------------
  void scan_due_tasks() {
    for (std::uint32_t id = 0; id < tasks_.size(); ++id) {
      if (!tasks_[id].alive || tasks_[id].next_scan_ms > now_ms_) continue;
      tasks_[id].next_scan_ms += c_.scan_period_ms;
      scan(id);
    }
  }

  void scan(std::uint32_t id) {
    task_state& t = tasks_[id];
    process_state& ps = processes_[t.process];
    std::uniform_real_distribution<double> pick(0.0, 1.0);
    for (unsigned s = 0; s < c_.scan_chunks; ++s) {
      ++sampled_chunks_;
      double x = pick(rng_);
      std::uint32_t r = t.accesses.back().first;
      for (const auto& [region, weight] : t.accesses) {
        if (x < weight) {
          r = region;
          break;
        }
        x -= weight;
      }
      region_state& rs = regions_[r];
      chunk_state& ch = rs.chunks[std::uniform_int_distribution<std::size_t>(0, rs.chunks.size() - 1)(rng_)];
      // Private when this task touched the chunk last (or nobody has yet).
      const bool is_private = ch.last_task < 0 || ch.last_task == std::int32_t(id);
      if (!is_private && tasks_[ch.last_task].process == t.process && !ps.group) {
        ps.group.emplace(topo_.node_count());  // a shared fault between threads: a numa_group
      }
      const node_index mem_node = ch.node;
      t.stats.record(mem_node, t.node, is_private ? numaplace::access::private_access : numaplace::access::shared, c_.pages_per_chunk);
      t.stall_ms += c_.hinting_fault_cost_ms;
      // Two-stage filter: migrate only on the second fault in a row from this node; shared
      // chunks move only towards a node the group uses clearly more.
      const bool second_fault = ch.last_nid == t.node;
      ch.last_nid = t.node;
      ch.last_task = std::int32_t(id);
      const bool placed_by_policy = ps.interleaved && rs.shared;
      if (mem_node != t.node && second_fault && !placed_by_policy && allowed_node(t.process, t.node) &&
          (is_private || shared_migration_ok(t, mem_node))) {
        --rs.on_node[mem_node];
        ++rs.on_node[t.node];
        ch.node = t.node;
        t.stall_ms += c_.page_migrate_cost_ms;
        ++ps.page_moves;
      }
    }
    const auto period_ns = static_cast<std::uint64_t>(c_.scan_period_ms * 1e6);
    const auto runtime_ns = static_cast<std::uint64_t>(c_.scan_period_ms * 1e6 / double(cpus_[t.cpu].tasks.size()));
    t.stats.end_window(runtime_ns, period_ns, ps.group ? &*ps.group : nullptr);
    if constexpr (!std::is_same_v<Placement, no_placement>) {
      const decision_input in = input_of(t);
      const node_index preferred = pl_->preferred_node(in);
      if (preferred != no_node) t.preferred = preferred;
      if (t.preferred != no_node && t.preferred != t.node) numa_migrate(id);
      if constexpr (Placement::has_interleave_policy()) interleave(t.process, input_of(tasks_[id]), id);
    }
  }

  // mbind(MPOL_INTERLEAVE) over the policy's node mask, applied to the group's shared memory
  // once per scan period, a bounded number of chunks at a time (the copy cost goes to the task
  // whose scan triggered it).
  void interleave(std::uint32_t p, const decision_input& in, std::uint32_t id) {
    process_state& ps = processes_[p];
    if (!ps.group || now_ms_ < ps.next_interleave_ms) return;
    ps.next_interleave_ms = now_ms_ + c_.scan_period_ms;
    const std::size_t n = topo_.node_count();
    std::unique_ptr<bool[]> mask(new bool[n]());
    pl_->interleave_nodes(in, std::span<bool>(mask.get(), n));
    std::vector<node_index> nodes;
    for (node_index m = 0; m < n; ++m) {
      if (mask[m] && allowed_node(p, m)) nodes.push_back(m);
    }
    if (nodes.empty()) return;
    ps.interleaved = true;
    std::size_t budget = std::size_t{c_.scan_chunks} * 4;
    for (std::uint32_t r = 0; r < w_.processes[p].regions.size() && budget > 0; ++r) {
      region_state& rs = regions_[region_base_[p] + r];
      if (!rs.shared) continue;
      for (std::size_t c = 0; c < rs.chunks.size() && budget > 0; ++c) {
        const node_index target = nodes[c % nodes.size()];
        chunk_state& ch = rs.chunks[c];
        if (ch.node == target) continue;
        --rs.on_node[ch.node];
        ++rs.on_node[target];
        ch.node = target;
        tasks_[id].stall_ms += c_.page_migrate_cost_ms;
        ++ps.page_moves;
        --budget;
      }
    }
  }

  // should_numa_migrate_memory() for shared chunks: the group's CPU faults at the destination
  // outweigh the source's by 4/3, relative to where its memory faults are.
  bool shared_migration_ok(const task_state& t, node_index from) const {
    const auto& ps = processes_[t.process];
    if (!ps.group) return true;
    const fault_view g = ps.group->view();
    return g.cpu_faults(t.node) * g.faults(from) * 3 > g.cpu_faults(from) * g.faults(t.node) * 4;
  }

  decision_input input_of(const task_state& t) const {
    const auto& ps = processes_[t.process];
    return {t.stats.view(), ps.group ? ps.group->view() : fault_view{}};
  }

  // task_numa_migrate(), in its v4.19+ shape for every stack: the preferred node first, then
  // (when nothing was found there or the group spans nodes) every other node whose weights
  // improve; an idle CPU or the best swap wins. The stacks differ in the policies it calls.
  void numa_migrate(std::uint32_t id) {
    if constexpr (!std::is_same_v<Placement, no_placement>) {
      task_state& t = tasks_[id];
      const decision_input in = input_of(t);
      const node_index src = t.node;
      struct candidate {
        std::uint32_t cpu = ~0u;
        std::int32_t swap_with = -1;
        long improvement = 0;
      } best;
      const auto try_node = [&](node_index dst, long task_imp, long group_imp, distance_t dist) {
        if (!topo_.has_cpu(dst) || !allowed_node(t.process, dst)) return;
        // numa_has_capacity() (v4.1..v4.18) gates the whole node, swaps included.
        if (!pl_->has_capacity(load_of(src), load_of(dst))) return;
        const long imp = in.has_group() ? group_imp : task_imp;
        const long src_running = long(running_on_node(src)) - 1;
        const long dst_running = long(running_on_node(dst)) + 1;
        const auto dst_cpus = long(node_cpus_[dst].size());
        std::uint32_t idle = ~0u;
        for (auto c : node_cpus_[dst]) {
          if (cpus_[c].tasks.empty()) {
            idle = c;
            break;
          }
        }
        if (idle != ~0u) {
          // Destination has spare capacity: a move is fine when the stack forgives the imbalance
          // it leaves (then the idle CPU is taken at once); otherwise only swaps remain.
          const long imbalance = std::max(0L, dst_running - src_running);
          const long left = pl_->adjust_imbalance({imbalance, int(src_running), int(dst_running), int(dst_cpus), imb_numa_nr(dst)});
          if (left == 0) {
            if (imp > best.improvement) best = {idle, -1, imp};
            return;
          }
        }
        // Swapping with each task there (task_numa_compare).
        for (auto c : node_cpus_[dst]) {
          for (auto other : cpus_[c].tasks) {
            const task_state& cur = tasks_[other];
            if (!allowed_node(cur.process, src)) continue;
            long swap_imp = imp;
            const decision_input cin = input_of(cur);
            if (cur.process == t.process && in.has_group()) {
              swap_imp = task_imp + long(pl_->task_weight(cin, src, dist)) - long(pl_->task_weight(cin, dst, dist));
              swap_imp -= swap_imp / 16;
            } else if (in.has_group() && cin.has_group()) {
              swap_imp += long(pl_->group_weight(cin, src, dist)) - long(pl_->group_weight(cin, dst, dist));
            } else {
              swap_imp += long(pl_->task_weight(cin, src, dist)) - long(pl_->task_weight(cin, dst, dist));
            }
            if (cur.preferred == dst) swap_imp -= swap_imp / 16;
            if (cur.preferred == src) swap_imp += swap_imp / 8;
            if (swap_imp < c_.small_improvement || swap_imp <= best.improvement + 15) continue;
            best = {c, std::int32_t(other), swap_imp};
          }
        }
      };
      const node_index preferred = t.preferred;
      distance_t dist = topo_.distance(src, preferred);
      long task_src = long(pl_->task_weight(in, src, dist));
      long group_src = long(pl_->group_weight(in, src, dist));
      try_node(preferred, long(pl_->task_weight(in, preferred, dist)) - task_src,
               long(pl_->group_weight(in, preferred, dist)) - group_src, dist);
      node_index last_dst = preferred;  // env.dst_nid: also where the distance is read from
      if (best.cpu == ~0u || pl_->scan_all_nodes(in)) {
        for (node_index nid = 0; nid < topo_.node_count(); ++nid) {
          if (nid == src || nid == preferred) continue;
          const distance_t d = topo_.distance(src, last_dst);
          if (d != dist && Placement::kind == numa_kind::backplane) {
            task_src = long(pl_->task_weight(in, src, d));
            group_src = long(pl_->group_weight(in, src, d));
          }
          dist = d;
          const long task_imp = long(pl_->task_weight(in, nid, dist)) - task_src;
          const long group_imp = long(pl_->group_weight(in, nid, dist)) - group_src;
          if (task_imp < 0 && group_imp < 0) continue;
          last_dst = nid;
          try_node(nid, task_imp, group_imp, dist);
        }
      }
      const node_index moved_to = best.cpu == ~0u ? no_node : cpus_[best.cpu].node;
      if (best.cpu != ~0u) {
        if (best.swap_with >= 0) {
          const auto other = static_cast<std::uint32_t>(best.swap_with);
          const std::uint32_t from_cpu = t.cpu;
          move_task(other, from_cpu);
          move_task(id, best.cpu);
        } else {
          move_task(id, best.cpu);
        }
      }
      // A grouped task settles its preferred node as the stack's kernel did.
      t.preferred = pl_->settle_preferred(in, {preferred, src, last_dst, moved_to});
    }
  }

  int imb_numa_nr(node_index n) const { return std::max(1, int(node_cpus_[n].size()) >> 3); }

  node_load load_of(node_index n) const {
    const auto running = static_cast<unsigned>(running_on_node(n));
    const auto cpus = static_cast<unsigned>(node_cpus_[n].size());
    return {std::uint64_t{running} * 1024, std::uint64_t{cpus} * 1024, running, cpus};
  }

  void move_task(std::uint32_t id, std::uint32_t to_cpu) {
    task_state& t = tasks_[id];
    auto& from = cpus_[t.cpu].tasks;
    from.erase(std::find(from.begin(), from.end(), id));
    cpus_[to_cpu].tasks.push_back(id);
    if (cpus_[to_cpu].node != t.node) {
      t.stall_ms += c_.task_move_cost_ms;
      ++processes_[t.process].task_moves;
    }
    t.cpu = to_cpu;
    t.node = cpus_[to_cpu].node;
    update_task_latency(t);
  }

  // ---- load balancing ----------------------------------------------------------------
  void balance() {
    // Inside a node: spread over idle cores first, then idle CPUs.
    for (node_index n = 0; n < topo_.node_count(); ++n) {
      for (auto c : node_cpus_[n]) {
        while (cpus_[c].tasks.size() > 1) {
          const std::uint32_t idle = idle_cpu(n, cpus_[c].tasks.back());
          if (idle == ~0u) break;
          move_task(cpus_[c].tasks.back(), idle);
        }
      }
    }
    // Between nodes: an idle node pulls from the busiest one when their difference is more
    // than the stack allows.
    for (node_index dst = 0; dst < topo_.node_count(); ++dst) {
      for (int guard = 0; guard < 64; ++guard) {
        const std::uint32_t idle = idle_cpu(dst, ~0u);
        if (idle == ~0u) break;
        node_index src = no_node;
        long most = 0;
        for (node_index s = 0; s < topo_.node_count(); ++s) {
          if (s == dst) continue;
          const long diff = long(running_on_node(s)) - long(running_on_node(dst));
          const bool overloaded = running_on_node(s) > node_cpus_[s].size();
          if ((overloaded || diff >= 2) && diff > most) {
            most = diff;
            src = s;
          }
        }
        if (src == no_node) break;
        long imbalance = most / 2;
        if (imbalance == 0) imbalance = 1;
        const bool overloaded = running_on_node(src) > node_cpus_[src].size();
        if constexpr (Placement::has_imbalance_policy()) {
          if (!overloaded) {
            imbalance = pl_->adjust_balancer_imbalance({imbalance, int(running_on_node(src)),
                                                        int(node_cpus_[src].size()), int(running_on_node(dst)),
                                                        imb_numa_nr(dst)});
          }
        }
        if (imbalance <= 0) break;
        const std::int32_t pick = pick_task_to_pull(src, dst);
        if (pick < 0) break;
        move_task(std::uint32_t(pick), idle);
      }
    }
  }

  // An idle CPU of node n, on an idle core if possible, allowed for `task` (~0u: any).
  std::uint32_t idle_cpu(node_index n, std::uint32_t task) const {
    std::uint32_t fallback = ~0u;
    for (auto c : node_cpus_[n]) {
      if (!cpus_[c].tasks.empty()) continue;
      if (task != ~0u && !allowed_node(tasks_[task].process, n)) return ~0u;
      if (!core_busy(cpus_[c].core)) return c;
      if (fallback == ~0u) fallback = c;
    }
    return fallback;
  }

  // can_migrate_task(): with NUMA balancing, prefer a task that wants the destination, then
  // one whose locality does not suffer; without it, the most recently queued task.
  std::int32_t pick_task_to_pull(node_index src, node_index dst) const {
    std::int32_t any = -1, neutral = -1;
    for (auto c : node_cpus_[src]) {
      if (cpus_[c].tasks.empty()) continue;
      // Only a CPU with a queue, or the last task of a busy node, is pulled from.
      for (auto id : cpus_[c].tasks) {
        const task_state& t = tasks_[id];
        if (!allowed_node(t.process, dst)) continue;
        if (o_.mode != balancing::numa) return std::int32_t(id);
        if (t.preferred == dst) return std::int32_t(id);
        if (neutral < 0 && t.preferred != src) neutral = std::int32_t(id);
        if (any < 0) any = std::int32_t(id);
      }
    }
    return neutral >= 0 ? neutral : any;
  }

  // ---- reporting ---------------------------------------------------------------------
  void snapshot() {
    const std::size_t n = topo_.node_count();
    std::vector<std::vector<std::uint32_t>> per_process(processes_.size(), std::vector<std::uint32_t>(n, 0));
    for (const auto& t : tasks_) {
      if (t.alive) ++per_process[t.process][t.node];
    }
    snapshots_.push_back({now_ms_ / 1000.0, std::move(per_process)});
  }

  run_result collect() const {
    run_result r;
    r.simulated_seconds = now_ms_ / 1000.0;
    r.ticks = ticks_;
    const std::size_t n = topo_.node_count();
    for (std::uint32_t p = 0; p < processes_.size(); ++p) {
      const process_state& ps = processes_[p];
      group_result g;
      g.name = w_.processes[p].name;
      g.throughput = ps.ops / std::max(1e-9, r.simulated_seconds);
      g.elapsed_seconds = ps.finish_ms >= 0 ? ps.finish_ms / 1000.0 : r.simulated_seconds;
      g.local_fraction = ps.ops > 0 ? ps.local_ops / ps.ops : 0;
      g.task_migrations = ps.task_moves;
      g.page_migrations = ps.page_moves;
      std::vector<std::uint64_t> memory(n, 0);
      std::uint64_t total = 0;
      for (std::uint32_t r2 = 0; r2 < w_.processes[p].regions.size(); ++r2) {
        const auto& rs = regions_[region_base_[p] + r2];
        for (node_index m = 0; m < n; ++m) {
          memory[m] += rs.on_node[m];
          total += rs.on_node[m];
        }
      }
      for (node_index m = 0; m < n; ++m) {
        g.memory_per_node.push_back(memory[m]);
        // A node counts as the group's when it holds at least a tenth of its memory.
        if (total > 0 && memory[m] * 10 >= total) g.memory_nodes.push_back(topo_.id_of(m));
      }
      for (const auto& s : snapshots_) {
        g.tasks_over_time.push_back({s.seconds, s.tasks[p]});
      }
      g.converged_seconds = convergence_time(p);
      r.groups.push_back(std::move(g));
    }
    r.events = task_ticks_ + sampled_chunks_;  // the simulator's units of work
    return r;
  }

  // The last time the set of nodes holding at least a tenth of the group's tasks changed.
  double convergence_time(std::uint32_t p) const {
    double last_change = 0;
    std::vector<bool> previous;
    for (const auto& s : snapshots_) {
      std::uint32_t total = 0;
      for (auto v : s.tasks[p]) total += v;
      std::vector<bool> set(s.tasks[p].size());
      for (std::size_t m = 0; m < set.size(); ++m) set[m] = total > 0 && s.tasks[p][m] * 10 >= total;
      if (!previous.empty() && set != previous) last_change = s.seconds;
      previous = std::move(set);
    }
    return last_change;
  }

  struct snapshot_state {
    double seconds;
    std::vector<std::vector<std::uint32_t>> tasks;  // [process][node]
  };

  const dynamic_topology& topo_;
  const Placement* pl_;
  const workload& w_;
  run_options o_;
  cost_model c_;
  std::mt19937_64 rng_;
  double now_ms_ = 0;
  std::uint64_t ticks_ = 0;
  bool set_up_ = false;
  std::uint64_t task_ticks_ = 0, sampled_chunks_ = 0;
  std::vector<cpu_state> cpus_;
  std::vector<std::vector<std::uint32_t>> node_cpus_;
  std::vector<std::vector<std::uint32_t>> core_cpus_;
  std::vector<region_state> regions_;
  std::vector<std::uint32_t> region_base_;
  std::vector<task_state> tasks_;
  std::vector<process_state> processes_;
  std::vector<snapshot_state> snapshots_;
};

}  // namespace numaplace::sim
