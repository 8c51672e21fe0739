#pragma once
// The topology layer: concept, static and dynamic topologies, classification, generators, presets,
// and the loaders (matrix text, numactl output, sysfs).

#include "topology/check_topology.hpp"
#include "topology/classify.hpp"
#include "topology/concept.hpp"
#include "topology/cpulist.hpp"
#include "topology/dynamic_topology.hpp"
#include "topology/error.hpp"
#include "topology/generators.hpp"
#include "topology/levels.hpp"
#include "topology/load_file.hpp"
#include "topology/load_matrix.hpp"
#include "topology/load_numactl.hpp"
#include "topology/load_sysfs.hpp"
#include "topology/presets.hpp"
#include "topology/static_topology.hpp"
#include "topology/types.hpp"
#include "topology/validate.hpp"
