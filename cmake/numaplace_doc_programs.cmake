# Every ```cpp block of a Markdown document is a complete program: extracted at configure time
# into the build tree, compiled with the project's warnings, and run by CTest (exit 0 passes).
# A block edited into something that does not compile breaks the build, and its test, which
# names the missing program, fails. Compiler messages point at the document's own lines
# (a #line directive opens each extracted file).
#
#   numaplace_doc_programs(DOC <file.md> NAME <stem>)
#
# registers, for block i (counted from 1), the target numaplace_doc_<stem>_<i> and the test
# docs.<stem>.<i>, labelled `docs`. The test runs the program through this file in script mode,
# which fails when the program is missing or older than the block it was built from (the build
# of an edited block failed, and the program left behind is the old block's). What a block links follows from what it includes:
#   <numaplace/linux...> or <numaplace/adapters/node_pinning_hook.hpp>  numaplace::linux
#   <numaplace/adapters/tbb...>                                          numaplace::tbb
#   <omp.h>                                                              OpenMP
# and a block whose component is not built is left out, with a configure message. A block
# preceded by the line `<!-- same as PATH -->` (PATH from the project root) is a program the
# build already compiles and runs elsewhere: it is not compiled again, and docs.<stem>.<i>
# checks instead that the block equals that file byte for byte.

# Script mode (the tests): cmake -DPROGRAM=<exe> -DBLOCK=<extracted .cpp> -DDOC=<file.md> -P this file,
# or -DEXAMPLE=<file> instead of -DPROGRAM to compare the block with a file of the project.
if(CMAKE_SCRIPT_MODE_FILE AND DEFINED EXAMPLE)
  file(READ "${BLOCK}" block)
  file(READ "${EXAMPLE}" example)
  if(NOT block STREQUAL example)
    message(FATAL_ERROR "${DOC}: a ```cpp block differs from ${EXAMPLE}, which it says it is; compare with\n"
                        "  diff ${BLOCK} ${EXAMPLE}\nand update one to match the other.")
  endif()
  return()
