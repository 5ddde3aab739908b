#!/usr/bin/env bash
# The main job: installs what is missing (Debian 12; as root, otherwise it prints the
# apt-get line), builds, and trains from scratch. Started again, it resumes the same run
# (runs/<config name>).
#   On a machine where an NVIDIA GPU is visible (nvidia-smi lists one): PyPI's CUDA torch
#   (scripts/deps.sh: OZ_TORCH_PIP_VERSION) in the project's .venv/, a build in build-cuda/
#   against its LibTorch, and configs/8x8-gpu.yaml (a 10x128 net, 120 minutes).
#   Otherwise: Debian's CPU LibTorch, a build in build/, configs/quickstart.yaml (60 minutes).
#   --gpu / --cpu (or OZ_DEVICE=gpu|cpu) force either path; a CPU machine can build the GPU
#   path (it then trains on the CPU: `train --device cpu`).
#
#   scripts/train.sh                                   the default run for this machine
#   scripts/train.sh configs/6x6.yaml                  another configuration
#   scripts/train.sh --cpu configs/quickstart.yaml --run-dir runs/try2 --set run.minutes=30
# Everything after the configuration goes to `othello-zero train` (its --help lists it).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh

choice=""
case "${1:-}" in
  --gpu) choice=gpu; shift ;;
  --cpu) choice=cpu; shift ;;
  -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
path=$(oz_want_gpu "$choice")

oz_install_packages "${OZ_PACKAGES[@]}"
if [ "$path" = gpu ]; then
  oz_cuda_torch
  build=build-cuda config=configs/8x8-gpu.yaml
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${OZ_CUDA_CMAKE_ARGS[@]}" >/dev/null
else
  build=build config=configs/quickstart.yaml
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOZ_TORCH=ON >/dev/null
fi
cmake --build "$build" -j "$(nproc)" --target othello-zero

if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  config=$1
  shift
fi
extra=()
if [ "$path" = gpu ] && ! oz_gpu_visible; then
  echo "scripts/train.sh: the CUDA build, but no GPU is visible: training on the CPU" >&2
  extra=(--device cpu)
fi
echo "scripts/train.sh: $path path, $build/cli/othello-zero train --config $config $*"
exec "$build/cli/othello-zero" train --config "$config" "${extra[@]}" "$@"
