# Sourced by the set-up scripts: the project's Debian 12 packages, and a function that
# installs the missing ones (as root), or prints the exact apt-get line and fails.
# Usage: source scripts/deps.sh   (from the other scripts here; run alone it does nothing)

# Run rather than sourced: only the usage above.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  sed -n '1,/^$/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
  case "${1:-}" in -h|--help|"") exit 0 ;; *) exit 2 ;; esac
fi

OZ_PACKAGES=(
  build-essential cmake ninja-build git pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libyaml-cpp-dev libeigen3-dev
  libtorch-dev libopenblas0
  libgloo-dev  # c10d's ProcessGroupGloo headers (data-parallel training, training/distributed.cpp)
  libcpp-httplib-dev
  grhino python3-matplotlib
)
# Only the test suite needs these: the browser test of the web page, and the check that
# exported models read into Python's torch.
OZ_TEST_PACKAGES=(
  chromium chromium-driver python3-selenium python3-torch
  ccache  # the suite's builds share the files that do not depend on LibTorch
  clang   # core.thread_safety_check: clang++ refuses an unguarded access
)
# scripts/fuzz.sh: clang with libFuzzer and the sanitizers' runtimes.
OZ_FUZZ_PACKAGES=(
  clang libclang-rt-14-dev
)

oz_missing_packages() {
  local pkg
  for pkg in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
      printf '%s\n' "$pkg"
    fi
  done
}

# oz_install_packages PKG... : installs what is missing.
oz_install_packages() {
  local missing
  missing=$(oz_missing_packages "$@" | tr '\n' ' ')
  [ -z "${missing// /}" ] && return 0
  local cmd="apt-get install -y --no-install-recommends ${missing}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "Missing Debian packages. Install them as root with:" >&2
    echo "  sudo apt-get update && sudo ${cmd}" >&2
    return 1
  fi
  echo "Installing: ${missing}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends ${missing} >/dev/null
}

# The GPU path: PyPI's torch wheel (CUDA 13 build, C++11 ABI) and NVIDIA's own CUDA
# toolchain as PyPI wheels (nvcc, the runtime, the headers), both in a project-local
# virtual environment: a machine with nothing CUDA but the driver builds it. CMake finds
# LibTorch through torch.utils.cmake_prefix_path and the toolchain through $OZ_VENV/cuda,
# a toolkit folder of links into the wheels (the system's CUDA toolkit, if any, is not
# used). Debian 12's pip refuses system-wide installs (PEP 668), hence the venv;
# python3-venv gives Debian's python3 its ensurepip.
OZ_TORCH_PIP_VERSION=${OZ_TORCH_PIP_VERSION:-2.15.0}
# The oldest driver the wheels' CUDA 13 runs on (NVIDIA's CUDA 13.0 release notes:
# 580.65.06 on Linux; every CUDA 13.x runs on it by minor-version compatibility).
OZ_MIN_DRIVER=580.65.06
# Free disk the first set-up needs in the project's folder: the wheels (about 3.3 GB
# downloaded, 6 GB installed) and the CUDA build (about 1 GB).
OZ_GPU_DISK_GB=${OZ_GPU_DISK_GB:-8}
OZ_VENV=${OZ_VENV:-.venv}
OZ_GPU_PACKAGES=(python3-venv)
# Why the last oz_* GPU step failed, in one line, and what to do (read by train.sh).
OZ_GPU_WHY=""

oz_gpu_fail() {
  OZ_GPU_WHY=$1
  echo "$1" >&2
  return 1
}

# oz_version_at_least A B: whether dotted version A >= B.
oz_version_at_least() {
  [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]
}

# oz_gpu_preflight: the checks that need no download: a driver new enough for the
# wheels' CUDA, the disk for a first install, a python3 that can make a venv.
oz_gpu_preflight() {
  local driver
  driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1)
  if [ -z "$driver" ]; then
    oz_gpu_fail "no NVIDIA driver answers (nvidia-smi --query-gpu=driver_version): install NVIDIA's driver $OZ_MIN_DRIVER or later"
    return 1
  fi
  if ! oz_version_at_least "$driver" "$OZ_MIN_DRIVER"; then
    oz_gpu_fail "the NVIDIA driver is $driver, CUDA 13 needs $OZ_MIN_DRIVER or later: update the driver"
    return 1
  fi
  oz_gpu_preflight_disk || return 1
  oz_python_venv_ready
}

