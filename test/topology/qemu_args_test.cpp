// QEMU arguments: the exact words for a preset, CPU-less and memory-less nodes, and refusals.
#include <doctest/doctest.h>

#include <numaplace/topology/dynamic_topology.hpp>
#include <numaplace/topology/presets.hpp>
#include <numaplace/topology/qemu_args.hpp>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

using namespace numaplace;

namespace {

using words = std::vector<std::string>;

// The values of every `-numa node,...` argument, in order.
words numa_nodes(const words& args) {
  words nodes;
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "-numa" && args[i + 1].starts_with("node,")) nodes.push_back(args[i + 1]);
  }
  return nodes;
}

bool has_pair(const words& args, const std::string& option, const std::string& value) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == option && args[i + 1] == value) return true;
  }
  return false;
}

std::string message_of_invalid(const dynamic_topology& t, unsigned cpus, std::uint64_t mib) {
  try {
    (void)qemu_numa_args(t, cpus, mib);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  FAIL("no std::invalid_argument");
  return {};
}

}  // namespace

TEST_CASE("seed 000's 8-node backplane: one socket and one memory backend per node, all 64 distances") {
  const dynamic_topology t = presets::find("seed000-8node")->build();
  const words args = qemu_numa_args(t, 1, 64);

  CHECK(words(args.begin(), args.begin() + 4) == words{"-smp", "8,sockets=8,cores=1,threads=1", "-m", "512M"});
  CHECK(has_pair(args, "-object", "memory-backend-ram,id=mem0,size=64M"));
  CHECK(has_pair(args, "-object", "memory-backend-ram,id=mem7,size=64M"));
  const words nodes = numa_nodes(args);
  REQUIRE(nodes.size() == 8);
  CHECK(nodes[0] == "node,nodeid=0,cpus=0,memdev=mem0");
  CHECK(nodes[7] == "node,nodeid=7,cpus=7,memdev=mem7");

  const auto dists =
      std::count_if(args.begin(), args.end(), [](const std::string& w) { return w.starts_with("dist,"); });
  CHECK(dists == 64);
  CHECK(has_pair(args, "-numa", "dist,src=0,dst=0,val=10"));
  CHECK(has_pair(args, "-numa", "dist,src=0,dst=1,val=12"));
  CHECK(has_pair(args, "-numa", "dist,src=3,dst=2,val=12"));
  CHECK(has_pair(args, "-numa", "dist,src=2,dst=0,val=17"));
  CHECK(has_pair(args, "-numa", "dist,src=7,dst=0,val=19"));
  CHECK(qemu_guest_node_ids(t) == std::vector<node_id>{0, 1, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("several vCPUs per node are a range, numbered by node") {
  const words args = qemu_numa_args(presets::find("seed001-4node")->build(), 4, 128);
  CHECK(has_pair(args, "-smp", "16,sockets=4,cores=4,threads=1"));
  CHECK(has_pair(args, "-m", "512M"));
  CHECK(numa_nodes(args)[1] == "node,nodeid=1,cpus=4-7,memdev=mem1");
}

TEST_CASE("CPU-less nodes get memory only; Linux numbers them after the CPU nodes") {
  // POWER9: CPU nodes 0 and 8, GPU-memory nodes 250-255 (ids become 0..7 in the guest).
  const dynamic_topology power9 = presets::find("ibm-power9-gpu")->build();
  const words args = qemu_numa_args(power9, 2, 64);
  CHECK(has_pair(args, "-smp", "4,sockets=2,cores=2,threads=1"));
  CHECK(has_pair(args, "-m", "512M"));
  const words nodes = numa_nodes(args);
  CHECK(nodes[1] == "node,nodeid=1,cpus=2-3,memdev=mem1");
  CHECK(nodes[2] == "node,nodeid=2,memdev=mem2");
  CHECK(qemu_guest_node_ids(power9) == std::vector<node_id>{0, 1, 2, 3, 4, 5, 6, 7});

  // A CPU-less node before a CPU node moves behind it in the guest.
  std::vector<node_attributes> attrs(3);
  for (int i = 0; i < 3; ++i) attrs[static_cast<std::size_t>(i)].id = i;
  attrs[1].has_cpu = false;
  const dynamic_topology middle({{10, 20, 30}, {20, 10, 20}, {30, 20, 10}}, attrs);
  CHECK(numa_nodes(qemu_numa_args(middle, 1, 64)) ==
        words{"node,nodeid=0,cpus=0,memdev=mem0", "node,nodeid=1,memdev=mem1", "node,nodeid=2,cpus=1,memdev=mem2"});
  CHECK(qemu_guest_node_ids(middle) == std::vector<node_id>{0, 2, 1});
}

TEST_CASE("memory-less nodes get CPUs only, and -m counts only nodes with memory") {
  std::vector<node_attributes> attrs(2);
  attrs[1].id = 1;
  attrs[1].has_memory = false;
  const words args = qemu_numa_args(dynamic_topology({{10, 20}, {20, 10}}, attrs), 1, 100);
  CHECK(has_pair(args, "-m", "100M"));
  CHECK(numa_nodes(args) == words{"node,nodeid=0,cpus=0,memdev=mem0", "node,nodeid=1,cpus=1"});
}

TEST_CASE("what QEMU cannot boot is refused with the reason") {
  const dynamic_topology two({{10, 20}, {20, 10}});
  CHECK(message_of_invalid(two, 0, 64).find("at least one vCPU") != std::string::npos);
  CHECK(message_of_invalid(two, 1, 0).find("at least 1 MiB") != std::string::npos);

  std::vector<node_attributes> attrs(2);
  attrs[1].id = 7;
  attrs[1].has_cpu = false;
  attrs[1].has_memory = false;
  CHECK(message_of_invalid(dynamic_topology({{10, 20}, {20, 10}}, attrs), 1, 64)
            .find("node 7 has neither CPUs nor memory") != std::string::npos);

  std::vector<std::vector<long long>> big(qemu_max_nodes + 1, std::vector<long long>(qemu_max_nodes + 1, 20));
  for (std::size_t i = 0; i < big.size(); ++i) big[i][i] = 10;
  CHECK(message_of_invalid(dynamic_topology(big), 1, 64).find("129 nodes") != std::string::npos);
}
