#pragma once
// CPU numbers written as the kernel's cpulist ("0-19,80-89"), the form people read in sysfs.

#include <span>
#include <string>

namespace numaplace_cli {

/// Compact ranges of `cpus` in ascending order; "" for none (numaplace::format_cpulist, for spans).
std::string cpu_ranges(std::span<const unsigned> cpus);

}  // namespace numaplace_cli
