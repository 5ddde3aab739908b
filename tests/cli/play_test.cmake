# End-to-end: `othello-zero play` in the terminal, scripted through standard input.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

file(WRITE ${WORK}/play_input.txt "help\nhint\nz9\na1\nf5\nundo\nf5\nanalyse\nquit\n")
execute_process(COMMAND ${EXE} play --model ${MODEL} --visits 8 --hint-visits 24
                        --analyse-visits 8
                INPUT_FILE ${WORK}/play_input.txt OUTPUT_VARIABLE out ERROR_VARIABLE err
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "play failed (${rc}): ${err}")
endif()
foreach(expected "You play black" "commands: a move" "  c4  win [0-9]+%  discs [-+][0-9.]+"
                 "error: bad square 'z9'" "error: move 1 \\(a1\\) is illegal for black"
                 "AI plays [a-h][1-8]" "undone" "transcript: f5[a-h][1-8]\n"
                 "analysing 3 positions" "\n   1\\.  black  f5  " "\n   2\\.  white  [a-h][1-8]  "
                 "\nblack: total loss [0-9.]+ discs, [0-9]+ inaccurac")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "play: output does not match '${expected}':\n${out}")
  endif()
endforeach()
# The hint searched --hint-visits playouts (the playing strength has 8).
string(REGEX MATCHALL "  [a-h][1-8]  win [0-9]+%  discs [-+][0-9.]+  visits [0-9]+" hints "${out}")
set(hint_visits 0)
foreach(hint IN LISTS hints)
  string(REGEX REPLACE ".* visits " "" visits "${hint}")
  math(EXPR hint_visits "${hint_visits} + ${visits}")
endforeach()
if(NOT hint_visits EQUAL 24)
  message(FATAL_ERROR "play: the hint searched ${hint_visits} playouts, not 24:\n${out}")
endif()

# A whole 6x6 game: the person tries every square in turn until one is legal. After the
# end the program offers the analysis and reads commands until the end of the input.
set(squares "")
foreach(row RANGE 1 6)
  foreach(column a b c d e f)
    string(APPEND squares "${column}${row}\n")
  endforeach()
endforeach()
string(REPEAT "${squares}" 32 tries)  # one legal move at least per round
file(WRITE ${WORK}/play_input3.txt "${tries}board\nhelp\nanalyze\n")
execute_process(COMMAND ${EXE} play --model ${MODEL6} --visits 4 --analyse-visits 8
                INPUT_FILE ${WORK}/play_input3.txt OUTPUT_VARIABLE out ERROR_VARIABLE err
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "play a whole game failed (${rc}): ${err}")
endif()
foreach(expected "transcript: [a-f1-6]+\ntype analyse for a per-move analysis, or quit\n"
                 "> error: the game is over: analyse \\(a per-move analysis\\), board, quit\n"
                 "> the game is over: analyse" "game over\n"
                 "\n   1\\.  black  [a-f][1-6]  " "\nwhite: total loss [0-9.]+ discs, ")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "play a whole game: output does not match '${expected}':\n${out}")
  endif()
endforeach()

# A 6x6 model plays 6x6 without being told (the rules come from the file); as white the
# AI opens, and the end of the input ends the game politely.
file(WRITE ${WORK}/play_input2.txt "")
execute_process(COMMAND ${EXE} play --model ${MODEL6} --color white --level 3
                INPUT_FILE ${WORK}/play_input2.txt OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "AI plays [a-f][1-6].*transcript: [a-f][1-6]\n")
  message(FATAL_ERROR "play as white on 6x6 (${rc}):\n${out}")
endif()
run_fails("--color must be black or white" play --model ${MODEL} --color green)
run_fails("--size 6: .*model.ozm plays 8x8 only" play --model ${MODEL} --size 6)
run_fails("--size 8: .*model6.ozm plays 6x6 only" play --model ${MODEL6} --size 8)
# The engines refuse a board the model does not know, and keep running.
file(WRITE ${WORK}/gtp_input.txt "boardsize 8\nboardsize 6\nquit\n")
execute_process(COMMAND ${EXE} gtp --model ${MODEL6} --visits 4 INPUT_FILE ${WORK}/gtp_input.txt
                OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^\\? unacceptable size: the model was trained for 6x6, not 8x8\n\n=\n\n")
  message(FATAL_ERROR "gtp boardsize with a 6x6 model (${rc}):\n${out}")
endif()
