#!/usr/bin/env bash
# scripts/train.sh's choice of path, with a stand-in nvidia-smi (--dry-run: nothing is
# installed, built or trained): a GPU with a new enough driver takes the GPU path; an old
# driver, a driver that does not answer and too little disk fall back to the CPU with the
# reason in one line, and are errors with --gpu; no nvidia-smi means the CPU path.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/empty-venv"
# The stand-in: lists one GPU and answers the driver query with $FAKE_DRIVER (nothing
# and exit 9 when it is "none").
cat >"$work/bin/nvidia-smi" <<'SMI'
#!/bin/sh
case "$*" in
  *-L*) echo "GPU 0: NVIDIA Stand-in (UUID: GPU-0)" ;;
  *driver_version*) [ "$FAKE_DRIVER" = none ] && exit 9; echo "$FAKE_DRIVER" ;;
esac
SMI
chmod +x "$work/bin/nvidia-smi"
failures=0
# expect NAME WANT_RC WANT_TEXT COMMAND...: runs COMMAND, checks its exit code and that
# its output (stdout and stderr) holds WANT_TEXT.
expect() {
  local name=$1 want_rc=$2 want_text=$3
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" != "$want_rc" ] || ! grep -qF -- "$want_text" <<<"$out"; then
    echo "FAILED: $name: exit $rc (want $want_rc), output (want '$want_text'):"
    sed 's/^/    /' <<<"$out"
    failures=$((failures + 1))
  else
    echo "ok: $name"
  fi
}
with_gpu() { env PATH="$work/bin:/usr/bin:/bin" "$@"; }
without_gpu() { env PATH="/usr/bin:/bin" "$@"; }
train="$repo/scripts/train.sh"

expect "no nvidia-smi: the CPU path" 0 "cpu path (dry run" \
  without_gpu "$train" --dry-run
expect "a new driver: the GPU path and its config" 0 \
  "gpu path (dry run: nothing installed, built or trained): build-cuda/cli/othello-zero train --config configs/8x8-gpu.yaml" \
  with_gpu env FAKE_DRIVER=590.48.01 "$train" --dry-run
expect "the oldest driver CUDA 13 takes" 0 "gpu path (dry run" \
  with_gpu env FAKE_DRIVER=580.65.06 "$train" --dry-run
expect "an old driver: why, then the CPU path" 0 \
  "the GPU path cannot work here: the NVIDIA driver is 575.51.03, CUDA 13 needs 580.65.06 or later: update the driver. Training on the CPU instead" \
  with_gpu env FAKE_DRIVER=575.51.03 "$train" --dry-run
expect "an old driver: the CPU path's command" 0 \
  "cpu path (dry run: nothing installed, built or trained): build/cli/othello-zero train --config configs/quickstart.yaml" \
  with_gpu env FAKE_DRIVER=575.51.03 "$train" --dry-run
expect "an old driver with --gpu: an error" 1 \
  "the GPU path failed: the NVIDIA driver is 575.51.03" \
  with_gpu env FAKE_DRIVER=575.51.03 "$train" --gpu --dry-run
expect "an old driver with OZ_DEVICE=gpu: an error" 1 "the GPU path failed" \
  with_gpu env FAKE_DRIVER=575.51.03 OZ_DEVICE=gpu "$train" --dry-run
expect "a driver that does not answer" 0 "no NVIDIA driver answers" \
  with_gpu env FAKE_DRIVER=none "$train" --dry-run
expect "too little disk for a first install" 0 \
  "GB free in $repo; the GPU set-up needs 1000000 GB" \
  with_gpu env FAKE_DRIVER=590.48.01 OZ_VENV="$work/empty-venv" OZ_GPU_DISK_GB=1000000 \
  "$train" --dry-run
expect "too little disk with --gpu and no GPU: an error" 1 "the GPU set-up needs 1000000 GB" \
  without_gpu env OZ_VENV="$work/empty-venv" OZ_GPU_DISK_GB=1000000 "$train" --gpu --dry-run
expect "--cpu on a GPU machine" 0 "cpu path (dry run" \
  with_gpu env FAKE_DRIVER=590.48.01 "$train" --cpu --dry-run
expect "a configuration and train's options pass through" 0 \
  "build-cuda/cli/othello-zero train --config configs/6x6.yaml --set run.minutes=3" \
  with_gpu env FAKE_DRIVER=590.48.01 "$train" --dry-run configs/6x6.yaml --set run.minutes=3
expect "a bad OZ_DEVICE" 2 "OZ_DEVICE='tpu': expected gpu, cpu or auto" \
  without_gpu env OZ_DEVICE=tpu "$train" --dry-run
expect "--help" 0 "--dry-run says which path" "$train" --help
[ "$failures" = 0 ] || { echo "$failures failed"; exit 1; }
