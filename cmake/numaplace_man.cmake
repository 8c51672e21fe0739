# numaplace_man_pages(TARGET <program target> NAME <command name> [SUBCOMMANDS])
# Generates the program's man pages with help2man when it is built (and with SUBCOMMANDS one page
# per subcommand, NAME-<sub>.1, from its --help) and installs them to man1 in the tools component,
# gzipped when gzip is found. Every page also gets the sections --help cannot give (FILES,
# ENVIRONMENT, SEE ALSO) from cmake/man/NAME.h2m, help2man's --include file, when there is one.
# Without help2man (Debian: help2man) the program is installed without pages, with a notice;
# sanitizer builds (NUMAPLACE_SANITIZE) make none.
find_program(NUMAPLACE_HELP2MAN help2man)
find_program(NUMAPLACE_GZIP gzip)  # pages are installed compressed when it is there

function(numaplace_man_pages)
  cmake_parse_arguments(PARSE_ARGV 0 arg "SUBCOMMANDS" "TARGET;NAME" "")
  if(NOT NUMAPLACE_HELP2MAN)
    message(STATUS "numaplace: help2man not found; ${arg_NAME} is installed without man pages")
    return()
  endif()
  # A sanitizer build is for testing, not installing; its programs' exit status at --help would
  # also carry the sanitizers' reports into the build.
  if(NUMAPLACE_SANITIZE)
    return()
  endif()
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/man)
  set(stamp ${out_dir}/${arg_NAME}.stamp)
  set(include_file "")
  if(EXISTS ${PROJECT_SOURCE_DIR}/cmake/man/${arg_NAME}.h2m)
    set(include_file ${PROJECT_SOURCE_DIR}/cmake/man/${arg_NAME}.h2m)
  endif()
  add_custom_command(OUTPUT ${stamp}
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${out_dir}
    COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${arg_TARGET}> -DNAME=${arg_NAME}
            -DVERSION=${PROJECT_VERSION} -DOUT_DIR=${out_dir} -DHELP2MAN=${NUMAPLACE_HELP2MAN}
            -DSUBCOMMANDS=${arg_SUBCOMMANDS} -DGZIP=${NUMAPLACE_GZIP} -DINCLUDE=${include_file}
            -P ${PROJECT_SOURCE_DIR}/cmake/numaplace_help2man.cmake
    COMMAND ${CMAKE_COMMAND} -E touch ${stamp}
    DEPENDS ${arg_TARGET} ${PROJECT_SOURCE_DIR}/cmake/numaplace_help2man.cmake ${include_file}
    COMMENT "help2man: man pages for ${arg_NAME}"
    VERBATIM)
  add_custom_target(${arg_TARGET}_man ALL DEPENDS ${stamp})
  numaplace_install_needs(${arg_TARGET}_man ${stamp})
  install(DIRECTORY ${out_dir}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT tools
          FILES_MATCHING PATTERN "*.1" PATTERN "*.1.gz")
endfunction()

# numaplace_install_program(TARGET <program target> NAME <command name> [SUBCOMMANDS])
# Installs the program (tools component) with its man pages (numaplace_man_pages), and registers
# both with cmake --install's check that they are built (cmake/numaplace_install.cmake).
function(numaplace_install_program)
  cmake_parse_arguments(PARSE_ARGV 0 arg "SUBCOMMANDS" "TARGET;NAME" "")
  install(TARGETS ${arg_TARGET} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
  numaplace_install_needs(${arg_TARGET} $<TARGET_FILE:${arg_TARGET}>)
  set(subcommands "")
  if(arg_SUBCOMMANDS)
    set(subcommands SUBCOMMANDS)
  endif()
  numaplace_man_pages(TARGET ${arg_TARGET} NAME ${arg_NAME} ${subcommands})
endfunction()
