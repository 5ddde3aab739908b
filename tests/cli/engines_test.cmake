# End-to-end: `othello-zero gtp` and `othello-zero nboard` with an exported model,
# driven by the arena: full games against GRhino (when installed) and the random player.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

set(engine_gtp "oz@gtp:${EXE} gtp --model ${MODEL} --visits 16")
set(engine_nboard "ozn@nboard:${EXE} nboard --model ${MODEL}")
run_ok("ozn +random +[0-9]+ +[0-9]+ +[0-9]+ +4 " arena --player ${engine_nboard} --player random
       --games 4 --parallel 2 --nboard-depth 1)
if(EXISTS /usr/games/gtp-rhino)
  execute_process(COMMAND ${EXE} arena --player "gtp:/usr/games/gtp-rhino -l 1" --player ${engine_gtp}
                          --games 2 --out ${WORK}/engines_cli
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "gtp-rhino -l 1 +oz +[0-9]+ +[0-9]+ +[0-9]+ +2 ")
    message(FATAL_ERROR "gtp-rhino against othello-zero gtp failed (${rc}):\n${out}\n${err}")
  endif()
  if("${out}${err}" MATCHES "forfeit|lost on time")
    message(FATAL_ERROR "a player forfeited:\n${out}\n${err}")
  endif()
else()
  message(STATUS "gtp-rhino is not installed: the GRhino game is skipped")
endif()
# Without --model the engines play the shipped model (nn/shipped/8x8.ozm, compiled in).
run_ok("shipped +random +[0-9]+ +[0-9]+ +[0-9]+ +2 " arena --player "shipped@gtp:${EXE} gtp --visits 8"
       --player random --games 2 --parallel 2)
run_ok("shippedn +random +[0-9]+ +[0-9]+ +[0-9]+ +2 " arena --player "shippedn@nboard:${EXE} nboard"
       --player random --games 2 --parallel 2 --nboard-depth 1)
run_fails("the shipped 8x8 model: an exported model runs on the CPU" gtp --device cuda)
run_fails("model .*missing.ozm: cannot be opened" gtp --model ${WORK}/missing.ozm)
file(WRITE ${WORK}/not_a_model.ozm "hello")
run_fails("not_a_model.ozm" nboard --model ${WORK}/not_a_model.ozm)
