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
