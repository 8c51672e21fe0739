// The named machines' measured costs: usable for their topology, routes on their links, and
// physically sensible where the hardware says what to expect.
#include <doctest/doctest.h>

#include <numaplace/sim/hardware_presets.hpp>
#include <numaplace/topology/presets.hpp>

#include <cstdint>
#include <string>
#include <string_view>

using namespace numaplace;
using namespace numaplace::sim;

namespace {

machine_costs costs_of(std::string_view name) {
  const auto c = hardware_preset(name);
  REQUIRE(c.has_value());
  return *c;
}

}  // namespace

TEST_CASE("every preset with costs validates for its topology, with sources and routes on its links") {
  for (const auto name : hardware_preset_names()) {
    INFO(name);
    const auto* p = presets::find(name);
    REQUIRE(p != nullptr);
    const dynamic_topology t = p->build();
    const machine_costs c = costs_of(name);
    CHECK_MESSAGE(!validate(c, t.node_count()), validate(c, t.node_count()).value_or(""));
    CHECK_FALSE(c.name.empty());
    CHECK(c.sources.size() >= 2);
    CHECK_FALSE(c.assumption.empty());
    const std::size_t n = c.node_count();
    for (node_index a = 0; a < n; ++a) {
      for (node_index b = 0; b < n; ++b) {
        if (c.links.empty()) continue;
        node_index at = a;
        for (const auto l : c.route(a, b)) {
          REQUIRE(l < c.links.size());
          const auto& link = c.links[l];
          REQUIRE((link.a == at || link.b == at));
          at = link.a == at ? link.b : link.a;
        }
        CHECK(at == b);
      }
    }
  }
}

TEST_CASE("machines without figures derive theirs from SLIT, links included") {
  CHECK_FALSE(hardware_preset("ibm-power7-sparse").has_value());
  CHECK_FALSE(hardware_preset("ibm-power9-gpu").has_value());
  CHECK_FALSE(hardware_preset("no-such-machine").has_value());
  // Both tables (10/20/40 and 10/40/80) have no node as near a way between two others as
  // going straight: a full mesh of 28 links.
  for (const std::string_view name : {"ibm-power7-sparse", "ibm-power9-gpu"}) {
    INFO(name);
    const dynamic_topology t = presets::find(name)->build();
    std::vector<std::size_t> cpus;
    for (node_index i = 0; i < t.node_count(); ++i) cpus.push_back(t.cpus(i).size());
    const machine_costs c = from_slit(t, cpus);
    CHECK(c.links.size() == 28);
    CHECK_FALSE(validate(c, t.node_count()));
  }
}

TEST_CASE("every preset but seed002's one shared memory has links, and remote traffic crosses one") {
  for (const auto name : hardware_preset_names()) {
    INFO(name);
    const machine_costs c = costs_of(name);
    if (name == "seed002-ht") continue;
    CHECK_FALSE(c.links.empty());
    for (node_index a = 0; a < c.node_count(); ++a) {
      for (node_index b = 0; b < c.node_count(); ++b) CHECK(c.route(a, b).empty() == (a == b));
    }
  }
}

TEST_CASE("POWER7 (seed 001): one SMP link between every two chips, at the derived share of a chip's memory") {
  const machine_costs c = costs_of("seed001-4node");
  REQUIRE(c.links.size() == 6);
  for (const auto& l : c.links) CHECK(l.gb_per_s == 25.0);  // half a chip's 50 GB/s
  for (node_index a = 0; a < 4; ++a) {
    for (node_index b = 0; b < 4; ++b) CHECK(c.route(a, b).size() == (a == b ? 0u : 1u));
  }
  CHECK(c.assumption.find("no per-link SMP bandwidth was found") != std::string::npos);
}

