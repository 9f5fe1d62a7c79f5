#!/usr/bin/env bash
# Installs the Debian 12 packages rdmasim needs, only those that are missing.
# Extra packages a target needs beyond those (make tidy: clang-tidy) are its arguments.
set -euo pipefail
packages=("$@"
          g++ make cmake ninja-build pkg-config libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev
          libgtest-dev clang libclang-rt-14-dev
          chromium fonts-dejavu-core  # tools/browser-check: the report in a headless browser
          tshark                      # tests/report/test_pcap: decodes the captures rdmasim writes
          libopenmpi-dev openmpi-bin) # mpirun -np N rdmasim sweep (run/mpi_world.h)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