elseif(CMAKE_SCRIPT_MODE_FILE)
  if(NOT EXISTS "${PROGRAM}")
    message(FATAL_ERROR "${DOC}: ${PROGRAM} was not built (does the block compile? build it to see)")
  endif()
  if(NOT "${PROGRAM}" IS_NEWER_THAN "${BLOCK}")
    message(FATAL_ERROR "${DOC}: ${PROGRAM} is older than its block ${BLOCK}: the block changed and was not "
                        "built again (does it still compile? build it to see)")
  endif()
  execute_process(COMMAND "${PROGRAM}" RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${DOC}: ${PROGRAM} (the block ${BLOCK}) exited with ${status}")
  endif()
  return()
endif()

include_guard(GLOBAL)

function(numaplace_doc_programs)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "DOC;NAME" "")
  if(NOT arg_DOC OR NOT arg_NAME)
    message(FATAL_ERROR "numaplace_doc_programs: DOC and NAME are required")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${arg_DOC})
  file(READ ${arg_DOC} text)
  string(PREPEND text "\n")  # a fence on the first line is found like any other
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${arg_NAME})
  set(index 0)
  set(consumed 0)  # characters of `text` before `rest`, to count lines
  set(rest "${text}")
  while(TRUE)
    string(FIND "${rest}" "\n```cpp\n" start)
    if(start EQUAL -1)
      break()
    endif()
    math(EXPR index "${index} + 1")
    string(SUBSTRING "${rest}" 0 ${start} before)
    math(EXPR body_at "${start} + 8")
    string(SUBSTRING "${rest}" ${body_at} -1 tail)
    string(FIND "${tail}" "\n```" end)
    if(end EQUAL -1)
      message(FATAL_ERROR "${arg_DOC}: ```cpp block ${index} is not closed")
    endif()
    math(EXPR end "${end} + 1")  # keep the block's last newline
    string(SUBSTRING "${tail}" 0 ${end} block)
    math(EXPR after "${end} + 3")
    string(SUBSTRING "${tail}" ${after} -1 rest_next)

    # The document line of the block's first line: newlines before it, in the text read so far.
    string(SUBSTRING "${text}" 0 ${consumed} done)
    string(APPEND done "${before}\n```cpp\n")
    string(REGEX REPLACE "[^\n]" "" newlines "${done}")
    string(LENGTH "${newlines}" first_line)
    math(EXPR first_line "${first_line}")  # the leading "\n" added above cancels the 1-based count
    string(LENGTH "${done}" done_length)
    string(LENGTH "${block}" block_length)
    math(EXPR consumed "${done_length} + ${block_length} + 3")
    set(rest "${rest_next}")

    set(test docs.${arg_NAME}.${index})
    set(source ${dir}/block_${index}.cpp)
    file(WRITE ${source}.new "${block}")
    configure_file(${source}.new ${source} COPYONLY)  # rewritten only when the block changed

    if(before MATCHES "<!-- same as ([^ ]+) -->$")
      set(example ${PROJECT_SOURCE_DIR}/${CMAKE_MATCH_1})
      if(NOT EXISTS ${example})
        message(FATAL_ERROR "${arg_DOC}:${first_line}: the block says it is ${CMAKE_MATCH_1}, which does not exist")
      endif()
      add_test(NAME ${test} COMMAND ${CMAKE_COMMAND} -DBLOCK=${source} -DEXAMPLE=${example} -DDOC=${arg_DOC}
                                    -P ${CMAKE_CURRENT_FUNCTION_LIST_FILE})
      set_tests_properties(${test} PROPERTIES LABELS docs)
      continue()
    endif()

    set(libs numaplace::numaplace numaplace_dev_flags Threads::Threads)
    set(missing "")
    if(block MATCHES "#include <numaplace/(linux|adapters/node_pinning_hook)")
      if(NUMAPLACE_HAVE_LINUX)
        list(APPEND libs numaplace::linux)
      else()
        set(missing "the numaplace::linux component")
      endif()
    endif()
    if(block MATCHES "#include <numaplace/adapters/tbb")
      if(NUMAPLACE_HAVE_TBB)
        list(APPEND libs numaplace::tbb)
      else()
        set(missing "oneTBB")
      endif()
    endif()
    if(block MATCHES "#include <omp.h>")
      find_package(OpenMP COMPONENTS CXX)
      if(OpenMP_CXX_FOUND)
        list(APPEND libs OpenMP::OpenMP_CXX)
      else()
        set(missing "OpenMP")
      endif()
    endif()
    if(missing)
      message(STATUS "numaplace: ${test} (${arg_DOC}:${first_line}) is not built: it needs ${missing}")
      continue()
    endif()

    # Compiled from a copy that starts with a #line directive, so errors name the document.
    set(compiled ${dir}/block_${index}_compiled.cpp)
    # The path from the project's root, so that the text (and a compiler cache's key) is the
    # same in every checkout.
    file(RELATIVE_PATH doc_path ${PROJECT_SOURCE_DIR} ${arg_DOC})
    file(WRITE ${compiled}.new "#line ${first_line} \"${doc_path}\"\n${block}")
    configure_file(${compiled}.new ${compiled} COPYONLY)
    set(target numaplace_doc_${arg_NAME}_${index})
    add_executable(${target} ${compiled})
    target_link_libraries(${target} PRIVATE ${libs})
    add_test(NAME ${test} COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${target}> -DBLOCK=${compiled}
                                  -DDOC=${arg_DOC} -P ${CMAKE_CURRENT_FUNCTION_LIST_FILE})
    set_tests_properties(${test} PROPERTIES LABELS docs)
  endwhile()
  if(index EQUAL 0)
    message(FATAL_ERROR "${arg_DOC} has no ```cpp block")
  endif()
endfunction()
