#!/usr/bin/env bash
# The project against LibTorch 2.6 (Debian 13's), in a Debian 13 root built with
# debootstrap; runs as root on the Debian 12 machine (README: LibTorch 2.6).
#   scripts/test-libtorch2.sh              both builds below
#   scripts/test-libtorch2.sh --cpu-only   only the CPU build and its suite
#   scripts/test-libtorch2.sh --cuda-only  only the CUDA build
# 1. The root: $OZ_DEBIAN13_ROOT (default /var/cache/othello-zero/debian13), made with
#    debootstrap from the Debian mirror this machine's apt uses, and reused when
#    present; only missing packages are installed. Nothing goes into this machine's own
#    system except debootstrap.
# 2. CPU: Debian 13's libtorch-dev (LibTorch 2.6), the whole suite with ctest.
# 3. CUDA: Debian 13's libtorch-cuda-dev (contrib) and its CUDA libraries (non-free),
#    unpacked with dpkg -x, not installed: LibTorch into /opt/libtorch-cuda (it would
#    replace libtorch-dev's headers), the CUDA toolkit and runtime libraries into the
#    root's /usr (Debian's nvcc looks for itself there). cuDNN is not in Debian (the
#    nvidia-cudnn package downloads it from NVIDIA at install time, which is not done
#    here), so libtorch_cuda.so's references to libcudnn.so.9 are satisfied by a stub
#    library generated from those references, every function of which aborts; no cuDNN
#    function is called without a GPU. The libraries, othello-zero, nn_tests and
#    training_tests are built and linked against the CUDA LibTorch, and the two test
#    binaries run on the CPU (the CUDA tests skip without a GPU).
# Build folders live inside the root (/var/tmp/othello-zero), so a second run is an
# incremental build. The source tree is bind-mounted into the root (copied when a bind
# mount is not possible).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh

want_cpu=1 want_cuda=1
for arg in "$@"; do
  case "$arg" in
    --cpu-only) want_cuda=0 ;;
    --cuda-only) want_cpu=0 ;;
    *) echo "scripts/test-libtorch2.sh: unknown argument '$arg' (use --cpu-only or --cuda-only)" >&2; exit 2 ;;
  esac
done

if [ "$(id -u)" -ne 0 ]; then
  echo "scripts/test-libtorch2.sh: needs root (debootstrap, chroot, mount)" >&2
  exit 1
fi

# Everything below runs in a private mount namespace: the root's mounts go away with it.
if [ -z "${OZ_LT2_NAMESPACE:-}" ]; then
  exec env OZ_LT2_NAMESPACE=1 unshare --mount --propagation private "$0" "$@"
fi

start=$SECONDS
say() { printf '[test-libtorch2 %3dm%02ds] %s\n' $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)) "$*"; }

root=${OZ_DEBIAN13_ROOT:-/var/cache/othello-zero/debian13}
src_in_root=/src/othello-zero
build_in_root=/var/tmp/othello-zero
jobs=$(nproc)

# The Debian mirror of this machine's apt configuration (deb822 .sources files, or
# sources.list), without the security archive; OZ_DEBIAN_MIRROR overrides it.
debian_mirror() {
  if [ -n "${OZ_DEBIAN_MIRROR:-}" ]; then echo "$OZ_DEBIAN_MIRROR"; return; fi
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -e "$f" ] || continue
    awk 'BEGIN { RS = ""; FS = "\n" }
         { uri = ""; suites = ""
           for (i = 1; i <= NF; i++) {
             if ($i ~ /^URIs:/) { split($i, a, /[ \t]+/); uri = a[2] }
             if ($i ~ /^Suites:/) suites = $i
           }
           if (uri != "" && suites !~ /-security/) { print uri; exit } }' "$f"
  done | head -n 1 | grep . && return
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -e "$f" ] || continue
    sed -n -E 's/^deb[ \t]+(\[[^]]*\][ \t]+)?([^ \t]+)[ \t]+([^ \t]+).*/\2 \3/p' "$f"
  done | awk '$2 !~ /-security/ { print $1; exit }' | grep . && return
  echo "scripts/test-libtorch2.sh: no Debian mirror in /etc/apt (set OZ_DEBIAN_MIRROR)" >&2
  return 1
}

# Runs a command inside the root with a clean environment (no Python bytecode written
# into the bind-mounted source tree).
inroot() {
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive PYTHONDONTWRITEBYTECODE=1 "$@"
}

# The packages of the root that are not installed.
missing_in_root() {
  inroot sh -c 'for p in "$@"; do
    dpkg-query -W -f="\${Status}" "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done' sh "$@"
}