# oz_python_venv_ready: python3 can make a virtual environment (python3-venv installed if
# it is missing).
oz_python_venv_ready() {
  python3 -c 'import ensurepip, venv' 2>/dev/null && return 0
  oz_install_packages "${OZ_GPU_PACKAGES[@]}" ||
    { oz_gpu_fail "python3 cannot make a virtual environment: install python3-venv"; return 1; }
}

# oz_gpu_preflight_disk: before the first install, the free disk it needs.
oz_gpu_preflight_disk() {
  "$OZ_VENV/bin/python" -c 'import torch' 2>/dev/null && return 0
  local free_gb
  free_gb=$(df -P -B1G . | awk 'NR == 2 {print $4}')
  if [ "${free_gb:-0}" -lt "$OZ_GPU_DISK_GB" ]; then
    oz_gpu_fail "only ${free_gb} GB free in $PWD; the GPU set-up needs $OZ_GPU_DISK_GB GB (PyTorch and NVIDIA's CUDA wheels): free some space"
    return 1
  fi
}

# oz_cuda_torch: makes or updates $OZ_VENV with torch==$OZ_TORCH_PIP_VERSION and the CUDA
# toolchain wheels of the same CUDA release as torch's own (its cuda-toolkit pin), lays
# them out as a toolkit in $OZ_VENV/cuda, and sets OZ_TORCH_ROOT (the torch package
# folder), OZ_CUDA_ROOT and the array OZ_CUDA_CMAKE_ARGS (a build's CMake arguments).
oz_cuda_torch() {
  local py="$OZ_VENV/bin/python"
  local have
  have=$("$py" -c 'import torch; print(torch.__version__.split("+")[0])' 2>/dev/null || true)
  if [ "$have" != "$OZ_TORCH_PIP_VERSION" ]; then
    oz_python_venv_ready || return 1
    echo "Installing PyPI's torch==$OZ_TORCH_PIP_VERSION (the CUDA LibTorch and NVIDIA's libraries: about 3 GB to download, 6 GB installed) into $OZ_VENV"
    { [ -x "$py" ] || python3 -m venv "$OZ_VENV"; } ||
      { oz_gpu_fail "python3 -m venv $OZ_VENV failed"; return 1; }
    "$OZ_VENV/bin/pip" install --quiet --disable-pip-version-check --no-cache-dir \
      "torch==$OZ_TORCH_PIP_VERSION" ||
      { oz_gpu_fail "pip could not install torch==$OZ_TORCH_PIP_VERSION into $OZ_VENV (network? disk?): see pip's message above"; return 1; }
  fi
  OZ_TORCH_ROOT=$("$py" -c 'import os, torch; print(os.path.dirname(torch.__file__))' 2>/dev/null) ||
    { oz_gpu_fail "$py cannot import torch: remove $OZ_VENV and rerun"; return 1; }
  oz_cuda_toolchain || return 1
  # The torch folder first: TorchConfig's find_library would otherwise take Debian's
  # libtorch.so from /usr/lib (CMakeLists.txt refuses that mix). The toolkit is named
  # outright, so that CMake never looks for one in /usr/local/cuda.
  OZ_CUDA_CMAKE_ARGS=(-DOZ_TORCH=ON "-DCMAKE_PREFIX_PATH=$OZ_TORCH_ROOT;$OZ_TORCH_ROOT/share/cmake"
                      "-DCUDA_TOOLKIT_ROOT_DIR=$OZ_CUDA_ROOT" "-DCUDAToolkit_ROOT=$OZ_CUDA_ROOT"
                      "-DCMAKE_CUDA_COMPILER=$OZ_CUDA_ROOT/bin/nvcc")
}

# oz_torch_cuda_pin PYTHON...: the cuda-toolkit release that PYTHON's torch requires
# (its metadata's "cuda-toolkit[...]==X" pin), or nothing. PYTHON may be a command with
# arguments (chroot ROOT .../python).
oz_torch_cuda_pin() {
  "$@" - 2>/dev/null <<'PY'
import re
from importlib.metadata import requires
for r in requires("torch") or []:
    m = re.match(r"cuda-toolkit\b.*==\s*([0-9.]+)", r)
    if m:
        print(m.group(1))
        break
PY
}

