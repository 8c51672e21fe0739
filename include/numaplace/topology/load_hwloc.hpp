#pragma once
// Topology discovery through hwloc: the optional numaplace::hwloc component (link it to use
// this header; the core headers never include <hwloc.h>).
//
// Nodes are hwloc's NUMANODE objects, listed by OS index (the sysfs `nodeN` order); a node's
// CPUs are the OS indexes of the PUs in its cpuset. Distances come from hwloc's distances API:
// an OS-provided latency matrix is preferred, then any latency matrix covering every node.
// When hwloc has none (a single node, or a platform that reports none) the loader assumes
// 10 local / 20 remote, as Linux itself does without a SLIT, and says so in hwloc_details.

#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "dynamic_topology.hpp"
#include "cpulist.hpp"
#include "error.hpp"
#include "text_input.hpp"
#include "types.hpp"

namespace numaplace::load {

/// Where a hwloc-loaded topology's distances came from.
enum class hwloc_distances_origin {
  os_latency,   ///< a latency matrix hwloc read from the OS (the kernel's SLIT view)
  latency,      ///< another latency matrix covering every node (e.g. one a user added)
  single_node,  ///< one node: the only distance is the local 10
  assumed,      ///< hwloc reported no usable matrix: 10 local / 20 remote was assumed
};

/// What hwloc said besides the topology itself; pass one to load::hwloc to learn it.
struct hwloc_details {
  hwloc_distances_origin origin = hwloc_distances_origin::assumed;
  std::string matrix_name;  ///< hwloc's name for the matrix used ("NUMALatency"), if any
  /// Nodes whose CPUs hwloc also lists under a node before them (memory beside it: KNL's
  /// MCDRAM, a CXL expander), left without those CPUs as Linux shows them; by node id.
  std::vector<node_id> sharing_cpus;
  /// The PUs of the core holding PU 0, as numad 0.5 reads cpu0's thread_siblings; none when
  /// hwloc shows no core above PU 0.
  std::optional<unsigned> threads_per_core;
};

/// Owns a hwloc topology handle; destroys it on scope exit.
struct hwloc_topology_deleter {
  void operator()(hwloc_topology_t t) const noexcept { hwloc_topology_destroy(t); }
};
using hwloc_topology_ptr = std::unique_ptr<std::remove_pointer_t<hwloc_topology_t>, hwloc_topology_deleter>;

namespace detail {

inline topology_error hwloc_failure(const std::string& call, int saved_errno) {
  return topology_error({"hwloc", 0, std::nullopt, std::nullopt}, call + " failed: " + std::strerror(saved_errno));
}

// An initialised, not yet loaded topology.
inline hwloc_topology_ptr hwloc_init() {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) throw hwloc_failure("hwloc_topology_init", errno);
  return hwloc_topology_ptr(raw);
}

inline void hwloc_load(hwloc_topology_t t) {
  if (hwloc_topology_load(t) != 0) throw hwloc_failure("hwloc_topology_load", errno);
}

inline std::vector<unsigned> hwloc_os_cpus(hwloc_const_cpuset_t set) {
  std::vector<unsigned> cpus;
  if (set == nullptr || hwloc_bitmap_weight(set) < 0) return cpus;  // absent or infinite: unknown
  for (int id = hwloc_bitmap_first(set); id != -1; id = hwloc_bitmap_next(set, id)) {
    cpus.push_back(static_cast<unsigned>(id));
  }
  return cpus;
}

// The NUMA node objects in OS-index order, which is our node order.
inline std::vector<hwloc_obj_t> hwloc_numa_nodes(hwloc_topology_t t) {
  const int count = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
  std::vector<hwloc_obj_t> nodes;
  for (int i = 0; i < count; ++i)
    nodes.push_back(hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i)));
  std::sort(nodes.begin(), nodes.end(), [](hwloc_obj_t a, hwloc_obj_t b) { return a->os_index < b->os_index; });
  return nodes;
}

// hwloc gives a NUMA node the CPUs near it, so memory attached beside another node lists that
// node's CPUs too; Linux gives each CPU one node and shows such memory as a CPU-less node
// (KNL's MCDRAM in flat mode, CXL expanders). So a CPU goes to the first node, by OS index, that
// lists it. Returns the ids of the nodes that lost CPUs that way.
inline std::vector<node_id> give_each_cpu_one_node(std::vector<node_attributes>& nodes) {
  std::vector<node_id> sharing;
  std::set<unsigned> taken;
  for (node_attributes& n : nodes) {
    const std::size_t listed = n.cpus.size();
    std::erase_if(n.cpus, [&](unsigned cpu) { return !taken.insert(cpu).second; });
    if (n.cpus.size() != listed) sharing.push_back(n.id);
    n.has_cpu = !n.cpus.empty();
  }
  return sharing;
}

