#include "explain_report.hpp"

#include "json_stamp.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstddef>
#include <numaplace/policy/fault_scoring.hpp>
#include <numaplace/policy/imbalance_adjustment.hpp>
#include <numaplace/stacks.hpp>
#include <numaplace/stats/fault_view.hpp>
#include <string_view>
#include <type_traits>
#include <utility>

#include "exit_codes.hpp"

namespace numaplace_cli {

namespace {

using numaplace::decision_input;
using numaplace::distance_t;
using numaplace::fault_view;
using numaplace::no_node;
using numaplace::node_index;
using numaplace::numa_kind;
using numaplace::preferred_rule;

// ---------------------------------------------------------------------------------------------
// Faults as the library reads them

// The kernel's NUMA_MEM region: shared then private, per node.
std::vector<std::uint64_t> memory_counters(const std::vector<fault_pair>& faults) {
  std::vector<std::uint64_t> memory;
  memory.reserve(2 * faults.size());
  for (const fault_pair& f : faults) {
    memory.push_back(f.shared);
    memory.push_back(f.private_faults);
  }
  return memory;
}

std::uint64_t faults_on(const fault_pair& f) { return f.shared + f.private_faults; }

std::uint64_t total_of(const std::vector<fault_pair>& faults) {
  std::uint64_t total = 0;  // the input check made sure this does not wrap
  for (const fault_pair& f : faults) total += faults_on(f);
  return total;
}

// The first node with strictly the most faults, as task_numa_placement() finds it.
node_index most_faults(const std::vector<fault_pair>& faults) {
  std::uint64_t max = 0;
  node_index nid = no_node;
  for (std::size_t i = 0; i < faults.size(); ++i) {
    if (faults_on(faults[i]) > max) {
      max = faults_on(faults[i]);
      nid = static_cast<node_index>(i);
    }
  }
  return nid;
}

template <class Placement>
fault_report report_faults(const Placement& pl, const std::vector<fault_pair>& faults, const fault_view& view,
                           const std::vector<distance_t>& levels) {
  fault_report r;
  r.faults = faults;
  r.total = view.total;
  for (const distance_t d : levels) {
    std::vector<std::uint64_t>& nearby = r.nearby.emplace_back();
    std::vector<std::uint64_t>& weight = r.weight.emplace_back();
    for (node_index n = 0; n < pl.node_count(); ++n) {
      nearby.push_back(pl.score_nearby(view, n, d));
      weight.push_back(pl.weight(view, n, d));
    }
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// Why: the steps of task_numa_placement() and preferred_group_nid() retraced in words

template <class P>
struct scoring_rule_of : std::false_type {};
template <preferred_rule R>
struct scoring_rule_of<numaplace::fault_scoring<R>> : std::true_type {
  static constexpr preferred_rule rule = R;
};

std::string node_set(const std::vector<node_index>& nodes) { return fmt::format("{{{}}}", fmt::join(nodes, ",")); }

// The backplane narrowing (spec section 4) as the kernel performs it, step by step, to say
// which group won at which distance.
template <class View>
std::string backplane_reason(const View& topo, const std::vector<fault_pair>& group, node_index chosen) {
  const auto& c = topo.classification_info();
  std::vector<node_index> nodes;
  for (node_index n = 0; n < topo.node_count(); ++n) {
    if (topo.has_cpu(n)) nodes.push_back(n);
  }
  std::uint64_t outer = total_of(group);
  node_index nid = no_node;
  std::vector<std::string> steps;
  for (auto level = c.levels.end(); level != c.levels.begin();) {
    const distance_t dist = *--level;
    if (dist <= c.local_distance) break;
    std::vector<node_index> left = nodes;
    std::vector<node_index> best;
    std::uint64_t max_faults = 0;
    while (!left.empty()) {
      const node_index seed = left.front();
      std::vector<node_index> members;
      std::vector<node_index> rest;
      std::uint64_t sum = 0;
      for (const node_index b : left) {
        if (topo.distance(seed, b) < dist) {
          members.push_back(b);
          sum += faults_on(group[b]);
        } else {
          rest.push_back(b);
        }
      }
      if (sum > max_faults) {
        max_faults = sum;
        best = members;
        nid = seed;
      }
      left.swap(rest);
    }
    if (max_faults == 0) break;
    steps.push_back(fmt::format("{} at distance {} ({} of {})", node_set(best), dist, max_faults, outer));
    outer = max_faults;
    nodes = best;
  }
  std::string reason = fmt::format("the group's faults narrowed level by level: {}", fmt::join(steps, ", "));
  if (nid != chosen) reason += fmt::format(" (retraced here as node {}; numaplace chose {})", nid, chosen);
  return reason;
}

// Why the group's node is `chosen`, starting from `start`, the node with its most faults.
template <class Placement>
std::string group_reason(const Placement& pl, const decision_input& di, const std::vector<fault_pair>& group,
                         bool narrows, node_index start, node_index chosen) {
  const std::uint64_t total = total_of(group);
  if (!narrows || Placement::kind == numa_kind::direct) {
    return fmt::format("node {} has the most group faults ({} of {})", chosen, faults_on(group[chosen]), total);
  }
  if constexpr (Placement::kind == numa_kind::glueless_mesh) {
    const distance_t max = pl.topology().max_distance();
    const std::uint64_t w = pl.group_weight(di, chosen, max);
    if (chosen == start) {
      return fmt::format(
          "node {} has the most group faults ({} of {}) and the highest group weight counting nearby nodes "
          "({} per mille at distance {})",
          chosen, faults_on(group[chosen]), total, w, max);
    }
    return fmt::format(
        "node {} has the highest group weight counting nearby nodes ({} per mille at distance {}), "
        "though the group's most faults are on node {} ({} of {})",
        chosen, w, max, start, faults_on(group[start]), total);
  } else {
    std::string reason = backplane_reason(pl.topology(), group, chosen);
    if (start != chosen) {
      reason += fmt::format("; node {} alone has the most ({})", start, faults_on(group[start]));
    }
    return reason;
  }
}

template <class Placement>
std::string why(const Placement& pl, const explain_input& in, const decision_input& di, node_index chosen) {
  preferred_rule rule = preferred_rule::v5_18;
  bool narrows = false;
  bool weighs_neighbours = false;
  bool places_tasks = true;
  pl.for_each_policy([&](const auto& p) {
    using P = std::decay_t<decltype(p)>;
    if constexpr (std::is_same_v<P, numaplace::page_placement_only>) places_tasks = false;
    if constexpr (scoring_rule_of<P>::value) rule = scoring_rule_of<P>::rule;
    if constexpr (requires { p.choose_group_node(pl, di, node_index{}); }) narrows = true;
    if constexpr (requires { p.score_nearby(pl, fault_view{}, node_index{}, distance_t{}); }) weighs_neighbours = true;
  });

  if (!places_tasks) {
    return "no preferred node: this kernel places no task by its faults (v3.8..v3.12: task_numa_placement() was a "
           "placeholder; pages move to their tasks instead)";
  }
  const node_index task_max = most_faults(in.task_faults);
  const std::uint64_t task_total = total_of(in.task_faults);
  if (!in.group_faults) {
    if (chosen == no_node)
      return "no preferred node: the task's faults are all zero (the kernel keeps its previous one)";
    return fmt::format("node {} has the most task faults ({} of {})", chosen, faults_on(in.task_faults[chosen]),
                       task_total);
  }
  const std::vector<fault_pair>& group = *in.group_faults;
  const node_index group_max = most_faults(group);

  if (rule <= preferred_rule::v3_19 && task_max == no_node) {
    return "no preferred node: the task's own faults are all zero, and this kernel decides only when the task has "
           "faults, even for a task in a group";
  }
  if (rule == preferred_rule::v3_13) {
    if (task_max == group_max) {
      return fmt::format("node {} has the most task faults ({} of {}) and the most group faults ({} of {})", chosen,
                         faults_on(in.task_faults[chosen]), task_total, faults_on(group[chosen]), total_of(group));
    }
    const distance_t max = pl.topology().max_distance();
    const std::string group_part = group_max == no_node ? std::string("the group has none")
                                                        : fmt::format("the group's on node {} ({} of {})", group_max,
                                                                      faults_on(group[group_max]), total_of(group));
    return fmt::format(
        "the task's most faults are on node {} ({} of {}), {}: node {} has the highest task weight + group weight{} "
        "({} + {} per mille)",
        task_max, faults_on(in.task_faults[task_max]), task_total, group_part, chosen,
        weighs_neighbours ? fmt::format(" counting nearby nodes at distance {}", max) : std::string(),
        pl.task_weight(di, chosen, max), pl.group_weight(di, chosen, max));
  }
  if (chosen == no_node) {
    if (rule == preferred_rule::v3_19) {
      return "no preferred node: the group's faults are all zero, and this kernel takes the group's node whenever "
             "the task has faults";
    }
    return "no preferred node: the group's faults are all zero";
  }
  std::string reason = group_reason(pl, di, group, narrows, group_max, chosen);
  if (rule == preferred_rule::v3_19) reason += " (the task has faults of its own, so the group's choice applies)";
  return reason;
}

// ---------------------------------------------------------------------------------------------
// adjust_numa_imbalance()

long adjust(const imbalance_question& q) {
  using numaplace::imbalance_adjustment;
  using numaplace::imbalance_rule;
  switch (q.rule) {
    case imbalance_rule::v5_5:
      return imbalance_adjustment<imbalance_rule::v5_5>{}.adjust_imbalance(q.args);
    case imbalance_rule::v5_7:
      return imbalance_adjustment<imbalance_rule::v5_7>{}.adjust_imbalance(q.args);
    case imbalance_rule::v5_10:
      return imbalance_adjustment<imbalance_rule::v5_10>{}.adjust_imbalance(q.args);
    case imbalance_rule::v5_11:
      return imbalance_adjustment<imbalance_rule::v5_11>{}.adjust_imbalance(q.args);
    case imbalance_rule::v5_18:
      return imbalance_adjustment<imbalance_rule::v5_18>{}.adjust_imbalance(q.args);
    case imbalance_rule::v5_19:
      break;
  }
  return imbalance_adjustment<imbalance_rule::v5_19>{}.adjust_imbalance(q.args);
}

std::string imbalance_reason(const imbalance_question& q, long result) {
  using numaplace::imbalance_rule;
  const auto& a = q.args;
  const std::string outcome = result == a.imbalance ? "kept" : "forgiven";
  std::string test;
  switch (q.rule) {
    case imbalance_rule::v5_5:
      return fmt::format("v5.5 has no NUMA allowance: {}", outcome);
    case imbalance_rule::v5_7:
      return fmt::format("the source runs {} task(s), {} 2: {}", a.src_running, a.src_running <= 2 ? "<=" : ">",
                         outcome);
    case imbalance_rule::v5_10:
      return fmt::format("the destination runs {} task(s), {} 2: {}", a.dst_running, a.dst_running <= 2 ? "<=" : ">",
                         outcome);
    case imbalance_rule::v5_11:
      test = fmt::format("dst_running {} {} dst_weight/4 = {}", a.dst_running,
                         a.dst_running < (a.dst_weight >> 2) ? "<" : ">=", a.dst_weight >> 2);
      if (!(a.dst_running < (a.dst_weight >> 2))) return fmt::format("{}: {}", test, outcome);
      break;
    case imbalance_rule::v5_18:
      test = fmt::format("dst_running {} {} imb_numa_nr {}", a.dst_running,
                         a.dst_running < a.imb_numa_nr ? "<" : ">=", a.imb_numa_nr);
      if (!(a.dst_running < a.imb_numa_nr)) return fmt::format("{}: {}", test, outcome);
      break;
    case imbalance_rule::v5_19:
      test = fmt::format("dst_running {} {} imb_numa_nr {}", a.dst_running, a.dst_running <= a.imb_numa_nr ? "<=" : ">",
                         a.imb_numa_nr);
      if (!(a.dst_running <= a.imb_numa_nr)) return fmt::format("{}: {}", test, outcome);
      break;
  }
  return fmt::format("{} and imbalance {} {} 2: {}", test, a.imbalance, a.imbalance <= 2 ? "<=" : ">", outcome);
}

// ---------------------------------------------------------------------------------------------

template <class Placement>
void fill_report(const Placement& pl, const explain_input& in, explain_report& r) {
  const auto& c = pl.topology().classification_info();
  r.kind = Placement::kind;
  r.levels.assign(c.levels.begin(), c.levels.end());
  r.local_distance = c.local_distance;
  r.max_distance = c.max_distance;
  for (const distance_t d : c.levels) {
    if (d > c.local_distance) r.levels_above_local.push_back(d);
  }

  const std::vector<std::uint64_t> task_memory = memory_counters(in.task_faults);
  const std::vector<std::uint64_t> group_memory =
      in.group_faults ? memory_counters(*in.group_faults) : std::vector<std::uint64_t>{};
  decision_input di;
  di.task = fault_view{task_memory, {}, total_of(in.task_faults)};
  if (in.group_faults) di.group = fault_view{group_memory, {}, total_of(*in.group_faults)};

  r.task = report_faults(pl, in.task_faults, di.task, r.levels_above_local);
  if (in.group_faults) r.group = report_faults(pl, *in.group_faults, di.group, r.levels_above_local);

  const node_index nid = pl.preferred_node(di);
  r.preferred_nid = nid == no_node ? -1 : static_cast<long long>(nid);
  r.why = why(pl, in, di, nid);
}

nlohmann::ordered_json per_level(const explain_report& r, const std::vector<std::vector<std::uint64_t>>& values) {
  nlohmann::ordered_json o = nlohmann::ordered_json::object();
  for (std::size_t k = 0; k < r.levels_above_local.size(); ++k) o[std::to_string(r.levels_above_local[k])] = values[k];
  return o;
}

// A right-aligned table: a header row and rows of cells.
void print_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) width[i] = header[i].size();
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  const auto print_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t i = 0; i < cells.size(); ++i)
      line += fmt::format("{}{:>{}}", i == 0 ? "" : "  ", cells[i], width[i]);
    fmt::print("{}\n", line);
  };
  print_row(header);
  for (const auto& row : rows) print_row(row);
}

