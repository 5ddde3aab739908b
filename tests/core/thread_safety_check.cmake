# The thread rules are checked (core/thread_annotations.h): clang++ with
# -Wthread-safety -Werror must refuse thread_safety_check.cpp, whose Bump() writes a
# GUARDED_BY field without its mutex, naming the mutex; and must accept the same file
# with the mutex taken (OZ_TAKE_LOCK). Run by ctest as core.thread_safety_check with
# -DCLANGXX=<clang++> -DROOT=<source root> -DFILE=<thread_safety_check.cpp>.
set(flags -std=c++17 -fsyntax-only -Wthread-safety -Werror -I${ROOT})

execute_process(COMMAND ${CLANGXX} ${flags} ${FILE}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(status EQUAL 0)
  message(FATAL_ERROR "an unguarded write to a GUARDED_BY field compiled:\n${out}")
endif()
if(NOT out MATCHES "writing variable 'count_' requires holding mutex 'mutex_'")
  message(FATAL_ERROR "the unguarded write failed without the thread-safety error:\n${out}")
endif()

execute_process(COMMAND ${CLANGXX} ${flags} -DOZ_TAKE_LOCK ${FILE}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the guarded write (mutex taken) did not compile:\n${out}")
endif()