# oz_cuda_toolchain: NVIDIA's nvcc, runtime and headers from PyPI, pinned to the
# cuda-toolkit release that torch itself requires (its other parts, cuBLAS, cuSPARSE,
# cuSOLVER and the rest, come with torch), and $OZ_VENV/cuda: bin, include, nvvm and lib
# as links into the wheels' nvidia/cu13 folder, with the unversioned library names
# (libcudart.so ...) that CMake's FindCUDAToolkit looks for.
oz_cuda_toolchain() {
  local py="$OZ_VENV/bin/python"
  local pin
  pin=$(oz_torch_cuda_pin "$py")
  [ -n "$pin" ] || { oz_gpu_fail "torch $OZ_TORCH_PIP_VERSION names no cuda-toolkit release: pin another torch in scripts/deps.sh"; return 1; }
  local site
  site=$(dirname "$OZ_TORCH_ROOT")
  local cu
  cu=$(ls -d "$site"/nvidia/cu[0-9]* 2>/dev/null | head -n 1)
  if [ -z "$cu" ] || [ ! -x "$cu/bin/nvcc" ] || [ ! -d "$cu/include/cccl" ] ||
     [ "$("$py" -c 'from importlib.metadata import version; print(version("cuda-toolkit"))' 2>/dev/null)" != "$pin" ]; then
    echo "Installing NVIDIA's CUDA $pin compiler and headers from PyPI (cuda-toolkit[nvcc,cccl]==$pin) into $OZ_VENV"
    "$OZ_VENV/bin/pip" install --quiet --disable-pip-version-check --no-cache-dir \
      "cuda-toolkit[nvcc,cccl]==$pin" ||
      { oz_gpu_fail "pip could not install cuda-toolkit[nvcc,cccl]==$pin into $OZ_VENV (network? disk?)"; return 1; }
    cu=$(ls -d "$site"/nvidia/cu[0-9]* 2>/dev/null | head -n 1)
  fi
  [ -n "$cu" ] && [ -x "$cu/bin/nvcc" ] ||
    { oz_gpu_fail "no nvcc in $site/nvidia/cu*/bin after installing cuda-toolkit[nvcc]==$pin"; return 1; }
  OZ_CUDA_ROOT=$(cd "$OZ_VENV" && pwd)/cuda
  oz_link_toolkit "$cu" "$OZ_CUDA_ROOT" ||
    { oz_gpu_fail "could not lay out the CUDA toolkit in $OZ_CUDA_ROOT"; return 1; }
  "$OZ_CUDA_ROOT/bin/nvcc" --version >/dev/null 2>&1 ||
    { oz_gpu_fail "$OZ_CUDA_ROOT/bin/nvcc does not run"; return 1; }
}

# oz_link_toolkit WHEEL_CU_DIR ROOT: ROOT as a CUDA toolkit folder of links into the
# wheels' folder (made anew each time: cheap, and never stale after an upgrade).
oz_link_toolkit() {
  local cu=$1 root=$2 f name
  rm -rf "$root" && mkdir -p "$root/lib" || return 1
  for name in bin include nvvm; do
    ln -s "$cu/$name" "$root/$name" || return 1
  done
  for f in "$cu"/lib/*; do
    name=$(basename "$f")
    ln -s "$f" "$root/lib/$name" || return 1
    case "$name" in
      *.so.*) [ -e "$root/lib/${name%%.so.*}.so" ] || ln -s "$f" "$root/lib/${name%%.so.*}.so" ;;
    esac
  done
  ln -s lib "$root/lib64"
}

# oz_without_system_cuda COMMAND...: runs COMMAND with no system CUDA toolkit in its
# environment (CUDA_HOME, LIBRARY_PATH, /usr/local/cuda*/bin off PATH ...) and the wheels'
# toolkit first on PATH (an nvcc elsewhere on PATH, /usr/bin/nvcc of Debian's
# nvidia-cuda-toolkit say, comes after it), so that a build finds only the wheels'.
oz_without_system_cuda() {
  local path_clean
  path_clean=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v '^/usr/local/cuda' | paste -sd: -)
  env -u CUDA_HOME -u CUDA_PATH -u CUDA_ROOT -u CUDACXX -u CUDAToolkit_ROOT -u LIBRARY_PATH \
    -u CPATH PATH="$OZ_CUDA_ROOT/bin:$path_clean" "$@"
}

# oz_gpu_visible: whether an NVIDIA GPU is visible (nvidia-smi lists one).
oz_gpu_visible() {
  command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '
}

# oz_want_gpu ARG: the path to take from OZ_DEVICE (gpu, cpu or auto) or a --gpu/--cpu
# argument: prints gpu or cpu.
oz_want_gpu() {
  local choice=${1:-${OZ_DEVICE:-auto}}
  case "$choice" in
    gpu|cuda) echo gpu ;;
    cpu) echo cpu ;;
    auto) if oz_gpu_visible; then echo gpu; else echo cpu; fi ;;
    *) echo "OZ_DEVICE='$choice': expected gpu, cpu or auto" >&2; return 2 ;;
  esac
}
