# What a project of models calls after find_package(lockcheck):
#
#   lockcheck_add_model(NAME SOURCES a.cpp b.cpp ...)
#     builds the binary NAME: the whole lockcheck command (list, MODEL, replay, check-all,
#     the report files) with the models of the sources beside the shipped ones. Each source
#     includes <lockcheck/lockcheck.hpp> and registers its model with LOCKCHECK_MODEL.
#
#   lockcheck_add_test(NAME test TARGET binary [MODELS model ...] [SIZES --size N ...]
#                      [ARGS arg ...])
#     a CTest test named `test` that runs `binary check-all [model ...] [--size N ...] [arg ...]`:
#     every variant of those models (all registered models without MODELS) must give its
#     declared verdict, each at the sizes SIZES gives where it has that size (its defaults
#     otherwise), e.g. SIZES --waiters 2 to pin a configuration bigger than the default.
#   lockcheck_add_test(binary [MODELS ...] [SIZES ...] [ARGS ...])
#     the same, the test named binary.check-all.

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

function(lockcheck_add_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;TARGET" "MODELS;SIZES;ARGS")
  if(DEFINED arg_NAME OR DEFINED arg_TARGET)
    if(NOT arg_NAME OR NOT arg_TARGET OR arg_UNPARSED_ARGUMENTS)
      message(FATAL_ERROR "lockcheck_add_test: give NAME test TARGET binary, then MODELS, SIZES "
                          "or ARGS (not: ${arg_UNPARSED_ARGUMENTS})")
    endif()
    set(test ${arg_NAME})
    set(target ${arg_TARGET})
  else()
    list(LENGTH arg_UNPARSED_ARGUMENTS given)
    if(NOT given EQUAL 1)
      message(FATAL_ERROR "lockcheck_add_test: give NAME test TARGET binary (or the binary "
                          "alone), then MODELS, SIZES or ARGS (not: ${arg_UNPARSED_ARGUMENTS})")
    endif()
    set(target ${arg_UNPARSED_ARGUMENTS})
    set(test ${target}.check-all)
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "lockcheck_add_test(${test}): no such target ${target}; "
                        "lockcheck_add_model first")
  endif()
  # SIZES: pairs of a size option and a number, as check-all takes them (which checks the
  # names and ranges against the models when the test runs).
  list(LENGTH arg_SIZES words)
  math(EXPR odd "${words} % 2")
  if(odd)
    message(FATAL_ERROR "lockcheck_add_test(${test}): SIZES takes pairs --size N "
                        "(not: ${arg_SIZES})")
  endif()
  foreach(i RANGE 0 ${words} 2)
    if(i LESS words)
      list(GET arg_SIZES ${i} option)
      math(EXPR n "${i} + 1")
      list(GET arg_SIZES ${n} value)
      if(NOT option MATCHES "^--[a-z0-9_-]+$" OR NOT value MATCHES "^-?[0-9]+$")
        message(FATAL_ERROR "lockcheck_add_test(${test}): SIZES takes pairs --size N "
                            "(not: ${option} ${value})")
      endif()
    endif()
  endforeach()
  add_test(NAME ${test} COMMAND ${target} check-all ${arg_MODELS} ${arg_SIZES} ${arg_ARGS})
endfunction()
