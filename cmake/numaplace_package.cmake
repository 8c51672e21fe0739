# Debian packages through CPack: `cpack -G DEB` in a build tree (after building it) writes
#   numaplace-dev_<version>_all.deb    headers, the CMake package and numaplace.pc (install
#                                      component dev); depends on the Boost headers it was built with
#   numaplace_<version>_<arch>.deb     the numaplace and numaplace-balance programs, their man pages
#                                      and the JSON Schemas (component tools; only with
#                                      NUMAPLACE_BUILD_EXAMPLES); dependencies from dpkg-shlibdeps
# Two packages, so that a header-only user does not pull in the programs' shared libraries, and
# a user of the programs does not need a compiler's headers. Tested by test/packaging (label packaging).
set(CPACK_PACKAGE_NAME numaplace)
set(CPACK_PACKAGE_VENDOR numaplace)
# Whoever builds the packages to hand out sets who answers for them: the Maintainer field.
set(NUMAPLACE_PACKAGE_CONTACT "numaplace maintainers <numaplace@localhost>" CACHE STRING
    "The Debian packages' Maintainer: name <address>")
set(CPACK_PACKAGE_CONTACT "${NUMAPLACE_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL dev)
if(NUMAPLACE_BUILD_EXAMPLES)
  list(APPEND CPACK_COMPONENTS_ALL tools)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)

set(CPACK_DEBIAN_DEV_PACKAGE_NAME numaplace-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_ARCHITECTURE all)
# The Boost it was built and tested with: Debian names that version's headers libboostX.Y-dev,
# and its default version's libboost-dev.
set(numaplace_deb_boost ${Boost_VERSION_MAJOR}.${Boost_VERSION_MINOR})
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libboost${numaplace_deb_boost}-dev | libboost-dev (>= ${numaplace_deb_boost})")
# The optional components' own dependencies: numaplace::formats (nlohmann-json, fmt),
# numaplace::hwloc, numaplace::tbb. find_package(numaplace COMPONENTS ...) names a missing one.
set(CPACK_DEBIAN_DEV_PACKAGE_SUGGESTS "nlohmann-json3-dev, libfmt-dev, libhwloc-dev, libtbb-dev")
# The summary line is CPACK_PACKAGE_DESCRIPTION_SUMMARY; CPack indents each line of these.
set(CPACK_COMPONENT_DEV_DESCRIPTION "numaplace is a header-only C++20 library that decides where tasks and their
memory go on a NUMA machine the way the Linux kernel's NUMA balancer does.
This package has the headers, the CMake package (find_package(numaplace))
and numaplace.pc.")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME numaplace)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION utils)
set(CPACK_COMPONENT_TOOLS_DESCRIPTION "numaplace shows machines' NUMA topologies, explains and simulates the
kernel's placement decisions and advises nodes for new jobs; numaplace-balance
is a numad-like balancer deciding with numaplace.")

# Debian policy 12.5: every package has its copyright and licence in /usr/share/doc/<package>/copyright.
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/numaplace-dev
        RENAME copyright COMPONENT dev)
if(NUMAPLACE_BUILD_EXAMPLES)
  install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/numaplace
          RENAME copyright COMPONENT tools)
endif()

include(CPack)
