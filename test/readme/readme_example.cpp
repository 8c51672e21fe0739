#include <numaplace/numaplace.hpp>

#include <iostream>

// A machine described at compile time: the compiler validates the matrix (a bad one does not
// compile) and classifies it as the Linux scheduler would.
constexpr auto two_quads = numaplace::make_static_topology({
    {10, 12, 32, 32},
    {12, 10, 32, 32},
    {32, 32, 10, 12},
    {32, 32, 12, 10},
});
static_assert(two_quads.kind() == numaplace::numa_kind::backplane);
static_assert(two_quads.max_distance() == 32);

int main() {
  // A machine described at run time from a few parameters: four nodes in a ring, 10 per hop.
  const numaplace::dynamic_topology ring = numaplace::generate::ring(4, 10);
  std::cout << "ring of 4: " << to_string(ring.kind()) << ", farthest node at "
            << ring.max_distance() << '\n';  // glueless_mesh, 30
  std::cout << "node 0's neighbours, nearest first:";
  for (numaplace::node_index n : ring.neighbours(0)) std::cout << ' ' << n;  // 0 1 3 2
  std::cout << '\n';
  return ring.kind() == numaplace::numa_kind::glueless_mesh ? 0 : 1;
}
