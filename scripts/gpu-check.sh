#!/usr/bin/env bash
# The GPU check: one call on a lent GPU machine (no network, no apt, maybe not Debian, its
# own python3 with its own torch, a CUDA toolkit maybe off PATH, 16 cores, one command of
# at most 10 minutes) that builds the project against that python3's LibTorch and answers
# in one report: the GPU, driver and torch; the build time; the nn and training tests
# (the CUDA ones must run, not skip); `bench nn` raw against the server at batches 256
# and 1,024 in fp32, bf16 and fp16, without and with CUDA graphs; `bench selfplay --evaluator net` with the 10x128 net
# and the GPU's utilisation meanwhile; a short training run; each aim met or not.
#
# Usage:
#   scripts/gpu-check.sh --fetch            on a Debian 12 machine with apt: the headers
#                                           and libraries the build needs, unpacked into
#                                           one archive, .gpu-deps/prefix.tar.gz (git
#                                           ignores it: carry .gpu-deps with the tree)
#   scripts/gpu-check.sh --out "$OUT"       on the GPU machine
#
# Options: --out DIR (default build-gpu/out): everything that must come back: report.txt,
# figures.json and logs.tar.gz, written by an EXIT trap, on failure too. --device D (cuda;
# cpu runs every step on a CPU machine, the dry run of docs/gpu.md). --train-minutes M (2).
# --budget S (480): the whole check's seconds; each step's cap is cut to what is left.
# --cap-scale K (1): every step's cap times K (a slower machine: 8 for the 2-core dry run).
# --jobs N (the CPUs this process may use). --help. PYTHON picks the interpreter (python3),
# TORCH_PREFIX its LibTorch (torch.utils.cmake_prefix_path), CUDA_HOME the toolkit (else
# nvcc on PATH, /usr/local/cuda*, or NVIDIA's PyPI toolchain beside that python's torch).
# Its steps, each with its own cap: preflight (seconds: stops at once with the reason if
# something is missing), unpack, configure, build (only othello-zero, nn_tests and
# training_tests), tests, bench-nn-*, bench-selfplay, train. The build is -DOZ_GLOO=OFF
# (NCCL alone: PyTorch's wheels ship no Gloo headers), as `scripts/test.sh --cuda` builds.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
source scripts/deps.sh

deps_archive=.gpu-deps/prefix.tar.gz
work=build-gpu
out=$work/out
device=cuda
train_minutes=2
budget=480
cap_scale=1
jobs=""
fetch=0
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --fetch) fetch=1 ;;
    --out) out=${2:?--out needs a folder}; shift ;;
    --device) device=${2:?--device needs cuda or cpu}; shift ;;
    --train-minutes) train_minutes=${2:?--train-minutes needs a number}; shift ;;
    --budget) budget=${2:?--budget needs seconds}; shift ;;
    --cap-scale) cap_scale=${2:?--cap-scale needs a whole number}; shift ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "scripts/gpu-check.sh: unknown argument '$1' (--help lists them)" >&2; exit 2 ;;
  esac
  shift
done
case "$device" in cuda|cpu) ;; *) echo "scripts/gpu-check.sh: --device '$device': expected cuda or cpu" >&2; exit 2 ;; esac
for n in "$train_minutes" "$budget" "$cap_scale" ${jobs:+"$jobs"}; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "scripts/gpu-check.sh: '$n' is not a whole number" >&2; exit 2; }
done

