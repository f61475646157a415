#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Install what ringcap needs to build and test, and mount tracefs when it is
# missing. Safe to run again: it installs only what is absent.
set -eu

pkgs="make gcc clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev libzstd-dev
libxxhash-dev pkg-config python3 python3-docutils zstd libclang-rt-14-dev valgrind
trace-cmd"

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done

if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: missing packages:$missing; run this script as root" >&2
		exit 1
	fi
	echo "deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing
fi

# perf mounts tracefs on demand when it is missing; do the same.
if [ ! -e /sys/kernel/tracing/events ] && [ "$(id -u)" -eq 0 ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		echo "deps: warning: could not mount tracefs on /sys/kernel/tracing" >&2
fi
exit 0
