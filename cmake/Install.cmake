# `cmake --install build --prefix P`: the lockcheck command, the libraries a user's model
# binary links (the shipped models and main() as object files, so that their registrations
# are kept), the public header and those it includes, and the CMake package that find_package(lockcheck)
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

# The public header, and under lockcheck/detail/ the headers it includes and nothing else
# (tests/out_of_tree.sh compares the two): not API, and not on a user's include path, which is
# PREFIX/include alone, so that a model reaches them only through <lockcheck/lockcheck.hpp>.
# Inside the tree lockcheck.hpp includes "model/kernel.hpp" from the top of the tree; the
# installed copy includes "detail/model/kernel.hpp", and the headers under detail/ include each
# other by relative paths ("../scheduler/execution.hpp"), which hold in both places.
set(lockcheck_public_header ${PROJECT_SOURCE_DIR}/include/lockcheck/lockcheck.hpp)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${lockcheck_public_header})
file(READ ${lockcheck_public_header} lockcheck_header_text)
string(REGEX REPLACE "#include \"([a-z_]+/)" "#include \"detail/\\1" lockcheck_header_text
       "${lockcheck_header_text}")
file(WRITE ${PROJECT_BINARY_DIR}/installed/lockcheck.hpp "${lockcheck_header_text}")
install(FILES ${PROJECT_BINARY_DIR}/installed/lockcheck.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lockcheck)
set(lockcheck_detail_headers
  checker/model_registry.hpp checker/protocol.hpp
  model/atomic.hpp model/barrier.hpp model/bit_spinlock.hpp model/bitops.hpp model/check.hpp model/cmpxchg.hpp
  model/completion.hpp model/container_of.hpp model/extent_lock.hpp model/forget_reads.hpp
  model/inode.hpp model/irq.hpp model/kernel.hpp model/kref.hpp model/list.hpp model/lockdep.hpp model/lockref.hpp
  model/mutex.hpp model/op.hpp model/percpu.hpp model/percpu_counter.hpp model/percpu_ref.hpp model/plain_state.hpp
  model/rcu.hpp model/refcount.hpp model/rw_holders.hpp model/rwlock.hpp model/rwsem.hpp model/sched.hpp model/seqlock.hpp model/shared.hpp model/slab.hpp
  model/spinlock.hpp model/task.hpp model/this_cpu.hpp model/timer.hpp model/wait.hpp model/wait_bit.hpp
  model/weak_memory.hpp model/workqueue.hpp
  scheduler/arena.hpp scheduler/call_site.hpp scheduler/chain_depth.hpp scheduler/chain_marks.hpp
  scheduler/execution.hpp scheduler/faults.hpp scheduler/fiber_sanitizer.hpp
  scheduler/fiber_unwind.hpp scheduler/fingerprint.hpp
  scheduler/memory_model.hpp scheduler/object.hpp scheduler/op_wait.hpp scheduler/operation.hpp
  scheduler/malloc_allocator.hpp scheduler/race_detector.hpp scheduler/schedule.hpp
  scheduler/stack_pool.hpp
  scheduler/strategy.hpp scheduler/task.hpp scheduler/task_set.hpp scheduler/trace_sink.hpp
  scheduler/violation.hpp scheduler/watchdog.hpp)
foreach(header ${lockcheck_detail_headers})
  get_filename_component(folder ${header} DIRECTORY)
  install(FILES ${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lockcheck/detail/${folder})
endforeach()

configure_package_config_file(cmake/lockcheckConfig.cmake.in
  ${PROJECT_BINARY_DIR}/lockcheckConfig.cmake INSTALL_DESTINATION ${lockcheck_package_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/lockcheckConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/lockcheckConfig.cmake
  ${PROJECT_BINARY_DIR}/lockcheckConfigVersion.cmake cmake/lockcheckModels.cmake
  DESTINATION ${lockcheck_package_dir})
