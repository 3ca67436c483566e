# What a project of models calls after find_package(lockcheck):
#
#   lockcheck_add_model(NAME SOURCES a.cpp b.cpp ...)
#     builds the binary NAME: the whole lockcheck command (list, MODEL, replay, check-all,
#     the report files) with the models of the sources beside the shipped ones. Each source
#     includes <lockcheck/lockcheck.hpp> and registers its model with LOCKCHECK_MODEL.
#
#   lockcheck_add_test(NAME [MODELS model ...] [ARGS arg ...])
#     a CTest test that runs `NAME check-all [model ...] [arg ...]`: every variant of those
#     models (all registered models without MODELS) must give its declared verdict.

function(lockcheck_add_model name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES")
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "lockcheck_add_model(${name}): give the model sources after SOURCES")
  endif()
  add_executable(${name} ${arg_SOURCES})
  # Object libraries: every registration in them is linked in, referenced or not.
  target_link_libraries(${name} PRIVATE lockcheck::main lockcheck::protocols lockcheck::examples
                                              lockcheck::litmus)
endfunction()

function(lockcheck_add_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "MODELS;ARGS")
  if(NOT TARGET ${name})
    message(FATAL_ERROR "lockcheck_add_test(${name}): no such target; lockcheck_add_model first")
  endif()
  add_test(NAME ${name}.check-all COMMAND ${name} check-all ${arg_MODELS} ${arg_ARGS})
endfunction()