apt_updated=0
apt_update_once() {
  if [ "$apt_updated" = 0 ]; then
    inroot apt-get update -qq
    apt_updated=1
  fi
}

install_in_root() {
  local missing
  missing=$(missing_in_root "$@" | tr '\n' ' ')
  [ -z "${missing// /}" ] && return 0
  say "installing in the root: $missing"
  apt_update_once
  # shellcheck disable=SC2086
  inroot apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# --- 1. the root -------------------------------------------------------------------
oz_install_packages debootstrap
mirror=$(debian_mirror)
if [ ! -e "$root/.othello-zero-root" ]; then
  say "debootstrap trixie into $root"
  rm -rf "$root"
  mkdir -p "$(dirname "$root")"
  debootstrap --variant=minbase --components=main,contrib,non-free trixie "$root" "$mirror" \
    > /tmp/othello-zero-debootstrap.log 2>&1 ||
    { tail -n 20 /tmp/othello-zero-debootstrap.log >&2; exit 1; }
  touch "$root/.othello-zero-root"
else
  say "reusing the Debian 13 root $root"
fi
echo "deb $mirror trixie main contrib non-free" > "$root/etc/apt/sources.list"
# A throwaway root: dpkg without fsync after every file, and without documentation.
cat > "$root/etc/dpkg/dpkg.cfg.d/othello-zero" <<'EOF2'
force-unsafe-io
path-exclude=/usr/share/doc/*
path-exclude=/usr/share/man/*
path-exclude=/usr/share/locale/*
path-exclude=/usr/share/info/*
EOF2
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mkdir -p "$root$src_in_root" "$root$build_in_root"
if ! mount --bind "$PWD" "$root$src_in_root" 2>/dev/null; then
  say "no bind mount: copying the source tree into the root"
  rm -rf "${root:?}$src_in_root" && mkdir -p "$root$src_in_root"
  git ls-files -z -co --exclude-standard | tar -c --null -T - | tar -x -C "$root$src_in_root"
fi

packages=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev libgmock-dev libcli11-dev nlohmann-json3-dev libyaml-cpp-dev libeigen3-dev
  libtorch-dev libopenblas0 libcpp-httplib-dev libgloo-dev
  grhino python3 python3-matplotlib python3-torch
)
install_in_root "${packages[@]}"
say "root ready"

# --- 2. CPU LibTorch 2.6: the whole suite -----------------------------------------
if [ "$want_cpu" = 1 ]; then
  cpu_build=$build_in_root/lt26-cpu
  inroot cmake -S "$src_in_root" -B "$cpu_build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DOZ_TORCH=ON -DOZ_BUILD_BENCHMARKS=OFF > "$root$build_in_root/lt26-cpu.configure.log" ||
    { cat "$root$build_in_root/lt26-cpu.configure.log"; exit 1; }
  grep -E "LibTorch 2\.6" "$root$build_in_root/lt26-cpu.configure.log" ||
    { echo "scripts/test-libtorch2.sh: the CPU build did not find LibTorch 2.6" >&2; exit 1; }
  say "CPU build (LibTorch 2.6)"
  inroot cmake --build "$cpu_build" -j "$jobs"
  say "CPU suite (ctest)"
  inroot ctest --test-dir "$cpu_build" --output-on-failure -j "$jobs"
  say "CPU build: the suite passed"
fi

# --- 3. CUDA LibTorch 2.6: compile, link, the nn and training tests ------------------
if [ "$want_cuda" = 1 ]; then
  # g++-13: Debian's nvcc 12.4 takes gcc 13 as its host compiler (CMake's CUDA check).
  install_in_root g++-13
  torch_debs=(libtorch-cuda-dev libtorch-cuda-2.6)
  cuda_debs=(
    nvidia-cuda-toolkit nvidia-cuda-dev libnvvm4
    libcudart12 libcublas12 libcublaslt12 libcufft11 libcurand10 libcusolver11 libcusparse12
    libnvrtc12 libnvrtc-builtins12.4 libnvjitlink12 libnvtoolsext1 libnccl2 libcupti12
    libgloo-cuda-0 libtensorpipe-cuda-0
  )
  debs=/var/cache/othello-zero-debs
  mkdir -p "$root$debs" && chmod 777 "$root$debs"
  fetch=()
  for p in "${torch_debs[@]}" "${cuda_debs[@]}"; do
    compgen -G "$root$debs/${p}_*.deb" > /dev/null || fetch+=("$p")
  done
  if [ "${#fetch[@]}" -gt 0 ]; then
    say "downloading ${fetch[*]}"
    apt_update_once
    inroot sh -c "cd $debs && apt-get download -qq \"\$@\"" sh "${fetch[@]}"
  fi
  # Each package is unpacked once (a marker per .deb file), several at a time.
  unpack() {  # unpack TARGET PACKAGE...
    local target=$1 p f pids=()
    shift
    mkdir -p "$root$target"
    for p in "$@"; do
      f=$(compgen -G "$root$debs/${p}_*.deb" | head -n 1)
      [ -e "$root/var/lib/othello-zero-unpacked/$(basename "$f")" ] && continue
      dpkg -x "$f" "$root$target" &
      pids+=($!)
      if [ "${#pids[@]}" -ge "$jobs" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
    done
    for p in "${pids[@]}"; do wait "$p"; done
    mkdir -p "$root/var/lib/othello-zero-unpacked"
    for p in "$@"; do
      touch "$root/var/lib/othello-zero-unpacked/$(basename "$(compgen -G "$root$debs/${p}_*.deb" | head -n 1)")"
    done
  }
  say "unpacking the CUDA LibTorch and CUDA packages (dpkg -x)"
  unpack /opt/libtorch-cuda "${torch_debs[@]}"
  unpack / "${cuda_debs[@]}"

  # The cuDNN stub: every cudnn* symbol libtorch_cuda.so takes from libcudnn.so.9, with
  # that version node, each aborting if called.
  torch_lib=/opt/libtorch-cuda/usr/lib/x86_64-linux-gnu
  stub=/opt/cudnn-stub
  if [ ! -e "$root$stub/libcudnn.so.9" ]; then
    mkdir -p "$root$stub"
    nm -D --undefined-only "$root$torch_lib/libtorch_cuda.so.2.6.0" |
      sed -n -E 's/^ +U (cudnn[A-Za-z0-9_]+)@libcudnn\.so\.9$/\1/p' | sort -u > "$root$stub/symbols"
    {
      echo '#include <stdio.h>'
      echo '#include <stdlib.h>'
      while read -r s; do
        echo "void $s(void) { fputs(\"cudnn stub: $s called (cuDNN is not installed)\\n\", stderr); abort(); }"
      done < "$root$stub/symbols"
    } > "$root$stub/stub.c"
    { echo 'libcudnn.so.9 { global:'; sed 's/$/;/' "$root$stub/symbols"; echo 'local: *; };'; } \
      > "$root$stub/stub.map"
    inroot gcc -shared -fPIC -o "$stub/libcudnn.so.9" "$stub/stub.c" -Wl,-soname,libcudnn.so.9 \
      -Wl,--version-script,"$stub/stub.map"
  fi
  say "cuDNN stub: $(wc -l < "$root$stub/symbols") functions of libcudnn.so.9"

  cuda_build=$build_in_root/lt26-cuda
  # The linker finds libtorch_cuda.so's own dependencies (libcudnn.so.9 among them) through
  # LD_LIBRARY_PATH; the tests load the CUDA LibTorch, not the CPU one in /usr, through it.
  cuda_env=(LD_LIBRARY_PATH="$stub:$torch_lib")
  inroot "${cuda_env[@]}" cmake -S "$src_in_root" -B "$cuda_build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DOZ_TORCH=ON -DOZ_BUILD_BENCHMARKS=OFF \
    -DCMAKE_PREFIX_PATH=/opt/libtorch-cuda/usr -DTorch_DIR="$torch_lib/cmake/Torch" \
    -DCaffe2_DIR="$torch_lib/cmake/Caffe2" > "$root$build_in_root/lt26-cuda.configure.log" 2>&1 ||
    { cat "$root$build_in_root/lt26-cuda.configure.log"; exit 1; }
  grep -E "LibTorch 2\.6.*libtorch-cuda" "$root$build_in_root/lt26-cuda.configure.log" ||
    { echo "scripts/test-libtorch2.sh: the CUDA build did not find the CUDA LibTorch" >&2; exit 1; }
  say "CUDA build (libraries, othello-zero, nn_tests, training_tests)"
  inroot "${cuda_env[@]}" cmake --build "$cuda_build" -j "$jobs" \
    --target othello-zero nn_tests training_tests
  for exe in cli/othello-zero tests/nn_tests tests/training_tests; do
    inroot "${cuda_env[@]}" ldd "$cuda_build/$exe" | grep -q "libtorch_cuda.so.*$torch_lib" ||
      { echo "scripts/test-libtorch2.sh: $exe does not load $torch_lib/libtorch_cuda.so" >&2; exit 1; }
  done
  say "CUDA build linked; nn_tests and training_tests on the CPU"
  for t in nn_tests training_tests; do
    inroot "${cuda_env[@]}" sh -c "cd $cuda_build/tests && ./$t --gtest_brief=1"
  done
  say "CUDA build: nn_tests and training_tests passed (CUDA tests skipped: no GPU)"
fi
say "done"
