# `cmake --install build --prefix P`: the lockcheck command, the libraries a user's model
# binary links (the shipped models and main() as object files, so that their registrations
# are kept), the headers the public one needs, and the CMake package that find_package(lockcheck)
# reads (lockcheckConfig.cmake, its version file and lockcheck_add_model/lockcheck_add_test).
# Our own strict warning flags are directory options, never usage requirements: they do not
# reach a user's build.
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

set(lockcheck_package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/lockcheck)
set(lockcheck_libraries
  lockcheck_scheduler lockcheck_memory lockcheck_model lockcheck_checker lockcheck_reports lockcheck_cli
  lockcheck_main lockcheck_protocols lockcheck_examples lockcheck_litmus)
foreach(library ${lockcheck_libraries})
  # lockcheck::model, lockcheck::main, ... for users.
  string(REPLACE "lockcheck_" "" short ${library})
  set_target_properties(${library} PROPERTIES EXPORT_NAME ${short})
endforeach()

install(TARGETS lockcheck RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_BINARY_DIR}/lockcheck.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES cli/lockcheck.bash-completion DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
  RENAME lockcheck)
install(TARGETS ${lockcheck_libraries}
  EXPORT lockcheckTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  OBJECTS DESTINATION ${CMAKE_INSTALL_LIBDIR}/lockcheck/objects)
install(EXPORT lockcheckTargets NAMESPACE lockcheck:: DESTINATION ${lockcheck_package_dir})

# The public header and what it includes; nothing of reports/ or cli/, which no model sees.
install(FILES include/lockcheck/lockcheck.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lockcheck)
install(DIRECTORY scheduler model DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lockcheck
  FILES_MATCHING PATTERN "*.hpp")
install(FILES checker/protocol.hpp checker/model_registry.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lockcheck/checker)

configure_package_config_file(cmake/lockcheckConfig.cmake.in
  ${PROJECT_BINARY_DIR}/lockcheckConfig.cmake INSTALL_DESTINATION ${lockcheck_package_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/lockcheckConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/lockcheckConfig.cmake
  ${PROJECT_BINARY_DIR}/lockcheckConfigVersion.cmake cmake/lockcheckModels.cmake
  DESTINATION ${lockcheck_package_dir})