void print_faults(const explain_report& r, const fault_report& f, std::string_view who) {
  fmt::print(
      "\n{} faults (total {}); nearby: score_nearby_nodes(node, dist); weight: {}_weight(node, dist), per mille\n", who,
      f.total, who);
  std::vector<std::string> header{"node", "shared", "private", "faults"};
  for (const distance_t d : r.levels_above_local) header.push_back(fmt::format("nearby@{}", d));
  for (const distance_t d : r.levels_above_local) header.push_back(fmt::format("weight@{}", d));
  std::vector<std::vector<std::string>> rows;
  for (std::size_t n = 0; n < f.faults.size(); ++n) {
    std::vector<std::string> row{std::to_string(n), std::to_string(f.faults[n].shared),
                                 std::to_string(f.faults[n].private_faults), std::to_string(faults_on(f.faults[n]))};
    for (const auto& level : f.nearby) row.push_back(std::to_string(level[n]));
    for (const auto& level : f.weight) row.push_back(std::to_string(level[n]));
    rows.push_back(std::move(row));
  }
  print_table(header, rows);
}

std::string imbalance_arguments(const imbalance_question& q) {
  using numaplace::imbalance_rule;
  const auto& a = q.args;
  switch (q.rule) {
    case imbalance_rule::v5_5:
      return "none";
    case imbalance_rule::v5_7:
      return fmt::format("src_running {}", a.src_running);
    case imbalance_rule::v5_10:
      return fmt::format("dst_running {}", a.dst_running);
    case imbalance_rule::v5_11:
      return fmt::format("dst_running {}, dst_weight {}", a.dst_running, a.dst_weight);
    case imbalance_rule::v5_18:
    case imbalance_rule::v5_19:
      break;
  }
  return fmt::format("dst_running {}, imb_numa_nr {}", a.dst_running, a.imb_numa_nr);
}

}  // namespace

