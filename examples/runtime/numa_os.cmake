# How programs that talk to the kernel's NUMA interfaces (examples/runtime, examples/balancer)
# are built: on the Linux layer (include/numaplace/linux, raw system calls, no libnuma) and,
# outside sanitizer builds, static, so that the same binary runs in the test/vm guests (which
# have no C library of their own).
find_package(Threads REQUIRED)
include(CheckIncludeFileCXX)
set(NUMAPLACE_OS_PROGRAMS OFF)
if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  check_include_file_cxx(linux/mempolicy.h NUMAPLACE_HAVE_MEMPOLICY_H)
  if(NUMAPLACE_HAVE_MEMPOLICY_H)
    set(NUMAPLACE_OS_PROGRAMS ON)
  endif()
endif()
if(NOT NUMAPLACE_OS_PROGRAMS)
  message(STATUS "numaplace: ${CMAKE_CURRENT_SOURCE_DIR} is off (Linux with the kernel's UAPI headers only; Debian: linux-libc-dev)")
endif()

# numaplace_os_settings(TARGET): the Linux layer, threads, static outside sanitizer builds.
function(numaplace_os_settings name)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/examples/runtime)
  if(TARGET numaplace::linux)
    target_link_libraries(${name} PRIVATE numaplace::linux)
  endif()
  target_link_libraries(${name} PRIVATE Threads::Threads)
  if(NOT NUMAPLACE_SANITIZE)
    target_link_options(${name} PRIVATE -static)
  endif()
endfunction()

# numaplace_os_program(NAME SOURCES...): numaplace_program with the settings above.
function(numaplace_os_program name)
  numaplace_program(${name} ${ARGN})
  numaplace_os_settings(${name})
endfunction()
