#pragma once
// The fixed point of memory demand and speed. Tasks ask their memory for bytes in proportion
// to how fast they run; bytes load memories and links; a loaded memory or link answers later
// (the machine's loaded-latency curve); later answers slow the tasks. The unknowns are one
// queueing factor per memory and per link direction: a link (QPI/UPI, HyperTransport, xGMI)
// has lanes each way, so traffic one way does not queue behind traffic the other. Memory
// traffic loads the direction its data comes back in, from the memory's node to the CPU's
// (the requests are small; write-backs are not counted).
//
// Raising a resource's factor slows every task that uses it, which lowers the demand on it
// and so the factor its load implies: with the other factors held, a resource's equation
// (factor = implied factor) has exactly one root, bracketed by 1 and the factor its users
// would imply at full speed. The solver sweeps the resources in turn, solving each one's
// equation to the root with the others as they stand (nonlinear Gauss-Seidel), until every
// resource's factor is what its load implies. Stepping all factors at once is not enough: on
// the steep end of the curve a plain or half-damped step locks into a two-state cycle (tasks
// on a saturated node then came out faster with remote memory than with local), and a node's
// memory and the links on the way to it carry the same traffic, so stepping each as if alone
// overshoots together.
//
// At a fixed point, an access from node a to its own memory never costs more than one to a
// node b whose memory is at least as loaded: the latency ratio is 1 locally and at least 1
// elsewhere, the curve never falls, and a route's links only add queueing (check_local_first).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "machine_costs.hpp"

namespace numaplace::sim {

/// One running task as the solver sees it: where it runs, how memory-bound it is, the bytes
/// it asks for at full unloaded speed (GB/s), and which memories serve its accesses (the
/// [first, last) slice of the problem's shares).
struct demand_task {
  node_index node = 0;
  double memory_bound = 0;
  double unloaded_gbs = 0;
  std::uint32_t first = 0, last = 0;
};

/// A share of a task's accesses that one node's memory serves.
struct memory_share {
  node_index node = 0;
  double share = 0;
};

/// The tasks and their memory, built anew for every settle.
struct demand_problem {
  std::vector<demand_task> tasks;
  std::vector<memory_share> shares;

  void clear() {
    tasks.clear();
    shares.clear();
  }
  /// Adds a task; its shares follow with add_share().
  void add_task(node_index node, double memory_bound, double unloaded_gbs) {
    const auto at = static_cast<std::uint32_t>(shares.size());
    tasks.push_back({node, memory_bound, unloaded_gbs, at, at});
  }
  void add_share(node_index node, double share) {
    shares.push_back({node, share});
    tasks.back().last = static_cast<std::uint32_t>(shares.size());
  }
};

/// How a settle ended.
struct settle_outcome {
  /// Sweeps over the resources.
  int steps = 0;
  /// Largest |implied factor - factor| / factor over memories and links at the end.
  double residual = 0;
  bool converged = false;
};

/// A task's speed over its unloaded local speed, for a mean access cost `cost`.
inline double task_speed(double memory_bound, double cost) { return 1.0 / (1.0 - memory_bound + memory_bound * cost); }

class load_solver {
 public:
  /// Sweeps a settle takes at most; the residual it must reach to count as settled.
  static constexpr int max_steps = 400;
  static constexpr double tolerance = 1e-6;

  /// Solves for `p` on `hw`, starting from the last solution's factors (the state moves
  /// little between refreshes).
  settle_outcome solve(const demand_problem& p, const machine_costs& hw) {
    const std::size_t resources = hw.node_count() + 2 * hw.links.size();
    if (factor_.size() != resources) factor_.assign(resources, 1.0);
    index_paths(hw);
    index_users(p, hw);
    settle_outcome out;
    for (out.steps = 0;; ++out.steps) {
      evaluate(p, hw);
      out.residual = 0;
      for (std::size_t r = 0; r < resources; ++r) {
        out.residual = std::max(out.residual, std::abs(implied_[r] - factor_[r]) / factor_[r]);
      }
      out.converged = out.residual <= tolerance;
      if (out.converged || out.steps == max_steps) break;
      for (std::size_t r = 0; r < resources; ++r) settle_resource(p, hw, r);
    }
    return out;
  }

