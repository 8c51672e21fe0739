#pragma once
// The balancing loop's roles as 6.1 fills them: what a stack that names no policy for a role
// gets (the roles and their detection are in the hook table, policy/hooks.hpp).
//
//   role               6.1's policy
//   scan_pacing        scan_period<scan_rule::v4_14>                (v4.14..6.1)
//   page_migration     memory_migration<page_migrate_rule::v4_19>   (v4.19..6.1)
//   task_migration     numa_migration<migrate_rule::v6_0>, 6.1's parameters
//   fork_balancing     fork_placement<fork_rule::v6_0>              (v6.0..6.1)

#include "fork_placement.hpp"
#include "hooks.hpp"
#include "memory_migration.hpp"
#include "scan_period.hpp"
#include "task_migrate.hpp"

namespace numaplace::hooks {

template <>
struct role_default<scan_pacing> {
  static constexpr scan_period<scan_rule::v4_14> policy{};
};

template <>
struct role_default<page_migration> {
  static constexpr memory_migration<page_migrate_rule::v4_19> policy{};
};

template <>
struct role_default<task_migration> {
  static constexpr numa_migration<migrate_rule::v6_0> policy{migrate_params_for(6, 1)};
};

template <>
struct role_default<fork_balancing> {
  static constexpr fork_placement<fork_rule::v6_0> policy{};
};

}  // namespace numaplace::hooks
