# othello-zero verify end to end on 4x4 (the solver proves it at once): a full-depth
# search is perfect against every reply and against perfect replies only, the JSON
# report says which, and bad options are refused with their name.
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
run_fails("--replies: best not in \\{all,optimal\\}|--replies.*best" verify --player ab:12 --size 4
          --replies best)
run_fails("not shown perfect" verify --player random --size 4 --prove-seconds 5 --hash-mb 16
          --replies optimal)
