// numaplace::formats::load_topology_source: the machine a request names, from a preset, a
// file, sysfs or a generator, with where it came from; hwloc and this machine left to the caller.
#include <doctest/doctest.h>

#include <string>

#include <numaplace/formats/topology_source.hpp>

namespace formats = numaplace::formats;

TEST_CASE("a request for a preset, a file, sysfs or a generator loads with its source") {
  formats::machine_request preset;
  preset.name = "seed003-4node";
  const auto by_name = formats::load_topology_source(preset);
  REQUIRE(by_name);
  CHECK(by_name->source == "preset seed003-4node");
  CHECK(by_name->topology.node_count() == 4);

  formats::machine_request generated;
  generated.generate = "ring:4";
  CHECK(formats::load_topology_source(generated)->source == "generated ring:4");

  formats::machine_request file;
  file.file = NUMAPLACE_TEST_DATA "/topologies/intel-xeon-e7-4870-4s-4node-dell-r910.txt";
  const auto from_file = formats::load_topology_source(file);
  REQUIRE(from_file);
  CHECK(from_file->source == "file " + *file.file);
  CHECK(from_file->topology.node_count() == 4);
}

TEST_CASE("an unknown preset is refused with the names; hwloc and this machine are the caller's") {
  formats::machine_request unknown;
  unknown.name = "nope";
  try {
    formats::load_topology_source(unknown);
    FAIL("loaded an unknown machine");
  } catch (const formats::unknown_machine& e) {
    CHECK(std::string(e.what()).starts_with("unknown machine 'nope'; valid machines: "));
  }
  formats::machine_request hwloc;
  hwloc.hwloc_synthetic = "pack:2 pu:2";
  CHECK_FALSE(formats::load_topology_source(hwloc));
  CHECK_FALSE(formats::load_topology_source(formats::machine_request{}));
}

TEST_CASE("sysfs_lists_nodes: a folder with a nodeN folder lists nodes; none, or no folder, does not") {
  CHECK(formats::sysfs_lists_nodes(NUMAPLACE_TEST_DATA "/sysfs/seed000"));
  CHECK(formats::sysfs_lists_nodes(NUMAPLACE_TEST_DATA "/sysfs/cxl"));
  // Node-list files but no node folder: a kernel without NUMA, or a container that hides it.
  CHECK_FALSE(formats::sysfs_lists_nodes(NUMAPLACE_TEST_DATA "/sysfs/seed000/node0"));
  CHECK_FALSE(formats::sysfs_lists_nodes(NUMAPLACE_TEST_DATA "/sysfs/no-such-folder"));
  CHECK_FALSE(formats::sysfs_lists_nodes(NUMAPLACE_TEST_DATA "/sysfs/README.md"));
}
