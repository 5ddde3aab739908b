# The strength benchmark's rating step end to end (scripts/strength.sh without the
# training and the slow opponents): a gauntlet with --json, `elo --fixed` on a small
# ladder, and scripts/strength_report.py's text and JSON.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

set(out ${WORK}/strength_cli)
file(REMOVE_RECURSE ${out})
file(MAKE_DIRECTORY ${out}/games)
file(WRITE ${out}/ladder.csv "player,elo,ci95,games,score\nrandom,0,0,10,0.1\ngreedy,150,0,10,0.5\n# a comment\n")
run_ok("games appended" arena --gauntlet --player ab:2 --player random --player greedy --games 4
       --out ${out}/games --json ${out}/games/ab2.json)
run_ok("alphabeta2 .*random +0\\.0 +0\\.0" elo --fixed ${out}/ladder.csv ${out}/games
       --csv ${out}/elo.csv)
run_fails("ladder .*none.csv: cannot be read" elo --fixed ${out}/none.csv ${out}/games)
run_fails("excludes|--anchor" elo --fixed ${out}/ladder.csv --anchor random ${out}/games)
execute_process(COMMAND ${PYTHON} ${SCRIPTS}/strength_report.py ${out} --ladder ${out}/ladder.csv
                OUTPUT_VARIABLE report ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT report MATCHES "alphabeta2: -?[0-9]+ \\+- [0-9]+ Elo on the ladder \\(8 games\\)")
  message(FATAL_ERROR "strength_report.py failed (${rc}):\n${report}${err}")
endif()
if(NOT report MATCHES "vs greedy +\\(    150\\)")
  message(FATAL_ERROR "strength_report.py: no score against greedy:\n${report}")
endif()
file(READ ${out}/strength.json json)
string(JSON player GET "${json}" models 0 player)
string(JSON games GET "${json}" models 0 games)
if(NOT player STREQUAL "alphabeta2" OR NOT games EQUAL 8)
  message(FATAL_ERROR "strength.json: expected alphabeta2 with 8 games:\n${json}")
endif()
if(NOT EXISTS ${out}/strength.png)
  message(FATAL_ERROR "strength_report.py wrote no strength.png (python3-matplotlib is a project package)")
endif()

# scripts/plot.py draws the training evaluations' ratings with their intervals by step
# and by time (metrics.jsonl as training writes it), and a ladder CSV's step-N players.
set(run ${WORK}/plot_run)
file(REMOVE_RECURSE ${run})
file(WRITE ${run}/metrics.jsonl
     "{\"step\":100,\"seconds\":60,\"positions_per_second\":300,\"playouts_per_second\":5000,\"loss\":{\"total\":3,\"policy\":2,\"value\":0.7,\"ownership\":0.9,\"disc_difference\":0.1}}\n"
     "{\"eval\":{\"step\":200,\"seconds\":130,\"elo\":400,\"elo_ci95\":90,\"eval_share\":0.08,\"vs\":{\"alphabeta2\":{\"score\":0.6}}}}\n"
     "{\"step\":300,\"seconds\":180,\"positions_per_second\":310,\"playouts_per_second\":5100,\"loss\":{\"total\":2.8,\"policy\":1.9,\"value\":0.6,\"ownership\":0.8,\"disc_difference\":0.1}}\n"
     "{\"eval\":{\"step\":400,\"seconds\":250,\"elo\":600,\"elo_ci95\":80,\"eval_share\":0.09,\"vs\":{\"alphabeta2\":{\"score\":0.8}}}}\n")
file(WRITE ${run}/ladder.csv "player,elo,ci95,games,score\nrandom,0,0,10,0.1\nstep-00000200,420,95,10,0.5\nstep-00000300/visits=8,500,90,10,0.6\n")
foreach(args "" "--elo;${run}/ladder.csv")
  execute_process(COMMAND ${PYTHON} ${SCRIPTS}/plot.py ${run} -o ${run}/plot.png ${args}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT EXISTS ${run}/plot.png)
    message(FATAL_ERROR "plot.py ${args} failed (${rc}):\n${out}${err}")
  endif()
  file(REMOVE ${run}/plot.png)
endforeach()
file(WRITE ${run}/bad.csv "player,elo\nstep-00000200,high\n")
execute_process(COMMAND ${PYTHON} ${SCRIPTS}/plot.py ${run} -o ${run}/plot.png --elo ${run}/bad.csv
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(rc EQUAL 0 OR NOT err MATCHES "bad.csv line 2: not a ladder row")
  message(FATAL_ERROR "plot.py accepted a bad ladder row (${rc}):\n${out}${err}")
endif()
