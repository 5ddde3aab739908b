#!/usr/bin/env bash
# Installs what is missing (Debian 12), configures and builds in Release, and runs the
# whole test suite with ctest.
# Usage:
#   scripts/test.sh            everything, slow tests included
#   scripts/test.sh --fast     without the tests labelled "slow"
#   scripts/test.sh --asan     the suite built with AddressSanitizer and UBSan (build-asan/)
#   scripts/test.sh --tsan     the suite built with ThreadSanitizer (build-tsan/)
#   scripts/test.sh --cuda     the suite built against PyPI's CUDA LibTorch (build-cuda/,
#                              the torch wheel in .venv/: scripts/deps.sh) with NVIDIA's
#                              PyPI toolchain alone: any system CUDA toolkit is hidden
#                              (masked in a private mount namespace as root, else left off
#                              every search path), and checked absent from the build. It
#                              builds what a machine with PyTorch but no libgloo-dev builds:
#                              NCCL without Gloo (-DOZ_GLOO=OFF). Linked with the real cuDNN
#                              and NCCL; the CUDA tests skip without a GPU. The tests of
#                              core, mcts, arena and play (no LibTorch in them, the same
#                              code and flags as the CPU build's) are not run again.
#   scripts/test.sh --help     this text
#   BUILD_DIR=... CMAKE_ARGS="..." scripts/test.sh   another build
# Under the sanitizers, reports from inside LibTorch and OpenBLAS (not instrumented)
# are suppressed by tests/sanitizers/*.supp, each entry with its reason.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh

excluded=()  # ctest labels left out
sanitizer=""
cuda=0
for arg in "$@"; do
  case "$arg" in
    --fast) excluded+=(slow) ;;
    --asan) sanitizer=asan ;;
    --tsan) sanitizer=tsan ;;
    --cuda) cuda=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "scripts/test.sh: unknown argument '$arg' (use --fast, --asan, --tsan, --cuda or --help)" >&2; exit 2 ;;
  esac
done

oz_install_packages "${OZ_PACKAGES[@]}" "${OZ_TEST_PACKAGES[@]}"

# --cuda as root: again in a private mount namespace where every system CUDA toolkit
# folder is an empty read-only tmpfs, so that nothing of it can be found or loaded.
if [ "$cuda" = 1 ] && [ -z "${OZ_CUDA_HIDDEN:-}" ] && [ "$(id -u)" -eq 0 ] &&
   command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
  OZ_CUDA_HIDDEN=masked exec unshare -m bash -c '
    for d in /usr/local/cuda /usr/local/cuda-* /opt/cuda; do
      if [ -d "$d" ] && [ ! -L "$d" ]; then
        mount -t tmpfs -o ro,size=4k oz-no-system-cuda "$d" || OZ_CUDA_HIDDEN=environment
      fi
    done
    exec "$0" "$@"' "$0" "$@"
fi

build_dir=${BUILD_DIR:-build}
cmake_args=${CMAKE_ARGS:-}
# The script tests' Python: Debian's, where the test packages above put their modules.
[ -x /usr/bin/python3 ] && cmake_args="$cmake_args -DPython3_EXECUTABLE=/usr/bin/python3"
torch_args=()
run=()  # what runs cmake and ctest: nothing, or oz_without_system_cuda
if [ "$cuda" = 1 ]; then
  [ -n "$sanitizer" ] && { echo "scripts/test.sh: --cuda does not combine with a sanitizer" >&2; exit 2; }
  oz_cuda_torch || exit 1
  build_dir=${BUILD_DIR:-build-cuda}
  torch_args=("${OZ_CUDA_CMAKE_ARGS[@]}")
  run=(oz_without_system_cuda)
  if [ "${OZ_CUDA_HIDDEN:-}" = masked ]; then
    echo "CUDA build: the system CUDA toolkit is masked; NVIDIA's PyPI toolchain in $OZ_CUDA_ROOT"
  else
    echo "CUDA build: no masking (not root, or unshare or mount refused): the system CUDA toolkit is only left off the search paths"
  fi
  # The Google Benchmark binaries are the CPU build's (they do not use LibTorch).
  cmake_args="$cmake_args -DOZ_BUILD_BENCHMARKS=OFF -DOZ_GLOO=OFF"
  excluded+=(core mcts arena play)
fi
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
# The CPU, LibTorch-free and CUDA builds compile core, mcts, play and arena with the same
# flags (the CPU and CUDA builds also the LibTorch-free subcommands, cli/CMakeLists.txt):
# ccache compiles each such file once.
if command -v ccache >/dev/null && [ -z "${OZ_NO_CCACHE:-}" ]; then
  cmake_args="$cmake_args -DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
fi
mkdir -p "$build_dir"
# shellcheck disable=SC2086
"${run[@]}" cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} \
  "${torch_args[@]}" $cmake_args | tee "$build_dir/oz-configure.log" |
  { grep -E "LibTorch|Distributed|CUDA nvcc" || true; }
"${run[@]}" cmake --build "$build_dir" -j "$jobs"
if [ "$cuda" = 1 ]; then
  # What a GPU user runs: the wheel's LibTorch with its real cuDNN and NCCL, the NCCL
  # process group compiled in without Gloo, and nothing of a system CUDA toolkit.
  grep -q "Distributed training: NCCL" "$build_dir/oz-configure.log" ||
    { echo "scripts/test.sh: the CUDA build has no NCCL process group" >&2; exit 1; }
  grep -q "Distributed training: Gloo off" "$build_dir/oz-configure.log" ||
    { echo "scripts/test.sh: the CUDA build was meant to be built without Gloo" >&2; exit 1; }
  if grep -l "/usr/local/cuda" "$build_dir/CMakeCache.txt" "$build_dir/build.ninja"; then
    echo "scripts/test.sh: the CUDA build found the system CUDA toolkit (files above)" >&2
    exit 1
  fi
  if grep -E "^(CMAKE_CUDA_COMPILER|CUDA_NVCC_EXECUTABLE|CUDA_TOOLKIT_ROOT_DIR)[:=]" \
       "$build_dir/CMakeCache.txt" | grep -v -F "$OZ_CUDA_ROOT"; then
    echo "scripts/test.sh: the CUDA build's toolkit is not the wheels' ($OZ_CUDA_ROOT): above" >&2
    exit 1
  fi
  libs=$(ldd "$build_dir/cli/othello-zero")
  site=$(dirname "$OZ_TORCH_ROOT")
  for lib in libtorch_cuda.so libcudnn.so.9 libnccl.so.2 libcudart.so.13; do
    grep -F "$lib => $site/" <<<"$libs" >/dev/null || {
      echo "scripts/test.sh: $build_dir/cli/othello-zero does not load $lib from $OZ_VENV:" >&2
      grep "$lib" <<<"$libs" >&2 || echo "  ($lib not loaded at all)" >&2
      exit 1
    }
  done
  echo "CUDA build: $(grep -E -o "LibTorch [0-9.]+" "$build_dir/oz-configure.log"), cuDNN and NCCL from $OZ_VENV"
fi
ctest_args=()
if [ ${#excluded[@]} -gt 0 ]; then
  ctest_args=(-LE "^($(IFS='|'; echo "${excluded[*]}"))\$")
fi
"${run[@]}" ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" "${ctest_args[@]}"

# The LibTorch-free build, what a player of an exported model builds: it must have play,
# the engines, arena and elo, link no LibTorch, and pass its own tests (core and mcts
# are the same code as above and are not run twice).
if [[ -z "$sanitizer" && "$cuda" = 0 && -z "${OZ_SKIP_NO_TORCH:-}" ]]; then
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
