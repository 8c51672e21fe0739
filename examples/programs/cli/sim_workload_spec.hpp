#pragma once
// `numaplace sim --workload SPEC`: workload spec strings, validated. (The bindings a custom
// workload gets for the binding baselines are the library's: sim/binding.hpp.)

#include <cstddef>
#include <string>

#include <numaplace/formats/workload_bounds.hpp>
#include <numaplace/sim/workload.hpp>

namespace numaplace_cli {

/// The most tasks a custom workload may have: an experiment file's bound.
using numaplace::formats::max_sim_tasks;

/// The accepted forms, for messages and --help.
inline constexpr const char* workload_spec_forms =
    "specjbb:JVMS:WAREHOUSES[:SECONDS], numa01:THREADS, numa01_thread_alloc:THREADS, numa02:THREADS, make:J[:JOBS], "
    "stream:THREADS[:ARRAY_SIZE[:NTIMES]], mpi:RANKS[:MIB_PER_RANK[:SWEEPS]]";

/// Builds the workload `spec` names. Throws usage_error, naming the spec and the bad field.
numaplace::sim::workload parse_workload_spec(const std::string& spec);

/// "specjbb: 2 processes, 160 tasks, 60 s" and the like.
std::string describe_workload(const numaplace::sim::workload& w);

}  // namespace numaplace_cli
