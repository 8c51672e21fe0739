#pragma once
// The lean include set for decision-only users: what task_numa_placement() and
// task_numa_migrate() decisions need (topologies, the decision inputs, the composer and the
// named stacks), without the statistics' recording side (fault_stats, numa_group), the
// topology readers and generators, or the simulator. A decision's inputs are a view of the
// caller's own fault counts (stats/fault_view.hpp). numaplace.hpp is the full set.

#include "placement.hpp"
#include "stacks.hpp"
#include "topology/dynamic_topology.hpp"
#include "topology/static_topology.hpp"
