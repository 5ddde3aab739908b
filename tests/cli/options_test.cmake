# End-to-end: the options the play commands and the arena share. Every --help shows its
# defaults; --device takes auto, cpu, cuda or cuda:N (a build without LibTorch, TORCH
# off: auto and cpu only); an exported model (MODEL, when given) plays with --device cpu
# and refuses CUDA naming the file.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

run_ok("--port[^\n]*=8080.*--host[^\n]*=127\\.0\\.0\\.1.*--level[^\n]*=6.*--device[^\n]*=auto"
       serve --help)
run_ok("--games[^\n]*=2\n.*--openings[^\n]*=random:4.*--parallel[^\n]*=1\n.*--visits[^\n]*=200\n.*--device[^\n]*=auto.*--engine-timeout[^\n]*=60[ \n].*--nboard-depth[^\n]*=20[ \n].*--seed[^\n]*=1 "
       arena --help)
foreach(command play gtp nboard)
  run_ok("--visits[^\n]*=400\n.*--seconds[^\n]*=0\n.*--root-solve[^\n]*\\[0 - 20\\]=0\n.*--seed[^\n]*=1 .*--device[^\n]*=auto"
         ${command} --help)
endforeach()
run_ok("--visits[^\n]*=200\n.*--exact-empties[^\n]*=14\n.*--device[^\n]*=auto" analyse --help)

# A bad value is refused before anything is loaded, naming the option.
foreach(command play gtp nboard serve)
  run_fails("--device: unknown device 'gpu' \\(use auto, cpu, cuda or cuda:N\\)"
            ${command} --model ${WORK}/none.ozm --device gpu)
endforeach()
foreach(command play gtp nboard)
  run_fails("--root-solve: Value 21 not in range 0 to 20" ${command} --model ${WORK}/none.ozm
            --root-solve 21)
endforeach()
# Every budget has its range (play/play_settings.h): a negative count is not wrapped
# around, a move needs a limit, and no budget can overflow the tree's size.
foreach(command play gtp nboard)
  run_fails("--visits: Value -5 not in range 0 to 1000000" ${command} --model ${WORK}/none.ozm
            --visits -5)
  run_fails("--visits: Value 1000001 not in range 0 to 1000000" ${command}
            --model ${WORK}/none.ozm --visits 1000001)
  run_fails("--visits 0 needs --seconds \\(a move needs a limit\\)" ${command}
            --model ${WORK}/none.ozm --visits 0)
  run_fails("--seconds: Value -1 not in range" ${command} --model ${WORK}/none.ozm --seconds -1)
endforeach()
run_fails("--hint-visits: Value 0 not in range 1 to 1000000" play --model ${WORK}/none.ozm
          --hint-visits 0)
run_fails("--visits: Value 0 not in range 1 to 1000000" analyse ${WORK}/none.txt
          --model ${WORK}/none.ozm --visits 0)
run_fails("--exact-empties: Value 25 not in range 0 to 24" analyse ${WORK}/none.txt
          --model ${WORK}/none.ozm --exact-empties 25)
run_fails("--visits: Value -1 not in range 0 to 1000000" arena --player random --player greedy
          --visits -1)
run_fails("--engine-timeout: Value -3 not in range" arena --player random --player greedy
          --engine-timeout -3)
run_fails("--nboard-depth: Value 0 not in range 1 to 60" arena --player random --player greedy
          --nboard-depth 0)
run_fails("--device: unknown device 'cuda:x'" analyse ${WORK}/none.txt --model ${WORK}/none.ozm
          --device cuda:x)
run_fails("--device: unknown device 'GPU'" arena --player random --player greedy --device GPU)
if(NOT TORCH)
  run_fails("--device: device 'cuda': this build has no LibTorch, so models run on the CPU"
            play --model ${WORK}/none.ozm --device cuda)
  run_fails("--device: device 'cuda:1': this build has no LibTorch"
            arena --player random --player greedy --device cuda:1)
endif()

if(MODEL)
  file(WRITE ${WORK}/options_gtp.txt "genmove b\nquit\n")
  foreach(device cpu auto)
    execute_process(COMMAND ${EXE} gtp --model ${MODEL} --visits 4 --device ${device}
                    INPUT_FILE ${WORK}/options_gtp.txt OUTPUT_VARIABLE out ERROR_VARIABLE err
                    RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0 OR NOT out MATCHES "^= [a-hA-H][1-8]\n")
      message(FATAL_ERROR "gtp --device ${device} (${rc}):\n${out}${err}")
    endif()
  endforeach()
  file(WRITE ${WORK}/options_play.txt "quit\n")
  execute_process(COMMAND ${EXE} play --model ${MODEL} --visits 4 --device cpu
                  INPUT_FILE ${WORK}/options_play.txt OUTPUT_VARIABLE out ERROR_VARIABLE err
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "You play black")
    message(FATAL_ERROR "play --device cpu (${rc}):\n${out}${err}")
  endif()
  # Exported models run on the CPU only: the loader says so, naming the file.
  foreach(device cuda cuda:0)
    run_fails("model [^\n]*model\\.ozm: an exported model runs on the CPU \\(device '${device}'"
              gtp --model ${MODEL} --device ${device})
  endforeach()
  run_fails("model [^\n]*model\\.ozm: an exported model runs on the CPU"
            arena --player model:${MODEL},visits=2 --player random --device cuda)
endif()
