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

# A 6x6 training config that trains in seconds (1x8 net, a checkpoint every 5 steps, no
# evaluations): the end-to-end runs of train and curve.py.
function(write_tiny_run_config path)
  file(WRITE ${path}
     "game: {size: 6}\n"
     "network: {blocks: 1, channels: 8, head_channels: 4, value_hidden: 8}\n"
     "selfplay: {threads: 1, games_per_thread: 8, leaves_per_game: 2}\n"
     "search: {full_visits: 8, fast_visits: 4, solver_empties: 4, tree_nodes: 4000}\n"
     "train: {batch_size: 32, min_positions: 64, checkpoint_every: 5}\n"
     "replay: {window_min: 500, window_max: 2000, shard_positions: 100}\n"
     "inference: {device: cpu, max_wait_us: 100}\n"
     "eval: {every_checkpoints: 0}\n")
endfunction()
