# Helpers for the end-to-end CLI checks (cmake -P scripts with EXE set).
function(run_ok expect_regex)
  execute_process(COMMAND ${EXE} ${ARGN} INPUT_FILE /dev/null OUTPUT_VARIABLE out ERROR_VARIABLE err
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "othello-zero ${ARGN} failed (${rc}): ${err}")
  endif()
  if(NOT out MATCHES "${expect_regex}")
    message(FATAL_ERROR "othello-zero ${ARGN}: output does not match '${expect_regex}':\n${out}")
  endif()
endfunction()

function(run_fails expect_regex)
  execute_process(COMMAND ${EXE} ${ARGN} INPUT_FILE /dev/null OUTPUT_VARIABLE out ERROR_VARIABLE err
                  RESULT_VARIABLE rc)
  if(rc EQUAL 0)
    message(FATAL_ERROR "othello-zero ${ARGN} should have failed:\n${out}")
  endif()
  if(NOT "${out}${err}" MATCHES "${expect_regex}")
    message(FATAL_ERROR "othello-zero ${ARGN}: error does not match '${expect_regex}':\n${out}${err}")
  endif()
endfunction()

# Runs othello-zero with ARGN; it must succeed with output matching `expect_regex`, which
# stays in `out` (a macro: the caller reads it).
macro(run_bench expect_regex)
  execute_process(COMMAND ${EXE} ${ARGN} INPUT_FILE /dev/null OUTPUT_VARIABLE out
                  ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "${expect_regex}")
    message(FATAL_ERROR "othello-zero ${ARGN} (${rc}), not '${expect_regex}':\n${out}${err}")
  endif()
endmacro()
