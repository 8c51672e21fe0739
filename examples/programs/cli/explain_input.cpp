#include "explain_input.hpp"

#include "read_input.hpp"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <numaplace/formats/json_checker.hpp>
#include <numaplace/topology/error.hpp>
#include <sstream>
#include <utility>

namespace numaplace_cli {

namespace {

using json = nlohmann::json;
using numaplace::imbalance_rule;
using numaplace::formats::json_checker;
using numaplace::formats::too_deep_at;
using numaplace::formats::too_deep_message;

struct variant_name {
  std::string_view name;
  imbalance_rule rule;
};

// "v5.5" has no allowance; "v5.9" stands for the source-based rule of v5.6..v5.9.
constexpr std::array<variant_name, 6> variants{{{"v5.5", imbalance_rule::v5_5},
                                                {"v5.9", imbalance_rule::v5_7},
                                                {"v5.10", imbalance_rule::v5_10},
                                                {"v5.11", imbalance_rule::v5_11},
                                                {"v5.18", imbalance_rule::v5_18},
                                                {"v5.19", imbalance_rule::v5_19}}};

// "one of v5.5, v5.9, ...": the variants above, for error messages.
std::string expected_variants() {
  std::string out = "expected one of ";
  for (const variant_name& v : variants) {
    if (&v != &variants.front()) out += ", ";
    out += v.name;
  }
  return out;
}

constexpr std::string_view top_level_keys = "distances, task_faults, group_faults, imbalance, comment";
constexpr std::string_view imbalance_keys = "variant, imbalance, src_running, dst_running, dst_weight, imb_numa_nr";

using checker = json_checker<explain_input_error>;

// Whether `v` holds at most `budget` values (itself included). Every value takes at least one
// character of dump(), so a value with more cannot dump to 40 characters. Counting stops at the
// budget: a value nested a million deep is never walked, nor dumped (dump() recurses per level).
bool few_values(const json& v, std::size_t& budget) {
  if (budget == 0) return false;
  --budget;
  if (v.is_structured()) {
    for (const json& element : v) {
      if (!few_values(element, budget)) return false;
    }
  }
  return true;
}

// A value as a message shows it: short, and with its JSON type when that is the point.
std::string shown(const json& v) {
  std::size_t budget = 40;
  if (v.is_structured() && !few_values(v, budget)) {
    return v.is_object() ? "an object" : fmt::format("an array of {}", v.size());
  }
  std::string text = v.dump();
  if (text.size() <= 40) return text;
  if (v.is_object()) return "an object";
  if (v.is_array()) return fmt::format("an array of {}", v.size());
  return text.substr(0, 37) + "...";
}

// Whether `key` is one of the comma-separated names in `list`.
bool listed(std::string_view list, std::string_view key) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    std::string_view name = list.substr(0, comma);
    if (name == key) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
    while (!list.empty() && list.front() == ' ') list.remove_prefix(1);
  }
  return false;
}

std::string index_path(std::string_view base, std::size_t i) { return fmt::format("{}[{}]", base, i); }

// A JSON number that is a whole number, as a long long if it fits; describes what is wrong
// otherwise. Floats are refused even when whole (3.0): counts and distances are integers.
// written_as_decimal: a whole number with a decimal point or exponent ("20.0", "4e0"), which a
// count or distance never is; said as such rather than as out of range.
enum class integer_problem { none, not_a_number, not_whole, written_as_decimal, too_large, too_small };

integer_problem as_integer(const json& v, long long& out) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<long long>::max())) return integer_problem::too_large;
    out = static_cast<long long>(u);
    return integer_problem::none;
  }
  if (v.is_number_integer()) {
    out = v.get<long long>();
    return integer_problem::none;
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!std::isfinite(d) || d != std::floor(d)) return integer_problem::not_whole;
    // 2^63 and 2^64 are exact doubles, so these bounds compare without rounding.
    if (d >= 0x1p64) return integer_problem::too_large;
    if (d < -0x1p63) return integer_problem::too_small;
    return integer_problem::written_as_decimal;
  }
  return integer_problem::not_a_number;
}

