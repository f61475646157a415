#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Install what ringcap needs to build and test, and mount tracefs when it is
# missing. Safe to run again: it installs only what is absent.
#   --vmtest   also what the kernel matrix needs (make vmtest): qemu, busybox
#   --arm64    also what make ARCH=arm64 and make vmtest ARCH=arm64 need: the
#              arm64 architecture in dpkg, a cross compiler, the arm64
#              libraries, qemu-system-aarch64
#   --build    only what make all needs (no test tools, no npm)
#   --simulate install nothing: apt-get -s says whether every missing package
#              resolves on this release (make deb-check runs it on Debian 13)
set -eu

# Debian 12 and 13 (make deb-check checks 13 in a chroot). What make all needs:
pkgs="make gcc clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev libzstd-dev
libxxhash-dev libdw-dev pkg-config python3 python3-docutils zstd libcurl4-openssl-dev"
# libtraceevent: report --format perf-script renders tracepoints by their
# print formats with it (the Makefile builds without it where it is missing)
pkgs="$pkgs libtraceevent-dev"
# libipt (Intel PT packets): Debian packages it for x86 only; the Makefile
# builds without it (HAVE_LIBIPT=0) where it is missing, as for ARCH=arm64.
case "$(dpkg --print-architecture)" in
amd64 | i386) pkgs="$pkgs libipt-dev" ;;
esac
# What make check needs beside: libclang-rt-dev, the default clang's
# libFuzzer (make fuzz); debootstrap, lintian, debhelper, dpkg-dev: make deb
# and make deb-check.
test_pkgs="libclang-rt-dev valgrind trace-cmd binutils debuginfod chromium golang-go linux-perf
debootstrap lintian debhelper dpkg-dev
bash-completion zsh file libbz2-dev liblzma-dev prometheus curl protobuf-compiler"
# bash-completion, zsh: what completions/ are written for (their tests);
# file, libbz2-dev, liblzma-dev: make static (libdw.a needs libbz2.a,
# liblzma.a); Prometheus' server and promtool, which check stat
# --prometheus and record --metrics (tests prom_*), and curl, which asks
# the server's API; protoc, which reads report --format perfetto against
# Perfetto's schema (test perfetto_proto).
# Debian 13's 64-bit time_t transition renamed the library
# (libdebuginfod1t64); ClickHouse's server and client (ringcap export's
# tests, clickhouse_*) are in Debian 12, not in 13.
case "$(. /etc/os-release && echo "${VERSION_CODENAME:-}")" in
bullseye | bookworm) test_pkgs="$test_pkgs libdebuginfod1 clickhouse-server clickhouse-client" ;;
*) test_pkgs="$test_pkgs libdebuginfod1t64" ;;
esac
# npm, for speedscope below: Debian's, unless one is there (nodejs's own)
command -v npm >/dev/null 2>&1 || test_pkgs="$test_pkgs npm"
build_only=""
simulate=""
for arg in "$@"; do
	case "$arg" in
	--vmtest) pkgs="$pkgs qemu-system-x86 busybox-static cpio" ;;
	--build) build_only=1 ;;
	--simulate) simulate=1 ;;
	--arm64)
		pkgs="$pkgs gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm cpio
busybox-static libbpf-dev:arm64 libelf-dev:arm64 libzstd-dev:arm64 zlib1g-dev:arm64
libxxhash-dev:arm64 libdw-dev:arm64 libbz2-dev:arm64 liblzma-dev:arm64
libtraceevent-dev:arm64"
		arm64=1
		;;
	*)
		echo "deps: unknown argument '$arg' (--vmtest, --arm64, --build or --simulate)" >&2
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

[ -n "$build_only" ] || pkgs="$pkgs $test_pkgs"

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
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	if [ -n "$simulate" ]; then
		echo "deps: would install$missing"
		# shellcheck disable=SC2086
		apt-get install -s -qq --no-install-recommends $missing >/dev/null
		exit
	fi
	echo "deps: installing$missing"
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing
fi
[ -z "$simulate" ] || exit 0

# speedscope (npm), a reader of perf script's text that the tests open in
# headless chromium (test_perfscript.c); its version pinned
if [ -z "$build_only" ] && [ "$(id -u)" -eq 0 ] && command -v npm >/dev/null 2>&1 &&
	[ ! -e "$(npm root -g)/speedscope/dist/release/index.html" ]; then
	npm install -g --no-audit --no-fund speedscope@1.25.0 >/dev/null ||
		echo "deps: warning: could not install speedscope from npm" >&2
fi

# DuckDB's node bindings (npm @duckdb/node-api), a reader of report's JSON
# that test_report.c's report_json_readers runs under node; version pinned
if [ "$(id -u)" -eq 0 ] && command -v npm >/dev/null 2>&1 &&
	[ ! -e "$(npm root -g)/@duckdb/node-api/package.json" ]; then
	npm install -g --no-audit --no-fund @duckdb/node-api@1.5.6-r.1 >/dev/null ||
		echo "deps: warning: could not install @duckdb/node-api from npm" >&2
fi

# perf mounts tracefs on demand when it is missing; do the same.
if [ ! -e /sys/kernel/tracing/events ] && [ "$(id -u)" -eq 0 ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		echo "deps: warning: could not mount tracefs on /sys/kernel/tracing" >&2
fi
exit 0
