#!/usr/bin/env bash
# Installs what flowperf needs to build and test on Debian 12, if missing.
# Safe to run again; does nothing when everything is there.
set -euo pipefail

packages=(g++ cmake ninja-build pkg-config nlohmann-json3-dev libfmt-dev libcli11-dev
          libgtest-dev libgmock-dev libbenchmark-dev libyaml-cpp-dev iproute2 nftables
          iperf3 qperf flent fping prometheus systemd chromium zlib1g-dev libssl-dev openssl
          ccache stress-ng)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
