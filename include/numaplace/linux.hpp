#pragma once
// numaplace's Linux layer (namespace numaplace::os, CMake target numaplace::linux): what this
// process may use of the machine, read from sysfs, /proc and its cpuset. It needs glibc and the
// kernel's UAPI headers only, so static programs link.

#include "linux/cpuset.hpp"
#include "linux/proc_status.hpp"
#include "linux/usable_machine.hpp"
