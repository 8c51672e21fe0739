// The reader of experiment files (`numaplace sim --config`, numaplace::formats) on any bytes:
// parse_experiment_config either returns a sweep whose every access and collector names a
// region of its process, and which experiment_config_json writes to a file that reads back to
// the same file; or it throws experiment_config_error naming the file and a place in it. Machines are named, generated or
// inline only: the fuzzer never reads files, sysfs, hwloc or this machine.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <numaplace/formats/experiment_json.hpp>

#include "check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  static const std::vector<std::string> stacks{"no-balancing", "linux-modern"};
  try {
    const auto config = numaplace::formats::parse_experiment_config(as_text(data, size), "fuzz.json", "", stacks,
                                                               numaplace::formats::machine_sources::names_only);
    const auto& m = config.machine;
    NUMAPLACE_FUZZ_CHECK(int(m.name.has_value()) + int(m.generate.has_value()) + int(m.topology_json.has_value()) == 1);
    NUMAPLACE_FUZZ_CHECK(!m.file && !m.sysfs && !m.hwloc && !m.hwloc_xml && !m.hwloc_synthetic);
    NUMAPLACE_FUZZ_CHECK(!config.workloads.empty());
    for (const auto& w : config.workloads) {
      for (const auto& p : w.processes) {
        NUMAPLACE_FUZZ_CHECK(!p.regions.empty() && !p.threads.empty());
        for (const auto& t : p.threads) {
          for (const auto& a : t.accesses) NUMAPLACE_FUZZ_CHECK(a.region < p.regions.size() && a.weight > 0);
        }
        NUMAPLACE_FUZZ_CHECK(p.gc.young_region == numaplace::sim::gc_spec::no_young || p.gc.young_region < p.regions.size());
        // bind_nodes binds both; it never comes with a binding apart.
        NUMAPLACE_FUZZ_CHECK(p.bind_nodes.empty() || (p.cpu_nodes.empty() && p.memory_nodes.empty()));
      }
    }
    // Written down and read back, the sweep is the same file again.
    const std::string written = numaplace::formats::experiment_config_json(config).dump();
    const auto again = numaplace::formats::parse_experiment_config(written, "written.json", "", stacks,
                                                              numaplace::formats::machine_sources::names_only);
    NUMAPLACE_FUZZ_CHECK(numaplace::formats::experiment_config_json(again).dump() == written);
    for (std::size_t w = 0; w < config.workloads.size(); ++w) {
      for (std::size_t i = 0; i < config.workloads[w].processes.size(); ++i) {
        const auto& before = config.workloads[w].processes[i];
        const auto& after = again.workloads[w].processes[i];
        NUMAPLACE_FUZZ_CHECK(before.bound_cpu_nodes() == after.bound_cpu_nodes());
        NUMAPLACE_FUZZ_CHECK(before.bound_memory_nodes() == after.bound_memory_nodes());
      }
    }
  } catch (const numaplace::formats::experiment_config_error& e) {
    const std::string what = e.what();
    // Always "fuzz.json:LINE:COLUMN: ...".
    NUMAPLACE_FUZZ_CHECK(what.starts_with("fuzz.json:"));
    NUMAPLACE_FUZZ_CHECK(what.size() > std::string("fuzz.json:1:1: ").size());
  }
  return 0;
}
