#!/bin/bash
# Install the CBC library that blox-sia's optional `cbc` feature links (`--policy
# sia:solver=cbc`, the original Sia's ILP solver): Debian's coinor-libcbc-dev (Cbc 2.10.8, with
# its pkg-config file `cbc.pc`) and pkg-config. Does nothing if pkg-config already finds Cbc.
# Needs root (apt-get). Then: cargo build -p blox-sia --features cbc (blox-cli: --features cbc).
set -euo pipefail
if command -v pkg-config >/dev/null && pkg-config --exists cbc; then
  echo "Cbc $(pkg-config --modversion cbc) is installed"
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "install-cbc.sh: no apt-get; install Cbc 2.10 and its pkg-config file (cbc.pc) by hand" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update >/dev/null
apt-get install -y --no-install-recommends coinor-libcbc-dev pkg-config >/dev/null
echo "Cbc $(pkg-config --modversion cbc) is installed"
