# End-to-end checks of `othello-zero perft`: output format, counts, and bad input.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

run_ok("^1 4 [0-9.]+ [0-9]+\n2 12 .*\n7 55092 [0-9.]+ [0-9]+\n$" perft --depth 7)
run_ok("^1 4 .*\n3 24 .*\n8 6624 " perft --depth 8 --start reversi)
run_ok("^1 4 .*\n4 244 " perft --depth 4 --size 10)
run_ok("^1 1 " perft --depth 2 --board "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX O")
run_ok("--depth" perft --help)
run_fails("--size" perft --depth 3 --size 7)
run_fails("--start" perft --depth 3 --start sideways)
run_fails("--board: board string has 3 squares" perft --board "XO- X")
run_ok("^1 10 " perft --depth 1 --board "-XXXXO-OOOO--OOXO-XOXOOX-O--O-O----- X")
run_fails("--depth" perft --depth 0)
run_fails("perft|subcommand" nonsense)
