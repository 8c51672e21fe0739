# Installation: headers, the numaplace::numaplace target, the optional numaplace::hwloc and
# numaplace::linux components and a package config, so that after cmake --install
#   find_package(numaplace CONFIG REQUIRED)                      -> numaplace::numaplace
#   find_package(numaplace CONFIG REQUIRED COMPONENTS hwloc)     -> also numaplace::hwloc
#   find_package(numaplace CONFIG REQUIRED COMPONENTS linux)     -> also numaplace::linux
#   find_package(numaplace CONFIG REQUIRED COMPONENTS tbb)       -> also numaplace::tbb (and linux)
#   find_package(numaplace CONFIG REQUIRED COMPONENTS formats)   -> also numaplace::formats
# work, and numaplace.pc serves pkg-config users. Everything here is the `dev` install component
# (the Debian package numaplace-dev, cmake/numaplace_package.cmake); the CLI's rules in
# examples/ are the `tools` component. Needs GNUInstallDirs (included by the top-level
# CMakeLists.txt, before the target).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(NUMAPLACE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/numaplace)

# The first install rule: before anything is copied, `cmake --install` (all components, or tools)
# checks that every program and man page the tools component installs is built, and otherwise
# stops with the targets missing and the command that builds them (a build of the CLI alone, as
# ./scripts/run makes, would otherwise install half and then fail). The check's file is written at
# the end of the top-level CMakeLists.txt, by numaplace_write_install_check(), when every program
# has registered itself (numaplace_install_program, cmake/numaplace_man.cmake).
set(NUMAPLACE_INSTALL_CHECK ${PROJECT_BINARY_DIR}/numaplace_install_check.cmake)
install(CODE "include(\"${NUMAPLACE_INSTALL_CHECK}\")" COMPONENT tools)

# numaplace_install_needs(TARGET FILE): the tools component installs FILE, which TARGET builds.
function(numaplace_install_needs target file)
  set_property(GLOBAL APPEND PROPERTY NUMAPLACE_INSTALL_NEEDS_TARGETS ${target})
  set_property(GLOBAL APPEND PROPERTY NUMAPLACE_INSTALL_NEEDS_FILES ${file})
endfunction()

# numaplace_write_install_check(): writes the check, and the target numaplace_tools that builds
# everything it looks for. Called once, at the end of the top-level CMakeLists.txt.
function(numaplace_write_install_check)
  get_property(targets GLOBAL PROPERTY NUMAPLACE_INSTALL_NEEDS_TARGETS)
  get_property(files GLOBAL PROPERTY NUMAPLACE_INSTALL_NEEDS_FILES)
  set(checks "")
  foreach(target file IN ZIP_LISTS targets files)
    string(APPEND checks "if(NOT EXISTS \"${file}\")\n  list(APPEND missing ${target})\nendif()\n")
  endforeach()
  if(targets)
    add_custom_target(numaplace_tools)
    add_dependencies(numaplace_tools ${targets})
  endif()
  file(GENERATE OUTPUT ${NUMAPLACE_INSTALL_CHECK} CONTENT
"# Written by cmake/numaplace_install.cmake: is everything the tools component installs built?
set(missing \"\")
${checks}if(missing)
  list(JOIN missing \" \" missing_words)
  message(FATAL_ERROR \"numaplace: nothing installed: the programs and man pages are not all built \"
    \"(missing targets: \${missing_words}). Build them, then install again:\\n\"
    \"  cmake --build ${PROJECT_BINARY_DIR} --target numaplace_tools\\n\"
    \"or install the headers, CMake package and numaplace.pc alone:\\n\"
    \"  cmake --install ${PROJECT_BINARY_DIR} --component dev\")
endif()
")
endfunction()

install(DIRECTORY include/numaplace DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
install(TARGETS numaplace EXPORT numaplace-targets COMPONENT dev)
install(EXPORT numaplace-targets NAMESPACE numaplace:: DESTINATION ${NUMAPLACE_INSTALL_CMAKEDIR}
        COMPONENT dev)

# The hwloc component has its own export set: its link interface names PkgConfig::NUMAPLACE_HWLOC,
# which the package config re-creates with pkg-config only when the component is asked for.
if(NUMAPLACE_HAVE_HWLOC)
  install(TARGETS numaplace_hwloc EXPORT numaplace-hwloc-targets COMPONENT dev)
  install(EXPORT numaplace-hwloc-targets NAMESPACE numaplace:: DESTINATION ${NUMAPLACE_INSTALL_CMAKEDIR}
          COMPONENT dev)
endif()

# The linux component too: its link interface names Threads::Threads, which the package config
# finds only when the component is asked for.
if(NUMAPLACE_HAVE_LINUX)
  install(TARGETS numaplace_linux EXPORT numaplace-linux-targets COMPONENT dev)
  install(EXPORT numaplace-linux-targets NAMESPACE numaplace:: DESTINATION ${NUMAPLACE_INSTALL_CMAKEDIR}
          COMPONENT dev)
endif()

# And the tbb component: its link interface names TBB::tbb and numaplace::linux.
if(NUMAPLACE_HAVE_TBB)
  install(TARGETS numaplace_tbb EXPORT numaplace-tbb-targets COMPONENT dev)
  install(EXPORT numaplace-tbb-targets NAMESPACE numaplace:: DESTINATION ${NUMAPLACE_INSTALL_CMAKEDIR}
          COMPONENT dev)
endif()

# And the formats component: its link interface names nlohmann_json::nlohmann_json and fmt::fmt.
if(NUMAPLACE_HAVE_FORMATS)
  install(TARGETS numaplace_formats EXPORT numaplace-formats-targets COMPONENT dev)
  install(EXPORT numaplace-formats-targets NAMESPACE numaplace:: DESTINATION ${NUMAPLACE_INSTALL_CMAKEDIR}
          COMPONENT dev)
endif()

configure_package_config_file(cmake/numaplace-config.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/numaplace-config.cmake
  INSTALL_DESTINATION ${NUMAPLACE_INSTALL_CMAKEDIR})
# While the major version is 0 every minor release may break the API, so find_package(numaplace
# 0.2) accepts 0.2.x only.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/numaplace-config-version.cmake
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/numaplace-config.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/numaplace-config-version.cmake
  DESTINATION ${NUMAPLACE_INSTALL_CMAKEDIR} COMPONENT dev)

# numaplace.pc, relocatable: its prefix is found from the file's own place (${pcfiledir}), so an
# install unpacked anywhere (dpkg -x, a DESTDIR) still points at its own headers. Boost ships no
# .pc file, so Boost cannot be a Requires: line; its include directory goes into Cflags unless it
# is the compiler's default (/usr/include, where Debian's libboost-dev puts it).
set(NUMAPLACE_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH numaplace_pc_to_prefix /${NUMAPLACE_PC_DIR} /)
string(REGEX REPLACE "/$" "" numaplace_pc_to_prefix "${numaplace_pc_to_prefix}")
set(numaplace_pc_boost_cflags "")
get_target_property(numaplace_boost_include_dirs Boost::headers INTERFACE_INCLUDE_DIRECTORIES)
foreach(dir IN LISTS numaplace_boost_include_dirs)
  if(NOT dir STREQUAL "/usr/include")
    string(APPEND numaplace_pc_boost_cflags " -I${dir}")
  endif()
endforeach()
configure_file(cmake/numaplace.pc.in ${CMAKE_CURRENT_BINARY_DIR}/numaplace.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/numaplace.pc DESTINATION ${NUMAPLACE_PC_DIR} COMPONENT dev)
