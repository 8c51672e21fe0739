#pragma once
// any_placement: a placement whose stack is chosen at run time (a configuration file, a
// command-line --stack NAME), type-erased behind one indirect call per decision.
//
// owned_placement<Stack> fixes the stack at compile time and dispatches on the topology's kind;
// any_placement hides the stack too, so a runtime that lets its users pick the stack is
// compiled once. It is a shared handle to an immutable owned_placement: copies are cheap,
// and every decision is const, so any thread may decide through any copy.

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "owned_placement.hpp"
#include "stacks.hpp"

namespace numaplace {

class any_placement {
  // The decisions, as one abstract interface (one virtual call each).
  struct model_base {
    virtual ~model_base() = default;
    virtual const dynamic_topology& topology() const noexcept = 0;
    virtual numa_kind kind() const noexcept = 0;
    virtual node_index preferred_node(const decision_input& in) const noexcept = 0;
    virtual node_index group_node(const decision_input& in, node_index nid) const noexcept = 0;
    virtual std::uint64_t weight(const fault_view& f, node_index nid, distance_t dist) const noexcept = 0;
    virtual bool scan_all_nodes(const decision_input& in) const noexcept = 0;
    virtual bool has_capacity(const node_load& src, const node_load& dst) const noexcept = 0;
    virtual long adjust_imbalance(const imbalance_args& args) const noexcept = 0;
    virtual long adjust_balancer_imbalance(const balancer_args& args) const noexcept = 0;
    virtual node_index settle_preferred(const decision_input& in, const migrate_outcome& m) const noexcept = 0;
    virtual void interleave_nodes(const decision_input& in, std::span<bool> out) const noexcept = 0;
  };

  template <class Stack>
  struct model final : model_base {
    explicit model(owned_placement<Stack> p) : pl(std::move(p)) {}
    const dynamic_topology& topology() const noexcept override { return pl.topology(); }
    numa_kind kind() const noexcept override { return pl.kind(); }
    node_index preferred_node(const decision_input& in) const noexcept override { return pl.preferred_node(in); }
    node_index group_node(const decision_input& in, node_index nid) const noexcept override {
      return pl.group_node(in, nid);
    }
    std::uint64_t weight(const fault_view& f, node_index nid, distance_t dist) const noexcept override {
      return pl.weight(f, nid, dist);
    }
    bool scan_all_nodes(const decision_input& in) const noexcept override { return pl.scan_all_nodes(in); }
    bool has_capacity(const node_load& src, const node_load& dst) const noexcept override {
      return pl.has_capacity(src, dst);
    }
    long adjust_imbalance(const imbalance_args& args) const noexcept override { return pl.adjust_imbalance(args); }
    long adjust_balancer_imbalance(const balancer_args& args) const noexcept override {
      return pl.adjust_balancer_imbalance(args);
    }
    node_index settle_preferred(const decision_input& in, const migrate_outcome& m) const noexcept override {
      return pl.settle_preferred(in, m);
    }
    void interleave_nodes(const decision_input& in, std::span<bool> out) const noexcept override {
      pl.interleave_nodes(in, out);
    }
    owned_placement<Stack> pl;
  };

 public:
  /// Erases a placement of a stack known at compile time.
  template <class Stack>
  explicit any_placement(owned_placement<Stack> p)
      : model_(std::make_shared<const model<Stack>>(std::move(p))), stack_name_("(unnamed)") {}

  /// The named stack `name` (stacks.hpp's registry) over `t`; nullopt when no stack has that
  /// name. It instantiates every named stack; it is a template only so that a translation unit
  /// that never calls it does not pay for that.
  template <class = void>
  static std::optional<any_placement> named(std::string_view name, dynamic_topology t) {
    std::optional<any_placement> out;
    auto shared = std::make_shared<const dynamic_topology>(std::move(t));
    with_stack(name, [&](auto type) {
      out.emplace(owned_placement<typename decltype(type)::type>(shared));
      out->stack_name_ = std::string(name);
    });
    return out;
  }

  const dynamic_topology& topology() const noexcept { return model_->topology(); }
  std::size_t node_count() const noexcept { return topology().node_count(); }
  numa_kind kind() const noexcept { return model_->kind(); }
  /// The name it was built by (named()), or "(unnamed)".
  const std::string& stack_name() const noexcept { return stack_name_; }

  // One virtual call per decision; placement.hpp documents each.
  node_index preferred_node(const decision_input& in) const noexcept { return model_->preferred_node(in); }
  node_index group_node(const decision_input& in, node_index nid) const noexcept {
    return model_->group_node(in, nid);
  }
  std::uint64_t weight(const fault_view& f, node_index nid, distance_t dist) const noexcept {
    return model_->weight(f, nid, dist);
  }
  bool scan_all_nodes(const decision_input& in) const noexcept { return model_->scan_all_nodes(in); }
  bool has_capacity(const node_load& src, const node_load& dst) const noexcept {
    return model_->has_capacity(src, dst);
  }
  long adjust_imbalance(const imbalance_args& args) const noexcept { return model_->adjust_imbalance(args); }
  long adjust_balancer_imbalance(const balancer_args& args) const noexcept {
    return model_->adjust_balancer_imbalance(args);
  }
  node_index settle_preferred(const decision_input& in, const migrate_outcome& m) const noexcept {
    return model_->settle_preferred(in, m);
  }
  void interleave_nodes(const decision_input& in, std::span<bool> out) const noexcept {
    model_->interleave_nodes(in, out);
  }

 private:
  std::shared_ptr<const model_base> model_;
  std::string stack_name_;
};

}  // namespace numaplace
