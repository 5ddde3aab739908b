#!/usr/bin/env bash
# The dry run of scripts/gpu-check.sh before any GPU is lent: the check, run with
# --device cpu in a root that looks like the lent machine: a minimal Debian 12 root
# (debootstrap: the compiler, cmake, ninja, python3, none of the project's -dev packages),
# a Python virtual environment in it holding the pinned torch (and NVIDIA's PyPI
# toolchain: the root has no CUDA toolkit), the work tree copied in as a lent machine
# receives it (tracked and untracked files git does not ignore, and .gpu-deps), and no
# network (a new network namespace). Run as root on a Debian 12 machine.
# Usage: scripts/gpu-check-bare-root.sh [ROOT [GPU-CHECK OPTIONS...]]
#   scripts/gpu-check-bare-root.sh [ROOT]      (default /var/tmp/oz-bare-root)
# Making the root and its virtual environment (the only steps that use the network) takes
# some minutes once; later runs reuse them. The report and logs come back to
# build-gpu/bare-root-out/. Arguments after ROOT go to gpu-check.sh (on 2 cores:
# --budget 3600 --cap-scale 8).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
case "${1:-}" in
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) echo "scripts/gpu-check-bare-root.sh: the first argument is ROOT, a folder, not '$1' (--help)" >&2; exit 2 ;;
esac
root=${1:-/var/tmp/oz-bare-root}
shift || true
[ "$(id -u)" -eq 0 ] || { echo "scripts/gpu-check-bare-root.sh: run as root (debootstrap, chroot, unshare)" >&2; exit 1; }
venv=/opt/torch/.venv

if [ ! -x "$root/usr/bin/cmake" ]; then
  oz_install_packages debootstrap
  debootstrap --variant=minbase \
    --include=g++,make,cmake,ninja-build,python3,python3-venv,ca-certificates,git,procps \
    bookworm "$root" http://deb.debian.org/debian
fi
if ! chroot "$root" "$venv/bin/python" -c 'import torch' 2>/dev/null; then
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
  chroot "$root" bash -c "python3 -m venv $venv && $venv/bin/pip install --quiet --no-cache-dir \
    torch==$OZ_TORCH_PIP_VERSION"
  pin=$(oz_torch_cuda_pin chroot "$root" "$venv/bin/python")
  [ -n "$pin" ] || { echo "scripts/gpu-check-bare-root.sh: torch names no cuda-toolkit release" >&2; exit 1; }
  chroot "$root" "$venv/bin/pip" install --quiet --no-cache-dir "cuda-toolkit[nvcc,cccl]==$pin"
fi
[ -f .gpu-deps/prefix.tar.gz ] || scripts/gpu-check.sh --fetch

# The work tree as a lent machine receives it.
tree=$root/work/othello-zero
rm -rf "$tree" && mkdir -p "$tree"
{ git ls-files -z --cached --others --exclude-standard; printf '%s\0' .gpu-deps/prefix.tar.gz; } |
  tar --null -T - -cf - | tar -C "$tree" -xf -
echo "the tree: $(du -sh "$tree" | cut -f1) (a lent machine takes 64 MiB)"

mkdir -p build-gpu
rm -rf build-gpu/bare-root-out
mount --bind /proc "$root/proc" 2>/dev/null || true
set +e
unshare --net chroot "$root" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root \
  PYTHON=$venv/bin/python bash -c "cd /work/othello-zero && \
  scripts/gpu-check.sh --device cpu --out /work/out $*"
rc=$?
umount "$root/proc" 2>/dev/null
cp -r "$root/work/out" build-gpu/bare-root-out
echo "exit $rc; build-gpu/bare-root-out: $(ls build-gpu/bare-root-out | tr '\n' ' ')"
exit $rc
