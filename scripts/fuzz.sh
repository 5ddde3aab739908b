#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/, clang with ASan and UBSan) and runs each
# of them for SECONDS (default 60), two at a time, from its seed corpus (tests/fuzz/corpus
# and the binary seeds fuzz_seeds writes) and the corpus earlier runs grew in
# build-fuzz/corpus/. Prints executions and coverage per target; a crash, a sanitizer
# report, a leak or a hang fails the run and leaves the input in build-fuzz/crashes/.
# The build also compiles every library, so that an access against the thread rules
# (clang's -Werror=thread-safety, core/thread_annotations.h) fails it.
# Usage: scripts/fuzz.sh [SECONDS [TARGET...]]
#   scripts/fuzz.sh                 every target, 60 s each
#   scripts/fuzz.sh 15              every target, 15 s each (what CI runs)
#   scripts/fuzz.sh 1800 fuzz_ggf   one target for 30 minutes
#   OZ_FUZZ_RUNS=10000000 scripts/fuzz.sh 1800   stop each at 10 M executions or 30 min
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh

case "${1:-}" in
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
seconds=${1:-60}
shift || true
case "$seconds" in ''|*[!0-9]*) echo "scripts/fuzz.sh: SECONDS must be a number, not '$seconds'" >&2; exit 2 ;; esac
oz_install_packages "${OZ_PACKAGES[@]}" "${OZ_FUZZ_PACKAGES[@]}"

build=${FUZZ_BUILD_DIR:-build-fuzz}
all=(fuzz_board_string fuzz_transcript fuzz_ggf fuzz_obf fuzz_config fuzz_model_file
     fuzz_checkpoint fuzz_replay_shard fuzz_replay_journal fuzz_gtp fuzz_nboard fuzz_web_api)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOZ_FUZZ=ON \
  -DOZ_BUILD_TESTS=OFF -DOZ_BUILD_BENCHMARKS=OFF >/dev/null
# Every library too, whatever the targets need (fuzz_seeds links them all anyway): this
# clang build is also CI's check of the thread rules (-Werror=thread-safety).
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" fuzz_seeds \
  oz_core oz_mcts oz_nn_eigen oz_nn oz_play oz_arena oz_training
"$build/tests/fuzz/fuzz_seeds" "$build/seeds" >/dev/null

mkdir -p "$build/crashes" "$build/logs"
# LibTorch and OpenBLAS keep allocations for the life of the process (thread pools,
# kernels' caches): reported leaks from inside them are suppressed, each with its reason.
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0"
export ASAN_OPTIONS="abort_on_error=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1"

run_one() {
  local name=$1 seconds=$2 build=$3
  local corpus="$build/corpus/$name" seeds=() dict=()
  mkdir -p "$corpus"
  [ -d "tests/fuzz/corpus/$name" ] && seeds+=("tests/fuzz/corpus/$name")
  [ -d "$build/seeds/$name" ] && seeds+=("$build/seeds/$name")
  [ -f "tests/fuzz/$name.dict" ] && dict=("-dict=tests/fuzz/$name.dict")
  local runs=()
  [ -n "${OZ_FUZZ_RUNS:-}" ] && runs=("-runs=$OZ_FUZZ_RUNS")
  local status=0
  "$build/tests/fuzz/$name" -max_total_time="$seconds" "${runs[@]}" -timeout=30 -rss_limit_mb=4096 \
    -print_final_stats=1 "${dict[@]}" -artifact_prefix="$build/crashes/$name-" \
    "$corpus" "${seeds[@]}" >"$build/logs/$name.log" 2>&1 || status=$?
  local execs cov
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$build/logs/$name.log" | awk '{print $2}' | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$build/logs/$name.log" | tail -1 | awk '{print $2}')
  printf '%-22s %12s executions %7s edges covered  %s\n' "$name" "${execs:-?}" "${cov:-?}" \
    "$([ $status -eq 0 ] && echo ok || echo "FAILED (exit $status): see $build/logs/$name.log")"
  return $status
}
export -f run_one

echo "fuzzing ${#targets[@]} target(s) for ${seconds} s each (logs in $build/logs)"
status=0
printf '%s\n' "${targets[@]}" |
  xargs -P "${FUZZ_JOBS:-2}" -I{} bash -c 'run_one "$@"' _ {} "$seconds" "$build" |
  tee "$build/fuzz-summary.txt" || status=$?
if grep -q FAILED "$build/fuzz-summary.txt"; then
  echo "fuzzing found a problem; the inputs are in $build/crashes/" >&2
  exit 1
fi
exit $status
