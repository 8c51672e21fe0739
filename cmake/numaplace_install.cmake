# Installation: headers, the numaplace::numaplace target and a package config, so that
# find_package(numaplace CONFIG REQUIRED) works after cmake --install.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY include/numaplace DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS numaplace EXPORT numaplace-targets)
install(EXPORT numaplace-targets NAMESPACE numaplace:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/numaplace)

configure_package_config_file(cmake/numaplace-config.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/numaplace-config.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/numaplace)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/numaplace-config-version.cmake
  COMPATIBILITY SameMajorVersion ARCH_INDEPENDENT)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/numaplace-config.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/numaplace-config-version.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/numaplace)