  /// What an access from a CPU on `from` to memory on `to` costs at the last solution, over an
  /// unloaded local access: n x n, row `from`.
  std::span<const double> access_costs() const { return cost_; }
  /// Each task's speed at the last solution, in the problem's order.
  std::span<const double> speeds() const { return speed_; }
  /// Traffic on node `n`'s memory, and on link `l` from its end a to b (`a_to_b`) or back,
  /// GB/s, at the last solution.
  double node_demand_gbs(node_index n) const { return load_[n]; }
  double link_load_gbs(std::size_t l, bool a_to_b) const { return load_[node_count_ + 2 * l + (a_to_b ? 0 : 1)]; }
  /// Memory utilisation (demand over bandwidth) of node `n` at the last solution.
  double node_utilisation(node_index n, const machine_costs& hw) const { return load_[n] / hw.node_bandwidth_gbs[n]; }

  /// The first pair (a, b) whose memory b is at least as loaded as a's own, yet an access from
  /// a to its own memory costs more than one to b's; nothing when there is none.
  std::optional<std::string> check_local_first(const machine_costs& hw) const {
    const std::size_t n = hw.node_count();
    for (node_index a = 0; a < n; ++a) {
      for (node_index b = 0; b < n; ++b) {
        if (a == b || node_utilisation(a, hw) > node_utilisation(b, hw)) continue;
        // Each factor is within the tolerance of its load's, so equal loads may differ by that.
        if (cost_[a * n + a] > cost_[a * n + b] * (1 + 4 * tolerance)) {
          return "node " + std::to_string(a) + "'s local memory costs " + std::to_string(cost_[a * n + a]) +
                 ", more than node " + std::to_string(b) + "'s (" + std::to_string(cost_[a * n + b]) +
                 ") at no less load";
        }
      }
    }
    return std::nullopt;
  }

 private:
  // One resource's users as fold_users() leaves them.
  struct folded_user {
    double fixed;
    std::uint32_t first, last;  // its terms
    double memory_bound;
    double gbs;  // at full speed, of the bytes that cross the resource
    std::uint32_t task;
  };
  struct folded_term {
    double weight, floor;
  };

  // A task whose traffic crosses a resource: the share of its bytes that does, and its
  // accesses that do (crossing_[first .. last), indices into the problem's shares).
  struct user {
    std::uint32_t task;
    double share;
    std::uint32_t first, last;
  };

  double capacity(const machine_costs& hw, std::size_t r) const {
    return r < node_count_ ? hw.node_bandwidth_gbs[r] : hw.links[(r - node_count_) / 2].gb_per_s;
  }

  // The link directions data from memory on `memory_node` crosses to a CPU on `cpu_node`, as
  // offsets past the memories: 2 x link, plus 1 when it flows from the link's b to its a.
  const std::vector<std::uint32_t>& path(node_index cpu_node, node_index memory_node) const {
    return paths_[cpu_node * node_count_ + memory_node];
  }

  // paths_ from the machine's routes (each a chain of links from the CPU's node to the
  // memory's), built once per machine: a solver serves one machine_costs, unchanged.
  void index_paths(const machine_costs& hw) {
    const std::size_t n = hw.node_count();
    if (paths_of_ == &hw && paths_.size() == n * n && path_links_ == hw.links.size()) return;
    paths_of_ = &hw;
    path_links_ = hw.links.size();
    node_count_ = n;
    paths_.assign(n * n, {});
    if (hw.links.empty()) return;
    for (node_index cpu = 0; cpu < n; ++cpu) {
      for (node_index memory = 0; memory < n; ++memory) {
        auto& out = paths_[cpu * n + memory];
        node_index at = cpu;
        for (const auto l : hw.route(cpu, memory)) {
          const memory_link& link = hw.links[l];
          const node_index next = link.a == at ? link.b : link.a;
          out.push_back(2 * l + (next == link.a ? 0u : 1u));  // the data flows next -> at
          at = next;
        }
      }
    }
  }

