#pragma once
// A machine's measured memory costs as JSON (what `numaplace sim --costs FILE.json` reads),
// read and checked so that every problem names the file and either the line:column of a
// syntax error or the JSON path of a bad value (`/latency_ratio/2/3`); written in the same form
// (`--costs-json`), so a preset's costs are a starting point for a user's own. Part of
// numaplace::formats (format_error.hpp).

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../sim/machine_costs.hpp"
#include "../topology/dynamic_topology.hpp"
#include "../topology/types.hpp"
#include "format_error.hpp"
#include "json_checker.hpp"
#include "json_stamp.hpp"

namespace numaplace::formats {

/// What written costs say they are (json_stamp.hpp); documents without the stamp are read too.
inline constexpr std::string_view machine_costs_format = "numaplace-machine-costs";
inline constexpr int machine_costs_schema_version = 1;

/// Costs that cannot be used; the message starts with the document's name and the location.
class machine_costs_error : public format_error {
 public:
  using format_error::format_error;
};

namespace machine_costs_detail {

using json = nlohmann::json;
using numaplace::node_index;
using numaplace::sim::machine_costs;

inline constexpr std::string_view known_fields =
    "name, local_latency_ns, latency_ratio, node_bandwidth_gbs, core_stream_gbs, threads_per_core, links, routes, "
    "loaded_latency, sources, assumption";
// The library's bound on nodes (numaplace::max_nodes), which keeps n x n work bounded for any
// input, and as many links as a machine of that many nodes could want.
using numaplace::max_nodes;
inline constexpr std::size_t max_links = 65536;

// Problems at a JSON pointer, or at a line and column of the text for syntax errors.
using checker = json_checker<machine_costs_error>;

inline std::string child(std::string_view path, std::string_view key) { return fmt::format("{}/{}", path, key); }
inline std::string child(std::string_view path, std::size_t i) { return fmt::format("{}/{}", path, i); }

inline double number(const checker& c, const json& v, const std::string& path) {
  if (!v.is_number()) c.fail(path, fmt::format("expected a number, got {}", shown(v)));
  const double d = v.get<double>();
  if (!std::isfinite(d)) c.fail(path, fmt::format("{} is not a finite number", shown(v)));
  return d;
}

inline double number_in(const checker& c, const json& v, const std::string& path, double above, double at_most,
                 std::string_view unit) {
  const double d = number(c, v, path);
  if (!(d > above && d <= at_most)) c.fail(path, fmt::format("{} {} is not in ({}, {}]", shown(v), unit, above, at_most));
  return d;
}

inline std::uint64_t index(const checker& c, const json& v, const std::string& path, std::uint64_t below,
                    std::string_view what) {
  if (!v.is_number_unsigned()) c.fail(path, fmt::format("expected a {} (a whole number from 0), got {}", what, shown(v)));
  const auto i = v.get<std::uint64_t>();
  if (i >= below) c.fail(path, fmt::format("{} {} is out of range: there are {}", what, i, below));
  return i;
}

inline const json& array(const checker& c, const json& v, const std::string& path, std::string_view expected) {
  if (!v.is_array()) c.fail(path, fmt::format("expected {}, got {}", expected, shown(v)));
  return v;
}

// The member `key` of the object `doc` (at `base`), which must be there.
inline const json& required(const checker& c, const json& doc, std::string_view key, std::string_view expected,
                     std::string_view base = "") {
  const auto it = doc.find(key);
  if (it == doc.end()) c.fail(child(base, key), fmt::format("missing; expected {}", expected));
  return *it;
}

inline bool known_field(std::string_view key) {
  static constexpr std::string_view fields[] = {"name",           "local_latency_ns", "latency_ratio", "node_bandwidth_gbs",
                                                "core_stream_gbs", "links",           "routes",        "loaded_latency",
                                                "sources",         "assumption",      "threads_per_core"};
  for (const auto f : fields) {
    if (f == key) return true;
  }
  return false;
}

inline std::vector<double> ratios(const checker& c, const json& v, std::size_t n) {
  const std::string path = "/latency_ratio";
  array(c, v, path, fmt::format("{} rows of {} latency ratios", n, n));
  if (v.size() != n) c.fail(path, fmt::format("has {} rows for {} nodes (node_bandwidth_gbs has {})", v.size(), n, n));
  std::vector<double> out;
  out.reserve(n * n);
  for (std::size_t a = 0; a < n; ++a) {
    const std::string row = child(path, a);
    array(c, v[a], row, fmt::format("a row of {} latency ratios", n));
    if (v[a].size() != n) c.fail(row, fmt::format("has {} entries, not {}", v[a].size(), n));
    for (std::size_t b = 0; b < n; ++b) {
      const std::string at = child(row, b);
      const double r = number(c, v[a][b], at);
      if (a == b && r != 1.0) c.fail(at, fmt::format("{} on the diagonal: local latency over itself is 1", shown(v[a][b])));
      if (a != b && r < 1.0) {
        c.fail(at, fmt::format("{} is below 1: a ratio is latency to another node over local latency", shown(v[a][b])));
      }
      if (r > 100.0) c.fail(at, fmt::format("{} is over 100", shown(v[a][b])));
      out.push_back(r);
    }
  }
  return out;
}

inline std::vector<numaplace::sim::memory_link> links(const checker& c, const json& v, std::size_t n) {
  const std::string path = "/links";
  array(c, v, path, "an array of {\"a\": node, \"b\": node, \"gb_per_s\": bandwidth}");
  if (v.size() > max_links) c.fail(path, fmt::format("has {} links; at most {}", v.size(), max_links));
  std::vector<numaplace::sim::memory_link> out;
  for (std::size_t l = 0; l < v.size(); ++l) {
    const std::string at = child(path, l);
    const json& link = v[l];
    if (!link.is_object()) c.fail(at, fmt::format("expected {{\"a\": node, \"b\": node, \"gb_per_s\": ...}}, got {}", shown(link)));
    for (const auto& [key, value] : link.items()) {
      if (key != "a" && key != "b" && key != "gb_per_s") c.fail(child(at, key), "unknown field; expected a, b, gb_per_s");
    }
    numaplace::sim::memory_link m;
    m.a = static_cast<node_index>(index(c, required(c, link, "a", "a node index", at), child(at, "a"), n, "node index"));
    m.b = static_cast<node_index>(index(c, required(c, link, "b", "a node index", at), child(at, "b"), n, "node index"));
    if (m.a == m.b) c.fail(at, fmt::format("joins node {} to itself", m.a));
    m.gb_per_s = number_in(c, required(c, link, "gb_per_s", "the link's GB/s each way", at), child(at, "gb_per_s"), 0,
                           1e6, "GB/s");
    out.push_back(m);
  }
  return out;
}

inline std::vector<std::vector<std::uint32_t>> routes(const checker& c, const json& v, const machine_costs& costs) {
  const std::string path = "/routes";
  const std::size_t n = costs.node_count();
  if (costs.links.empty()) c.fail(path, "given without links: a route is a list of link indices");
  array(c, v, path, fmt::format("{} rows of {} link lists", n, n));
  if (v.size() != n) c.fail(path, fmt::format("has {} rows for {} nodes", v.size(), n));
  std::vector<std::vector<std::uint32_t>> out(n * n);
  for (std::size_t a = 0; a < n; ++a) {
    const std::string row = child(path, a);
    array(c, v[a], row, fmt::format("a row of {} link lists", n));
    if (v[a].size() != n) c.fail(row, fmt::format("has {} entries, not {}", v[a].size(), n));
    for (std::size_t b = 0; b < n; ++b) {
      const std::string at = child(row, b);
      const json& hops = array(c, v[a][b], at, "a list of link indices");
      if (hops.size() > costs.links.size()) c.fail(at, "crosses more links than there are");
      if (a != b && hops.empty()) c.fail(at, fmt::format("is empty: node {} must reach node {}", a, b));
      node_index here = static_cast<node_index>(a);
      for (std::size_t h = 0; h < hops.size(); ++h) {
        const auto l = static_cast<std::uint32_t>(index(c, hops[h], child(at, h), costs.links.size(), "link index"));
        const auto& link = costs.links[l];
        if (link.a != here && link.b != here) {
          c.fail(child(at, h), fmt::format("link {} joins nodes {} and {}; the route is at node {}", l, link.a, link.b, here));
        }
        here = link.a == here ? link.b : link.a;
        out[a * n + b].push_back(l);
      }
      if (here != b) c.fail(at, fmt::format("ends at node {}, not {}", here, b));
    }
  }
  return out;
}

inline numaplace::sim::loaded_latency_curve curve(const checker& c, const json& v) {
  const std::string path = "/loaded_latency";
  array(c, v, path, "an array of [utilisation, latency factor] pairs");
  if (v.size() < 2) c.fail(path, "needs at least two points, the first [0, 1]");
  numaplace::sim::loaded_latency_curve out;
  out.points.clear();
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string at = child(path, i);
    array(c, v[i], at, "a [utilisation, latency factor] pair");
    if (v[i].size() != 2) c.fail(at, fmt::format("has {} entries; expected [utilisation, latency factor]", v[i].size()));
    const double u = number(c, v[i][0], child(at, 0));
    const double f = number(c, v[i][1], child(at, 1));
    if (i == 0 && (u != 0.0 || f != 1.0)) c.fail(at, "the curve must start at [0, 1]: no load, no slowdown");
    if (i > 0 && !(u > out.points.back().first)) c.fail(child(at, 0), "utilisation must ascend");
    if (u > 100) c.fail(child(at, 0), "utilisation over 100");
    if (i > 0 && f < out.points.back().second) c.fail(child(at, 1), "the latency factor must not fall as load grows");
    if (f > 1e4) c.fail(child(at, 1), "latency factor over 1e4");
    out.points.emplace_back(u, f);
  }
  return out;
}

inline std::string text_field(const checker& c, const json& v, const std::string& path) {
  if (!v.is_string()) c.fail(path, fmt::format("expected a string, got {}", shown(v)));
  return v.get<std::string>();
}

// The costs in `text`, and whether it lists links at all (an empty list counts).
struct parsed_costs {
  machine_costs costs;
  bool gives_links = false;
};

inline parsed_costs parse_costs(std::string_view text, const std::string& source) {
  const checker c(source);
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    c.fail("", "the file is empty; expected a JSON object with name, local_latency_ns, latency_ratio, "
               "node_bandwidth_gbs and core_stream_gbs");
  }
  if (const auto deep = too_deep_at(text)) c.fail_at(text, *deep, too_deep_message());
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    // e.byte counts from 1 and points at the character the parser stopped on.
    c.fail_at(text, e.byte == 0 ? 0 : e.byte - 1, reason(e));
  } catch (const json::out_of_range& e) {
    // A number beyond double (1e400) is out_of_range.406, without a position: find its text.
    const std::string what = reason(e);
    const auto open = what.find('\''), close = what.rfind('\'');
    if (open != std::string::npos && close > open) {
      if (const auto at = text.find(what.substr(open + 1, close - open - 1)); at != std::string_view::npos) {
        c.fail_at(text, at, what);
      }
    }
    c.fail("", what);
  }
  if (!doc.is_object()) c.fail("", fmt::format("expected a JSON object, got {}", shown(doc)));
  check_stamp(doc, machine_costs_format, machine_costs_schema_version,
              [&](std::string_view path, const std::string& what) { c.fail(path, what); });
  for (const auto& [key, value] : doc.items()) {
    if (!known_field(key) && !is_stamp_key(key)) c.fail(child("", key), fmt::format("unknown field; expected {}", known_fields));
  }

  machine_costs costs;
  costs.name = text_field(c, required(c, doc, "name", "the machine's name, a string"), "/name");
  const json& bandwidth = required(c, doc, "node_bandwidth_gbs", "one memory bandwidth (GB/s) per node");
  array(c, bandwidth, "/node_bandwidth_gbs", "one memory bandwidth (GB/s) per node");
  if (bandwidth.empty()) c.fail("/node_bandwidth_gbs", "is empty; it gives one bandwidth per node");
  if (bandwidth.size() > max_nodes) c.fail("/node_bandwidth_gbs", fmt::format("{} nodes; at most {}", bandwidth.size(), max_nodes));
  const std::size_t n = bandwidth.size();
  for (std::size_t i = 0; i < n; ++i) {
    costs.node_bandwidth_gbs.push_back(number_in(c, bandwidth[i], child("/node_bandwidth_gbs", i), 0, 1e6, "GB/s"));
  }
  costs.latency_ratio = ratios(c, required(c, doc, "latency_ratio", "n rows of n latency ratios"), n);
  costs.local_latency_ns = number(c, required(c, doc, "local_latency_ns", "the local latency in ns"), "/local_latency_ns");
  if (!(costs.local_latency_ns > 0 && costs.local_latency_ns < 1e5)) {
    c.fail("/local_latency_ns", fmt::format("{} ns is not in (0, 1e5)", costs.local_latency_ns));
  }
  costs.core_stream_gbs =
      number(c, required(c, doc, "core_stream_gbs", "one core's streaming bandwidth in GB/s"), "/core_stream_gbs");
  if (!(costs.core_stream_gbs > 0 && costs.core_stream_gbs < 1e4)) {
    c.fail("/core_stream_gbs", fmt::format("{} GB/s is not in (0, 1e4)", costs.core_stream_gbs));
  }
  if (const auto it = doc.find("threads_per_core"); it != doc.end()) {
    costs.threads_per_core = static_cast<unsigned>(index(c, *it, "/threads_per_core", 17, "SMT thread count"));
    if (costs.threads_per_core == 0) c.fail("/threads_per_core", "is 0; a core runs 1 to 16 threads");
  }
  const auto listed_links = doc.find("links");
  if (listed_links != doc.end()) costs.links = links(c, *listed_links, n);
  if (const auto it = doc.find("routes"); it != doc.end()) costs.routes = routes(c, *it, costs);
  if (const auto it = doc.find("loaded_latency"); it != doc.end()) costs.loaded = curve(c, *it);
  if (const auto it = doc.find("sources"); it != doc.end()) {
    array(c, *it, "/sources", "an array of strings, one per figure");
    for (std::size_t i = 0; i < it->size(); ++i) costs.sources.push_back(text_field(c, (*it)[i], child("/sources", i)));
  }
  if (const auto it = doc.find("assumption"); it != doc.end()) costs.assumption = text_field(c, *it, "/assumption");

  if (costs.routes.empty() && !costs.links.empty()) {
    numaplace::sim::complete_routes(costs);
    // A pair the links do not join has no route: say which, as a path of the file.
    for (std::size_t a = 0; a < n; ++a) {
      for (std::size_t b = 0; b < n; ++b) {
        if (a != b && costs.routes[a * n + b].empty()) {
          c.fail("/links", fmt::format("do not join node {} to node {}", a, b));
        }
      }
    }
  }
  if (costs.routes.empty()) costs.routes.assign(n * n, {});
  if (const auto problem = numaplace::sim::validate(costs, n)) c.fail("", *problem);
  return {std::move(costs), listed_links != doc.end()};
}

}  // namespace machine_costs_detail

