# Installs the SDK as a CMake package (find_package(idem) -> idem::idem, and the test kit
# idem::testing) and pkg-config modules (idem.pc, idem-testing.pc), its public headers with the generated version header, and the two programs
# (idem-cli, idem-mock-server; installed by their own directories). See docs/INSTALL.md.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(IDEM_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/idem)
set(IDEM_PKGCONFIG_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The include directory comes with the target's own $<INSTALL_INTERFACE:include> (src/). The
# test kit (idem::testing, src/testing) and the mock server (idem::idem-mock-server, an imported
# executable, exported by mock_server/) are in the same package.
install(TARGETS idem idem_testing EXPORT idemTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/idem DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${IDEM_GENERATED_INCLUDE_DIR}/idem/version.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/idem)
install(EXPORT idemTargets NAMESPACE idem:: DESTINATION ${IDEM_CMAKE_INSTALL_DIR})
# The license (Apache-2.0, named in idemConfig.cmake and the .pc files) goes with every install.
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/idemConfig.cmake.in
  ${PROJECT_BINARY_DIR}/idemConfig.cmake INSTALL_DESTINATION ${IDEM_CMAKE_INSTALL_DIR})
# 0.x: a minor release may break the API, so only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/idemConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/idemConfig.cmake ${PROJECT_BINARY_DIR}/idemConfigVersion.cmake
  DESTINATION ${IDEM_CMAKE_INSTALL_DIR})

# idem.pc. The prefix is relative to the .pc file (${pcfiledir}), so that
# `cmake --install build --prefix DIR` may choose any DIR after configuring.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(IDEM_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH IDEM_PC_UP "/prefix/${IDEM_PKGCONFIG_INSTALL_DIR}" "/prefix")
  string(REGEX REPLACE "/$" "" IDEM_PC_UP "${IDEM_PC_UP}")
  set(IDEM_PC_PREFIX "\${pcfiledir}/${IDEM_PC_UP}")
endif()
# Boost's and nlohmann_json's include directories, unless the compiler searches them anyway.
set(IDEM_PC_INCLUDE_DIRS "")
foreach(dependency Boost::headers nlohmann_json::nlohmann_json)
  get_target_property(dirs ${dependency} INTERFACE_INCLUDE_DIRECTORIES)
  foreach(dir IN LISTS dirs)
    if(dir AND NOT dir MATCHES "\\$<" AND NOT dir IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
      list(APPEND IDEM_PC_INCLUDE_DIRS "${dir}")
    endif()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES IDEM_PC_INCLUDE_DIRS)
set(IDEM_PC_EXTRA_CFLAGS "")
foreach(dir IN LISTS IDEM_PC_INCLUDE_DIRS)
  string(APPEND IDEM_PC_EXTRA_CFLAGS " -I${dir}")
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/cmake/idem.pc.in ${PROJECT_BINARY_DIR}/idem.pc @ONLY)
configure_file(${PROJECT_SOURCE_DIR}/cmake/idem-testing.pc.in ${PROJECT_BINARY_DIR}/idem-testing.pc
  @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/idem.pc ${PROJECT_BINARY_DIR}/idem-testing.pc
  DESTINATION ${IDEM_PKGCONFIG_INSTALL_DIR})
