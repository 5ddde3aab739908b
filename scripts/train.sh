#!/usr/bin/env bash
# The main job: installs what is missing (Debian 12; as root, otherwise it prints the
# apt-get line), builds, and trains from scratch. Started again, it resumes the same run
# (runs/<config name>).
#   On a machine where an NVIDIA GPU is visible (nvidia-smi lists one) it needs nothing
#   CUDA but the driver: PyPI's CUDA torch and NVIDIA's CUDA toolchain wheels (nvcc, the
#   runtime, the headers; scripts/deps.sh: OZ_TORCH_PIP_VERSION) go into the project's
#   .venv/, the build into build-cuda/, and it trains configs/8x8-gpu.yaml (a 10x128
#   net, 120 minutes). Where that path cannot work (a driver too old, too little disk, a
#   failed download or build) it says why in one line and trains on the CPU instead.
#   Otherwise: Debian's CPU LibTorch, a build in build/, configs/quickstart.yaml (60 min).
#   --gpu / --cpu (or OZ_DEVICE=gpu|cpu) force either path; with --gpu a failure of the
#   GPU path is an error. A CPU machine can build the GPU path with --gpu (it then trains
#   on the CPU: `train --device cpu`).
#   --dry-run says which path it would take and why, and the command it would run;
#   it installs, builds and trains nothing.
#
# Usage: scripts/train.sh [--gpu | --cpu] [--dry-run] [CONFIG [TRAIN OPTIONS...]]
#   scripts/train.sh                                   the default run for this machine
#   scripts/train.sh configs/6x6.yaml                  another configuration
#   scripts/train.sh --cpu configs/quickstart.yaml --run-dir runs/try2 --set run.minutes=30
# Everything after the configuration goes to `othello-zero train` (its --help lists it).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh

choice=""
dry_run=0
while [ $# -gt 0 ]; do
  case "$1" in
    --gpu) choice=gpu ;;
    --cpu) choice=cpu ;;
    --dry-run) dry_run=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
  esac
  shift
done
forced=0
[ "$choice" = gpu ] || [ "${OZ_DEVICE:-}" = gpu ] || [ "${OZ_DEVICE:-}" = cuda ] && forced=1
# use_path PATH: the path, and its build folder and default configuration.
use_path() {
  path=$1
  if [ "$path" = gpu ]; then
    build=build-cuda default_config=configs/8x8-gpu.yaml
  else
    build=build default_config=configs/quickstart.yaml
  fi
}
path=$(oz_want_gpu "$choice")  # exits 2 on a bad OZ_DEVICE (set -e)
use_path "$path"

config=""
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  config=$1
  shift
fi

# gpu_or_fallback REASON: the GPU path failed; an error with --gpu, else the CPU path.
gpu_or_fallback() {
  if [ "$forced" = 1 ]; then
    echo "scripts/train.sh: the GPU path failed: $1" >&2
    exit 1
  fi
  echo "scripts/train.sh: the GPU path cannot work here: $1. Training on the CPU instead (--gpu makes this an error)." >&2
  use_path cpu
}

# The checks that need no download, for a visible GPU; with --gpu and no GPU the build
# alone is asked for (a CPU machine building the CUDA binary), so only the disk counts.
if [ "$path" = gpu ]; then
  if oz_gpu_visible; then
    oz_gpu_preflight 2>/dev/null || gpu_or_fallback "$OZ_GPU_WHY"
  elif ! oz_gpu_preflight_disk 2>/dev/null; then
    gpu_or_fallback "$OZ_GPU_WHY"
  fi
fi

if [ "$dry_run" = 1 ]; then
  echo "scripts/train.sh: $path path (dry run: nothing installed, built or trained): $build/cli/othello-zero train --config ${config:-$default_config} $*"
  exit 0
fi

oz_install_packages "${OZ_PACKAGES[@]}"
if [ "$path" = gpu ]; then
  mkdir -p "$build"
  if ! oz_cuda_torch; then
    gpu_or_fallback "$OZ_GPU_WHY"
  else
    echo "scripts/train.sh: building the CUDA binary in $build (log: $build/oz-build.log)"
    if ! oz_without_system_cuda cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
           "${OZ_CUDA_CMAKE_ARGS[@]}" >"$build/oz-build.log" 2>&1 ||
       ! oz_without_system_cuda cmake --build "$build" -j "$(nproc)" --target othello-zero \
           >>"$build/oz-build.log" 2>&1; then
      tail -n 20 "$build/oz-build.log" >&2
      gpu_or_fallback "the CUDA build failed (the end of $build/oz-build.log is above; please report it)"
    fi
  fi
fi
config=${config:-$default_config}
if [ "$path" = cpu ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOZ_TORCH=ON >/dev/null
  cmake --build "$build" -j "$(nproc)" --target othello-zero
fi

extra=()
if [ "$path" = gpu ] && ! oz_gpu_visible; then
  echo "scripts/train.sh: the CUDA build, but no GPU is visible: training on the CPU" >&2
  extra=(--device cpu)
fi
echo "scripts/train.sh: $path path, $build/cli/othello-zero train --config $config $*"
exec "$build/cli/othello-zero" train --config "$config" "${extra[@]}" "$@"
