#pragma once
// How large a workload an experiment may describe, in an experiment file or a workload spec:
// far beyond any experiment a simulation finishes, so that a hostile input's work stays
// bounded. Part of numaplace::formats (format_error.hpp); standard library only.

#include <cstddef>

namespace numaplace::formats {

/// The most tasks (threads over all processes) a workload may have.
inline constexpr std::size_t max_sim_tasks = 100000;

}  // namespace numaplace::formats
