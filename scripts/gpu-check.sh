#!/usr/bin/env bash
# The GPU check: on a machine with CUDA and PyTorch 2.x, builds the project against
# PyTorch's LibTorch, runs the nn and training tests, benchmarks the network on CUDA
# (default and 10x128 nets, batches 64-1024, fp32/bf16/fp16), self-play on the 8x8-gpu
# config, and a 3-minute `train` of configs/8x8-gpu.yaml, and writes one report file.
# Every step runs even when an earlier one failed (where it can); the report and the
# last lines say which failed. Sized for 8 minutes on one GPU and 16 cores.
#
# Such a machine usually has no apt and no network, so the Debian 12 -dev packages the
# project needs travel with the tree, fetched beforehand on a Debian 12 machine:
#   scripts/gpu-check.sh --fetch            # on the Debian 12 machine: -> .debs/gpu/
#   scripts/gpu-check.sh                    # on the GPU machine: unpacks .debs/gpu/ into
#                                           # build-gpu/prefix (never into /), then checks
# Options: --out FILE (default build-gpu/gpu-check-report.txt), --train-minutes M (3),
# --device D (cuda; `cpu` runs the same steps on a CPU-only machine, to try the script),
# --debs DIR (.debs/gpu). CMAKE_ARGS adds CMake arguments; OZ_GPU_CHECK_BUILD_SECONDS
# bounds the build (420; a slower machine needs more).
# The PyTorch must use the C++11 ABI (PyTorch 2.7 and later do); LibTorch comes from
# `python3 -c 'import torch; print(torch.utils.cmake_prefix_path)'` (or TORCH_PREFIX), and
# PYTHON picks the interpreter (default python3; on this project's machines .venv/bin/python
# tries the script against the pinned PyPI torch: --device cpu).
# The report ends with the issue's two aims: the inference server's throughput against
# the raw forward pass (at least 0.9 at the batch sizes self-play uses), and self-play's
# playouts per second with the 10x128 net (at least 100,000 on an H200).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

debs=.debs/gpu
out=build-gpu/gpu-check-report.txt
train_minutes=3
device=cuda
fetch=0
while [ $# -gt 0 ]; do
  case "$1" in
    --fetch) fetch=1 ;;
    --debs) debs=${2:?--debs needs a folder}; shift ;;
    --out) out=${2:?--out needs a file}; shift ;;
    --train-minutes) train_minutes=${2:?--train-minutes needs a number}; shift ;;
    --device) device=${2:?--device needs cuda or cpu}; shift ;;
    *) echo "scripts/gpu-check.sh: unknown argument '$1' (see the header of this script)" >&2
       exit 2 ;;
  esac
  shift
done

# The Debian 12 packages: headers, the shared libraries they link, and pkg-config.
# (OpenSSL's configuration header sits in the multiarch folder, added after the system's.)
GPU_DEBS=(
  libeigen3-dev nlohmann-json3-dev libcli11-dev
  libyaml-cpp-dev libyaml-cpp0.7
  libcpp-httplib-dev libcpp-httplib0.11 libssl3 libssl-dev libbrotli1 libbrotli-dev
  zlib1g zlib1g-dev
  libgtest-dev libgmock-dev
  pkgconf pkgconf-bin libpkgconf3
)

if [ "$fetch" = 1 ]; then
  mkdir -p "$debs"
  (cd "$debs" && apt-get download -q -o APT::Sandbox::User=root "${GPU_DEBS[@]}") || {
    echo "scripts/gpu-check.sh: apt-get download failed (run 'apt-get update' first?)" >&2
    exit 1
  }
  echo "fetched $(ls "$debs"/*.deb | wc -l) packages into $debs ($(du -sh "$debs" | cut -f1))"
  exit 0
fi

work=build-gpu
logs=$work/logs
mkdir -p "$logs" "$(dirname "$out")"
: >"$out"
failed=()
started=$(date +%s)

