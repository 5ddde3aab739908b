#!/usr/bin/env bash
# Installs what is missing (Debian 12), configures and builds in Release, and runs the
# whole test suite with ctest.
#   scripts/test.sh            everything, slow tests included
#   scripts/test.sh --fast     without the tests labelled "slow"
#   BUILD_DIR=... CMAKE_ARGS="-DOZ_ASAN=ON" scripts/test.sh   another build
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh

ctest_args=()
for arg in "$@"; do
  case "$arg" in
    --fast) ctest_args+=(-LE slow) ;;
    *) echo "scripts/test.sh: unknown argument '$arg' (use --fast)" >&2; exit 2 ;;
  esac
done

oz_install_packages "${OZ_PACKAGES[@]}" "${OZ_TEST_PACKAGES[@]}"

build_dir=${BUILD_DIR:-build}
jobs=$(nproc)
# shellcheck disable=SC2086
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} ${CMAKE_ARGS:-}
cmake --build "$build_dir" -j "$jobs"
ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" "${ctest_args[@]}"
