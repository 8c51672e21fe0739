#pragma once
// numaplace's Linux layer (namespace numaplace::os, CMake target numaplace::linux): what this
// process may use of the machine, read from sysfs, /proc and its cpuset; and acting on it:
// pinning threads, memory policy, page sampling into fault statistics. It needs glibc and the
// kernel's UAPI headers only, so static programs link.

#include "linux/affinity.hpp"
#include "linux/cpuset.hpp"
#include "linux/memory_policy.hpp"
#include "linux/page_sampler.hpp"
#include "linux/proc_status.hpp"
#include "linux/status.hpp"
#include "linux/usable_machine.hpp"