  // Which tasks load each resource (its memory, or a link direction on their route), with their shares:
  // users_[user_start_[r] .. user_start_[r + 1]).
  void index_users(const demand_problem& p, const machine_costs& hw) {
    node_count_ = hw.node_count();
    const std::size_t resources = node_count_ + 2 * hw.links.size();
    by_resource_.resize(resources);
    for (auto& list : by_resource_) list.clear();
    for (std::uint32_t i = 0; i < p.tasks.size(); ++i) {
      const demand_task& t = p.tasks[i];
      for (auto k = t.first; k < t.last; ++k) {
        by_resource_[p.shares[k].node].push_back({i, k});
        for (const auto d : path(t.node, p.shares[k].node)) by_resource_[node_count_ + d].push_back({i, k});
      }
    }
    user_start_.assign(1, 0);
    users_.clear();
    crossing_.clear();
    for (const auto& list : by_resource_) {
      // Entries come in task order, so each task's are together.
      for (std::size_t e = 0; e < list.size(); ++e) {
        if (e == 0 || list[e].first != list[e - 1].first) {
          const auto at = static_cast<std::uint32_t>(crossing_.size());
          users_.push_back({list[e].first, 0.0, at, at});
        }
        users_.back().share += p.shares[list[e].second].share;
        crossing_.push_back(list[e].second);
        users_.back().last = static_cast<std::uint32_t>(crossing_.size());
      }
      user_start_.push_back(static_cast<std::uint32_t>(users_.size()));
    }
  }

  // Resource r's users, with everything but r's own factor folded in: each user's cost is
  // `fixed` plus, per access crossing r, `weight` x max(floor, r's factor) (a memory's factor
  // multiplies its accesses' costs; a link's counts where it is its route's bottleneck). The
  // users' costs as they stand (task_cost_) less what crosses r gives `fixed`.
  void fold_users(const demand_problem& p, const machine_costs& hw, std::size_t r) {
    folded_.clear();
    terms_.clear();
    const bool memory = r < node_count_;
    const double x = factor_[r];
    for (auto u = user_start_[r]; u < user_start_[r + 1]; ++u) {
      const demand_task& t = p.tasks[users_[u].task];
      folded_user f{task_cost_[users_[u].task], static_cast<std::uint32_t>(terms_.size()), 0, t.memory_bound,
                    t.unloaded_gbs * users_[u].share, users_[u].task};
      for (auto c = users_[u].first; c < users_[u].last; ++c) {
        const node_index to = p.shares[crossing_[c]].node;
        double others = 1.0;  // the busiest link direction on the route other than r
        for (const auto d : path(t.node, to)) {
          if (node_count_ + d != r) others = std::max(others, factor_[node_count_ + d]);
        }
        const double base = p.shares[crossing_[c]].share * hw.ratio(t.node, to);
        const folded_term term = memory ? folded_term{base * others, 0.0} : folded_term{base * factor_[to], others};
        f.fixed -= term.weight * std::max(term.floor, x);
        terms_.push_back(term);
      }
      f.last = static_cast<std::uint32_t>(terms_.size());
      folded_.push_back(f);
    }
  }

  // The users' costs once resource r's factor is x.
  void unfold_users(double x) {
    for (const folded_user& f : folded_) task_cost_[f.task] = folded_cost(f, x);
  }

  double folded_cost(const folded_user& f, double x) const {
    double cost = f.fixed;
    for (auto k = f.first; k < f.last; ++k) cost += terms_[k].weight * std::max(terms_[k].floor, x);
    return cost;
  }

  // The factor resource r's load implies when its own factor is x, the others as folded.
  double implied_at(const machine_costs& hw, std::size_t r, double x) const {
    double load = 0;
    for (const folded_user& f : folded_) load += f.gbs * task_speed(f.memory_bound, folded_cost(f, x));
    return hw.loaded.at(load / capacity(hw, r));
  }

  // Solves resource r's own equation, x = implied_at(x), with the others held: x - implied_at(x)
  // rises with x, from at most 0 at x = 1 to at least 0 at the factor full-speed users imply.
  // Regula falsi, Illinois variant (the kept end's value halved when it stays), which keeps the
  // bracket and converges superlinearly on a monotone function.
  void settle_resource(const demand_problem& p, const machine_costs& hw, std::size_t r) {
    fold_users(p, hw, r);
    factor_[r] = root(hw, r);
    unfold_users(factor_[r]);
  }