inline node_attributes hwloc_node_attributes(hwloc_obj_t node) {
  node_attributes a;
  a.id = static_cast<node_id>(node->os_index);
  a.cpus = hwloc_os_cpus(node->cpuset);
  a.has_cpu = !a.cpus.empty();
  a.memory_bytes = node->attr != nullptr ? node->attr->numanode.local_memory : 0;
  a.has_memory = a.memory_bytes != 0;
  return a;
}

// Releases every matrix hwloc_distances_get_by_type handed out.
struct hwloc_distance_list {
  hwloc_topology_t topology;
  std::vector<hwloc_distances_s*> matrices;
  hwloc_distance_list(hwloc_topology_t t, std::size_t count) : topology(t), matrices(count, nullptr) {}
  hwloc_distance_list(const hwloc_distance_list&) = delete;
  hwloc_distance_list& operator=(const hwloc_distance_list&) = delete;
  ~hwloc_distance_list() {
    for (hwloc_distances_s* m : matrices) hwloc_distances_release(topology, m);
  }
};

inline bool hwloc_covers(hwloc_distances_s& m, const std::vector<hwloc_obj_t>& nodes) {
  if (m.nbobjs != nodes.size()) return false;
  for (hwloc_obj_t n : nodes) {
    if (hwloc_distances_obj_index(&m, n) < 0) return false;
  }
  return true;
}

// The matrix to use: an OS latency matrix first, then any latency one; never bandwidths,
// whose values grow as nodes get closer.
inline hwloc_distances_s* hwloc_pick_matrix(const hwloc_distance_list& list, const std::vector<hwloc_obj_t>& nodes,
                                            hwloc_distances_origin& origin) {
  hwloc_distances_s* fallback = nullptr;
  for (hwloc_distances_s* m : list.matrices) {
    if ((m->kind & HWLOC_DISTANCES_KIND_MEANS_LATENCY) == 0 || !hwloc_covers(*m, nodes)) continue;
    if ((m->kind & HWLOC_DISTANCES_KIND_FROM_OS) != 0) {
      origin = hwloc_distances_origin::os_latency;
      return m;
    }
    if (fallback == nullptr) fallback = m;
  }
  if (fallback != nullptr) origin = hwloc_distances_origin::latency;
  return fallback;
}

inline std::vector<std::vector<long long>> hwloc_rows(hwloc_distances_s& m, const std::vector<hwloc_obj_t>& nodes) {
  std::vector<std::vector<long long>> rows(nodes.size(), std::vector<long long>(nodes.size()));
  std::vector<unsigned> slot(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    slot[i] = static_cast<unsigned>(hwloc_distances_obj_index(&m, nodes[i]));
  }
  for (std::size_t r = 0; r < nodes.size(); ++r) {
    for (std::size_t c = 0; c < nodes.size(); ++c) {
      const hwloc_uint64_t v = m.values[std::size_t{slot[r]} * m.nbobjs + slot[c]];
      rows[r][c] =
          v > static_cast<hwloc_uint64_t>(LLONG_MAX) ? LLONG_MAX : static_cast<long long>(v);  // validation reports it
    }
  }
  return rows;
}

inline std::vector<std::vector<long long>> assumed_rows(std::size_t n) {
  std::vector<std::vector<long long>> rows(n, std::vector<long long>(n, 20));
  for (std::size_t i = 0; i < n; ++i) rows[i][i] = slit_local_distance;
  return rows;
}

}  // namespace detail

