# End-to-end checks of `othello-zero solve`: board strings, .obf files with line
# numbers, --wld, limits and bad input.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# FFO #40 as a board string, and small endgames as a file with a bad line.
set(ffo40 "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X")
run_ok("\n0 +20 +a2 +\\+38 .*total: 1 positions" solve "${ffo40}")
run_ok("\n0 +20 +[a-h][1-8] +win " solve --wld "${ffo40}")

# A board string whose a1 is empty starts with '-', which an option parser takes for an
# option ("-X..." a short one, "--O..." a long one): it is read as the board, and a bad one
# gets the board's own error.
run_ok("\n0 +14 +a5 +-8 " solve "-XXXXO-OOOO--OOXO-XOXOOX-O--O-O----- X")
run_ok("\n0 +14 +a6 +-10 " solve "--O-X----OXX-XXOO-OXOOOO-OXXXX--OX-- X")
run_fails("board string has 35 squares" solve "-XXXXO-OOOO--OOXO-XOXOOX-O--O-O---- X")

file(WRITE ${WORK}/solve_input.obf
  "% comment line\n"
  "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXO-XXXXXX-- O; H7:-64\n"
  "\n"
  "XXXXXXXX X\n"
  "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX---- O\n")
run_fails("line 4: board string has 8 squares" solve ${WORK}/solve_input.obf)
run_fails("1 bad input line" solve ${WORK}/solve_input.obf)
execute_process(COMMAND ${EXE} solve ${WORK}/solve_input.obf OUTPUT_VARIABLE out ERROR_QUIET)
if(NOT out MATCHES "\n2 +3 +pass +-64 +-64 .*\n5 +4 +- +-64 .*total: 2 positions")
  message(FATAL_ERROR "solve of a file: unexpected output:\n${out}")
endif()

file(WRITE ${WORK}/solve_wrong.obf "${ffo40}; A2:+36\n")
run_fails("1 score\\(s\\) differ" solve ${WORK}/solve_wrong.obf)
run_fails("node limit reached" solve --max-nodes 1000 "${ffo40}")
run_fails("neither a readable file nor a board string" solve no-such-file.obf)
run_fails("input is required|input" solve)
