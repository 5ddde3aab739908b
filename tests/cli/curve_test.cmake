# scripts/curve.py end to end on a tiny run: the checkpoints at the marks exported and
# played against a reference, the table, curve.json and curve.png, a stopped curve
# resuming from its matches, the last mark against the one before, and bad input.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

set(run ${WORK}/curve_run)
set(out ${WORK}/curve_out)
file(REMOVE_RECURSE ${run} ${out})
write_tiny_run_config(${WORK}/curve_tiny.yaml)
execute_process(COMMAND ${EXE} train --config ${WORK}/curve_tiny.yaml --run-dir ${run}
                        --set run.steps=15
                OUTPUT_VARIABLE log ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the tiny run failed (${rc}):\n${log}${err}")
endif()
run_ok("" export ${run}/checkpoints/step-00000005.ckpt -o ${WORK}/curve_reference.ozm)

function(curve expect_rc expect_regex)
  execute_process(COMMAND ${PYTHON} ${SCRIPTS}/curve.py ${ARGN} --exe ${EXE} --playouts 4
                          --parallel 2 --reference ${WORK}/curve_reference.ozm
                  OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL expect_rc OR NOT "${text}${err}" MATCHES "${expect_regex}")
    message(FATAL_ERROR "curve.py ${ARGN}: exit ${rc} (expected ${expect_rc}), output not "
                        "'${expect_regex}':\n${text}${err}")
  endif()
  set(text "${text}" PARENT_SCOPE)
endfunction()

# Step 0 (the run's first minute) and the newest checkpoint, 4 games each, and the last
# against the first.
set(result "[0-9]+-[0-9]+-[0-9]+, [0-9.]+% \\+- [0-9.]+: [-+0-9]+ Elo")
curve(0 "\n +0\\.0 +0 +0 +4  ${result}[^\n]*\n +[0-9.]+ +15 +[0-9]+ +4  ${result}[^\n]*\nthe last mark \\(step 15\\) against the one before \\(step 0\\), 4 games: "
      ${run} --minutes 0,end --games 4 --rising 4 --out ${out})
foreach(file curve.txt curve.png step-00000000.ozm step-00000015.ozm step-00000015.json rising.json
             games/games.ggf)
  if(NOT EXISTS ${out}/${file})
    message(FATAL_ERROR "curve.py wrote no ${out}/${file}")
  endif()
endforeach()
file(READ ${out}/curve.json json)
string(JSON points LENGTH "${json}" points)
string(JSON last_step GET "${json}" points 1 step)
string(JSON games GET "${json}" points 1 result games)
string(JSON rising GET "${json}" rising last)
if(NOT points EQUAL 2 OR NOT last_step EQUAL 15 OR NOT games EQUAL 4 OR NOT rising EQUAL 15)
  message(FATAL_ERROR "curve.json: expected steps 0 and 15 with 4 games and the rise:\n${json}")
endif()

# Started again, the finished matches are read back, not played again (the record stays).
file(SIZE ${out}/games/games.ggf before)
curve(0 "\n +[0-9.]+ +15 +[0-9]+ +4  ${result}" ${run} --minutes 0,end --games 4 --rising 4 --out ${out})
file(SIZE ${out}/games/games.ggf after)
if(NOT before EQUAL after)
  message(FATAL_ERROR "curve.py played finished matches again (games.ggf ${before} -> ${after})")
endif()

# Bad input: each names what and where.
curve(1 "--minutes: 'soon' is not a number of minutes" ${run} --minutes soon --out ${out})
curve(1 "no checkpoint at 500 minutes: the run has trained [0-9.]+" ${run} --minutes 500
      --out ${out})
curve(1 "${WORK}/nowhere/metrics.jsonl: cannot be read" ${WORK}/nowhere --out ${out})
file(WRITE ${out}/step-00000015.json "{\"pairs\": []}")
curve(1 "step-00000015.json: not an arena result .*remove it" ${run} --minutes end --out ${out})
file(MAKE_DIRECTORY ${WORK}/curve_bad)
file(WRITE ${WORK}/curve_bad/metrics.jsonl "{\"seconds\": 1, \"step\": 1}\nnot json\n")
curve(1 "curve_bad/metrics.jsonl line 2: not JSON" ${WORK}/curve_bad --out ${out})
