#pragma once
// The library's neighbour circles (numaplace/topology/neighbour_circles.hpp), under the names
// the CLI's printers use.

#include <numaplace/topology/neighbour_circles.hpp>

namespace numaplace_cli {

using circle = numaplace::neighbour_circle;
using numaplace::neighbour_circles;

}  // namespace numaplace_cli
