#pragma once
// Fault statistics: recording, decay, the views decisions read, and numa_groups.

#include "stats/active_nodes.hpp"
#include "stats/fault_stats.hpp"
#include "stats/fault_view.hpp"
#include "stats/numa_group.hpp"
