// numaplace-guest-probe: a topology as canonical text, so that what a guest kernel shows in
// sysfs can be compared line by line with the topology the guest was booted from.
// Built static: a guest's initramfs has no C library.
//
//   numaplace-guest-probe                         this machine's sysfs (inside a guest)
//   numaplace-guest-probe --sysfs ROOT            a sysfs node folder
//   numaplace-guest-probe --machine NAME | --file PATH
//                                                 what a QEMU guest booted from that topology
//                                                 (numaplace topo --qemu-args) should show
#include <numaplace/topology/dynamic_topology.hpp>
#include <numaplace/topology/load_file.hpp>
#include <numaplace/topology/load_sysfs.hpp>
#include <numaplace/topology/presets.hpp>
#include <numaplace/topology/qemu_args.hpp>
#include <numaplace/topology/types.hpp>

#include <cstddef>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

namespace {

using numaplace::dynamic_topology;
using numaplace::node_index;

// Prints `t` with its nodes in `order` (dense indices), the ids given by `id_of_position`.
// Only what the guest can reproduce: ids, which nodes have CPUs / memory, distances, and
// what numaplace derives from them. CPU counts and memory sizes are the guest's choice.
template <class IdOf>
void print(const dynamic_topology& t, const std::vector<node_index>& order, IdOf id_of_position) {
  const auto list = [&](std::string_view label, auto value_of) {
    std::cout << label;
    for (std::size_t p = 0; p < order.size(); ++p) std::cout << ' ' << value_of(p);
    std::cout << '\n';
  };
  std::cout << "nodes " << t.node_count() << '\n';
  list("ids", id_of_position);
  list("has_cpu", [&](std::size_t p) { return t.has_cpu(order[p]) ? 1 : 0; });
  list("has_memory", [&](std::size_t p) { return t.has_memory(order[p]) ? 1 : 0; });
  std::cout << "kind " << to_string(t.kind()) << '\n' << "max_distance " << t.max_distance() << '\n' << "levels";
  for (const auto level : t.levels()) std::cout << ' ' << level;
  std::cout << '\n' << "distances\n";
  for (const node_index a : order) {
    for (std::size_t p = 0; p < order.size(); ++p) std::cout << (p ? " " : "") << t.distance(a, order[p]);
    std::cout << '\n';
  }
}

void print_as_found(const dynamic_topology& t) {
  std::vector<node_index> order(t.node_count());
  for (node_index i = 0; i < order.size(); ++i) order[i] = i;
  print(t, order, [&](std::size_t p) { return t.id_of(order[p]); });
}

// The guest numbers nodes densely, CPU nodes first (see qemu_args.hpp).
void print_as_qemu_guest(const dynamic_topology& t) {
  const std::vector<numaplace::node_id> guest_ids = numaplace::qemu_guest_node_ids(t);
  std::vector<node_index> order(t.node_count());
  for (node_index i = 0; i < order.size(); ++i) order[static_cast<std::size_t>(guest_ids[i])] = i;
  print(t, order, [](std::size_t p) { return p; });
}

int usage() {
  std::cerr << "usage: numaplace-guest-probe [--sysfs ROOT | --machine NAME | --file PATH]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  try {
    if (args.empty()) {
      print_as_found(numaplace::load::sysfs());
    } else if (args.size() == 2 && args[0] == "--sysfs") {
      print_as_found(numaplace::load::sysfs(std::string(args[1])));
    } else if (args.size() == 2 && args[0] == "--file") {
      print_as_qemu_guest(numaplace::load::file(std::string(args[1])));
    } else if (args.size() == 2 && (args[0] == "--machine" || args[0] == "--preset")) {  // --preset: the old spelling
      const numaplace::presets::preset* p = numaplace::presets::find(args[1]);
      if (p == nullptr) {
        std::cerr << "numaplace-guest-probe: no machine named '" << args[1] << "'\n";
        return 2;
      }
      print_as_qemu_guest(p->build());
    } else {
      return usage();
    }
  } catch (const std::exception& e) {
    std::cerr << "numaplace-guest-probe: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
