# Finds lockcheck's dependencies; each failure names the Debian 12 package to install
# (tools/setup.sh installs all of them).
function(lockcheck_require found package what)
  if(NOT ${found})
    message(FATAL_ERROR "${what} not found: apt-get install ${package} (or run tools/setup.sh)")
  endif()
endfunction()

find_package(PkgConfig QUIET)
lockcheck_require(PkgConfig_FOUND pkg-config "pkg-config")

find_package(Boost 1.74 QUIET COMPONENTS context)
lockcheck_require(Boost_FOUND libboost-context-dev "Boost.Context")

pkg_check_modules(GRAPHVIZ QUIET IMPORTED_TARGET libcgraph libgvc)
lockcheck_require(GRAPHVIZ_FOUND libgraphviz-dev "Graphviz cgraph/gvc")

# Debian 12's CppUTestConfig.cmake points at a wrong include directory; pkg-config is right.
pkg_check_modules(CPPUTEST QUIET IMPORTED_TARGET cpputest)
lockcheck_require(CPPUTEST_FOUND libcpputest-dev "CppUTest")

find_package(CLI11 QUIET CONFIG)
lockcheck_require(CLI11_FOUND libcli11-dev "CLI11")

find_package(nlohmann_json 3.11 QUIET CONFIG)
lockcheck_require(nlohmann_json_FOUND nlohmann-json3-dev "nlohmann-json")

# jemalloc: the malloc of the lockcheck command and of the tests. An execution allocates and
# frees its objects, and glibc's malloc costs a search on two threads a fifth more CPU time
# than on one (docs/PERFORMANCE.md, "Every core"); jemalloc's thread caches do not. Sanitizer
# builds keep the sanitizers' allocator.
set(LOCKCHECK_JEMALLOC OFF)
if(NOT LOCKCHECK_SANITIZE)
  pkg_check_modules(JEMALLOC QUIET IMPORTED_TARGET jemalloc)
  lockcheck_require(JEMALLOC_FOUND libjemalloc-dev "jemalloc")
  set(LOCKCHECK_JEMALLOC ON)
endif()

# Only the tests use libxml2: they parse the JUnit report with a real XML parser.
pkg_check_modules(LIBXML2 QUIET IMPORTED_TARGET libxml-2.0)
lockcheck_require(LIBXML2_FOUND libxml2-dev "libxml2")

# valgrind.h tells valgrind where each fiber stack is (scheduler/stack_pool.cpp); the suite
# runs memcheck (the Valgrind test).
find_path(VALGRIND_INCLUDE_DIR valgrind/valgrind.h)
lockcheck_require(VALGRIND_INCLUDE_DIR valgrind "valgrind.h")
find_program(VALGRIND_PROGRAM valgrind)
lockcheck_require(VALGRIND_PROGRAM valgrind "valgrind")

# xxhash.h: the state fingerprint's hash (scheduler/fingerprint.cpp), inlined there (header only:
# nothing to link, and nothing a model's build needs).
find_path(XXHASH_INCLUDE_DIR xxhash.h)
lockcheck_require(XXHASH_INCLUDE_DIR libxxhash-dev "xxhash.h")
