// The sysfs loader's distance rows on any bytes. The input is a tree's nodeN/distance files
// joined by NUL bytes (file i is node i's row; as many nodes online as there are files); each
// is read by the loader's own row parser, and the rows are built into a topology exactly as
// load::sysfs builds them. A topology whose invariants hold, or a topology_error.
#include <numaplace/topology/load_sysfs.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  namespace d = numaplace::load::detail;
  std::string_view text = as_text(data, size);
  std::vector<std::string_view> files;
  while (true) {
    const auto nul = text.find('\0');
    files.push_back(text.substr(0, nul));
    if (nul == std::string_view::npos) break;
    text.remove_prefix(nul + 1);
  }
  try {
    std::vector<std::vector<long long>> rows;
    std::vector<numaplace::node_attributes> nodes;
    std::vector<d::row_origin> origins;
    for (std::size_t i = 0; i < files.size(); ++i) {
      const std::string source = "node" + std::to_string(i) + "/distance";
      auto [row, line] = d::sysfs_distance_row(files[i], source, files.size(), rows.size());
      NUMAPLACE_FUZZ_CHECK(row.size() == files.size());
      NUMAPLACE_FUZZ_CHECK(line >= 1);
      rows.push_back(std::move(row));
      origins.push_back({source, line});
      nodes.emplace_back().id = static_cast<numaplace::node_id>(i);
    }
    const numaplace::dynamic_topology t = d::build(rows, std::move(nodes), "fuzz", origins, origins);
    check_topology(t);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      for (std::size_t c = 0; c < rows.size(); ++c) {
        NUMAPLACE_FUZZ_CHECK(t.distance(static_cast<numaplace::node_index>(r), static_cast<numaplace::node_index>(c)) ==
                             rows[r][c]);
      }
    }
  } catch (const numaplace::topology_error& e) {
    check_error(e);
  }
  return 0;
}
