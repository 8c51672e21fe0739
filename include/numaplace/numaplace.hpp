#pragma once
// numaplace: NUMA task placement as the Linux kernel decides it, as a header-only library.
// The umbrella header for embedding: topologies, statistics, policies, the composer and the
// named stacks. The simulator has its own (numaplace/sim.hpp); each part can also be
// included on its own.

#include "placement.hpp"
#include "policy.hpp"
#include "stacks.hpp"
#include "stats.hpp"
#include "topology.hpp"