# --- --fetch: on Debian 12 ------------------------------------------------------------
# The Debian 12 packages whose headers and libraries the build needs. Unpacked here (with
# dpkg-deb, on Debian), docs dropped, absolute links made relative, in one archive that
# the GPU machine unpacks with tar alone; CMake finds each package there by its own
# config folder (*_DIR below), never through Debian's multiarch search.
GPU_DEBS=(
  libeigen3-dev nlohmann-json3-dev libcli11-dev
  libyaml-cpp-dev libyaml-cpp0.7
  libcpp-httplib-dev libcpp-httplib0.11 libssl3 libssl-dev libbrotli1 libbrotli-dev
  zlib1g zlib1g-dev
  libgtest-dev libgmock-dev
  pkgconf pkgconf-bin libpkgconf3
)
if [ "$fetch" = 1 ]; then
  set -e
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "${GPU_DEBS[@]}") ||
    { echo "scripts/gpu-check.sh: apt-get download failed (run 'apt-get update' first?)" >&2; exit 1; }
  mkdir -p "$tmp/prefix"
  for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/prefix"; done
  rm -rf "$tmp/prefix/usr/share/doc" "$tmp/prefix/usr/share/man" "$tmp/prefix/usr/share/lintian"
  # Absolute links (libz.so -> /lib/x86_64-linux-gnu/libz.so.1) become relative ones.
  find "$tmp/prefix" -type l -lname '/*' | while read -r link; do
    target=$(readlink "$link")
    ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$tmp/prefix$target")" "$link"
  done
  mkdir -p "$(dirname "$deps_archive")"
  tar -C "$tmp/prefix" -czf "$deps_archive" .
  echo "$deps_archive: ${#GPU_DEBS[@]} packages, $(du -h "$deps_archive" | cut -f1) (carry $(dirname "$deps_archive") with the tree)"
  exit 0
fi

# --- the check ---------------------------------------------------------------------------
mkdir -p "$work" "$out" || exit 1
out=$(cd "$out" && pwd)
logs=$work/logs
rm -rf "$logs" && mkdir -p "$logs"
report_file=$out/report.txt
: >"$report_file"
rm -f "$out/figures.json" "$out/logs.tar.gz"  # an earlier check's, never taken for this one's
started=$(date +%s)
current_step=""
failed=()
python=${PYTHON:-python3}
jobs=${jobs:-$(nproc 2>/dev/null || echo 2)}

say() { printf '%s\n' "$*" | tee -a "$report_file"; }
left() { echo $((budget - ($(date +%s) - started))); }

