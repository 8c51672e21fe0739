#pragma once
// The balancing loop's roles as 6.1 fills them: what a stack that names no policy for a role
// gets (the roles and their detection are in the hook table, policy/hooks.hpp).
//
//   role             6.1's policy
//   scan_pacing      scan_pacing<scan_pacing_rule::v4_14>           (v4.14..6.1)
//   page_migration   page_migration<page_migration_rule::v4_19>     (v4.19..6.1)
//   task_migration   task_migration<task_migration_rule::v6_0>, 6.1's parameters
//   fork_placement   fork_placement<fork_placement_rule::v6_0>      (v6.0..6.1)
//
// One name per role: the header, the policy class, its rule enum (NAME_rule) and the hook
// (hooks::NAME, placement::NAME()) all share it.

#include "fork_placement.hpp"
#include "hooks.hpp"
#include "page_migration.hpp"
#include "scan_pacing.hpp"
#include "task_migration.hpp"

namespace numaplace::hooks {

template <>
struct role_default<scan_pacing> {
  static constexpr numaplace::scan_pacing<scan_pacing_rule::v4_14> policy{};
};

template <>
struct role_default<page_migration> {
  static constexpr numaplace::page_migration<page_migration_rule::v4_19> policy{};
};

template <>
struct role_default<task_migration> {
  static constexpr numaplace::task_migration<task_migration_rule::v6_0> policy{migrate_params_for(6, 1)};
};

template <>
struct role_default<fork_placement> {
  static constexpr numaplace::fork_placement<fork_placement_rule::v6_0> policy{};
};

}  // namespace numaplace::hooks
