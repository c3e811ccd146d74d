# Installs the SDK as a CMake package (find_package(idem) -> idem::idem), its public headers,
# and the two programs (idem-cli, idem-mock-server; installed by their own directories).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(IDEM_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/idem)

# The include directory comes with the target's own $<INSTALL_INTERFACE:include> (src/).
install(TARGETS idem EXPORT idemTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/idem DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT idemTargets NAMESPACE idem:: DESTINATION ${IDEM_CMAKE_INSTALL_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/idemConfig.cmake.in
  ${PROJECT_BINARY_DIR}/idemConfig.cmake INSTALL_DESTINATION ${IDEM_CMAKE_INSTALL_DIR})
# 0.x: a minor release may break the API, so only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/idemConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/idemConfig.cmake ${PROJECT_BINARY_DIR}/idemConfigVersion.cmake
  DESTINATION ${IDEM_CMAKE_INSTALL_DIR})