# The EXIT trap: the figures, the report's summary and the logs into --out, whatever
# happened (a failed step, a cap, a signal).
finish() {
  local rc=$?
  trap - EXIT INT TERM
  [ -n "$current_step" ] && failed+=("$current_step (interrupted)")
  say ""
  # The report's Python: the check's own, else any python3 (it needs the standard
  # library alone); with none, a figures.json that says so.
  local py=$python
  "$py" -c 'import json' 2>/dev/null || py=python3
  "$py" -c 'import json' 2>/dev/null ||
    printf '{"failed_steps": "%s", "error": "no Python to gather the figures"}\n' \
      "${failed[*]:-}" >"$out/figures.json"
  "$py" scripts/gpu_check_report.py --logs "$logs" --device "$device" \
    --failed "${failed[*]:-}" --seconds $(($(date +%s) - started)) \
    --json "$out/figures.json" >>"$report_file" 2>"$logs/report.err"
  case $? in
    0) ;;
    3) failed+=("tests (a failure, or a CUDA test skipped on the GPU)") ;;
    *) say "(the figures could not be gathered: $(tail -n 1 "$logs/report.err" 2>/dev/null))"
       [ -s "$out/figures.json" ] ||
         printf '{"failed_steps": "%s", "error": "the report script failed: logs/report.err"}\n' \
           "${failed[*]:-}" >"$out/figures.json" ;;
  esac
  tar -C "$work" -czf "$out/logs.tar.gz" logs 2>/dev/null
  if [ ${#failed[@]} -gt 0 ]; then
    say "FAILED: ${failed[*]}"
    [ $rc -eq 0 ] && rc=1
  else
    say "all steps passed"
  fi
  say "total $(($(date +%s) - started)) s; in $out: report.txt, figures.json, logs.tar.gz"
  exit $rc
}
trap finish EXIT
trap 'exit 130' INT TERM

# step NAME CAP COMMAND...: runs COMMAND with its output in logs/NAME.log, for at most CAP
# seconds or what is left of the budget; a failure is reported with the log's last lines.
step() {
  local name=$1 cap=$(($2 * cap_scale))
  shift 2
  local limit
  limit=$(left)
  [ "$cap" -lt "$limit" ] && limit=$cap
  if [ "$limit" -le 5 ]; then
    say "[SKIPPED] $name: the budget of $budget s is spent"
    failed+=("$name (no time left)")
    return 1
  fi
  current_step=$name
  local t0 rc
  t0=$(date +%s)
  if declare -F "$1" >/dev/null; then
    "$@" >"$logs/$name.log" 2>&1  # a function of this script's (seconds): no cap needed
  else
    timeout --kill-after=10 "$limit" "$@" >"$logs/$name.log" 2>&1
  fi
  rc=$?
  current_step=""
  local took=$(($(date +%s) - t0))
  echo "$name $took $rc" >>"$logs/steps.txt"
  if [ $rc -eq 0 ]; then
    say "[ok]     $name (${took} s)"
    return 0
  fi
  local why="exit $rc"
  { [ $rc -eq 124 ] || [ $rc -eq 137 ]; } && why="stopped at its cap of ${limit} s"
  say "[FAILED] $name (${took} s, $why); the last lines of logs/$name.log:"
  tail -n 15 "$logs/$name.log" | sed 's/^/    /' | tee -a "$report_file"
  failed+=("$name")
  return $rc
}

say "othello-zero GPU check, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), --device $device, budget $budget s, caps x$cap_scale, $jobs jobs"

# 1. Preflight: what the build and the steps need, in seconds; stops with the reason.
cuda_root=""  # the CUDA toolkit preflight found (CUDA torch only)
preflight() {
  local ok=1
  echo "machine: $(uname -srm), $(nproc) CPUs here ($jobs used), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
  echo "cmake: $(cmake --version 2>/dev/null | head -n 1 || echo 'not found')"
  echo "c++: $(c++ --version 2>/dev/null | head -n 1 || echo 'not found')"
  echo "ninja: $(ninja --version 2>/dev/null || echo 'not found')"
  command -v cmake >/dev/null || { echo "MISSING: cmake"; ok=0; }
  command -v c++ >/dev/null || { echo "MISSING: a C++ compiler (c++)"; ok=0; }
  command -v ninja >/dev/null || { echo "MISSING: ninja"; ok=0; }
  command -v tar >/dev/null || { echo "MISSING: tar"; ok=0; }
  if [ "$device" = cuda ]; then
    local smi
    smi=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | head -n 1)
    echo "gpu: $smi"
    command -v nvidia-smi >/dev/null || { echo "MISSING: nvidia-smi (no NVIDIA driver?)"; ok=0; }
  fi
  local info
  if ! info=$("$python" -W ignore -c '
import os, torch
print(torch.__version__, torch.version.cuda, torch.cuda.is_available(), int(torch._C._GLIBCXX_USE_CXX11_ABI), os.path.dirname(torch.__file__))' 2>&1); then
    echo "MISSING: $python cannot import torch: $info"
    return 1
  fi
  echo "torch (version, CUDA, available, C++11 ABI, folder): $info"
  set -- $info
  [ "$4" = 1 ] || { echo "MISSING: torch $1 uses the old C++ ABI (PyTorch 2.7 and later use the new one)"; ok=0; }
  if [ "$device" = cuda ]; then
    [ "$2" != None ] || { echo "MISSING: torch $1 is a CPU build"; ok=0; }
    [ "$3" = True ] || { echo "MISSING: torch sees no CUDA device"; ok=0; }
  fi
  local torch_dir=$5
  [ -f "$deps_archive" ] || { echo "MISSING: $deps_archive: run 'scripts/gpu-check.sh --fetch' on a Debian 12 machine and carry $(dirname "$deps_archive")"; ok=0; }
  if [ "$2" != None ]; then
    # The CUDA toolkit: CUDA_HOME, nvcc on PATH, the usual folders, NVIDIA's PyPI toolchain.
    local nvcc="" candidate
    for candidate in ${CUDA_HOME:+"$CUDA_HOME/bin/nvcc"} "$(command -v nvcc 2>/dev/null)" \
        /usr/local/cuda/bin/nvcc /usr/local/cuda-*/bin/nvcc "$(dirname "$torch_dir")"/nvidia/cu*/bin/nvcc; do
      [ -n "$candidate" ] && [ -x "$candidate" ] && "$candidate" --version >/dev/null 2>&1 &&
        { nvcc=$candidate; break; }
    done
    if [ -z "$nvcc" ]; then
      echo "MISSING: nvcc (CUDA_HOME, PATH, /usr/local/cuda*, or the PyPI toolchain: pip install cuda-toolkit[nvcc,cccl]==<torch's CUDA>)"
      ok=0
    else
      echo "nvcc: $nvcc: $("$nvcc" --version | tail -n 1)"
      local root
      root=$(cd "$(dirname "$nvcc")/.." && pwd)
      case "$root" in
        */nvidia/cu*) oz_link_toolkit "$root" "$PWD/$work/cuda-root"; root=$PWD/$work/cuda-root ;;
      esac
      local h
      for h in cuda_runtime.h cublas_v2.h cusparse.h cusolverDn.h; do
        [ -f "$root/include/$h" ] || [ -f "$root/targets/x86_64-linux/include/$h" ] ||
          { echo "MISSING: $h in $root (LibTorch's CUDA headers need it)"; ok=0; }
      done
      [ -f "$(dirname "$torch_dir")/nvidia/nccl/include/nccl.h" ] || [ -f "$root/include/nccl.h" ] ||
        echo "note: no nccl.h: the build will have no NCCL process group"
      cuda_root=$root  # preflight runs in this shell (step): configure reads it
    fi
  fi
  [ "$ok" = 1 ]
}
step preflight 30 preflight || exit 1
torch_prefix=${TORCH_PREFIX:-$("$python" -W ignore -c 'import torch; print(torch.utils.cmake_prefix_path)')}
torch_root=$(cd "$torch_prefix/../.." && pwd)

