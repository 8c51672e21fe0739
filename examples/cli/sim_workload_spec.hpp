#pragma once
// `numaplace sim --workload SPEC`: workload spec strings, validated, and the bindings a custom
// workload gets for the hard-binding baseline.

#include <cstddef>
#include <string>

#include <numaplace/sim/workload.hpp>
#include <numaplace/topology/dynamic_topology.hpp>

namespace numaplace_cli {

/// The most tasks (threads over all processes) a custom workload may have.
inline constexpr std::size_t max_sim_tasks = 100000;

/// The accepted forms, for messages and --help.
inline constexpr const char* workload_spec_forms =
    "specjbb:JVMS:WAREHOUSES[:SECONDS], numa01:THREADS, numa01_thread_alloc:THREADS, numa02:THREADS, make:J[:JOBS]";

/// Builds the workload `spec` names. Throws usage_error, naming the spec and the bad field.
numaplace::sim::workload parse_workload_spec(const std::string& spec);

/// Gives every process without bind_nodes some: processes take nodes with CPUs in turn, round
/// robin, each as many as its threads need (a node without a CPU list counts
/// `default_cpus_per_node`), at least one, at most all.
void derive_bindings(numaplace::sim::workload& w, const numaplace::dynamic_topology& t, unsigned default_cpus_per_node);

/// "specjbb: 2 processes, 160 tasks, 60 s" and the like.
std::string describe_workload(const numaplace::sim::workload& w);

}  // namespace numaplace_cli
