# End-to-end: `othello-zero analyse GAME`: a transcript and a GGF record of the planted-
# blunder fixture (tests/play/analysis_test.cpp: ply 48, black's g7, turns a win into a
# loss with 12 empties), also given as the transcript itself, a 6x6 game with a pass,
# --json, and bad input.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

set(planted8 "f5d6c4f3f4d3e2g4d7c2h5f6e6c7b7f2f1c3f7e7d2c5b5d1f8g8c6d8c1h4e1a8c8b3h8b8h3a6e3g3h2g5a4a3h6b4b6b1g7g1a5a7g6e8g2h1a2h7b2a1")
set(planted6 "e4c5b3e3d5a3d2e6f4d1b6b5b2f3b4a4a5c1a2a6b1a1f2c2c6d6f5f6e2")

# The table of `analyse` for `file`: one row per ply, the planted blunder marked.
function(check_table file plies)
  execute_process(COMMAND ${EXE} analyse ${file} --model ${MODEL} --visits 8
                  INPUT_FILE /dev/null OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "analyse ${file} failed (${rc}): ${err}")
  endif()
  string(REGEX MATCHALL "\n +[0-9]+\\.  (black|white)  " rows "${out}")
  list(LENGTH rows count)
  if(NOT count EQUAL ${plies})
    message(FATAL_ERROR "analyse ${file}: ${count} rows, expected ${plies}:\n${out}")
  endif()
  foreach(expected "\n  49\\.  black  g7  [^\n]+ \\(exact\\)  blunder\n"
                   "\nblack: total loss [0-9.]+ discs, [0-9]+ inaccurac[a-z]+, [0-9]+ mistakes?, [1-9][0-9]* blunders?\n"
                   "\nwhite: total loss ")
    if(NOT out MATCHES "${expected}")
      message(FATAL_ERROR "analyse ${file}: output does not match '${expected}':\n${out}")
    endif()
  endforeach()
  if(NOT err MATCHES "analysed 61/61 positions")
    message(FATAL_ERROR "analyse ${file}: no progress line on stderr:\n${err}")
  endif()
endfunction()

file(WRITE ${WORK}/analyse_game.txt "${planted8}\n")
check_table(${WORK}/analyse_game.txt 60)
# The transcript itself as GAME (no such file).
check_table(${planted8} 60)

# The same game as a GGF record (no passes: black and white alternate).
set(ggf "(;GM[Othello]PC[test]PB[someone]PW[someone else]TY[8]")
string(APPEND ggf "BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]")
string(LENGTH "${planted8}" length)
set(colour B)
foreach(at RANGE 0 ${length} 2)
  if(at LESS length)
    string(SUBSTRING "${planted8}" ${at} 2 move)
    string(APPEND ggf "${colour}[${move}]")
    if(colour STREQUAL "B")
      set(colour W)
    else()
      set(colour B)
    endif()
  endif()
endforeach()
file(WRITE ${WORK}/analyse_game.ggf "${ggf};)\n")
check_table(${WORK}/analyse_game.ggf 60)

# --json: one object with every ply.
execute_process(COMMAND ${EXE} analyse ${WORK}/analyse_game.txt --model ${MODEL} --visits 8 --json
                INPUT_FILE /dev/null OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "analyse --json failed (${rc}): ${err}")
endif()
string(JSON plies LENGTH "${out}" plies)
string(JSON mark GET "${out}" plies 48 mark)
string(JSON played GET "${out}" plies 48 played)
string(JSON exact GET "${out}" plies 48 exact)
string(JSON complete GET "${out}" complete)
string(JSON blunders GET "${out}" totals black blunders)
if(NOT plies EQUAL 60 OR NOT mark STREQUAL "blunder" OR NOT played STREQUAL "g7" OR NOT exact
   OR NOT complete OR blunders LESS 1)
  message(FATAL_ERROR "analyse --json: unexpected object:\n${out}")
endif()

# 6x6 with a forced pass (the rules come from the model).
file(WRITE ${WORK}/analyse_game6.txt "${planted6}\n")
execute_process(COMMAND ${EXE} analyse ${WORK}/analyse_game6.txt --model ${MODEL6} --visits 8
                INPUT_FILE /dev/null OUTPUT_VARIABLE out ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\n  21\\.  [a-z]+  b1  [^\n]+ \\(exact\\)  blunder\n"
   OR NOT out MATCHES "\n +[0-9]+\\.  (black|white)  pass    -  ")
  message(FATAL_ERROR "analyse of a 6x6 game (${rc}):\n${out}")
endif()

# Bad input: each error names the file and what is wrong.
file(WRITE ${WORK}/analyse_bad.txt "f5d6zz\n")
run_fails("analyse_bad.txt: bad transcript \\(8x8 from the standard start.*\\): move 3 \\('zz'"
          analyse ${WORK}/analyse_bad.txt --model ${MODEL})
file(WRITE ${WORK}/analyse_illegal.txt "f5 f5\n")
run_fails("analyse_illegal.txt: .*move 2 .*illegal" analyse ${WORK}/analyse_illegal.txt --model ${MODEL})
file(WRITE ${WORK}/analyse_bad.ggf "(;GM[Othello]BO[8 junk\n")
run_fails("analyse_bad.ggf: game 1: " analyse ${WORK}/analyse_bad.ggf --model ${MODEL})
file(WRITE ${WORK}/analyse_empty.txt "\n")
run_fails("analyse_empty.txt: the file is empty" analyse ${WORK}/analyse_empty.txt --model ${MODEL})
run_fails("no-such-game.txt: cannot be opened" analyse ${WORK}/no-such-game.txt --model ${MODEL})
run_fails("transcript 'f5d6zz': bad transcript \\(8x8 from the standard start.*\\): move 3"
          analyse f5d6zz --model ${MODEL})
file(WRITE ${WORK}/analyse_game6.ggf
     "(;GM[Othello]TY[6]BO[6 ------ ------ --O*-- --*O-- ------ ------ *]B[e4];)\n")
run_fails("analyse_game6.ggf: a 6x6 game, but .*model.ozm plays 8x8 only"
          analyse ${WORK}/analyse_game6.ggf --model ${MODEL})
run_fails("--exact-empties: Value 25 not in range" analyse ${WORK}/analyse_game.txt --model ${MODEL}
          --exact-empties 25)
# Without --model: the shipped model (nn/shipped/8x8.ozm, compiled in).
run_ok("ply +side +played +best" analyse ${WORK}/analyse_game.txt --visits 2)
