// Every input a fuzz target (test/fuzz) ever failed on is kept in its corpus as
// test/data/fuzz/<target>/crash-*; each must now be refused with a topology_error, and the
// error must carry its reason. New crash files join these tests by their name alone.
#include <doctest/doctest.h>

#include <numaplace/topology/cpulist.hpp>
#include <numaplace/topology/load_matrix.hpp>
#include <numaplace/topology/load_numactl.hpp>
#include <numaplace/topology/load_sysfs.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

using namespace numaplace;

namespace {

std::vector<std::filesystem::path> crash_inputs(const std::string& target) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(std::string(NUMAPLACE_TEST_DATA) + "/fuzz/" + target)) {
    if (e.path().filename().string().starts_with("crash-")) files.push_back(e.path());
  }
  return files;
}

// Loads each of `target`'s crash inputs with `load`; every one must throw topology_error.
void check_refused(const std::string& target, const std::function<void(std::string_view)>& load) {
  for (const auto& file : crash_inputs(target)) {
    INFO(file.string());
    const std::string text = load::detail::read_text(file);
    CHECK_THROWS_AS(load(text), topology_error);
  }
}

// The sysfs target's input: a tree's distance files joined by NUL bytes.
void sysfs_rows(std::string_view text) {
  std::vector<std::string_view> files;
  for (std::size_t nul; (nul = text.find('\0')) != std::string_view::npos; text.remove_prefix(nul + 1)) {
    files.push_back(text.substr(0, nul));
  }
  files.push_back(text);
  std::vector<std::vector<long long>> rows;
  std::vector<load::detail::row_origin> origins;
  std::vector<node_attributes> nodes;
  for (std::size_t i = 0; i < files.size(); ++i) {
    rows.push_back(load::detail::sysfs_distance_row(files[i], "distance", files.size(), i).first);
    origins.push_back({"distance", 1});
    nodes.emplace_back().id = static_cast<node_id>(i);
  }
  (void)load::detail::build(rows, std::move(nodes), "tree", origins, origins);
}

}  // namespace

TEST_CASE("fuzz regressions: matrix text") {
  check_refused("fuzz_matrix", [](std::string_view t) { (void)load::matrix_text(t, "crash"); });
}

TEST_CASE("fuzz regressions: numactl --hardware text") {
  check_refused("fuzz_numactl", [](std::string_view t) { (void)load::numactl_text(t, "crash"); });
}

TEST_CASE("fuzz regressions: cpulist") {
  check_refused("fuzz_cpulist", [](std::string_view t) { (void)parse_cpulist(t, "crash", 1); });
}

TEST_CASE("fuzz regressions: sysfs distance rows") {
  check_refused("fuzz_sysfs_distance", sysfs_rows);
}

TEST_CASE("a word with NUL bytes in it is refused, and the reason keeps the whole word") {
  // The first inputs the matrix and numactl targets stopped on: "20\0\0...20" where a number
  // belongs. The loaders refuse them; only what() (a C string) is cut at the NUL.
  const std::string word = std::string("20") + std::string(3, '\0') + "20";
  try {
    (void)load::matrix_text("10 20\n" + word + " 10\n", "m");
    FAIL("accepted");
  } catch (const topology_error& e) {
    CHECK(e.reason() == "distance '" + word + "' is not a whole number");
  }
  CHECK_THROWS_AS((void)load::numactl_text("node distances:\nnode 0 1\n0: 10 " + word + "\n1: 20 10\n"),
                  topology_error);
}

TEST_CASE("the sysfs distance row parser reads what load::sysfs reads") {
  const auto [row, line] = load::detail::sysfs_distance_row("\n10 20 30\n\n", "node0/distance", 3, 0);
  CHECK(row == std::vector<long long>{10, 20, 30});
  CHECK(line == 2);
  CHECK_THROWS_WITH_AS(load::detail::sysfs_distance_row("10 20\n10 20\n", "d", 2, 0), "d:2: more than one line of distances",
                       topology_error);
  CHECK_THROWS_WITH_AS(load::detail::sysfs_distance_row("10 x\n", "d", 2, 1), "d:1: row 1, column 1: distance 'x' is not a whole number",
                       topology_error);
  CHECK_THROWS_WITH_AS(load::detail::sysfs_distance_row(" \n", "d", 2, 0), "d: is empty", topology_error);
}
