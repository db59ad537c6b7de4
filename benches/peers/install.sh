#!/usr/bin/env bash
# Installs the peer repartitioners the `plume-peers` benchmark crate links against (Debian 12,
# run as root): Zoltan (Trilinos 13.2) and PT-Scotch 7.0 with their headers. Open MPI
# (libopenmpi-dev) is what both are built against on Debian; it is pulled in if missing.
set -euo pipefail
if [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: run as root (apt-get install)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends \
    libopenmpi-dev openmpi-bin \
    libtrilinos-zoltan-dev libptscotch-dev