numaplace::dynamic_topology read_distances(const checker& c, const json& doc) {
  const auto it = doc.find("distances");
  if (it == doc.end()) c.fail("distances", "missing; expected the node distance matrix, e.g. [[10, 20], [20, 10]]");
  const json& d = *it;
  if (!d.is_array()) c.fail("distances", fmt::format("expected an array of rows of distances, got {}", shown(d)));
  if (d.empty()) c.fail("distances", "the distance matrix is empty");
  if (d.size() > numaplace::max_nodes) {
    c.fail("distances", fmt::format("{} rows, more than the {} nodes supported", d.size(), numaplace::max_nodes));
  }
  std::vector<std::vector<long long>> rows;
  rows.reserve(d.size());
  for (std::size_t r = 0; r < d.size(); ++r) {
    const std::string row_path = index_path("distances", r);
    if (!d[r].is_array()) c.fail(row_path, fmt::format("expected an array of distances, got {}", shown(d[r])));
    std::vector<long long>& row = rows.emplace_back();
    for (std::size_t col = 0; col < d[r].size(); ++col) {
      const json& v = d[r][col];
      long long value = 0;
      switch (as_integer(v, value)) {
        case integer_problem::none:
          break;
        case integer_problem::too_large:
        case integer_problem::too_small:
          c.fail(index_path(row_path, col),
                 fmt::format("distance {} is outside 10..255, the range Linux accepts", shown(v)));
        case integer_problem::written_as_decimal:
          c.fail(index_path(row_path, col), fmt::format("{} has a decimal point; distances are integers such as {:.0f}",
                                                        shown(v), v.get<double>()));
        case integer_problem::not_whole:
        case integer_problem::not_a_number:
          c.fail(index_path(row_path, col), fmt::format("expected an integer distance, got {}", shown(v)));
      }
      row.push_back(value);
    }
  }
  try {
    return numaplace::dynamic_topology(rows);
  } catch (const numaplace::topology_error& e) {
    // The topology names row and column; say it as the JSON path the user wrote.
    std::string path = "distances";
    if (e.where().row) path = index_path(path, *e.where().row);
    if (e.where().row && e.where().column) path = index_path(path, *e.where().column);
    c.fail(path, e.reason());
  }
}

std::uint64_t read_count(const checker& c, const json& v, const std::string& path) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  long long value = 0;
  switch (as_integer(v, value)) {
    case integer_problem::none:
      if (value == 0) return 0;  // "-0": JSON allows it, and it is zero
      c.fail(path, fmt::format("{} is negative; fault counts are non-negative integers", shown(v)));
    case integer_problem::too_large:
      c.fail(path, fmt::format("{} is larger than {}, the largest count the kernel's counters hold", shown(v),
                               std::numeric_limits<std::uint64_t>::max()));
    case integer_problem::too_small:
      c.fail(path, fmt::format("{} is negative; fault counts are non-negative integers", shown(v)));
    case integer_problem::written_as_decimal:
      if (v.get<double>() < 0) c.fail(path, fmt::format("{} is negative; fault counts are non-negative integers", shown(v)));
      c.fail(path, fmt::format("{} has a decimal point; fault counts are integers such as {:.0f}", shown(v),
                               std::fabs(v.get<double>())));  // fabs: "-0.0" is zero, shown as 0
    case integer_problem::not_whole:
      c.fail(path, fmt::format("{} is not an integer; fault counts are non-negative integers", shown(v)));
    case integer_problem::not_a_number:
      break;
  }
  c.fail(path, fmt::format("expected a non-negative integer fault count, got {}", shown(v)));
}

std::vector<fault_pair> read_faults(const checker& c, const json& v, std::string_view key, std::size_t nodes) {
  const std::string base(key);
  if (!v.is_array()) {
    c.fail(base, fmt::format("expected an array of [shared, private] pairs, one per node, got {}", shown(v)));
  }
  if (v.size() != nodes) {
    c.fail(base, fmt::format("{} {} for a {}-node distance matrix; expected one [shared, private] pair per node",
                             v.size(), v.size() == 1 ? "entry" : "entries", nodes));
  }
  std::vector<fault_pair> faults;
  faults.reserve(nodes);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < nodes; ++i) {
    const std::string path = index_path(base, i);
    const json& pair = v[i];
    if (!pair.is_array() || pair.size() != 2) {
      c.fail(path, fmt::format("expected [shared, private] with two non-negative integers, got {}", shown(pair)));
    }
    const fault_pair f{read_count(c, pair[0], index_path(path, 0)), read_count(c, pair[1], index_path(path, 1))};
    // The total is the weights' denominator; one that wraps would make every weight meaningless.
    for (const std::uint64_t n : {f.shared, f.private_faults}) {
      if (n > std::numeric_limits<std::uint64_t>::max() - total) {
        c.fail(base, fmt::format("the counts add up to more than {}, so their total does not fit the kernel's counter",
                                 std::numeric_limits<std::uint64_t>::max()));
      }
      total += n;
    }
    faults.push_back(f);
  }
  return faults;
}

template <class Int>
Int read_int(const checker& c, const json& v, const std::string& path) {
  long long value = 0;
  const integer_problem p = as_integer(v, value);
  if (p == integer_problem::none && value >= std::numeric_limits<Int>::min() &&
      value <= std::numeric_limits<Int>::max()) {
    return static_cast<Int>(value);
  }
  if (p == integer_problem::not_a_number || p == integer_problem::not_whole) {
    c.fail(path, fmt::format("expected an integer, got {}", shown(v)));
  }
  if (p == integer_problem::written_as_decimal) {
    c.fail(path, fmt::format("{} has a decimal point; expected an integer such as {:.0f}", shown(v), v.get<double>()));
  }
  c.fail(path, fmt::format("{} does not fit the kernel's {}", shown(v), sizeof(Int) == sizeof(int) ? "int" : "long"));
}

