# How programs that talk to the kernel's NUMA interfaces (examples/runtime,
# examples/programs/balancer, their tests) are built: on the Linux layer (numaplace::linux: raw
# system calls, no libnuma) and, outside sanitizer builds, static, so that the same binary runs
# in the test/vm guests (which have no C library of their own).

# numaplace_os_settings(TARGET): the Linux layer, static outside sanitizer builds.
function(numaplace_os_settings name)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/examples/runtime)
  target_link_libraries(${name} PRIVATE numaplace::linux)
  if(NOT NUMAPLACE_SANITIZE)
    target_link_options(${name} PRIVATE -static)
  endif()
endfunction()

# numaplace_os_program(NAME SOURCES...): numaplace_program with the settings above.
function(numaplace_os_program name)
  numaplace_program(${name} ${ARGN})
  numaplace_os_settings(${name})
endfunction()
