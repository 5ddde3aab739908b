# othello-zero verify end to end on 4x4 (the solver proves it at once): a full-depth
# search is perfect against every reply, against perfect replies only and by the exact
# margin, the JSON report says which, and bad options are refused with their name.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

run_ok("start: ply 0 \\(12 empties\\).*every reply walked.*perfect play from ply 0 as both colours against every reply\n"
       verify --player ab:12 --size 4 --prove-seconds 5 --hash-mb 16)
run_ok("every perfect reply walked.*perfect play from ply 0 as both colours against every perfect reply\n"
       verify --player ab:12 --size 4 --prove-seconds 5 --hash-mb 16 --replies optimal
       --json ${WORK}/verify_optimal.json)
file(READ ${WORK}/verify_optimal.json json)
string(JSON replies GET "${json}" replies)
string(JSON perfect GET "${json}" perfect)
if(NOT replies STREQUAL "optimal" OR NOT perfect)
  message(FATAL_ERROR "verify --json: expected replies optimal and perfect:\n${json}")
endif()
run_ok("a loss by [0-9]+ for black.*perfect play from ply 0 as both colours against every perfect reply, keeping the exact margin\n"
       verify --player ab:12 --size 4 --prove-seconds 5 --hash-mb 16 --replies optimal
       --value score --json ${WORK}/verify_score.json)
file(READ ${WORK}/verify_score.json json)
string(JSON value GET "${json}" value)
if(NOT value STREQUAL "score")
  message(FATAL_ERROR "verify --value score --json: expected value score:\n${json}")
endif()
run_fails("--value: margin not in \\{wld,score\\}|--value.*margin" verify --player ab:12 --size 4
          --value margin)
run_fails("--replies: best not in \\{all,optimal\\}|--replies.*best" verify --player ab:12 --size 4
          --replies best)
run_fails("not shown perfect" verify --player random --size 4 --prove-seconds 5 --hash-mb 16
          --replies optimal)
