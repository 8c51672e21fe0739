// Planted for decide.lean.catches_planted: decide.hpp's set plus the statistics' recording side,
// reached through a `..` path as a policy header would reach it. The lean guard must refuse it.
#include <numaplace/decide.hpp>
#include <numaplace/policy/../stats/fault_stats.hpp>