std::vector<std::string> stack_names() {
  std::vector<std::string> names;
  numaplace::for_each_stack([&](std::string_view name, auto) { names.emplace_back(name); });
  return names;
}

explain_report make_explain_report(const explain_input& in, const std::string& stack_name) {
  explain_report r;
  r.stack = stack_name;
  const bool found =
      numaplace::with_named_placement(stack_name, in.topology, [&](const auto& pl) { fill_report(pl, in, r); });
  if (!found) {
    throw usage_error(fmt::format("unknown stack '{}'; valid stacks: {}", stack_name, fmt::join(stack_names(), ", ")));
  }
  for (const imbalance_question& q : in.imbalance) {
    const long result = adjust(q);
    r.imbalance.push_back({q, result, imbalance_reason(q, result)});
  }
  return r;
}

nlohmann::ordered_json explain_json(const explain_report& r) {
  using json = nlohmann::ordered_json;
  json nearby = {{"task", per_level(r, r.task.nearby)}};
  if (r.group) nearby["group"] = per_level(r, r.group->nearby);
  json out = {{"stack", r.stack},       {"kind", std::string(numaplace::to_string(r.kind))},
              {"levels", r.levels},     {"max_distance", r.max_distance},
              {"score_nearby", nearby}, {"task_weight", per_level(r, r.task.weight)}};
  if (r.group) out["group_weight"] = per_level(r, r.group->weight);
  out["preferred_nid"] = r.preferred_nid;
  out["why"] = r.why;
  json imbalance = json::array();
  for (const imbalance_answer& a : r.imbalance) imbalance.push_back(a.result);
  out["imbalance"] = imbalance;
  stamp_json(out, "numaplace-explain", 1);
  return out;
}

void print_explain_text(const explain_report& r) {
  fmt::print("stack:          {}\n", r.stack);
  fmt::print("kind:           {}\n", numaplace::to_string(r.kind));
  fmt::print("levels:         {}\n", fmt::join(r.levels, " "));
  fmt::print("max distance:   {}\n", r.max_distance);
  print_faults(r, r.task, "task");
  if (r.group) print_faults(r, *r.group, "group");
  fmt::print("\n");
  if (r.preferred_nid < 0) {
    fmt::print("preferred node: none (-1)\n");
  } else {
    fmt::print("preferred node: {}\n", r.preferred_nid);
  }
  fmt::print("why:            {}\n", r.why);
  if (!r.imbalance.empty()) {
    fmt::print("\nadjust_numa_imbalance():\n");
    for (const imbalance_answer& a : r.imbalance) {
      fmt::print("  {:<6} imbalance {}, {} -> {}  ({})\n", a.question.variant, a.question.args.imbalance,
                 imbalance_arguments(a.question), a.result, a.reason);
    }
  }
}

}  // namespace numaplace_cli
