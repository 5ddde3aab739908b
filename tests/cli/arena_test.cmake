# End-to-end checks of `othello-zero arena` and `othello-zero elo`: a round robin with
# GGF records and JSON, the ladder from those records, a model player (MODEL, an exported
# model file, when given), and bad input.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

file(REMOVE_RECURSE ${WORK}/arena_cli)
run_ok("random +greedy +[0-9]+ +[0-9]+ +[0-9]+ +4 .*alphabeta1.*games appended"
       arena --player random --player greedy --player ab:1 --games 4 --parallel 2
       --out ${WORK}/arena_cli --json ${WORK}/arena_cli/results.json --time 30+1)
file(READ ${WORK}/arena_cli/results.json json)
string(JSON pairs LENGTH "${json}" pairs)
if(NOT pairs EQUAL 3)
  message(FATAL_ERROR "arena JSON: expected 3 pairs:\n${json}")
endif()
file(STRINGS ${WORK}/arena_cli/games.ggf games)
list(LENGTH games count)
if(NOT count EQUAL 12)
  message(FATAL_ERROR "arena: expected 12 GGF games, found ${count}")
endif()
run_ok("12 games\n.*random +0\\.0 .*ladder written to" elo ${WORK}/arena_cli)
if(NOT EXISTS ${WORK}/arena_cli/elo.csv)
  message(FATAL_ERROR "elo: no elo.csv written")
endif()

# A model player from an exported model file (every build reads those).
if(MODEL)
  file(REMOVE_RECURSE ${WORK}/arena_cli_model)
  run_ok("model/v2 +random +[0-9]+ +[0-9]+ +[0-9]+ +2 "
         arena --player model:${MODEL},visits=2 --player random --games 2
         --out ${WORK}/arena_cli_model)
  # Two runs' latest checkpoints are told apart by their run folders.
  foreach(run a b)
    file(MAKE_DIRECTORY ${WORK}/arena_cli_model/${run}/checkpoints)
    file(COPY_FILE ${MODEL} ${WORK}/arena_cli_model/${run}/checkpoints/latest.ozm)
  endforeach()
  run_ok("a/latest/v2 +b/latest/v2 +[0-9]+ +[0-9]+ +[0-9]+ +2 "
         arena --player model:${WORK}/arena_cli_model/a/checkpoints/latest.ozm,visits=2
         --player model:${WORK}/arena_cli_model/b/checkpoints/latest.ozm,visits=2 --games 2)
  run_fails("players 'model:[^']*' and 'model:[^']*' are both named 'model/v2': give them different names with NAME@SPEC"
            arena --player model:${MODEL},visits=2 --player model:${MODEL},visits=2)
endif()

run_fails("player 'nobody': unknown player kind" arena --player random --player nobody)
run_fails("at least two players" arena --player random)
run_fails("players 'random' and 'random' are both named 'random': give them different names with NAME@SPEC \\(e\\.g\\. 'first@random'"
          arena --player random --player greedy --player random)
run_fails("time control 'x' is not MAIN\\+INC" arena --player random --player greedy --time x)
run_fails("no such file or directory" elo ${WORK}/no-such-dir)
file(WRITE ${WORK}/arena_cli_bad.ggf "(;GM[Othello]PB[a]PW[b]RE[+2]BO[8 zz]B[f5];)\n")
run_fails("arena_cli_bad.ggf: " elo ${WORK}/arena_cli_bad.ggf)
