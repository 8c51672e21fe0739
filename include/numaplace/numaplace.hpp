#pragma once
// numaplace: NUMA task placement as the Linux kernel decides it, as a header-only library.
// The umbrella header; each part can also be included on its own.

#include "placement.hpp"
#include "stacks.hpp"
#include "topology.hpp"