/// Parses and checks `text`; `source` names it in messages. Throws machine_costs_error. Costs
/// whose text has no "links" field come back without links (parse_machine_costs_for derives them).
inline sim::machine_costs parse_machine_costs(std::string_view text, const std::string& source) {
  return machine_costs_detail::parse_costs(text, source).costs;
}

/// Parses `text` (named `source` in messages) as the costs of `machine` (named `machine_name`),
/// whose node count they must have. Costs without a "links" field get links derived from the
/// machine's SLIT (numaplace::sim::derive_links), as a machine without costs does, and their
/// assumption says so; "links": [] keeps the nodes free of link limits. Throws
/// machine_costs_error.
inline sim::machine_costs parse_machine_costs_for(std::string_view text, const std::string& source,
                                                  const dynamic_topology& machine, std::string_view machine_name) {
  machine_costs_detail::parsed_costs p = machine_costs_detail::parse_costs(text, source);
  if (p.costs.node_count() != machine.node_count()) {
    throw machine_costs_error(fmt::format("{}: has costs for {} nodes; the machine ({}) has {}", source,
                                          p.costs.node_count(), machine_name, machine.node_count()));
  }
  if (!p.gives_links) {
    numaplace::sim::derive_links(p.costs, machine);
    std::string& said = p.costs.assumption;
    said += said.empty() ? "the file lists no links: " : "; the file lists no links: ";
    said += numaplace::sim::derived_links_assumption;
  }
  return std::move(p.costs);
}

