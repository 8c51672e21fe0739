#include "sim_report_csv.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace numaplace_cli {

namespace sim = numaplace::sim;

namespace {

// RFC 4180: quote a field holding a comma, a quote or a line break.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string csv_nodes(const std::vector<numaplace::node_id>& ids) {
  std::string out;
  for (auto id : ids) out += (out.empty() ? "" : " ") + std::to_string(id);
  return out;
}

}  // namespace

void print_sim_csv(const sim::sweep_report& r) {
  fmt::print(
      "experiment,workload,stack,run,seed,group,program,throughput,elapsed_seconds,local_fraction,task_migrations,"
      "page_migrations,balancer_seconds,converged_seconds,memory_nodes,task_nodes,memory_in_one_node_group\n");
  for (const auto& p : r.presets) {
    for (const auto& e : p.experiments) {
      const auto programs = sim::programs_of(e);
      // The label reports use for a group's program (sim::programs_of): "db", or "jvm*".
      const auto program_label = [&](const sim::group_result& g) {
        for (const auto& prog : programs) {
          if (sim::runs_program(g, &prog)) return prog.label;
        }
        return g.name;
      };
      for (const auto& s : e.stacks) {
        for (std::size_t i = 0; i < s.runs.size(); ++i) {
          for (const auto& g : s.runs[i].groups) {
            fmt::print("{},{},{},{},{},{},{},{:.2f},{:.3f},{:.4f},{},{},{:.3f},{:.1f},{},{},{}\n", csv_field(p.name),
                       csv_field(e.name), csv_field(s.stack), s.run_index[i], s.run_seed[i], csv_field(g.name),
                       csv_field(program_label(g)),                       g.throughput, g.elapsed_seconds, g.local_fraction, g.task_migrations, g.page_migrations,
                       g.balancer_seconds, g.converged_seconds, csv_nodes(g.memory_nodes), csv_nodes(sim::task_nodes(g, e.topology)),
                       sim::within_one_node_group(e.topology, g.memory_nodes) ? 1 : 0);
          }
        }
      }
    }
  }
}

}  // namespace numaplace_cli