/// The topology hwloc describes. `details`, when given, says where the distances came from
/// (in particular whether 10/20 was assumed). Throws topology_error when hwloc fails or its
/// distances are not a valid matrix (the message names the hwloc matrix).
inline dynamic_topology hwloc(hwloc_topology_t topology, hwloc_details* details = nullptr) {
  const std::vector<hwloc_obj_t> nodes = detail::hwloc_numa_nodes(topology);
  if (nodes.empty()) throw topology_error({"hwloc", 0, std::nullopt, std::nullopt}, "hwloc reports no NUMA node");
  // Refused before any matrix is built: 8192 nodes would cost half a gigabyte of rows first.
  if (nodes.size() > max_nodes) {
    throw topology_error({"hwloc", 0, std::nullopt, std::nullopt},
                         "hwloc reports " + std::to_string(nodes.size()) + " NUMA nodes, more than the " +
                             std::to_string(max_nodes) + " supported");
  }
  std::vector<node_attributes> attributes;
  for (hwloc_obj_t n : nodes) attributes.push_back(detail::hwloc_node_attributes(n));

  hwloc_details found;
  found.sharing_cpus = detail::give_each_cpu_one_node(attributes);
  if (const hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topology, 0); pu != nullptr) {
    const hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topology, HWLOC_OBJ_CORE, pu);
    if (core != nullptr && core->cpuset != nullptr && hwloc_bitmap_weight(core->cpuset) > 0) {
      found.threads_per_core = static_cast<unsigned>(hwloc_bitmap_weight(core->cpuset));
    }
  }
  std::vector<std::vector<long long>> rows;
  if (nodes.size() == 1) {
    found.origin = hwloc_distances_origin::single_node;
    rows = detail::assumed_rows(1);
  } else {
    unsigned count = 0;
    if (hwloc_distances_get_by_type(topology, HWLOC_OBJ_NUMANODE, &count, nullptr, 0, 0) != 0) {
      throw detail::hwloc_failure("hwloc_distances_get_by_type", errno);
    }
    detail::hwloc_distance_list list(topology, count);
    if (count != 0 &&
        hwloc_distances_get_by_type(topology, HWLOC_OBJ_NUMANODE, &count, list.matrices.data(), 0, 0) != 0) {
      list.matrices.clear();  // nothing was handed out
      throw detail::hwloc_failure("hwloc_distances_get_by_type", errno);
    }
    list.matrices.resize(std::min<std::size_t>(count, list.matrices.size()));  // hwloc may report fewer
    hwloc_distances_s* m = detail::hwloc_pick_matrix(list, nodes, found.origin);
    if (m != nullptr) {
      const char* name = hwloc_distances_get_name(topology, m);
      found.matrix_name = name != nullptr ? name : "";
      rows = detail::hwloc_rows(*m, nodes);
    } else {
      found.origin = hwloc_distances_origin::assumed;
      rows = detail::assumed_rows(nodes.size());
    }
  }
  try {
    dynamic_topology t(rows, std::move(attributes));
    if (details != nullptr) *details = std::move(found);
    return t;
  } catch (const topology_error& e) {
    const std::string matrix = found.matrix_name.empty() ? "unnamed" : found.matrix_name;
    throw e.located("hwloc distances matrix \"" + matrix + "\"", 0);
  }
}

/// Discovers the machine this process runs on.
inline dynamic_topology hwloc_this_machine(hwloc_details* details = nullptr) {
  hwloc_topology_ptr t = detail::hwloc_init();
  detail::hwloc_load(t.get());
  return hwloc(t.get(), details);
}

namespace detail {

// hwloc builds every object a synthetic description names, without a limit, and its cost
// grows faster than the object count ("pack:64 pu:1024" takes minutes). Its grammar is also
// looser than it looks: counts are read by strtoul ("numa:0x400", "numa:+2", "numa: 2"),
// types by their first letters ("nu:2" is NUMA nodes), and brackets attach any number of
// memory nodes to every object ("pack:1024 [numa][numa]"). So numaplace reads a strict subset,
// refuses the rest by position, and bounds what hwloc would build before it sees the text:
//   [(ATTRS)] WORD {' ' WORD}
//   WORD  := [TYPE ':'] COUNT ['(' ATTRS ')']     a level: COUNT objects in each one above
//          | '[' TYPE ['(' ATTRS ')'] ']'          memory attached to each object above
//   TYPE  := a letter, then letters and digits;    COUNT := 1..1024, decimal, no leading zero
// The bounds: 8192 PUs (Linux's largest NR_CPUS, CONFIG_MAXSMP), max_nodes NUMA nodes (its
// largest MAX_NUMNODES, CONFIG_NODES_SHIFT=10), and four objects per PU in all: room for a
// machine's packages, NUMA nodes, cores and PUs, not for every cache level of the largest ones
// (numaplace reads only nodes and PUs). hwloc judges the types and attributes.
inline constexpr std::uint64_t max_synthetic_arity = 1024;
inline constexpr std::uint64_t max_synthetic_pus = 8192;
inline constexpr std::uint64_t max_synthetic_objects = 4 * max_synthetic_pus;

class synthetic_description_reader {
 public:
  synthetic_description_reader(std::string_view text, std::string source) : text_(text), source_(std::move(source)) {}