TEST_CASE("EPYC NPS4: the other socket is farther than another quadrant, and both farther than local") {
  const machine_costs c = costs_of("amd-epyc-7742-nps4");
  for (node_index a = 0; a < 8; ++a) {
    for (node_index b = 0; b < 8; ++b) {
      if (a == b) continue;
      const bool same_socket = a / 4 == b / 4;
      CHECK(c.ratio(a, b) > 1.0);
      if (same_socket) CHECK(c.ratio(a, b) < c.ratio(a, (b + 4) % 8));
      // Cross-socket traffic crosses exactly one xGMI link.
      std::size_t xgmi = 0;
      for (const auto l : c.route(a, b)) xgmi += c.links[l].a / 4 != c.links[l].b / 4 ? 1 : 0;
      CHECK(xgmi == (same_socket ? 0u : 1u));
    }
  }
}

TEST_CASE("seed002's hyper-threaded 'nodes' share one memory: no remote latency, the bus split evenly") {
  const machine_costs c = costs_of("seed002-ht");
  for (node_index a = 0; a < c.node_count(); ++a) {
    for (node_index b = 0; b < c.node_count(); ++b) CHECK(c.ratio(a, b) == 1.0);
    CHECK(c.node_bandwidth_gbs[a] == doctest::Approx(c.node_bandwidth_gbs[0]));
  }
  CHECK(c.links.empty());
}

TEST_CASE("DL980: farther by island, then quad; the E7-4800 MLC figures inside an island") {
  const machine_costs c = costs_of("seed000-8node");
  CHECK(c.local_latency_ns == doctest::Approx(135.25));
  CHECK(c.ratio(0, 1) == doctest::Approx(197.4 / 135.25).epsilon(0.01));
  CHECK(c.ratio(0, 1) < c.ratio(0, 2));
  CHECK(c.ratio(0, 2) < c.ratio(0, 4));
  CHECK(c.ratio(5, 4) == c.ratio(0, 1));
  CHECK(c.ratio(7, 0) == c.ratio(0, 4));
}

TEST_CASE("R910: the measured MLC matrix, row over its own diagonal") {
  const machine_costs c = costs_of("intel-r910-4node");
  CHECK(c.ratio(0, 3) == doctest::Approx(201.0 / 136.0));
  CHECK(c.ratio(3, 0) == doctest::Approx(202.0 / 135.0));
  CHECK(c.links.size() == 6);
}

TEST_CASE("Magny-Cours: two hops cost more than one, and one-hop pairs are the distance table's 16s") {
  const machine_costs c = costs_of("amd-opteron-8node");
  const dynamic_topology t = presets::find("amd-opteron-8node")->build();
  for (node_index a = 0; a < 8; ++a) {
    for (node_index b = 0; b < 8; ++b) {
      if (a == b) continue;
      CHECK((c.route(a, b).size() == 1) == (t.distance(a, b) == 16));
      CHECK(c.ratio(a, b) == (c.route(a, b).size() == 1 ? 1.08 : 1.30));
    }
  }
}

TEST_CASE("SNC2 and two sockets: the other socket is farther than the other cluster, and remote reads cross UPI") {
  const machine_costs snc = costs_of("intel-gold6230-snc2");
  CHECK(snc.ratio(0, 2) < snc.ratio(0, 1));
  CHECK(snc.ratio(0, 2) > 1.0);
  const machine_costs two = costs_of("seed004-2socket");
  CHECK(two.links.size() == 1);
  CHECK(two.links[0].gb_per_s < two.node_bandwidth_gbs[0]);
}

TEST_CASE("the measured loaded-latency curve rises and ends near saturation") {
  const machine_costs c = costs_of("seed004-2socket");
  CHECK(c.loaded.at(0.0) == 1.0);
  CHECK(c.loaded.at(0.5) == doctest::Approx(1.2).epsilon(0.02));
  CHECK(c.loaded.at(0.97) > 1.45);
  CHECK(c.loaded.at(1.2) > c.loaded.at(1.0));
}

TEST_CASE("seed003: the latency ratio is the measured single-thread bandwidth ratio") {
  const machine_costs c = costs_of("seed003-4node");
  CHECK(c.ratio(0, 1) == doctest::Approx(8.4 / 6.7));
  CHECK(c.core_stream_gbs == 8.4);
}

