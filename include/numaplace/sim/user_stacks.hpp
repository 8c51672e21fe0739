#pragma once
// A user's own stacks, by name, for run_stack and run_experiment: any numaplace stack type
// (stack.hpp, e.g. a named stack with one policy changed through extend or replace) joins an
// experiment under a name of the user's choosing, next to the named stacks and baselines.

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../stacks.hpp"
#include "../topology/dynamic_topology.hpp"
#include "baselines.hpp"
#include "result.hpp"
#include "run_engine.hpp"
#include "workload.hpp"

namespace numaplace::sim {

class user_stacks {
 public:
  /// How one of them runs: run_engine<Stack>.
  using runner = run_result (*)(const dynamic_topology&, const workload&, const run_options&);

  /// Adds `Stack` under `name`. Throws std::invalid_argument when the name is empty or taken:
  /// by a named stack, a baseline or an earlier add (a stack list could not tell them apart).
  template <class Stack>
  user_stacks& add(std::string name) {
    if (name.empty()) throw std::invalid_argument("a user stack needs a name");
    bool named = false;
    for_each_stack([&](std::string_view n, auto) { named = named || n == name; });
    if (named || find(name) != nullptr || is_baseline(name)) {
      throw std::invalid_argument("stack name '" + name + "' is taken");
    }
    entries_.emplace_back(std::move(name), &run_engine<Stack>);
    return *this;
  }

  /// The runner of the stack called `name`; nullptr when none of these is.
  [[nodiscard]] runner find(std::string_view name) const {
    const auto it = std::find_if(entries_.begin(), entries_.end(), [&](const auto& e) { return e.first == name; });
    return it == entries_.end() ? nullptr : it->second;
  }

  /// Their names, in the order they were added.
  [[nodiscard]] std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : entries_) out.push_back(e.first);
    return out;
  }

 private:
  std::vector<std::pair<std::string, runner>> entries_;
};

}  // namespace numaplace::sim