  void check() {
    if (peek() == '(') attributes();  // the machine's own
    while (true) {
      while (peek() == ' ') ++at_;
      if (at_ == text_.size()) break;
      if (peek() == '[') {
        memory();
      } else {
        level();
      }
      if (at_ < text_.size() && peek() != ' ' && peek() != '[') refuse("expected a space between words");
    }
    if (levels_ == 0) fail(source_, 0, "describes no level (e.g. \"pack:2 numa:2 core:4 pu:2\")");
    if (!numa_level_) add_numa_nodes(1);  // hwloc then adds one node below the machine
  }

 private:
  char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }

  [[noreturn]] void refuse(const std::string& what) const {
    fail(source_, 0, "at character " + std::to_string(at_ + 1) + ": " + what);
  }

  static bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }

  std::string type_name() {
    const std::size_t from = at_;
    while (is_letter(peek()) || (at_ > from && is_digit(peek()))) ++at_;
    return std::string(text_.substr(from, at_ - from));
  }

  hwloc_obj_type_t type_of(const std::string& name, std::size_t from) const {
    hwloc_obj_type_t type{};
    if (hwloc_type_sscanf(name.c_str(), &type, nullptr, 0) != 0) {
      fail(source_, 0, "at character " + std::to_string(from + 1) + ": '" + name + "' is not a hwloc object type");
    }
    return type;
  }

  // "(...)": hwloc reads what is inside; numaplace only keeps it to printable text.
  void attributes() {
    ++at_;
    while (peek() != ')') {
      const char c = peek();
      if (at_ == text_.size()) refuse("an attribute list is not closed with ')'");
      if (c < ' ' || c > '~' || c == '(' || c == '[' || c == ']') refuse("not a character of an attribute list");
      ++at_;
    }
    ++at_;
  }

  void level() {
    const std::size_t from = at_;
    std::optional<hwloc_obj_type_t> type;
    if (is_letter(peek())) {
      const std::string name = type_name();
      if (peek() != ':') refuse("expected ':' right after the type '" + name + "'");
      type = type_of(name, from);
      ++at_;
    }
    const std::size_t digits = at_;
    while (is_digit(peek())) ++at_;
    const std::string_view count = text_.substr(digits, at_ - digits);
    if (count.empty() || count[0] == '0') {
      at_ = digits;
      refuse("expected a count from 1 to " + std::to_string(max_synthetic_arity) + " in decimal");
    }
    if (count.size() > 4 || std::stoull(std::string(count)) > max_synthetic_arity) {
      at_ = digits;
      refuse("'" + std::string(count) + "': more than " + std::to_string(max_synthetic_arity) +
             " objects in one level (numaplace's bound, hwloc would take minutes)");
    }
    width_ *= std::stoull(std::string(count));
    ++levels_;
    if (width_ > max_synthetic_pus) {
      at_ = from;
      refuse("describes more than " + std::to_string(max_synthetic_pus) + " processing units (Linux's largest NR_CPUS)");
    }
    add_objects(width_, from);
    if (type == HWLOC_OBJ_NUMANODE) {
      numa_level_ = true;
      add_numa_nodes(width_, from);
    }
    if (peek() == '(') attributes();
  }

  void memory() {
    const std::size_t from = at_;
    ++at_;
    if (!is_letter(peek())) refuse("expected a memory object type after '['");
    const std::string name = type_name();
    const hwloc_obj_type_t type = type_of(name, from + 1);
    if (peek() == '(') attributes();
    if (peek() != ']') refuse("expected ']'");
    ++at_;
    add_objects(width_, from);
    if (type == HWLOC_OBJ_NUMANODE) add_numa_nodes(width_, from);
  }

  void add_objects(std::uint64_t n, std::size_t from) {
    objects_ += n;
    if (objects_ > max_synthetic_objects) {
      at_ = from;
      refuse("describes more than " + std::to_string(max_synthetic_objects) +
             " objects in all (numaplace's bound: leave out cache levels, numaplace reads only NUMA nodes and PUs)");
    }
  }

  void add_numa_nodes(std::uint64_t n, std::size_t from = 0) {
    numa_nodes_ += n;
    if (numa_nodes_ > max_nodes) {
      at_ = from;
      refuse("describes more than " + std::to_string(max_nodes) + " NUMA nodes (Linux's largest MAX_NUMNODES)");
    }
  }

  std::string_view text_;
  std::string source_;
  std::size_t at_ = 0;
  std::uint64_t width_ = 1;  // objects in the level read last
  std::uint64_t objects_ = 0;
  std::uint64_t numa_nodes_ = 0;
  unsigned levels_ = 0;
  bool numa_level_ = false;
};