TEST_CASE("SPR with CXL: the expanders are CPU-less nodes with memory, each one x8 link from its socket") {
  const dynamic_topology t = presets::find("intel-spr-2s-cxl")->build();
  REQUIRE(t.node_count() == 4);
  for (node_index socket : {0u, 1u}) {
    CHECK(t.cpus(socket).size() == 104);  // 52 cores x HT
    CHECK(t.memory_bytes(socket) > 0);
  }
  for (node_index cxl : {2u, 3u}) {
    CHECK(t.cpus(cxl).empty());
    CHECK(t.memory_bytes(cxl) >= std::uint64_t{64} << 30);
  }
  const machine_costs c = costs_of("intel-spr-2s-cxl");
  CHECK(c.threads_per_core == 2);
  // An expander serves far less than a socket's eight DDR5 channels.
  CHECK(c.node_bandwidth_gbs[2] == 17.8);
  CHECK(c.node_bandwidth_gbs[2] * 10 < c.node_bandwidth_gbs[0]);
  // Socket 0 reaches its own expander over one link, the other socket's over UPI and that
  // socket's x8 link.
  CHECK(c.route(0, 2).size() == 1);
  CHECK(c.route(0, 3).size() == 2);
  CHECK(c.route(1, 2).size() == 2);
  CHECK(c.links[c.route(0, 2)[0]].gb_per_s == 32.0);
}

TEST_CASE("SPR with CXL: an expander is slower than the other socket's DRAM, though SLIT says it is nearer") {
  const machine_costs c = costs_of("intel-spr-2s-cxl");
  const dynamic_topology t = presets::find("intel-spr-2s-cxl")->build();
  // The 8468's MLC: mean of the same-socket entries 108.2 ns, of the cross-socket ones 187.6.
  CHECK(c.local_latency_ns == doctest::Approx(108.2).epsilon(0.001));
  CHECK(c.ratio(0, 1) == doctest::Approx(187.6 / 108.2).epsilon(0.002));
  // Intel's 250 ns for the expander from its own socket; from the other socket, plus the UPI hop.
  CHECK(c.ratio(0, 2) * c.local_latency_ns == doctest::Approx(250.0));
  CHECK(c.ratio(0, 3) * c.local_latency_ns == doctest::Approx(250.0 + 187.6 - 108.2).epsilon(0.002));
  for (node_index s : {0u, 1u}) {
    const node_index other = 1 - s, near = s + 2, far = other + 2;
    CAPTURE(s);
    CHECK(1.0 < c.ratio(s, other));
    CHECK(c.ratio(s, other) < c.ratio(s, near));
    CHECK(c.ratio(s, near) < c.ratio(s, far));
    // Firmware's SLIT orders the near expander before the other socket's DRAM.
    CHECK(t.distance(s, near) < t.distance(s, other));
  }
}

TEST_CASE("SPR with CXL: every kind of figure has a source line, and what was derived is said") {
  const machine_costs c = costs_of("intel-spr-2s-cxl");
  const auto sourced = [&](std::string_view what) {
    for (const auto& line : c.sources) {
      if (line.starts_with(what)) return true;
    }
    return false;
  };
  for (const std::string_view what :
       {"topology, node sizes:", "latency, DRAM bandwidth:", "CXL expander:", "CXL link:", "links:", "loaded latency:"}) {
    CAPTURE(what);
    CHECK(sourced(what));
  }
  for (const auto& line : c.sources) {
    CAPTURE(line);
    CHECK(line.find("http") != std::string::npos);
  }
  for (const std::string_view derived : {"mean of the 8468's same-socket entries", "plus what UPI adds",
                                         "assumed to stream 20 GB/s", "half x16's 64 GB/s", "assumed to have all four",
                                         "mirror their columns"}) {
    CAPTURE(derived);
    CHECK(c.assumption.find(derived) != std::string::npos);
  }
}
