#!/usr/bin/env bash
# The main job: installs what is missing (Debian 12; as root, otherwise it prints the
# apt-get line), builds, and trains from scratch on the quickstart configuration.
# Started again, it resumes the same run (runs/<config name>).
#   scripts/train.sh                                   the quickstart run
#   scripts/train.sh configs/6x6.yaml                  another configuration
#   scripts/train.sh configs/quickstart.yaml --run-dir runs/try2 --set run.minutes=60
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh

oz_install_packages "${OZ_PACKAGES[@]}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DOZ_TORCH=ON >/dev/null
cmake --build build -j "$(nproc)" --target othello-zero

config=configs/quickstart.yaml
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  config=$1
  shift
fi
exec build/cli/othello-zero train --config "$config" "$@"