report() { printf '%s\n' "$*" | tee -a "$out"; }
# step NAME TIMEOUT COMMAND...: runs it with its output in logs/NAME.log; a failure is
# recorded with the log's last lines.
step() {
  local name=$1 limit=$2
  shift 2
  local t0 rc
  t0=$(date +%s)
  if declare -F "$1" >/dev/null; then
    "$@" >"$logs/$name.log" 2>&1  # a function of this script: no timeout needed
  else
    timeout --kill-after=10 "$limit" "$@" >"$logs/$name.log" 2>&1
  fi
  rc=$?
  local took=$(($(date +%s) - t0))
  if [ $rc -eq 0 ]; then
    report "[ok]     $name (${took} s)"
  else
    local why="exit $rc"
    [ $rc -eq 124 ] || [ $rc -eq 137 ] && why="timed out after ${limit} s"
    report "[FAILED] $name (${took} s, $why); last lines of $logs/$name.log:"
    tail -n 15 "$logs/$name.log" | sed 's/^/    /' | tee -a "$out"
    failed+=("$name")
  fi
  return $rc
}

report "othello-zero GPU check, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
report "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
if command -v nvidia-smi >/dev/null; then
  report "gpu: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | head -1)"
else
  report "gpu: nvidia-smi not found"
fi
python=${PYTHON:-python3}
torch_info=$("$python" -W ignore -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available(), int(torch._C._GLIBCXX_USE_CXX11_ABI), torch.utils.cmake_prefix_path)' 2>&1)
report "$python's torch (version, CUDA, available, C++11 ABI, cmake prefix): $torch_info"
report ""

