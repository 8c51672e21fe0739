# step(NAME COMMAND...): runs one step of a test script (cmake -P), prints its output and stops
# the script when it fails; its output is left in step_output. STEP_PREFIX, when set, starts
# every line it prints (e.g. "[installed]").
function(step name)
  set(prefix "")
  if(DEFINED STEP_PREFIX)
    set(prefix "${STEP_PREFIX} ")
  endif()
  message(STATUS "${prefix}${name}: ${ARGN}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message("${out}")
    message(FATAL_ERROR "${prefix}${name} failed (${rc})")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()
