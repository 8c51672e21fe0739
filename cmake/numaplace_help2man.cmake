# Writes man pages for one program with help2man (cmake -P script, run at build time):
#   cmake -DPROGRAM=<exe> -DNAME=<name> -DVERSION=<x.y.z> -DOUT_DIR=<dir> -DHELP2MAN=<help2man>
#         [-DSUBCOMMANDS=ON] [-DGZIP=<gzip>] [-DINCLUDE=<file.h2m>] -P numaplace_help2man.cmake
# OUT_DIR/NAME.1 (NAME.1.gz with GZIP, as Debian ships man pages: gzip -9n, no name or time in
# the header, so the build is reproducible), and with SUBCOMMANDS=ON also OUT_DIR/NAME-<sub>.1 for each subcommand that
# `PROGRAM --help` lists under "Subcommands:", so that a new subcommand gets its page without
# a list to keep in step. Each page's NAME line is the first line of that command's --help.
# INCLUDE, help2man's --include file, adds sections (FILES, ENVIRONMENT, SEE ALSO) to every page.
foreach(var IN ITEMS PROGRAM NAME VERSION OUT_DIR HELP2MAN)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "numaplace_help2man.cmake: -D${var}=... is required")
  endif()
endforeach()

# The first line of `PROGRAM <args> --help`, without a leading "name: " (CLI11's description).
function(help_summary out)
  execute_process(COMMAND "${PROGRAM}" ${ARGN} --help RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${PROGRAM} ${ARGN} --help exited ${rc}: ${err}")
  endif()
  string(REGEX MATCH "^[^\n]*" first "${text}")
  string(REGEX REPLACE "^[A-Za-z0-9_-]+: *" "" first "${first}")
  set(${out} "${first}" PARENT_SCOPE)
  set(help_text "${text}" PARENT_SCOPE)
endfunction()

# help2man runs `<program> <help option>` through the shell, so "sim --help" reaches the
# subcommand; --version-string names the page (the CLI's subcommands have no --version).
function(write_page page_name)  # ARGN: the subcommand words, none for the program itself
  help_summary(summary ${ARGN})
  string(JOIN " " help_option ${ARGN} --help)
  set(include_option "")
  if(INCLUDE)
    set(include_option "--include=${INCLUDE}")
  endif()
  execute_process(COMMAND "${HELP2MAN}" --no-info --section=1 "--name=${summary}"
                          "--version-string=${page_name} ${VERSION}" "--help-option=${help_option}"
                          "--source=numaplace ${VERSION}" "--manual=numaplace manual" ${include_option}
                          "--output=${OUT_DIR}/${page_name}.1" "${PROGRAM}"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "help2man failed for ${page_name} (${rc}): ${err}")
  endif()
endfunction()

file(MAKE_DIRECTORY "${OUT_DIR}")
set(subs "")
if(SUBCOMMANDS)
  help_summary(unused)
  # CLI11 lists subcommands after "Subcommands:", one per line, indented, name first, up to a
  # blank line (the examples after it are indented too).
  string(FIND "${help_text}" "\nSubcommands:\n" at)
  if(at LESS 0)
    message(FATAL_ERROR "${PROGRAM} --help lists no \"Subcommands:\" section")
  endif()
  string(SUBSTRING "${help_text}" ${at} -1 section)
  string(REGEX MATCH "^\nSubcommands:\n[^\n]+(\n[^\n]+)*" section "${section}")
  string(REGEX MATCHALL "\n  [a-z][a-z0-9-]*" lines "${section}")
  foreach(line IN LISTS lines)
    string(STRIP "${line}" sub)
    list(APPEND subs ${sub})
  endforeach()
endif()
# The include file's @PAGES@ line becomes this program's pages (SEE ALSO), so that a new
# subcommand is named there too.
if(INCLUDE)
  file(READ "${INCLUDE}" include_text)
  set(pages_roff ".BR ${NAME} (1),\n")
  foreach(sub IN LISTS subs)
    string(APPEND pages_roff ".BR ${NAME}\\-${sub} (1),\n")
  endforeach()
  string(REPLACE "@PAGES@\n" "${pages_roff}" include_text "${include_text}")
  set(INCLUDE "${OUT_DIR}/${NAME}.h2m")
  file(WRITE "${INCLUDE}" "${include_text}")
endif()
write_page("${NAME}")
foreach(sub IN LISTS subs)
  write_page("${NAME}-${sub}" ${sub})
endforeach()
if(INCLUDE)
  file(REMOVE "${INCLUDE}")
endif()
if(GZIP)
  file(GLOB pages "${OUT_DIR}/*.1")
  execute_process(COMMAND "${GZIP}" -9nf ${pages} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${GZIP} -9nf failed (${rc}): ${err}")
  endif()
endif()
