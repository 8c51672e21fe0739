#include "examine.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <vector>

#include "advice.hpp"
#include "apply.hpp"
#include "proc_files.hpp"

namespace balancer {

namespace {

std::string mib(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

void print_advice(const numaplace::dynamic_topology& t, const advice& a, const std::vector<unsigned>& ids,
                  std::ostream& out) {
  out << "pid " << a.pid << " (" << a.name << "): " << a.threads << " thread" << (a.threads == 1 ? "" : "s") << ", "
      << mib(a.bytes) << " MiB resident, by node:";
  for (numaplace::node_index i = 0; i < t.node_count(); ++i) {
    if (a.bytes_per_node[i] > 0) out << ' ' << t.id_of(i) << '=' << mib(a.bytes_per_node[i]);
  }
  out << "\n  recommend nodes " << list_text(ids) << " (CPUs " << list_text(a.cpus) << ")\n";
  for (const auto& w : a.why) out << "  why: " << w << '\n';
}

}  // namespace

examined examine(const numaplace::dynamic_topology& t, int pid, const examine_options& o, std::ostream& out) {
  const auto excluded = [&](exclusion_reason r) { return examined{outcome::excluded, describe(r, o.skip), r}; };
  if (const exclusion_reason r = o.skip.by_pid(pid); r != exclusion_reason::none) return excluded(r);
  std::string why_gone;
  std::optional<process_snapshot> p;
  try {
    p = read_process(o.proc, pid, &why_gone);
  } catch (const proc_permission_error& e) {
    return {outcome::not_permitted, e.what()};
  } catch (const proc_error& e) {
    return {outcome::bad_file, e.what()};
  }
  if (!p) return {outcome::gone, why_gone};
  if (const exclusion_reason r = o.skip.by_process(*p, o.named); r != exclusion_reason::none) return excluded(r);
  if (!o.named && p->memory.total_bytes() == 0) return {outcome::no_memory, {}};

  const advice a = advise(t, *p, o.stack);
  std::vector<unsigned> ids;
  for (const auto n : a.nodes) ids.push_back(static_cast<unsigned>(t.id_of(n)));
  std::sort(ids.begin(), ids.end());
  print_advice(t, a, ids, out);
  if (!o.apply) return {};

  const apply_report r = apply_advice(t, o.proc, *p, a);
  switch (r.status) {
    case apply_status::done:
      out << "  applied: affinity of " << r.threads_set << " thread" << (r.threads_set == 1 ? "" : "s")
          << " set to CPUs " << list_text(a.cpus);
      if (r.threads_gone > 0) out << " (" << r.threads_gone << " exited meanwhile)";
      if (r.memory_moved) {
        out << "; memory migrated to nodes " << list_text(ids);
        if (r.pages_not_moved > 0) out << " (" << r.pages_not_moved << " pages could not be moved)";
      } else {
        out << "; memory already within the set";
      }
      out << '\n';
      return {};
    case apply_status::gone:
      out << "  not applied: the process exited (" << r.message << ")\n";
      return {};
    case apply_status::not_permitted:
      return {outcome::not_permitted, "not permitted: " + r.message};
    case apply_status::failed:
      return {outcome::move_failed, r.message};
  }
  return {};
}

}  // namespace balancer