# 1. The Debian packages into a private prefix.
prefix=$PWD/$work/prefix
unpack() {
  local deb
  ls "$debs"/*.deb >/dev/null 2>&1 || {
    echo "no packages in $debs: run 'scripts/gpu-check.sh --fetch' on a Debian 12 machine first"
    return 1
  }
  rm -rf "$prefix" && mkdir -p "$prefix"
  for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$prefix" || return 1; done
  # pkg-config files name /usr: point them at the prefix (cpp-httplib's header calls
  # OpenSSL, zlib and Brotli, whose -dev packages travel too; play/CMakeLists.txt).
  sed -i "s|^prefix=/usr|prefix=$prefix/usr|" "$prefix"/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc \
    "$prefix"/usr/share/pkgconfig/*.pc 2>/dev/null
  # Some -dev packages' .so links are absolute (/lib/x86_64-linux-gnu/libz.so.1...).
  local link
  for link in "$prefix"/usr/lib/x86_64-linux-gnu/*.so; do
    case "$(readlink "$link")" in
      /*) ln -sf "$prefix$(readlink "$link")" "$link" ;;
    esac
  done
}
step unpack-packages 120 unpack
export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu:$prefix/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PKG_CONFIG_PATH="$prefix/usr/lib/x86_64-linux-gnu/pkgconfig:$prefix/usr/share/pkgconfig"
export PKG_CONFIG_LIBDIR="$PKG_CONFIG_PATH"

# 2. Configure and build what the checks run.
torch_prefix=${TORCH_PREFIX:-$("$python" -W ignore -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)}
# The torch folder itself first: LibTorch's CMake files look for its libraries in the
# system's folders before their own (CMakeLists.txt refuses a mix).
torch_root=$(cd "$torch_prefix/../.." 2>/dev/null && pwd)
exe=$work/cli/othello-zero
# shellcheck disable=SC2086
step configure 180 cmake -S . -B "$work" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOZ_TORCH=ON \
  -DOZ_BUILD_BENCHMARKS=OFF "-DCMAKE_PREFIX_PATH=$torch_root;$prefix/usr;$torch_prefix" \
  "-DPKG_CONFIG_EXECUTABLE=$prefix/usr/bin/pkgconf" \
  "-DCMAKE_CXX_FLAGS=-idirafter $prefix/usr/include/x86_64-linux-gnu" ${CMAKE_ARGS:-}
step build "${OZ_GPU_CHECK_BUILD_SECONDS:-420}" cmake --build "$work" -j "$(nproc)" \
  --target othello-zero nn_tests training_tests

# 3. The nn and training tests (CUDA ones included: here they run, not skip).
step tests 300 ctest --test-dir "$work" -j "$(nproc)" -L 'nn|training' --output-on-failure \
  --timeout 240 --no-tests=error
if [ ! -x "$exe" ]; then
  report "[FAILED] no $exe: the benchmarks and the training run cannot run"
  failed+=(benchmarks train)
  exe=false  # every step below then fails at once, with its name in the report
fi

# 4. The network on the device: raw forward passes and the inference server.
precisions="fp32 bf16 fp16"
[ "$device" = cpu ] && precisions=fp32  # inference in bf16/fp16 is CUDA's (nn/inference.h)
for net in "6 64" "10 128"; do
  set -- $net
  for precision in $precisions; do
    step "bench-nn-${1}x${2}-$precision" 120 "$exe" bench nn --device "$device" \
      --blocks "$1" --channels "$2" --precision "$precision" --batch 64,128,256,512,1024 \
      --seconds 0.5
  done
done

# 5. Self-play with the 10x128 net of the 8x8-gpu config, all cores.
step bench-selfplay 120 "$exe" bench selfplay --config configs/8x8-gpu.yaml --evaluator net \
  --device "$device" --seconds 20

# 6. A short training run of the 8x8-gpu config (training starts at 20,000 positions
# here instead of 100,000, so that a few minutes train too).
rm -rf "$work/run"
step train $((train_minutes * 60 + 120)) "$exe" train --config configs/8x8-gpu.yaml \
  --run-dir "$work/run" --set "run.minutes=$train_minutes" --set train.min_positions=20000 \
  --set "inference.device=$device" --set eval.every_checkpoints=0

# The report: the figures of every step that ran.
report ""
report "== network (bench nn: evaluations/s, raw forward and inference server)"
for f in "$logs"/bench-nn-*.log; do
  [ -f "$f" ] && { report "-- $(basename "$f" .log)"; grep -v '^$' "$f" | tee -a "$out" >/dev/null; }
done
report ""
report "== self-play (bench selfplay, 8x8-gpu, net evaluator)"
[ -f "$logs/bench-selfplay.log" ] && tee -a "$out" <"$logs/bench-selfplay.log" >/dev/null
report ""
report "== train (8x8-gpu, $train_minutes minutes): first lines and the last metrics"
if [ -f "$logs/train.log" ]; then
  head -n 5 "$logs/train.log" | tee -a "$out" >/dev/null
  [ -f "$work/run/metrics.jsonl" ] && tail -n 1 "$work/run/metrics.jsonl" | tee -a "$out" >/dev/null
fi
report ""
report "== the aims"
# bench nn's rows: batch device dtype threads raw server ratio. Self-play's batches are
# max_batch (1,024) or close: the aim is read at batches of 256 and more.
for f in "$logs"/bench-nn-10x128-*.log; do
  [ -f "$f" ] || continue
  awk -v name="$(basename "$f" .log)" '
    $1 ~ /^[0-9]+$/ && $1 >= 256 && NF >= 7 {
      n++; if (min == "" || $7 < min) { min = $7; at = $1 }
    }
    END {
      if (n == 0) { print name ": no rows"; exit }
      printf "%s: server / raw forward at batches >= 256: lowest %.3f (batch %d) %s\n",
             name, min, at, (min >= 0.9 ? "[aim 0.9 met]" : "[below the aim of 0.9]")
    }' "$f" | tee -a "$out"
done
if [ -f "$logs/bench-selfplay.log" ]; then
  awk '$1 == "playouts_per_s" {
         printf "self-play, 10x128 net: %.0f playouts/s %s\n", $2,
                ($2 >= 100000 ? "[aim 100,000 met]" : "[below the aim of 100,000 on an H200]")
       }' "$logs/bench-selfplay.log" | tee -a "$out"
fi
report ""
report "total: $(($(date +%s) - started)) s"
if [ ${#failed[@]} -gt 0 ]; then
  report "FAILED: ${failed[*]} (logs in $logs)"
  exit 1
fi
report "all steps passed; report in $out"