imbalance_question read_question(const checker& c, const json& q, const std::string& path) {
  if (!q.is_object()) {
    c.fail(path, fmt::format("expected an object such as {{\"variant\": \"v5.19\", \"imbalance\": 2, "
                             "\"dst_running\": 3, \"imb_numa_nr\": 4}}, got {}",
                             shown(q)));
  }
  for (const auto& [key, value] : q.items()) {
    if (!listed(imbalance_keys, key)) {
      c.fail(path, fmt::format("unknown key \"{}\"; expected {}", key, imbalance_keys));
    }
  }
  imbalance_question out;
  const auto variant = q.find("variant");
  if (variant == q.end()) c.fail(path + ".variant", "missing; " + expected_variants());
  if (!variant->is_string()) c.fail(path + ".variant", fmt::format("expected a string, got {}", shown(*variant)));
  out.variant = variant->get<std::string>();
  bool known = false;
  for (const variant_name& v : variants) {
    if (v.name == out.variant) {
      out.rule = v.rule;
      known = true;
    }
  }
  if (!known) {
    c.fail(path + ".variant",
           fmt::format("unknown variant \"{}\"; {}", out.variant, expected_variants()));
  }
  const auto imbalance = q.find("imbalance");
  if (imbalance == q.end()) c.fail(path + ".imbalance", "missing; expected the imbalance to adjust, an integer");
  out.args.imbalance = read_int<long>(c, *imbalance, path + ".imbalance");
  const auto optional_int = [&](const char* key, int& field) {
    const auto it = q.find(key);
    if (it != q.end()) field = read_int<int>(c, *it, path + "." + key);
  };
  optional_int("src_running", out.args.src_running);
  optional_int("dst_running", out.args.dst_running);
  optional_int("dst_weight", out.args.dst_weight);
  optional_int("imb_numa_nr", out.args.imb_numa_nr);
  return out;
}

}  // namespace

std::vector<std::string_view> imbalance_variant_names() {
  std::vector<std::string_view> names;
  for (const variant_name& v : variants) names.push_back(v.name);
  return names;
}

explain_input parse_explain_input(std::string_view text, const std::string& source) {
  const checker c(source);
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    c.fail("", "the input is empty; expected a JSON object with \"distances\" and \"task_faults\"");
  }
  if (const auto deep = too_deep_at(text)) c.fail("", fmt::format("not valid JSON (byte {}): {}", *deep + 1, too_deep_message()));
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 5: ..." without the tag.
    std::string what = e.what();
    if (const auto tag_end = what.find("] "); what.rfind("[json.exception.", 0) == 0 && tag_end != std::string::npos) {
      what.erase(0, tag_end + 2);
    }
    c.fail("", fmt::format("not valid JSON (byte {}): {}", e.byte, what));
  } catch (const json::out_of_range& e) {
    // A number beyond double (1e400) is not a parse_error to nlohmann::json but out_of_range.406.
    std::string what = e.what();
    if (const auto tag_end = what.find("] "); what.rfind("[json.exception.", 0) == 0 && tag_end != std::string::npos) {
      what.erase(0, tag_end + 2);
    }
    c.fail("", fmt::format("not valid JSON: {}", what));
  }
  if (!doc.is_object()) {
    c.fail("", fmt::format("expected a JSON object with \"distances\" and \"task_faults\", got {}", shown(doc)));
  }
  for (const auto& [key, value] : doc.items()) {
    if (!listed(top_level_keys, key)) c.fail("", fmt::format("unknown key \"{}\"; expected {}", key, top_level_keys));
  }

  numaplace::dynamic_topology topology = read_distances(c, doc);
  const std::size_t nodes = topology.node_count();

  const auto task = doc.find("task_faults");
  if (task == doc.end()) {
    c.fail("task_faults", "missing; expected one [shared, private] pair of fault counts per node");
  }
  std::vector<fault_pair> task_faults = read_faults(c, *task, "task_faults", nodes);

  std::optional<std::vector<fault_pair>> group_faults;
  if (const auto group = doc.find("group_faults"); group != doc.end()) {
    group_faults = read_faults(c, *group, "group_faults", nodes);
  }

  std::vector<imbalance_question> questions;
  if (const auto imbalance = doc.find("imbalance"); imbalance != doc.end()) {
    if (!imbalance->is_array()) {
      c.fail("imbalance",
             fmt::format("expected an array of adjust_numa_imbalance() questions, got {}", shown(*imbalance)));
    }
    for (std::size_t i = 0; i < imbalance->size(); ++i) {
      questions.push_back(read_question(c, (*imbalance)[i], index_path("imbalance", i)));
    }
  }
  if (const auto comment = doc.find("comment"); comment != doc.end() && !comment->is_string()) {
    c.fail("comment", fmt::format("expected a string, got {}", shown(*comment)));
  }

  return {source, std::move(topology), std::move(task_faults), std::move(group_faults), std::move(questions)};
}

explain_input read_explain_input(const std::string& path) {
  const std::string text = read_input(path, "explain's JSON input (distances and task_faults)");
  return parse_explain_input(text, path == "-" ? "stdin" : path);
}

}  // namespace numaplace_cli
