#pragma once
// What the adapter examples run on: this machine as this process may use it
// (os::usable_machine), or nodes given as CPU lists (--node-cpus LIST, once per node, all 20
// apart), so that a one-node host can still check that work lands on the right CPUs.
// Prints the lines test/adapters/check-placement reads: "topology ..." and one "node ..." each.

#include <numaplace/adapters/node_cpus.hpp>
#include <numaplace/linux/usable_machine.hpp>
#include <numaplace/topology/cpulist.hpp>
#include <numaplace/topology/dynamic_topology.hpp>
#include <numaplace/topology/generators.hpp>

#include <cstddef>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace adapter_example {

struct machine {
  numaplace::dynamic_topology topology;
  numaplace::adapters::node_cpu_lists cpus;
  bool given = false;
};

/// Takes the --node-cpus options out of argv (the rest stays for the example) and builds the
/// machine; `affinity`, when given, stands for the calling thread's CPUs. Throws
/// numaplace::topology_error ("--node-cpus 2: ...") for a bad list.
inline machine read_machine(std::vector<std::string>& args, const std::vector<unsigned>* affinity = nullptr) {
  numaplace::adapters::node_cpu_lists given;
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] != "--node-cpus") {
      rest.push_back(args[i]);
      continue;
    }
    if (i + 1 == args.size()) throw std::invalid_argument("--node-cpus needs a CPU list, such as 0-3");
    const std::string where = "--node-cpus " + std::to_string(given.size() + 1);
    given.push_back(numaplace::parse_cpulist(args[++i], where, 0));
    if (given.back().empty()) throw std::invalid_argument(where + ": the CPU list is empty");
  }
  args = rest;
  if (given.empty()) {
    const auto usable = affinity == nullptr ? numaplace::os::usable_machine::this_process()
                                            : numaplace::os::usable_machine::read({}, [affinity] { return *affinity; });
    return {usable.topology(), numaplace::adapters::cpus_by_node(usable), false};
  }
  auto topology = numaplace::generate::fully_connected(given.size(), 20);
  return {std::move(topology), std::move(given), true};
}

inline void print_machine(const machine& m) {
  std::cout << "topology " << (m.given ? "given" : "sysfs") << '\n';
  for (numaplace::node_index n = 0; n < m.cpus.size(); ++n) {
    if (m.cpus[n].empty()) continue;
    std::cout << "node " << n << " id " << m.topology.id_of(n) << " cpus " << numaplace::format_cpulist(m.cpus[n])
              << '\n';
  }
}

/// An unsigned option value ("--threads 8"), or `fallback` when the option is absent.
inline unsigned unsigned_option(const std::vector<std::string>& args, std::string_view name, unsigned fallback) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] != name) continue;
    const std::string& v = args[i + 1];
    if (v.empty() || v.size() > 6 || v.find_first_not_of("0123456789") != std::string::npos) {
      throw std::invalid_argument(std::string(name) + ": '" + v + "' is not a number below 1000000");
    }
    return static_cast<unsigned>(std::stoul(v));
  }
  return fallback;
}

}  // namespace adapter_example
