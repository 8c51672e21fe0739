#pragma once
// Every placement policy; stacks.hpp composes them into the kernels' stacks.

#include "policy/arithmetic.hpp"
#include "policy/capacity_check.hpp"
#include "policy/concentric_spread.hpp"
#include "policy/fault_scoring.hpp"
#include "policy/group_preferred_pull.hpp"
#include "policy/hooks.hpp"
#include "policy/imbalance_adjustment.hpp"
#include "policy/inputs.hpp"
#include "policy/neighbour_weighting.hpp"
#include "policy/preferred_settling.hpp"
#include "policy/shared_interleave.hpp"