inline void check_synthetic_description(const std::string& description, const std::string& source) {
  // hwloc takes a C string: it would read only up to a NUL byte, and the message would be cut there.
  if (description.find('\0') != std::string::npos) fail("hwloc synthetic description", 0, "contains a NUL byte");
  synthetic_description_reader(description, source).check();
}

}  // namespace detail

/// A loaded hwloc synthetic topology, e.g. "pack:2 numa:2 core:2 pu:1" (hwloc's grammar, see
/// lstopo --if synthetic), for tests and examples that want to add distances
/// (hwloc_distances_add_*) before calling load::hwloc. Throws topology_error naming the
/// description when hwloc rejects it or it has more PUs than numaplace can number.
inline hwloc_topology_ptr hwloc_open_synthetic(const std::string& description) {
  const std::string source = "hwloc synthetic description \"" + description + "\"";
  detail::check_synthetic_description(description, source);
  hwloc_topology_ptr t = detail::hwloc_init();
  if (hwloc_topology_set_synthetic(t.get(), description.c_str()) != 0) {
    detail::fail(source, 0, "hwloc rejects it (e.g. \"pack:2 numa:2 core:4 pu:2\" is valid)");
  }
  if (hwloc_topology_load(t.get()) != 0) detail::fail(source, 0, std::string("hwloc cannot load it: ") + std::strerror(errno));
  return t;
}

/// The topology of a hwloc synthetic description. Synthetic topologies carry no distances,
/// so a multi-node one gets the assumed 10/20 (see hwloc_details). Errors name the description.
inline dynamic_topology hwloc_synthetic(const std::string& description, hwloc_details* details = nullptr) {
  hwloc_topology_ptr t = hwloc_open_synthetic(description);
  try {
    return hwloc(t.get(), details);
  } catch (const topology_error& e) {
    if (e.where().source != "hwloc") throw;
    throw e.located("hwloc synthetic description \"" + description + "\"", 0);
  }
}

/// A loaded topology from the text of a hwloc XML file (`lstopo FILE.xml`, or
/// hwloc_topology_export_xml), e.g. of another machine; `source` names it in errors.
inline hwloc_topology_ptr hwloc_open_xml_text(const std::string& text, const std::string& source) {
  if (text.size() > detail::max_input_bytes) {
    detail::fail(source, 0, "is larger than " + std::to_string(detail::max_input_bytes >> 20) + " MiB: not a topology description");
  }
  hwloc_topology_ptr t = detail::hwloc_init();
  // The size hwloc asks for counts the terminating NUL.
  if (hwloc_topology_set_xmlbuffer(t.get(), text.c_str(), static_cast<int>(text.size() + 1)) != 0 ||
      hwloc_topology_load(t.get()) != 0) {
    detail::fail(source, 0, std::string("hwloc cannot read it as a topology XML file: ") + std::strerror(errno));
  }
  return t;
}

/// The same from a file, read as every numaplace text input is (no such file, a folder, a
/// FIFO, over max_input_bytes: a topology_error naming it).
inline hwloc_topology_ptr hwloc_open_xml(const std::filesystem::path& path) {
  return hwloc_open_xml_text(detail::read_text(path), path.string());
}

/// The topology a hwloc XML text describes, with its distances when it has a latency matrix
/// (else 10/20 assumed, see hwloc_details). Errors name `source`.
inline dynamic_topology hwloc_xml_text(const std::string& text, const std::string& source,
                                       hwloc_details* details = nullptr) {
  try {
    return hwloc(hwloc_open_xml_text(text, source).get(), details);
  } catch (const topology_error& e) {
    if (e.where().source == source) throw;
    // hwloc's own failures say "hwloc"; a bad matrix names it: keep that after the file.
    throw e.located(e.where().source == "hwloc" ? source : source + ": " + e.where().source, 0);
  }
}

/// The same from a file.
inline dynamic_topology hwloc_xml(const std::filesystem::path& path, hwloc_details* details = nullptr) {
  return hwloc_xml_text(detail::read_text(path), path.string(), details);
}

}  // namespace numaplace::load
