# End-to-end: `othello-zero train` ends a failed run with an error line and a non-zero
# exit (never a silent abort), keeps its last checkpoint, and the same command resumes.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

set(run ${WORK}/train_cli_run)
file(REMOVE_RECURSE ${run})
write_tiny_run_config(${WORK}/train_tiny.yaml)
set(train ${EXE} train --config ${WORK}/train_tiny.yaml --run-dir ${run})

foreach(fault "train.step@7" "write@2")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env OZ_FAULT=${fault} ${train} --set run.steps=10
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(rc EQUAL 0 OR NOT err MATCHES "\nerror: [^\n]*failed: ")
    message(FATAL_ERROR "train with OZ_FAULT=${fault} (${rc}) did not end with an error line:\n${err}")
  endif()
  message(STATUS "OZ_FAULT=${fault}: ${err}")
endforeach()
if(NOT EXISTS ${run}/checkpoints/latest.ckpt)
  message(FATAL_ERROR "the failed runs left no checkpoint")
endif()
execute_process(COMMAND ${train} --set run.steps=10 OUTPUT_VARIABLE out ERROR_VARIABLE err
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT err MATCHES "resuming .* from step [0-9]+\n" OR
   NOT out MATCHES "stopped at step 10 ")
  message(FATAL_ERROR "the run did not resume after the failures (${rc}):\n${out}\n${err}")
endif()
# At the end it says how to play the model and compare two of its checkpoints.
if(NOT out MATCHES "play against it:\n  [^\n]* play --model ${run}/checkpoints/latest.ckpt" OR
   NOT out MATCHES "serve --model ${run}/checkpoints/latest.ckpt" OR
   NOT out MATCHES "arena --player model:${run}/checkpoints/latest.ckpt --player model:${run}/checkpoints/step-[0-9]+.ckpt")
  message(FATAL_ERROR "the run did not print the commands to play and compare its models:\n${out}")
endif()

# export --average N: the mean of the checkpoint and the N-1 written before it.
execute_process(COMMAND ${EXE} export ${run}/checkpoints/latest.ckpt -o ${WORK}/train_average.ozm
                --average 2 OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\\(step 10, the average of 2 checkpoints back to step-[0-9]+\\.ckpt," OR
   NOT EXISTS ${WORK}/train_average.ozm)
  message(FATAL_ERROR "export --average 2 (${rc}) did not average two checkpoints:\n${out}\n${err}")
endif()
execute_process(COMMAND ${EXE} export ${run}/checkpoints/latest.ckpt -o ${WORK}/train_average.ozm
                --average 100000 OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(rc EQUAL 0 OR NOT err MATCHES "--average 100000: [^\n]*checkpoints holds [0-9]+ checkpoint\\(s\\) \\(step-\\*\\.ckpt\\) before step 10 ")
  message(FATAL_ERROR "export --average past the run's checkpoints (${rc}) gave no clear error:\n${out}\n${err}")
endif()

# `othello-zero config`: the configuration reference's rows, from the code.
execute_process(COMMAND ${EXE} config OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\n\\| `train.batch_size` \\| `128` \\| 1..65536 \\|  \\|\n" OR
   NOT out MATCHES "\n\\| `selfplay.threads` \\| `auto` \\| auto, 0..1024 \\|  \\|\n" OR
   NOT out MATCHES "\n\\| `search.c_puct` \\| `1.5` \\| 0.01..100 \\| PUCT exploration constant \\|\n")
  message(FATAL_ERROR "othello-zero config (${rc}) did not list the keys:\n${out}")
endif()

# network.grow_blocks: the run grows its net part-way, and resumes from the grown net.
set(grow_run ${WORK}/train_cli_grow)
file(REMOVE_RECURSE ${grow_run})
set(grow ${EXE} train --config ${WORK}/train_tiny.yaml --run-dir ${grow_run}
    --set network.grow_blocks=1 --set network.grow_at=0.3)
execute_process(COMMAND ${grow} --set run.minutes=0.15 OUTPUT_VARIABLE out ERROR_VARIABLE err
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT err MATCHES "step [0-9]+: the network grew to 2 blocks")
  message(FATAL_ERROR "the run did not grow its network (${rc}):\n${out}\n${err}")
endif()
execute_process(COMMAND ${grow} --set run.minutes=0.2 OUTPUT_VARIABLE out ERROR_VARIABLE err
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT err MATCHES "resuming .* from step [0-9]+\n" OR err MATCHES "grew")
  message(FATAL_ERROR "the grown run did not resume (${rc}):\n${out}\n${err}")
endif()
execute_process(COMMAND ${EXE} export ${grow_run}/checkpoints/latest.ckpt -o ${WORK}/grown.ozm
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT "${out}${err}" MATCHES "blocks=2 ")
  message(FATAL_ERROR "the grown run's checkpoint is not the grown net (${rc}):\n${out}\n${err}")
endif()
