// expect-error: at_most_one_policy_provides<numaplace::hooks::task_migration, 2>
// A stack may name one task_numa_migrate rule: two are no kernel's.
#include <numaplace/stacks.hpp>
#include <numaplace/topology/generators.hpp>

int main() {
  using namespace numaplace;
  using two = extend<stacks::linux_modern, kernel_numa_migration<4, 19>>;
  const auto t = generate::fully_connected(2);
  return with_placement<two>(t, [](const auto& pl) { return int(pl.task_migration().params.imbalance_pct); });
}
