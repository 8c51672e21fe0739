# The optional numaplace::linux component: the Linux layer (include/numaplace/linux/), which
# reads sysfs, /proc and cpusets and calls the kernel through glibc. No libraries beyond glibc
# and threads, so static programs link.
set(NUMAPLACE_HAVE_LINUX OFF)
if(NOT NUMAPLACE_WITH_LINUX STREQUAL "OFF")
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    set(NUMAPLACE_HAVE_LINUX ON)
    find_package(Threads REQUIRED)
    add_library(numaplace_linux INTERFACE)
    add_library(numaplace::linux ALIAS numaplace_linux)
    set_target_properties(numaplace_linux PROPERTIES EXPORT_NAME linux)
    target_link_libraries(numaplace_linux INTERFACE numaplace::numaplace Threads::Threads)
  elseif(NUMAPLACE_WITH_LINUX STREQUAL "ON")
    message(FATAL_ERROR "NUMAPLACE_WITH_LINUX=ON but the target system is ${CMAKE_SYSTEM_NAME}, not Linux")
  endif()
endif()
