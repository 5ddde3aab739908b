# End-to-end checks of `othello-zero bench selfplay`: on a tiny config with the uniform
# evaluator every field is there, the rates, the batch and the time shares are
# positive (the shares at most 1), no evaluator call is made outside the search rounds;
# bad arguments and a bad config fail naming what is wrong.
# No timing is checked (only that counters moved).
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

set(config ${WORK}/bench_selfplay_tiny.yaml)
file(WRITE ${config}
     "game: {size: 6}\n"
     "network: {blocks: 1, channels: 8, head_channels: 4, value_hidden: 8}\n"
     "selfplay: {threads: 1, games_per_thread: 8, leaves_per_game: 2}\n"
     "search: {full_visits: 8, fast_visits: 4, solver_empties: 4, tree_nodes: 4000}\n"
     "train: {exact_target_empties: 8}\n"
     "inference: {device: cpu, cache_entries: 4096}\n")
set(bench bench selfplay --config ${config} --seconds 1 --warmup 0.2)

set(fields positions_per_s playouts_per_s playouts_per_s_per_thread evaluations_per_s
    network_evaluations_per_s mean_batch round_batch network_batch share_tree share_encoding
    share_evaluator share_solver share_other)

# Text: one `name value` line per field.
run_bench("^bench selfplay\nconfig +[^\n]*bench_selfplay_tiny.yaml\nevaluator +uniform\n" ${bench})
foreach(field ${fields})
  if(NOT out MATCHES "\n${field} +([0-9.e+-]+)\n")
    message(FATAL_ERROR "bench selfplay: no numeric '${field}' line:\n${out}")
  endif()
  if(NOT CMAKE_MATCH_1 GREATER 0)
    message(FATAL_ERROR "bench selfplay: ${field} is ${CMAKE_MATCH_1}, not positive:\n${out}")
  endif()
endforeach()

# JSON: one object with the same fields.
run_bench("^{.*}\n$" ${bench} --json --threads 2)
foreach(field ${fields} games positions threads busy)
  string(JSON value ERROR_VARIABLE error GET "${out}" ${field})
  if(error OR NOT value GREATER 0)
    message(FATAL_ERROR "bench selfplay --json: ${field} is '${value}' ${error}:\n${out}")
  endif()
  if(field MATCHES "^share_" AND value GREATER 1)
    message(FATAL_ERROR "bench selfplay --json: ${field} is ${value}, above 1:\n${out}")
  endif()
endforeach()
string(JSON threads GET "${out}" threads)
if(NOT threads EQUAL 2)
  message(FATAL_ERROR "bench selfplay --threads 2 ran ${threads} threads:\n${out}")
endif()
# Every evaluator call is a search round's: each search's root joins the next round's batch.
string(JSON roots GET "${out}" root_evaluations_per_s)
if(NOT roots MATCHES "^0(\\.0*)?$")
  message(FATAL_ERROR "bench selfplay --json: root_evaluations_per_s is ${roots}, not 0:\n${out}")
endif()

# Bad input: what is wrong, and where.
run_fails("--evaluator: gpu not in" ${bench} --evaluator gpu)
run_fails("--threads: Value 0 not in range" ${bench} --threads 0)
run_fails("--threads" ${bench} --threads -2)
run_fails("--seconds: expected a number of seconds above 0, not '0'"
          bench selfplay --config ${config} --seconds 0)
run_fails("--seconds: expected a number of seconds above 0, not '-1'"
          bench selfplay --config ${config} --seconds -1)
run_fails("--warmup: expected a number of seconds of at least 0, not 'soon'"
          bench selfplay --config ${config} --warmup soon)
run_fails("--config: File does not exist" bench selfplay --config ${WORK}/no_such_config.yaml)
run_fails("--config is required" bench selfplay)
file(WRITE ${WORK}/bench_selfplay_bad.yaml "selfplay: {threads: 1, gamez_per_thread: 8}\n")
run_fails("error: [^\n]*bench_selfplay_bad.yaml[^\n]*selfplay.gamez_per_thread"
          bench selfplay --config ${WORK}/bench_selfplay_bad.yaml --seconds 1)
run_fails("error: [^\n]*selfplay.games_per_thread" ${bench} --set selfplay.games_per_thread=0)
run_fails("error: [^\n]*nowhere" ${bench} --evaluator net --device nowhere)
