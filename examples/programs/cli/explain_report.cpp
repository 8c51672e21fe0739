#include "explain_report.hpp"

#include <numaplace/formats/json_stamp.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstddef>
#include <numaplace/policy/imbalance_by_rule.hpp>
#include <numaplace/policy/trace.hpp>
#include <numaplace/stacks.hpp>
#include <numaplace/stats/fault_view.hpp>
#include <span>
#include <string_view>
#include <utility>
#include <variant>

#include "exit_codes.hpp"

namespace numaplace_cli {

namespace {

using numaplace::decision_input;
using numaplace::decision_step;
using numaplace::distance_t;
using numaplace::fault_view;
using numaplace::no_node;
using numaplace::node_index;
using numaplace::numa_kind;

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
// Why: the steps the stack's policies recorded (numaplace/policy/trace.hpp), in words. Every
// fact comes from the trace; nothing here knows a kernel rule.

template <class... F>
struct overloaded : F... {
  using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;

std::string node_set(const std::vector<node_index>& nodes) { return fmt::format("{{{}}}", fmt::join(nodes, ",")); }

std::string preferred_reason(std::span<const decision_step> trace, node_index chosen) {
  namespace steps = numaplace::steps;
  std::vector<std::string> clauses;
  std::vector<std::string> levels;  // consecutive backplane levels make one clause
  const auto end_levels = [&] {
    if (levels.empty()) return;
    clauses.push_back(fmt::format("the group's faults narrowed level by level: {}", fmt::join(levels, ", ")));
    levels.clear();
  };
  for (const decision_step& step : trace) {
    if (!std::holds_alternative<steps::narrowed>(step)) end_levels();
    std::visit(overloaded{
                   [&](const steps::places_no_task&) {
                     clauses.emplace_back("this stack places no task by its faults (pages move to their tasks instead)");
                   },
                   [&](const steps::fault_maximum& s) {
                     const bool task = s.owner == numaplace::fault_owner::task;
                     if (s.node == no_node) {
                       clauses.push_back(task ? "the task's own faults are all zero" : "the group's faults are all zero");
                     } else {
                       clauses.push_back(fmt::format("node {} has the most {} faults ({} of {})", s.node,
                                                     task ? "task" : "group", s.faults, s.total));
                     }
                   },
                   [&](const steps::nearest_cpu_node& s) {
                     clauses.push_back(
                         fmt::format("node {} has no CPUs, so node {}, the nearest that has, stands in", s.from, s.node));
                   },
                   [&](const steps::gated_on_task_faults&) {
                     clauses.emplace_back(
                         "this kernel decides only when the task has faults of its own, even for a task in a group");
                   },
                   [&](const steps::group_choice_applies&) {
                     clauses.emplace_back("the task has faults of its own, so the group's choice applies");
                   },
                   [&](const steps::combined_weight& s) {
                     clauses.push_back(fmt::format(
                         "node {} has the highest task weight + group weight counting nearby nodes ({} + {} per mille at "
                         "distance {})",
                         s.node, s.task_weight, s.group_weight, s.distance));
                   },
                   [&](const steps::group_weight& s) {
                     clauses.push_back(fmt::format(
                         "node {} has the highest group weight counting nearby nodes ({} per mille at distance {})",
                         s.node, s.weight, s.distance));
                   },
                   [&](const steps::narrowed& s) {
                     levels.push_back(fmt::format("{} at distance {} ({} of {})", node_set(s.nodes), s.distance, s.faults,
                                                  s.of));
                   },
                   [](const steps::comparison&) {},
                   [](const steps::imbalance_outcome&) {},
               },
               step);
  }
  end_levels();
  const std::string reason = fmt::format("{}", fmt::join(clauses, "; "));
  return chosen == no_node ? "no preferred node: " + reason : reason;
}

// A relation that did not hold, as the one that did.
std::string_view negated(std::string_view relation) {
  if (relation == "<=") return ">";
  if (relation == "<") return ">=";
  if (relation == ">=") return "<";
  if (relation == ">") return "<=";
  return relation;
}

std::string imbalance_reason(std::span<const decision_step> trace) {
  namespace steps = numaplace::steps;
  std::vector<std::string> tests;
  std::string outcome;
  for (const decision_step& step : trace) {
    if (const auto* c = std::get_if<steps::comparison>(&step)) {
      const std::string_view right = c->right;
      tests.push_back(fmt::format("{} {} {} {}{}", c->left, c->left_value, c->holds ? c->relation : negated(c->relation),
                                  right.empty() ? std::string() : fmt::format("{} ", right), c->right_value));
    } else if (const auto* o = std::get_if<steps::imbalance_outcome>(&step)) {
      outcome = o->result == o->imbalance ? "kept" : "forgiven";
    }
  }
  if (tests.empty()) return fmt::format("no NUMA allowance: {}", outcome);
  return fmt::format("{}: {}", fmt::join(tests, " and "), outcome);
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

  pl.trace().clear();
  const node_index nid = pl.preferred_node(di);
  r.preferred_nid = nid == no_node ? -1 : static_cast<long long>(nid);
  r.why = preferred_reason(pl.trace().steps(), nid);
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

// What the question's rule reads besides the imbalance, "none" when nothing.
std::string imbalance_arguments(const imbalance_question& q) {
  std::vector<std::string> read;
  for (const auto& in : numaplace::inputs_read_by(q.rule, q.args)) {
    read.push_back(fmt::format("{} {}", in.name, in.value));
  }
  return read.empty() ? "none" : fmt::format("{}", fmt::join(read, ", "));
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
  numaplace::decision_trace trace;
  const bool found = numaplace::with_stack(stack_name, [&](auto stack) {
    numaplace::with_traced_placement<typename decltype(stack)::type>(in.topology, trace,
                                                                      [&](const auto& pl) { fill_report(pl, in, r); });
  });
  if (!found) {
    throw usage_error(fmt::format("unknown stack '{}'; valid stacks: {}", stack_name, fmt::join(stack_names(), ", ")));
  }
  for (const imbalance_question& q : in.imbalance) {
    trace.clear();
    const long result = numaplace::adjust_imbalance_by_rule(q.rule, q.args, trace);
    r.imbalance.push_back({q, result, imbalance_reason(trace.steps())});
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
  numaplace::formats::stamp_json(out, "numaplace-explain", 1);
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