  double root(const machine_costs& hw, std::size_t r) const {
    const double close = 0.1 * tolerance;
    const double start = factor_[r];
    const double f_start = start - implied_at(hw, r, start);
    if (std::abs(f_start) <= close * start) return start;
    double lo = 1.0, f_lo = 1.0 - implied_at(hw, r, 1.0);
    if (f_lo >= 0) return 1.0;  // unloaded even at full speed
    double hi = 1.0 - f_lo;     // the factor full-speed users imply: the most the load can
    if (f_start < 0) {
      lo = start;
      f_lo = f_start;
    } else {
      hi = std::min(hi, start);
    }
    double f_hi = hi - implied_at(hw, r, hi);
    if (f_hi <= 0) return hi;
    int kept = 0;  // which end stayed last time: -1 low, +1 high
    for (int i = 0; i < 100 && hi - lo > close * lo; ++i) {
      const double x = (lo * f_hi - hi * f_lo) / (f_hi - f_lo);
      const double f = x - implied_at(hw, r, x);
      if (std::abs(f) <= close * x) return x;
      if (f < 0) {
        lo = x;
        f_lo = f;
        if (kept == 1) f_hi *= 0.5;
        kept = 1;
      } else {
        hi = x;
        f_hi = f;
        if (kept == -1) f_lo *= 0.5;
        kept = -1;
      }
    }
    return 0.5 * (lo + hi);
  }

  // One pass: costs from the factors, speeds from the costs, the load that makes on every
  // memory and link, and the factors that load implies.
  void evaluate(const demand_problem& p, const machine_costs& hw) {
    const std::size_t n = hw.node_count(), resources = n + 2 * hw.links.size();
    cost_.resize(n * n);
    for (node_index from = 0; from < n; ++from) {
      for (node_index to = 0; to < n; ++to) {
        double on_route = 1.0;
        for (const auto d : path(from, to)) on_route = std::max(on_route, factor_[n + d]);
        cost_[from * n + to] = hw.ratio(from, to) * factor_[to] * on_route;
      }
    }
    load_.assign(resources, 0.0);
    speed_.resize(p.tasks.size());
    task_cost_.resize(p.tasks.size());
    for (std::size_t i = 0; i < p.tasks.size(); ++i) {
      const demand_task& t = p.tasks[i];
      const double* row = cost_.data() + t.node * n;
      double cost = 0;
      for (auto k = t.first; k < t.last; ++k) cost += p.shares[k].share * row[p.shares[k].node];
      task_cost_[i] = cost;
      speed_[i] = task_speed(t.memory_bound, cost);
      const double gbs = t.unloaded_gbs * speed_[i];
      for (auto k = t.first; k < t.last; ++k) {
        const double bytes = gbs * p.shares[k].share;
        load_[p.shares[k].node] += bytes;
        for (const auto d : path(t.node, p.shares[k].node)) load_[n + d] += bytes;
      }
    }
    implied_.resize(resources);
    for (std::size_t r = 0; r < resources; ++r) implied_[r] = hw.loaded.at(load_[r] / capacity(hw, r));
  }

  std::size_t node_count_ = 0;
  std::vector<std::vector<std::uint32_t>> paths_;  // per (CPU node, memory node): see path()
  const machine_costs* paths_of_ = nullptr;
  std::size_t path_links_ = 0;
  std::vector<double> factor_;    // per memory, then per link direction: the queueing factor
  std::vector<double> implied_;   // per resource: the factor its load implies
  std::vector<double> load_;      // per resource: GB/s
  std::vector<double> cost_;      // n x n access costs
  std::vector<double> speed_;     // per task
  std::vector<user> users_;       // per resource, the tasks that load it
  std::vector<std::uint32_t> crossing_;
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> by_resource_;  // (task, share)
  std::vector<double> task_cost_;  // per task: its mean access cost at the factors now
  std::vector<std::uint32_t> user_start_;
  std::vector<folded_user> folded_;
  std::vector<folded_term> terms_;
};

}  // namespace numaplace::sim
