#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Install what ringcap needs to build and test, and mount tracefs when it is
# missing. Safe to run again: it installs only what is absent.
#   --vmtest   also what the kernel matrix needs (make vmtest): qemu, busybox
#   --arm64    also what make ARCH=arm64 and make vmtest ARCH=arm64 need: the
#              arm64 architecture in dpkg, a cross compiler, the arm64
#              libraries, qemu-system-aarch64
set -eu

pkgs="make gcc clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev libzstd-dev
libxxhash-dev libdw-dev pkg-config python3 python3-docutils zstd libclang-rt-14-dev valgrind
trace-cmd binutils debuginfod libdebuginfod1 chromium golang-go linux-perf protobuf-compiler"
# npm, for speedscope below: Debian's, unless one is there (nodejs's own)
command -v npm >/dev/null 2>&1 || pkgs="$pkgs npm"
# libipt (Intel PT packets): Debian packages it for x86 only; the Makefile
# builds without it (HAVE_LIBIPT=0) where it is missing, as for ARCH=arm64.
case "$(dpkg --print-architecture)" in
amd64 | i386) pkgs="$pkgs libipt-dev" ;;
esac
for arg in "$@"; do
	case "$arg" in
	--vmtest) pkgs="$pkgs qemu-system-x86 busybox-static cpio" ;;
	--arm64)
		pkgs="$pkgs gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm cpio
busybox-static libbpf-dev:arm64 libelf-dev:arm64 libzstd-dev:arm64 zlib1g-dev:arm64
libxxhash-dev:arm64 libdw-dev:arm64 libbz2-dev:arm64 liblzma-dev:arm64"
		arm64=1
		;;
	*)
		echo "deps: unknown argument '$arg' (--vmtest or --arm64)" >&2
		exit 2
		;;
	esac
done

# arm64 libraries install beside the host's (multiarch) once dpkg knows the
# architecture; apt-get update then fetches its package lists.
if [ -n "${arm64:-}" ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: the arm64 architecture is not added; run this script as root" >&2
		exit 1
	fi
	dpkg --add-architecture arm64
fi

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

# speedscope (npm), a reader of perf script's text that the tests open in
# headless chromium (test_perfscript.c); its version pinned
if [ "$(id -u)" -eq 0 ] && command -v npm >/dev/null 2>&1 &&
	[ ! -e "$(npm root -g)/speedscope/dist/release/index.html" ]; then
	npm install -g --no-audit --no-fund speedscope@1.25.0 >/dev/null ||
		echo "deps: warning: could not install speedscope from npm" >&2
fi

# perf mounts tracefs on demand when it is missing; do the same.
if [ ! -e /sys/kernel/tracing/events ] && [ "$(id -u)" -eq 0 ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		echo "deps: warning: could not mount tracefs on /sys/kernel/tracing" >&2
fi
exit 0
