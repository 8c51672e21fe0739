#pragma once
// The topology layer: concept, static and dynamic topologies, classification, generators, presets.

#include "topology/classify.hpp"
#include "topology/concept.hpp"
#include "topology/dynamic_topology.hpp"
#include "topology/error.hpp"
#include "topology/generators.hpp"
#include "topology/levels.hpp"
#include "topology/presets.hpp"
#include "topology/static_topology.hpp"
#include "topology/types.hpp"
#include "topology/validate.hpp"
