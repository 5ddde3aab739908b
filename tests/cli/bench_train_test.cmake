# End-to-end checks of `othello-zero bench train`: on a tiny net every field is there and
# the rates are positive, the options reach the trainer (batch size, threads, bf16), and
# bad arguments and a bad config fail naming what is wrong. No timing is checked.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

set(config ${WORK}/bench_train_tiny.yaml)
file(WRITE ${config}
     "game: {size: 6}\n"
     "network: {blocks: 1, channels: 8, head_channels: 4, value_hidden: 8}\n"
     "train: {batch_size: 16, threads: 1}\n"
     "inference: {device: cpu}\n")
set(bench bench train --config ${config} --seconds 0.5 --warmup 0.1)

# Text: one `name value` line per field.
run_bench("^bench train\nconfig +[^\n]*bench_train_tiny.yaml\nnetwork +blocks=1 channels=8"
          ${bench})
foreach(field parameters steps steps_per_second samples_per_second ms_per_step)
  if(NOT out MATCHES "\n${field} +([0-9.e+-]+)\n")
    message(FATAL_ERROR "bench train: no numeric '${field}' line:\n${out}")
  endif()
  if(NOT CMAKE_MATCH_1 GREATER 0)
    message(FATAL_ERROR "bench train: ${field} is ${CMAKE_MATCH_1}, not positive:\n${out}")
  endif()
endforeach()
if(NOT out MATCHES "\ndevice +cpu\nprecision +fp32\nthreads +1\nbatch_size +16\n")
  message(FATAL_ERROR "bench train: not the config's device, precision, threads and batch:\n${out}")
endif()

# JSON, with the options and overrides reaching the trainer; samples = steps x batch.
run_bench("^{.*}\n$" ${bench} --json --threads 2 --set train.batch_size=8 --set train.precision=bf16)
foreach(pair "threads;2" "batch_size;8" "precision;bf16")
  list(GET pair 0 field)
  list(GET pair 1 expected)
  string(JSON value GET "${out}" ${field})
  if(NOT value STREQUAL expected)
    message(FATAL_ERROR "bench train --json: ${field} is '${value}', not ${expected}:\n${out}")
  endif()
endforeach()
string(JSON steps GET "${out}" steps)
string(JSON seconds GET "${out}" seconds)
string(JSON samples GET "${out}" samples_per_second)
math(EXPR expected_samples "${steps} * 8")
# samples_per_second * seconds recovers steps * batch (to rounding).
execute_process(COMMAND ${PYTHON} -c
                "import sys; s, t, n = map(float, sys.argv[1:]); sys.exit(abs(s * t - n) > 1e-6 * n)"
                ${samples} ${seconds} ${expected_samples} RESULT_VARIABLE mismatch)
if(mismatch)
  message(FATAL_ERROR "bench train: ${samples} samples/s over ${seconds} s is not ${steps} steps of 8:\n${out}")
endif()

# Bad input: what is wrong, and where.
run_fails("--threads: Value 0 not in range" ${bench} --threads 0)
run_fails("--seconds: expected a number of seconds above 0, not '0'"
          bench train --config ${config} --seconds 0)
run_fails("--warmup: expected a number of seconds of at least 0, not 'soon'"
          bench train --config ${config} --warmup soon)
run_fails("--config: File does not exist" bench train --config ${WORK}/no_such_config.yaml)
run_fails("--config is required" bench train)
run_fails("error: [^\n]*train.batch_size" ${bench} --set train.batch_size=0)
run_fails("error: [^\n]*train.precision" ${bench} --set train.precision=fp8)
run_fails("error: [^\n]*nowhere" ${bench} --device nowhere)
