#!/usr/bin/env bash
# Installs what is missing (Debian 12), configures and builds in Release, and runs the
# whole test suite with ctest.
#   scripts/test.sh            everything, slow tests included
#   scripts/test.sh --fast     without the tests labelled "slow"
#   scripts/test.sh --asan     the suite built with AddressSanitizer and UBSan (build-asan/)
#   scripts/test.sh --tsan     the suite built with ThreadSanitizer (build-tsan/)
#   BUILD_DIR=... CMAKE_ARGS="..." scripts/test.sh   another build
# Under the sanitizers, reports from inside LibTorch and OpenBLAS (not instrumented)
# are suppressed by tests/sanitizers/*.supp, each entry with its reason.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh

ctest_args=()
sanitizer=""
for arg in "$@"; do
  case "$arg" in
    --fast) ctest_args+=(-LE slow) ;;
    --asan) sanitizer=asan ;;
    --tsan) sanitizer=tsan ;;
    *) echo "scripts/test.sh: unknown argument '$arg' (use --fast, --asan or --tsan)" >&2; exit 2 ;;
  esac
done

oz_install_packages "${OZ_PACKAGES[@]}" "${OZ_TEST_PACKAGES[@]}"

build_dir=${BUILD_DIR:-build}
cmake_args=${CMAKE_ARGS:-}
supp="$PWD/tests/sanitizers"
case "$sanitizer" in
  asan)
    build_dir=${BUILD_DIR:-build-asan}
    cmake_args="$cmake_args -DOZ_ASAN=ON -DOZ_BUILD_BENCHMARKS=OFF"
    export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1"
    export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$supp/ubsan.supp"
    ;;
  tsan)
    build_dir=${BUILD_DIR:-build-tsan}
    cmake_args="$cmake_args -DOZ_TSAN=ON -DOZ_BUILD_BENCHMARKS=OFF"
    export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$supp/tsan.supp"
    # LibTorch, oneDNN and OpenBLAS on one thread (their thread pools synchronise in
    # libraries TSan cannot see; nn/inference.cpp says more).
    export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
    ;;
esac

jobs=$(nproc)
# shellcheck disable=SC2086
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} $cmake_args
cmake --build "$build_dir" -j "$jobs"
ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" "${ctest_args[@]}"

# The LibTorch-free build, what a player of an exported model builds: it must have play,
# the engines, arena and elo, link no LibTorch, and pass its own tests (core and mcts
# are the same code as above and are not run twice).
if [[ -z "$sanitizer" && -z "${OZ_SKIP_NO_TORCH:-}" ]]; then
  no_torch_dir=${build_dir}-notorch
  cmake -S . -B "$no_torch_dir" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} \
    -DOZ_TORCH=OFF -DOZ_BUILD_BENCHMARKS=OFF $cmake_args
  cmake --build "$no_torch_dir" -j "$jobs"
  if ldd "$no_torch_dir/cli/othello-zero" | grep -q torch; then
    echo "scripts/test.sh: the -DOZ_TORCH=OFF build links LibTorch" >&2
    exit 1
  fi
  ctest --test-dir "$no_torch_dir" --output-on-failure -j "$jobs" -LE 'core|mcts|slow'
fi