# 2. The carried headers and libraries, with tar alone.
prefix=$PWD/$work/prefix
unpack() {
  rm -rf "$prefix" && mkdir -p "$prefix" && tar -C "$prefix" -xzf "$deps_archive" || return 1
  # pkg-config files name /usr: point them at the prefix.
  sed -i "s|^prefix=/usr|prefix=$prefix/usr|" "$prefix"/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc \
    "$prefix"/usr/share/pkgconfig/*.pc 2>/dev/null
  ls "$prefix/usr/include/yaml-cpp/yaml.h" "$prefix/usr/include/gtest/gtest.h"
}
step unpack 60 unpack || exit 1
multi=$prefix/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH="$multi:$prefix/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PKG_CONFIG_PATH="$multi/pkgconfig:$prefix/usr/share/pkgconfig"
export PKG_CONFIG_LIBDIR="$PKG_CONFIG_PATH"

# 3. Configure and build what the check runs.
cuda_args=()
if [ -n "$cuda_root" ]; then
  cuda_args=("-DCUDA_TOOLKIT_ROOT_DIR=$cuda_root" "-DCUDAToolkit_ROOT=$cuda_root"
             "-DCMAKE_CUDA_COMPILER=$cuda_root/bin/nvcc")
  export PATH="$cuda_root/bin:$PATH"
fi
# With many cores each LibTorch file compiles alone (OZ_UNITY_BATCH=0): the unity build's
# big units are the longest chain of a parallel build (the 2-core dry run's build spent
# 350 of its seconds on one test unit); with few cores, units of 6 cost less in all.
unity=6
[ "$jobs" -ge 8 ] && unity=0
# shellcheck disable=SC2086
step configure 120 cmake -S . -B "$work" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOZ_TORCH=ON \
  "-DOZ_UNITY_BATCH=$unity" \
  -DOZ_BUILD_BENCHMARKS=OFF -DOZ_GLOO=OFF "-DPython3_EXECUTABLE=$(command -v "$python")" \
  "-DCMAKE_PREFIX_PATH=$torch_root;$torch_prefix;$prefix/usr" "${cuda_args[@]}" \
  "-DEigen3_DIR=$prefix/usr/share/eigen3/cmake" \
  "-Dnlohmann_json_DIR=$prefix/usr/share/cmake/nlohmann_json" \
  "-DCLI11_DIR=$prefix/usr/share/cmake/CLI11" \
  "-Dyaml-cpp_DIR=$multi/cmake/yaml-cpp" "-DGTest_DIR=$multi/cmake/GTest" \
  "-DPKG_CONFIG_EXECUTABLE=$prefix/usr/bin/pkgconf" \
  "-DCMAKE_CXX_FLAGS=-idirafter $prefix/usr/include/x86_64-linux-gnu" ${CMAKE_ARGS:-} ||
  exit 1
step build 300 cmake --build "$work" -j "$jobs" --target othello-zero nn_tests training_tests ||
  exit 1
exe=$work/cli/othello-zero

# 4. The nn and training tests; on CUDA the CUDA tests must run (the report fails a skip).
step tests 150 ctest --test-dir "$work" -j "$jobs" -L 'nn|training' --timeout 120 \
  --no-tests=error --output-on-failure --output-junit "$PWD/$logs/tests.xml"

# 5. The network alone: raw forward passes against the inference server, 10x128, each
# batch without and with CUDA graphs (inference.cuda_graphs, off by default: this decides).
precisions="fp32 bf16 fp16"
[ "$device" = cpu ] && precisions=fp32  # bf16/fp16 inference is CUDA's (nn/inference.h)
graphs=both
[ "$device" = cpu ] && graphs=off       # graphs are CUDA's (nn/forward_graphs.h)
for precision in $precisions; do
  step "bench-nn-$precision" 40 "$exe" bench nn --device "$device" --blocks 10 --channels 128 \
    --precision "$precision" --batch 256,1024 --seconds 1 --cuda-graphs "$graphs"
done

# 6. Self-play with the 10x128 net of configs/8x8-gpu.yaml, the GPU sampled meanwhile.
sample_gpu() {
  [ "$device" = cuda ] || return 0
  nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader,nounits -lms 500 \
    >"$logs/gpu-utilisation.csv" 2>/dev/null &
  echo $!
}
sampler=$(sample_gpu)
step bench-selfplay 60 "$exe" bench selfplay --config configs/8x8-gpu.yaml --evaluator net \
  --device "$device" --seconds 20 --warmup 5 --json
[ -n "$sampler" ] && kill "$sampler" 2>/dev/null

# 7. A short training run of configs/8x8-gpu.yaml (training from 20,000 positions instead
# of 100,000, so that a few minutes train too; no evaluations).
# Its length is cut to what is left of the budget (less 40 s to start and stop), so that
# it ends by itself and its figures are whole.
rm -rf "$work/run"
minutes=$(awk -v want="$train_minutes" -v left="$(left)" \
  'BEGIN { m = (left - 40) / 60; if (m > want) m = want; printf "%.2f", (m < 0 ? 0 : m) }')
if awk -v m="$minutes" 'BEGIN { exit !(m < 0.5) }'; then
  say "[SKIPPED] train: $minutes minutes left in the budget of $budget s"
  failed+=("train (no time left)")
else
  say "train: $minutes minutes (of the $train_minutes asked: what the budget leaves)"
  step train $((train_minutes * 60 + 60)) "$exe" train --config configs/8x8-gpu.yaml \
    --run-dir "$work/run" --set "run.minutes=$minutes" --set train.min_positions=20000 \
    --set "inference.device=$device" --set eval.every_checkpoints=0
fi
cp "$work/run/metrics.jsonl" "$logs/train-metrics.jsonl" 2>/dev/null
exit 0
