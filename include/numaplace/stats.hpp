#pragma once
// Fault statistics: recording, decay and the views decisions read.

#include "stats/active_nodes.hpp"
#include "stats/fault_stats.hpp"
#include "stats/fault_view.hpp"
