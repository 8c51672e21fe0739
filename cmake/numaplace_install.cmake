# Installation: headers, the numaplace::numaplace target, the optional numaplace::hwloc and
# numaplace::linux components and a package config, so that after cmake --install
#   find_package(numaplace CONFIG REQUIRED)                      -> numaplace::numaplace
#   find_package(numaplace CONFIG REQUIRED COMPONENTS hwloc)     -> also numaplace::hwloc
#   find_package(numaplace CONFIG REQUIRED COMPONENTS linux)     -> also numaplace::linux
#   find_package(numaplace CONFIG REQUIRED COMPONENTS tbb)       -> also numaplace::tbb (and linux)
# work. Needs GNUInstallDirs (included by the top-level CMakeLists.txt, before the target).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(NUMAPLACE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/numaplace)

install(DIRECTORY include/numaplace DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS numaplace EXPORT numaplace-targets)
install(EXPORT numaplace-targets NAMESPACE numaplace:: DESTINATION ${NUMAPLACE_INSTALL_CMAKEDIR})

# The hwloc component has its own export set: its link interface names PkgConfig::NUMAPLACE_HWLOC,
# which the package config re-creates with pkg-config only when the component is asked for.
if(NUMAPLACE_HAVE_HWLOC)
  install(TARGETS numaplace_hwloc EXPORT numaplace-hwloc-targets)
  install(EXPORT numaplace-hwloc-targets NAMESPACE numaplace:: DESTINATION ${NUMAPLACE_INSTALL_CMAKEDIR})
endif()

# The linux component too: its link interface names Threads::Threads, which the package config
# finds only when the component is asked for.
if(NUMAPLACE_HAVE_LINUX)
  install(TARGETS numaplace_linux EXPORT numaplace-linux-targets)
  install(EXPORT numaplace-linux-targets NAMESPACE numaplace:: DESTINATION ${NUMAPLACE_INSTALL_CMAKEDIR})
endif()

# And the tbb component: its link interface names TBB::tbb and numaplace::linux.
if(NUMAPLACE_HAVE_TBB)
  install(TARGETS numaplace_tbb EXPORT numaplace-tbb-targets)
  install(EXPORT numaplace-tbb-targets NAMESPACE numaplace:: DESTINATION ${NUMAPLACE_INSTALL_CMAKEDIR})
endif()

configure_package_config_file(cmake/numaplace-config.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/numaplace-config.cmake
  INSTALL_DESTINATION ${NUMAPLACE_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/numaplace-config-version.cmake
  COMPATIBILITY SameMajorVersion ARCH_INDEPENDENT)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/numaplace-config.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/numaplace-config-version.cmake
  DESTINATION ${NUMAPLACE_INSTALL_CMAKEDIR})
