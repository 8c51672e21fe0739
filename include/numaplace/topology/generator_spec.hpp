#pragma once
// A generator named in one short string, so that a command line can describe a machine:
//
//   SPEC   := GENERATOR ( "/" SHAPE )*
//   GENERATOR := ring:NODES[:PER_HOP]              (generate::ring)
//             | fully-connected:NODES[:REMOTE]      (generate::fully_connected)
//             | backplane:GROUPSxPER_GROUP[:IN_GROUP[:ACROSS]]   (generate::two_level_backplane)
//             | ladder:RUNGS[:PER_HOP]  | twisted-ladder:RUNGS[:PER_HOP]   (generate::ladder)
//             | hierarchical:FANOUT@DISTANCE[,FANOUT@DISTANCE]...  innermost level first
//             | links:NODES:PER_HOP:A-B[,A-B]...     (generate::from_links)
//   SHAPE  := cpus=N | memory=SIZE                   (SIZE in bytes, or with a K, M, G or T suffix)
//
// e.g. "ring:8", "backplane:2x4:12:20/cpus=4/memory=16G", "hierarchical:2@11,4@20".
// Errors name the part of the spec that is wrong.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dynamic_topology.hpp"
#include "error.hpp"
#include "generators.hpp"
#include "text_input.hpp"

namespace numaplace::generate {

namespace detail {

// Splits `text` at every `separator` (an empty text is one empty part).
inline std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

class spec_reader {
 public:
  explicit spec_reader(std::string_view spec) : source_("generator spec '" + numaplace::detail::excerpt(spec) + "'") {}

  [[noreturn]] void fail(std::string_view part, const std::string& what) const {
    throw topology_error({source_, 0, std::nullopt, std::nullopt}, "'" + numaplace::detail::excerpt(part) + "': " + what);
  }

  std::uint64_t number(std::string_view word, std::string_view part, const std::string& what, std::uint64_t limit) const {
    try {
      return load::detail::parse_unsigned(word, what, limit, "", 0);
    } catch (const topology_error& e) {
      fail(part, e.reason());
    }
  }
  distance_t distance(std::string_view word, std::string_view part, const std::string& what) const {
    return static_cast<distance_t>(number(word, part, what, 255));
  }
  std::size_t nodes(std::string_view word, std::string_view part, const std::string& what) const {
    return static_cast<std::size_t>(number(word, part, what, max_nodes));
  }

  std::uint64_t size(std::string_view word, std::string_view part) const {
    try {
      return load::detail::parse_memory_size(word, "memory size", "", 0);
    } catch (const topology_error& e) {
      fail(part, e.reason());
    }
  }

 private:
  std::string source_;
};

}  // namespace detail

/// The topology `spec` describes (grammar above). Throws topology_error naming the wrong part.
inline dynamic_topology from_spec(std::string_view spec) {
  const detail::spec_reader r(spec);
  const std::vector<std::string_view> sections = detail::split(spec, '/');
  node_shape shape;
  for (std::size_t i = 1; i < sections.size(); ++i) {
    const std::string_view s = sections[i];
    if (s.starts_with("cpus=")) {
      shape.cpus_per_node = static_cast<unsigned>(r.number(s.substr(5), s, "CPUs per node", 4096));
    } else if (s.starts_with("memory=")) {
      shape.memory_bytes_per_node = r.size(s.substr(7), s);
    } else {
      r.fail(s, "expected cpus=N or memory=SIZE after '/'");
    }
  }
  const std::vector<std::string_view> a = detail::split(sections[0], ':');
  const std::string_view name = a[0];
  const auto arity = [&](std::size_t least, std::size_t most) {
    if (a.size() - 1 < least || a.size() - 1 > most) {
      r.fail(sections[0], std::string(name) + " takes " +
                              (least == most ? std::to_string(least) : std::to_string(least) + " to " + std::to_string(most)) +
                              " parameters, got " + std::to_string(a.size() - 1));
    }
  };
  if (name == "ring") {
    arity(1, 2);
    return ring(r.nodes(a[1], a[1], "node count"), a.size() > 2 ? r.distance(a[2], a[2], "distance per hop") : 10, shape);
  }
  if (name == "fully-connected") {
    arity(1, 2);
    return fully_connected(r.nodes(a[1], a[1], "node count"), a.size() > 2 ? r.distance(a[2], a[2], "remote distance") : 20,
                           shape);
  }
  if (name == "ladder" || name == "twisted-ladder") {
    arity(1, 2);
    return ladder(r.nodes(a[1], a[1], "rung count"), name == "twisted-ladder",
                  a.size() > 2 ? r.distance(a[2], a[2], "distance per hop") : 6, shape);
  }
  if (name == "backplane") {
    arity(1, 3);
    const std::vector<std::string_view> gxp = detail::split(a[1], 'x');
    if (gxp.size() != 2) r.fail(a[1], "expected GROUPSxNODES_PER_GROUP, e.g. 2x4");
    return two_level_backplane(r.nodes(gxp[0], a[1], "group count"), r.nodes(gxp[1], a[1], "nodes per group"),
                               a.size() > 2 ? r.distance(a[2], a[2], "in-group distance") : 20,
                               a.size() > 3 ? r.distance(a[3], a[3], "distance across groups") : 30, shape);
  }
  if (name == "hierarchical") {
    arity(1, 1);
    std::vector<level> levels;
    for (const std::string_view l : detail::split(a[1], ',')) {
      const std::vector<std::string_view> fd = detail::split(l, '@');
      if (fd.size() != 2) r.fail(l, "expected FANOUT@DISTANCE, e.g. 2@11");
      levels.push_back({r.nodes(fd[0], l, "fan-out"), r.distance(fd[1], l, "distance")});
    }
    return hierarchical(levels, shape);
  }
  if (name == "links") {
    arity(3, 3);
    std::vector<std::pair<std::size_t, std::size_t>> links;
    for (const std::string_view l : detail::split(a[3], ',')) {
      const std::vector<std::string_view> ab = detail::split(l, '-');
      if (ab.size() != 2) r.fail(l, "expected a link A-B between node indices, e.g. 0-1");
      links.emplace_back(r.nodes(ab[0], l, "node index"), r.nodes(ab[1], l, "node index"));
    }
    return from_links(r.nodes(a[1], a[1], "node count"), links, r.distance(a[2], a[2], "distance per hop"), shape, "links");
  }
  r.fail(name, "unknown generator; expected ring, fully-connected, backplane, ladder, twisted-ladder, hierarchical or links");
}

}  // namespace numaplace::generate
