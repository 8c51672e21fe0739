// A new job's nodes (job_nodes.hpp) and its demand as numad's -w writes it (job_demand.hpp):
// whole distance circles around the best centre, memory deciding only when the machine says
// how much each node has.
#include <doctest/doctest.h>

#include <numaplace/topology/job_demand.hpp>
#include <numaplace/topology/job_nodes.hpp>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

using namespace numaplace;

namespace {

constexpr std::uint64_t mib = 1024 * 1024;

// Two pairs of nodes: 20 within a pair, 30 across.
dynamic_topology two_pairs() {
  return dynamic_topology({{10, 20, 30, 30}, {20, 10, 30, 30}, {30, 30, 10, 20}, {30, 30, 20, 10}});
}

node_supply four_cpus_each(std::vector<std::uint64_t> free_mib) {
  node_supply s;
  for (const std::uint64_t m : free_mib) {
    s.cpus.push_back(4);
    s.free_bytes.push_back(m * mib);
  }
  s.memory_known = true;
  return s;
}

std::string complaint(const std::string& text) {
  try {
    parse_job_demand(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("a demand is NCPUS or NCPUS:MB, whole numbers, at least one CPU") {
  const job_demand cpus_only = parse_job_demand("4");
  CHECK(cpus_only.cpus == 4);
  CHECK_FALSE(cpus_only.mib.has_value());
  const job_demand both = parse_job_demand("4:2048");
  CHECK(both.cpus == 4);
  CHECK(both.mib == 2048u);
  // Each complaint starts with the demand, so that a caller can say which option it came from.
  CHECK(complaint("0") == "0: asks for 0 CPUs; a job needs at least one");
  CHECK(complaint("4:") == "4:: the memory (MB) is missing (expected NCPUS[:MB], e.g. 4 or 4:2048)");
  CHECK(complaint("1.5") == "1.5: CPU count '1.5' is not a whole number (expected NCPUS[:MB], e.g. 4 or 4:2048)");
  CHECK(complaint("4:-1") == "4:-1: memory (MB) '-1' is not a whole number (expected NCPUS[:MB], e.g. 4 or 4:2048)");
  CHECK(complaint("99999999999") == "99999999999: CPU count 99999999999 is too large");
}

TEST_CASE("a job that fits one node gets one node, the lowest on a tie") {
  const auto t = two_pairs();
  const job_nodes n = choose_job_nodes(t, four_cpus_each({1024, 1024, 1024, 1024}), parse_job_demand("4:512"));
  CHECK(n.enough);
  CHECK(n.nodes == std::vector<node_index>{0});
  CHECK(n.reach == 10);
}

TEST_CASE("a larger job takes whole circles: its pair, then the other pair together") {
  const auto t = two_pairs();
  const node_supply s = four_cpus_each({1024, 1024, 1024, 1024});
  const job_nodes pair = choose_job_nodes(t, s, parse_job_demand("6"));
  CHECK(pair.nodes == std::vector<node_index>{0, 1});
  CHECK(pair.reach == 20);
  const job_nodes all = choose_job_nodes(t, s, parse_job_demand("9"));
  CHECK(all.enough);
  CHECK(all.nodes.size() == 4);
  CHECK(all.reach == 30);
}

TEST_CASE("memory decides the centre when the machine gives free memory, and only breaks ties when not") {
  const auto t = two_pairs();
  node_supply s = four_cpus_each({100, 100, 2048, 100});
  CHECK(choose_job_nodes(t, s, parse_job_demand("1:512")).nodes == std::vector<node_index>{2});
  // Short even with every node: every node, not enough.
  const job_nodes short_of_memory = choose_job_nodes(t, s, parse_job_demand("1:4096"));
  CHECK_FALSE(short_of_memory.enough);
  CHECK(short_of_memory.nodes.size() == 4);
  // Without sizes the MB do not count towards enough; free memory still breaks ties.
  s.memory_known = false;
  const job_nodes unknown = choose_job_nodes(t, s, parse_job_demand("1:4096"));
  CHECK(unknown.enough);
  CHECK(unknown.nodes == std::vector<node_index>{2});
}

TEST_CASE("free memory sums saturate instead of wrapping") {
  const auto t = two_pairs();
  node_supply s = four_cpus_each({0, 0, 0, 0});
  s.free_bytes = {std::numeric_limits<std::uint64_t>::max(), std::numeric_limits<std::uint64_t>::max(), 0, 0};
  const job_nodes n = choose_job_nodes(t, s, parse_job_demand("5:1"));
  CHECK(n.nodes == std::vector<node_index>{0, 1});
  CHECK(n.free_bytes == std::numeric_limits<std::uint64_t>::max());
}
