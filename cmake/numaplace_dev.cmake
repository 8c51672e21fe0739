# Settings for numaplace's own tests, examples and benchmarks (never for consumers).

add_library(numaplace_dev_flags INTERFACE)
target_compile_options(numaplace_dev_flags INTERFACE -Wall -Wextra -Wpedantic
  $<$<BOOL:${NUMAPLACE_WARNINGS_AS_ERRORS}>:-Werror>)
if(NUMAPLACE_SANITIZE)
  target_compile_options(numaplace_dev_flags INTERFACE -fsanitize=${NUMAPLACE_SANITIZE} -fno-omit-frame-pointer
    -fno-sanitize-recover=all)
  target_link_options(numaplace_dev_flags INTERFACE -fsanitize=${NUMAPLACE_SANITIZE})
endif()

# numaplace_program(NAME SOURCES...): an executable of ours, with our warning and sanitizer flags.
function(numaplace_program name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE numaplace::numaplace numaplace_dev_flags)
endfunction()
