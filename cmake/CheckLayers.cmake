# The layering check (run by the build, see src/CMakeLists.txt):
#
#   cmake -DROOT=<repo> [-DSTAMP=<file>] -P cmake/CheckLayers.cmake
#
# Every header under include/hloscope/<layer>/ and every file under
# src/<layer>/ (and python/src, above all of them) may include headers of
# its own layer and the layers below, never above:
#
#   support < ir < parser < analysis < report < app < cli, python
#
# A violation prints `file:line: error: ...` and fails.
set(_layers support ir parser analysis report app cli python)

function(_layer_rank name out)
  list(FIND _layers "${name}" i)
  set(${out} ${i} PARENT_SCOPE)
endfunction()

file(GLOB_RECURSE _files
     ${ROOT}/include/hloscope/*.h ${ROOT}/src/*.h ${ROOT}/src/*.cc ${ROOT}/python/src/*.cc)
set(_errors 0)
foreach(f ${_files})
  file(RELATIVE_PATH rel ${ROOT} ${f})
  if(rel MATCHES "^include/hloscope/([a-z_]+)/")
    set(own ${CMAKE_MATCH_1})
  elseif(rel MATCHES "^src/([a-z_]+)/")
    set(own ${CMAKE_MATCH_1})
  elseif(rel MATCHES "^python/src/")
    set(own python)
  else()
    continue()
  endif()
  _layer_rank(${own} own_rank)
  if(own_rank LESS 0)
    message(SEND_ERROR "${rel}: error: '${own}' is not a layer (${_layers})")
    math(EXPR _errors "${_errors} + 1")
    continue()
  endif()
  file(STRINGS ${f} lines)
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    if(line MATCHES "^#include \"(hloscope/)?([a-z_]+)/")
      set(inc ${CMAKE_MATCH_2})
      _layer_rank(${inc} inc_rank)
      if(inc_rank GREATER own_rank)
        message(SEND_ERROR "${rel}:${n}: error: layer '${own}' includes '${inc}', a layer above it: ${line}")
        math(EXPR _errors "${_errors} + 1")
      endif()
    endif()
  endforeach()
endforeach()
if(_errors GREATER 0)
  message(FATAL_ERROR "${_errors} include(s) run up a layer")
endif()
if(STAMP)
  file(WRITE ${STAMP} "ok\n")
endif()
