// Generator specs (`--generate`): each spec builds what its generator builds, and a bad spec
// names the part that is wrong.
#include <doctest/doctest.h>

#include <numaplace/topology/error.hpp>
#include <numaplace/topology/generator_spec.hpp>
#include <numaplace/topology/generators.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

using namespace numaplace;

namespace {

bool same_machine(const dynamic_topology& a, const dynamic_topology& b) {
  if (a.node_count() != b.node_count()) return false;
  for (node_index i = 0; i < a.node_count(); ++i) {
    if (a.memory_bytes(i) != b.memory_bytes(i) || !std::equal(a.cpus(i).begin(), a.cpus(i).end(), b.cpus(i).begin(), b.cpus(i).end())) return false;
    for (node_index j = 0; j < a.node_count(); ++j) {
      if (a.distance(i, j) != b.distance(i, j)) return false;
    }
  }
  return true;
}

std::string error_of(const std::string& spec) {
  try {
    (void)generate::from_spec(spec);
  } catch (const topology_error& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("each generator by its spec, defaults included") {
  CHECK(same_machine(generate::from_spec("ring:8"), generate::ring(8)));
  CHECK(same_machine(generate::from_spec("ring:4:15"), generate::ring(4, 15)));
  CHECK(same_machine(generate::from_spec("fully-connected:4:21"), generate::fully_connected(4, 21)));
  CHECK(same_machine(generate::from_spec("backplane:2x4"), generate::two_level_backplane(2, 4)));
  CHECK(same_machine(generate::from_spec("backplane:2x4:12:20"), generate::two_level_backplane(2, 4, 12, 20)));
  CHECK(same_machine(generate::from_spec("ladder:4"), generate::ladder(4, false)));
  CHECK(same_machine(generate::from_spec("twisted-ladder:4:8"), generate::ladder(4, true, 8)));
  const generate::level levels[] = {{2, 11}, {4, 20}};
  CHECK(same_machine(generate::from_spec("hierarchical:2@11,4@20"), generate::hierarchical(levels)));
  const std::pair<std::size_t, std::size_t> links[] = {{0, 1}, {1, 2}};
  CHECK(same_machine(generate::from_spec("links:3:10:0-1,1-2"), generate::from_links(3, links, 10)));
}

TEST_CASE("CPUs and memory per node") {
  const dynamic_topology t = generate::from_spec("ring:4/cpus=3/memory=2G");
  CHECK(t.cpus(1).size() == 3);
  CHECK(t.cpus(1).front() == 3);
  CHECK(t.memory_bytes(3) == (std::uint64_t{2} << 30));
  CHECK(same_machine(t, generate::ring(4, 10, {3, std::uint64_t{2} << 30})));
  CHECK(generate::from_spec("ring:2/memory=4096").memory_bytes(0) == 4096);
}

TEST_CASE("a bad spec names the part that is wrong") {
  CHECK(error_of("torus:4") == "generator spec 'torus:4': 'torus': unknown generator; expected ring, fully-connected, "
                               "backplane, ladder, twisted-ladder, hierarchical or links");
  CHECK(error_of("ring") == "generator spec 'ring': 'ring': ring takes 1 to 2 parameters, got 0");
  CHECK(error_of("ring:x") == "generator spec 'ring:x': 'x': node count 'x' is not a whole number");
  CHECK(error_of("ring:4:300") == "generator spec 'ring:4:300': '300': distance per hop 300 is larger than 255");
  CHECK(error_of("backplane:2y4") == "generator spec 'backplane:2y4': '2y4': expected GROUPSxNODES_PER_GROUP, e.g. 2x4");
  CHECK(error_of("hierarchical:2@11,4") == "generator spec 'hierarchical:2@11,4': '4': expected FANOUT@DISTANCE, e.g. 2@11");
  CHECK(error_of("ring:4/cpu=2") == "generator spec 'ring:4/cpu=2': 'cpu=2': expected cpus=N or memory=SIZE after '/'");
  CHECK(error_of("ring:4/memory=2X") == "generator spec 'ring:4/memory=2X': 'memory=2X': memory size '2X' is not a whole number");
  CHECK(error_of("links:3:10:0-5") == "generator links: link 0-5 names a node beyond 2");
  CHECK(error_of("ring:0").find("needs at least one node") != std::string::npos);
}

TEST_CASE("a generated machine numbers no CPU past what every reader accepts") {
  // 20 x 4096 CPUs would be numbered up to 81919; `topo --json` would write a file that
  // `topo --file` refuses (a CPU number is at most max_cpu_number).
  CHECK(error_of("fully-connected:20/cpus=4096") ==
        "generator fully_connected: 20 nodes of 4096 CPUs are 81920 CPUs, more than the 65536 a machine may number (0-65535)");
  CHECK(error_of("fully-connected:1024/cpus=4096").find("4194304 CPUs") != std::string::npos);
  const dynamic_topology largest = generate::from_spec("fully-connected:16/cpus=4096");
  CHECK(largest.cpus(15).back() == max_cpu_number);
}

TEST_CASE("a long spec is quoted by its start and length, not whole") {
  const std::string word(2'000'000, 'x');
  const std::string m = error_of("ring:" + word);
  CHECK(m.size() < 300);
  CHECK(m.find("(2000000 characters)") != std::string::npos);
  CHECK(m.find("(2000005 characters)") != std::string::npos);
}