/// `c` in the form parse_machine_costs reads back to the same costs (what `numaplace sim
/// --costs-json` prints).
inline nlohmann::ordered_json machine_costs_json(const sim::machine_costs& c) {
  using ojson = nlohmann::ordered_json;
  const std::size_t n = c.node_count();
  ojson out;
  out["name"] = c.name;
  out["local_latency_ns"] = c.local_latency_ns;
  ojson rows = ojson::array();
  for (std::size_t a = 0; a < n; ++a) {
    ojson row = ojson::array();
    for (std::size_t b = 0; b < n; ++b) row.push_back(c.latency_ratio[a * n + b]);
    rows.push_back(std::move(row));
  }
  out["latency_ratio"] = std::move(rows);
  out["node_bandwidth_gbs"] = c.node_bandwidth_gbs;
  out["core_stream_gbs"] = c.core_stream_gbs;
  if (c.threads_per_core != 0) out["threads_per_core"] = c.threads_per_core;
  ojson link_list = ojson::array();
  for (const auto& l : c.links) link_list.push_back({{"a", l.a}, {"b", l.b}, {"gb_per_s", l.gb_per_s}});
  out["links"] = std::move(link_list);
  if (!c.links.empty() && c.routes.size() == n * n) {
    ojson route_rows = ojson::array();
    for (std::size_t a = 0; a < n; ++a) {
      ojson row = ojson::array();
      for (std::size_t b = 0; b < n; ++b) row.push_back(c.routes[a * n + b]);
      route_rows.push_back(std::move(row));
    }
    out["routes"] = std::move(route_rows);
  }
  ojson curve_points = ojson::array();
  for (const auto& [u, f] : c.loaded.points) curve_points.push_back({u, f});
  out["loaded_latency"] = std::move(curve_points);
  out["sources"] = c.sources;
  out["assumption"] = c.assumption;
  stamp_json(out, machine_costs_format, machine_costs_schema_version);
  return out;
}

}  // namespace numaplace::formats
