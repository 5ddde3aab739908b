# `cmake --install BUILD --prefix PREFIX` puts othello-zero in PREFIX/bin, and it runs
# from there without the build tree: from another working directory, with no RUNPATH
# into the build tree (the web page is compiled in).
set(prefix ${WORK}/install_prefix)
file(REMOVE_RECURSE ${prefix})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
set(exe ${prefix}/bin/othello-zero)
if(NOT rc EQUAL 0 OR NOT EXISTS ${exe})
  message(FATAL_ERROR "cmake --install ${BUILD} --prefix ${prefix} failed (${rc}):\n${out}${err}")
endif()
execute_process(COMMAND ${exe} --help WORKING_DIRECTORY ${prefix} OUTPUT_VARIABLE out
                ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "othello-zero: self-play training.*\n +play .*\n +serve .*\n +arena ")
  message(FATAL_ERROR "${exe} --help (${rc}):\n${out}${err}")
endif()
execute_process(COMMAND ${exe} perft --depth 4 WORKING_DIRECTORY ${prefix} OUTPUT_VARIABLE out
                ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\n4 244 ")
  message(FATAL_ERROR "${exe} perft --depth 4 (${rc}):\n${out}${err}")
endif()
find_program(READELF readelf)
if(READELF)
  execute_process(COMMAND ${READELF} -d ${exe} OUTPUT_VARIABLE dynamic)
  string(REGEX MATCHALL "R(UN)?PATH[^\n]*" paths "${dynamic}")
  string(FIND "${paths}" "${BUILD}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${exe} looks for libraries in the build tree ${BUILD}:\n${paths}")
  endif()
endif()
file(REMOVE_RECURSE ${prefix})
