// OMP_PLACES strings and OMP_PROC_BIND advice, exactly, on machines of several shapes.
#include <doctest/doctest.h>

#include <numaplace/adapters/openmp_places.hpp>
#include <numaplace/topology/dynamic_topology.hpp>
#include <numaplace/topology/presets.hpp>

#include <stdexcept>
#include <string>
#include <vector>

using namespace numaplace;
using adapters::node_cpu_lists;

namespace {
dynamic_topology preset(const char* name) { return presets::find(name)->build(); }
const std::string seed000_all = "{0:20},{20:20},{40:20},{60:20},{80:20},{100:20},{120:20},{140:20}";
}  // namespace

TEST_CASE("a place lists a node's CPUs as ranges where they are contiguous") {
  const std::vector<unsigned> four{0, 1, 2, 3}, split{8, 9, 10, 11, 0, 1, 2, 3}, odd{1, 3, 5, 7}, one{5},
      mixed{0, 1, 2, 7, 9, 10, 10};
  CHECK(adapters::omp_place(four) == "{0:4}");
  CHECK(adapters::omp_place(split) == "{0:4,8:4}");
  CHECK(adapters::omp_place(odd) == "{1,3,5,7}");
  CHECK(adapters::omp_place(one) == "{5}");
  CHECK(adapters::omp_place(mixed) == "{0:3,7,9:2}");
  CHECK(adapters::omp_place({}).empty());
}

TEST_CASE("a 2-socket box: one place per node, the start node first") {
  const dynamic_topology t = presets::detail::with_shape(presets::two_socket, 4, presets::gib);
  CHECK(adapters::circle_order(t, 0) == std::vector<node_index>{0, 1});
  CHECK(adapters::omp_places(t, adapters::circle_order(t, 0)) == "{0:4},{4:4}");
  CHECK(adapters::omp_places(t, adapters::circle_order(t, 1)) == "{4:4},{0:4}");
}

TEST_CASE("seed000's 8-node backplane: places follow the circles around the start node") {
  const dynamic_topology t = preset("seed000-8node");
  REQUIRE(t.kind() == numa_kind::backplane);
  CHECK(adapters::omp_places(t, adapters::circle_order(t, 0)) == seed000_all);
  // Node 5: its quad partner 4 (12), the rest of its quad 6 7 (17), then the other quad (19).
  CHECK(adapters::circle_order(t, 5) == std::vector<node_index>{5, 4, 6, 7, 0, 1, 2, 3});
  CHECK(adapters::omp_places(t, adapters::circle_order(t, 5)) ==
        "{100:20},{80:20},{120:20},{140:20},{0:20},{20:20},{40:20},{60:20}");
  // The compile-time matrix gives the same order as the run-time preset.
  CHECK(adapters::circle_order(presets::seed000_8node, 5) == adapters::circle_order(t, 5));
}

TEST_CASE("CPU-less nodes get no place") {
  // POWER9 AC922: CPU nodes 0 and 8 (indices 0, 1), six GPU-memory nodes without CPUs.
  const dynamic_topology t = preset("ibm-power9-gpu");
  CHECK(adapters::omp_places(t, adapters::circle_order(t, 1)) == "{88:88},{0:88}");
  // From a GPU-memory node: itself first in the circles, but it has no CPU to place.
  CHECK(adapters::circle_order(t, 3).front() == 3);
  CHECK(adapters::omp_places(t, adapters::circle_order(t, 3)) == "{0:88},{88:88}");
  const auto b = adapters::advise_openmp(t, 3, 8);
  CHECK(b.places == "{0:88}");
  CHECK(b.nodes == std::vector<node_index>{0});
}

TEST_CASE("explicit per-node CPU lists: what this process may use, interleaved numbering") {
  // Firmware that numbers CPUs round-robin over two sockets, one CPU of node 1 hidden by a cpuset.
  const node_cpu_lists cpus{{0, 2, 4, 6}, {1, 5, 7}};
  const std::vector<node_index> order{1, 0};
  CHECK(adapters::omp_places(cpus, order) == "{1,5,7},{0,2,4,6}");
  const node_cpu_lists none_usable_on_0{{}, {1, 5, 7}};
  CHECK(adapters::omp_places(none_usable_on_0, order) == "{1,5,7}");
}

TEST_CASE("OMP_PROC_BIND advice: close inside one node, spread over the nodes a team needs") {
  const dynamic_topology t = preset("seed000-8node");
  SUBCASE("16 threads fit node 0's 20 CPUs") {
    const auto b = adapters::advise_openmp(t, 0, 16);
    CHECK(b.places == "{0:20}");
    CHECK(b.proc_bind == "close");
    CHECK_FALSE(b.oversubscribed);
  }
  SUBCASE("exactly one node's CPUs") {
    CHECK(adapters::advise_openmp(t, 6, 20).places == "{120:20}");
    CHECK(adapters::advise_openmp(t, 6, 20).proc_bind == "close");
  }
  SUBCASE("30 threads from node 6: node 6 and its quad partner 7") {
    const auto b = adapters::advise_openmp(t, 6, 30);
    CHECK(b.places == "{120:20},{140:20}");
    CHECK(b.proc_bind == "spread");
    CHECK(b.nodes == std::vector<node_index>{6, 7});
  }
  SUBCASE("50 threads from node 0 reach the next circle, 2 and 3") {
    CHECK(adapters::advise_openmp(t, 0, 50).places == "{0:20},{20:20},{40:20}");
  }
  SUBCASE("more threads than the machine has CPUs") {
    const auto b = adapters::advise_openmp(t, 0, 161);
    CHECK(b.places == seed000_all);
    CHECK(b.proc_bind == "spread");
    CHECK(b.oversubscribed);
  }
}

TEST_CASE("bad input names what was wrong") {
  const dynamic_topology t = preset("seed000-8node");
  const auto message = [](auto&& f) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message([&] { (void)adapters::circle_order(t, 8); }) ==
        "circle_order: start node index 8 is not in the 8-node topology");
  const std::vector<node_index> twice{0, 1, 0};
  CHECK(message([&] { (void)adapters::omp_places(t, twice); }) ==
        "OpenMP places: node index 0 appears twice in the node order");
  const std::vector<node_index> beyond{0, 9};
  CHECK(message([&] { (void)adapters::omp_places(t, beyond); }) ==
        "OpenMP places: node index 9 is not in the 8-node topology");
  const node_cpu_lists empty(8);
  const std::vector<node_index> all{0, 1, 2, 3, 4, 5, 6, 7};
  CHECK(message([&] { (void)adapters::omp_places(empty, all); }) == "OpenMP places: no node in the order has a CPU");
  CHECK(message([&] { (void)adapters::advise_openmp(t, 0, 0); }) ==
        "advise_openmp: a team needs at least one thread");
  CHECK(message([&] { (void)adapters::advise_openmp(t, node_cpu_lists(3), 0, 4); }) ==
        "advise_openmp: 3 CPU lists for 8 nodes");
}
