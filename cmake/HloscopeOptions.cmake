# Warnings and sanitizers for every hloscope target (hloscope_set_options).
function(hloscope_set_options target)
  # -Werror=switch: a switch over a closed set (the catalog's enums, the
  # gates, the formats) that misses a value does not compile, in every build.
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter -Werror=switch)
  # GCC 12's -Wrestrict fires inside libstdc++'s std::string (char_traits
  # memcpy after inlining: GCC bug 105329, fixed in 13), not on our code: a
  # default build is warning-free.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
  if(HLOSCOPE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

set(_hloscope_san "")
if(HLOSCOPE_ENABLE_ASAN)
  list(APPEND _hloscope_san address)
endif()
if(HLOSCOPE_ENABLE_UBSAN)
  list(APPEND _hloscope_san undefined)
endif()
if(_hloscope_san)
  list(JOIN _hloscope_san "," _hloscope_san_list)
  add_compile_options(-fsanitize=${_hloscope_san_list} -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${_hloscope_san_list})
endif()

# hloscope_add_test(NAME SOURCES... [LABELS ...]): one GoogleTest binary.
function(hloscope_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE hloscope::core GTest::gtest GTest::gtest_main GTest::gmock)
  target_compile_definitions(${name} PRIVATE
    HLOSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    HLOSCOPE_CORPUS_DIR="${PROJECT_SOURCE_DIR}/../shared/corpus")
  hloscope_set_options(${name})
  # Every test has a time limit: a hang (an analysis that never ends) fails.
  gtest_discover_tests(${name} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT 300 DISCOVERY_TIMEOUT 60)
endfunction()
