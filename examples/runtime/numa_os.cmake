# How programs that talk to the kernel's NUMA interfaces (examples/runtime, examples/balancer)
# are built. Outside sanitizer builds they are static, so that the same binary runs in the
# test/vm guests (which have no C library), and call the system calls directly (see
# numa_syscalls.hpp: Debian's libnuma.a cannot be linked statically without a glibc warning).
# Sanitizer builds link libnuma (Debian: libnuma-dev) dynamically and use its functions.
find_package(Threads REQUIRED)
find_path(NUMAPLACE_NUMAIF_INCLUDE numaif.h)
set(NUMAPLACE_HAVE_LIBNUMA OFF)
if(NUMAPLACE_SANITIZE)
  find_library(NUMAPLACE_LIBNUMA NAMES numa)
  if(NUMAPLACE_LIBNUMA AND NUMAPLACE_NUMAIF_INCLUDE)
    set(NUMAPLACE_HAVE_LIBNUMA ON)
  endif()
elseif(NUMAPLACE_NUMAIF_INCLUDE)
  set(NUMAPLACE_HAVE_LIBNUMA ON)
endif()
if(NOT NUMAPLACE_HAVE_LIBNUMA)
  message(STATUS "numaplace: ${CMAKE_CURRENT_SOURCE_DIR} is off (numaif.h or libnuma not found; Debian: libnuma-dev)")
endif()

# numaplace_os_settings(TARGET): libnuma's header (and library when dynamic), threads, static.
function(numaplace_os_settings name)
  target_include_directories(${name} PRIVATE ${NUMAPLACE_NUMAIF_INCLUDE} ${PROJECT_SOURCE_DIR}/examples/runtime)
  target_link_libraries(${name} PRIVATE Threads::Threads)
  if(NUMAPLACE_SANITIZE)
    target_link_libraries(${name} PRIVATE ${NUMAPLACE_LIBNUMA})
    target_compile_definitions(${name} PRIVATE NUMA_RUNTIME_LIBNUMA=1)
  else()
    target_link_options(${name} PRIVATE -static)
  endif()
endfunction()

# numaplace_os_program(NAME SOURCES...): numaplace_program with the settings above.
function(numaplace_os_program name)
  numaplace_program(${name} ${ARGN})
  numaplace_os_settings(${name})
endfunction()
