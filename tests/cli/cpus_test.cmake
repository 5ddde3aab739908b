# The thread counts that follow the CPUs this process may use (core::UsableCpus), not
# the machine's: under `taskset -c 0` the binary resolves one CPU where it sizes threads.
#  - bench nn: LibTorch's CPU threads for a batch of 32 (nn::DefaultCpuThreads: all the
#    usable CPUs from batches of 32 up), its `threads` column;
#  - bench selfplay: selfplay.threads auto (half the usable CPUs on the CPU, at least 1).
# Also bench nn's --cuda-graphs: on the CPU every row says graphs are off.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

set(nn bench nn --device cpu --blocks 1 --channels 8 --batch 32 --seconds 0.05)
macro(run_pinned expect_regex)
  execute_process(COMMAND ${TASKSET} -c 0 ${EXE} ${ARGN} INPUT_FILE /dev/null
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "${expect_regex}")
    message(FATAL_ERROR "taskset -c 0 othello-zero ${ARGN} (${rc}), not '${expect_regex}':\n${out}${err}")
  endif()
endmacro()

# A row: batch device dtype threads raw server ratio graphs.
set(row "\n32 +cpu +fp32 +([0-9]+) +[0-9]+ +[0-9]+ +[0-9.]+ +(on|off)\n")
run_pinned("${row}" ${nn})
if(NOT CMAKE_MATCH_1 EQUAL 1)
  message(FATAL_ERROR "bench nn under taskset -c 0 ran ${CMAKE_MATCH_1} LibTorch threads, not 1:\n${out}")
endif()

set(config ${WORK}/cpus_tiny.yaml)
file(WRITE ${config}
     "game: {size: 6}\n"
     "network: {blocks: 1, channels: 8, head_channels: 4, value_hidden: 8}\n"
     "selfplay: {threads: auto, games_per_thread: 4, leaves_per_game: 2}\n"
     "search: {full_visits: 8, fast_visits: 4, solver_empties: 4, tree_nodes: 4000}\n"
     "inference: {device: cpu}\n")
run_pinned("^{.*}\n$" bench selfplay --config ${config} --seconds 0.3 --warmup 0 --json)
string(JSON threads GET "${out}" threads)
if(NOT threads EQUAL 1)
  message(FATAL_ERROR "bench selfplay under taskset -c 0 ran ${threads} self-play threads (auto), not 1:\n${out}")
endif()

# --cuda-graphs both: two rows a batch, without and with; on the CPU both are off.
run_ok("${row}[^\n]*32 +cpu[^\n]* off\n" ${nn} --cuda-graphs both)
run_fails("--cuda-graphs: sometimes not in" ${nn} --cuda-graphs sometimes)
