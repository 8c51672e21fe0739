#pragma once
// The simulator: a deterministic NUMA machine model driving placement stacks (not included
// by numaplace.hpp; runtimes do not need it).

#include "sim/cost_model.hpp"
#include "sim/engine.hpp"
#include "sim/experiment.hpp"
#include "sim/result.hpp"
#include "sim/seed_presets.hpp"
#include "sim/workload.hpp"
