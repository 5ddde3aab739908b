# Sourced by the set-up scripts: the project's Debian 12 packages, and a function that
# installs the missing ones (as root), or prints the exact apt-get line and fails.

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

# The GPU path: PyPI's torch wheel (CUDA 13 build, C++11 ABI) in a project-local virtual
# environment, its LibTorch found by CMake through torch.utils.cmake_prefix_path. Debian 12's
# pip refuses system-wide installs (PEP 668), hence the venv; python3-venv gives Debian's
# python3 its ensurepip. The wheel pulls in NVIDIA's real cuDNN and NCCL (nvidia-* wheels),
# which libtorch_cuda.so loads through its RPATH.
OZ_TORCH_PIP_VERSION=${OZ_TORCH_PIP_VERSION:-2.15.0}
OZ_VENV=${OZ_VENV:-.venv}
OZ_GPU_PACKAGES=(python3-venv)

# oz_cuda_torch: makes or updates $OZ_VENV with torch==$OZ_TORCH_PIP_VERSION and sets
# OZ_TORCH_ROOT (the torch package folder) and the array OZ_CUDA_CMAKE_ARGS (the CMake
# arguments of a build against it). Needs the CUDA toolkit (nvcc) for LibTorch's CMake files.
oz_cuda_torch() {
  if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
    echo "The CUDA build needs the CUDA 13 toolkit (nvcc, in /usr/local/cuda or on PATH):" >&2
    echo "  https://developer.nvidia.com/cuda-downloads (Debian 12, network repo), then rerun" >&2
    return 1
  fi
  command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"
  if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    oz_install_packages "${OZ_GPU_PACKAGES[@]}" || return 1
  fi
  local py="$OZ_VENV/bin/python"
  local have
  have=$("$py" -c 'import torch; print(torch.__version__.split("+")[0])' 2>/dev/null || true)
  if [ "$have" != "$OZ_TORCH_PIP_VERSION" ]; then
    echo "Installing PyPI's torch==$OZ_TORCH_PIP_VERSION (the CUDA LibTorch with NVIDIA's libraries: about 5 GB installed) into $OZ_VENV"
    [ -x "$py" ] || python3 -m venv "$OZ_VENV" || return 1
    "$OZ_VENV/bin/pip" install --quiet --disable-pip-version-check --no-cache-dir \
      "torch==$OZ_TORCH_PIP_VERSION" || {
      echo "pip could not install torch==$OZ_TORCH_PIP_VERSION into $OZ_VENV" >&2
      return 1
    }
  fi
  OZ_TORCH_ROOT=$("$py" -c 'import os, torch; print(os.path.dirname(torch.__file__))' 2>/dev/null) || {
    echo "$py cannot import torch: remove $OZ_VENV and rerun" >&2
    return 1
  }
  # The torch folder first: TorchConfig's find_library would otherwise take Debian's
  # libtorch.so from /usr/lib (CMakeLists.txt refuses that mix).
  OZ_CUDA_CMAKE_ARGS=(-DOZ_TORCH=ON "-DCMAKE_PREFIX_PATH=$OZ_TORCH_ROOT;$OZ_TORCH_ROOT/share/cmake")
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
