#pragma once
// Who touches which region how often: for each region, the tasks that access it now with
// cumulative weights (a task's access share of the region times its share of its CPU), so the
// scanner can draw which task takes an armed chunk's hinting fault. Rebuilt when costs refresh.

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "machine.hpp"
#include "random.hpp"

namespace numaplace::sim {

class access_index {
 public:
  void rebuild(const machine& m, std::size_t regions) {
    by_region_.assign(regions, {});
    for (task_index id = 0; id < m.tasks.size(); ++id) {
      const task_state& t = m.tasks[id];
      if (!t.touches_memory()) continue;
      const double cpu_share = 1.0 / double(std::max<std::size_t>(1, m.cpus[t.cpu].tasks.size()));
      for (const auto& [r, weight] : t.accesses) {
        auto& list = by_region_[r];
        const double before = list.empty() ? 0.0 : list.back().second;
        list.emplace_back(id, before + weight * cpu_share);
      }
    }
  }

  /// The task that touches a chunk of region r first, or no_task when no task does (one asleep
  /// or spinning at a barrier since the last rebuild touches nothing).
  template <class Rng>
  task_index first_toucher(std::uint32_t r, const machine& m, Rng& rng) const {
    const auto& list = by_region_[r];
    if (list.empty() || list.back().second <= 0) return no_task;
    const double x = random_between(rng, 0.0, list.back().second);
    auto it = std::upper_bound(list.begin(), list.end(), x, [](double v, const auto& e) { return v < e.second; });
    if (it == list.end()) --it;
    return m.tasks[it->first].touches_memory() ? it->first : no_task;
  }

 private:
  std::vector<std::vector<std::pair<task_index, double>>> by_region_;
};

}  // namespace numaplace::sim
