#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The Debian package in fresh systems (make deb-check):
#
#   scripts/deb-check.sh [-b 'BUILD COMMAND'] DEBDIR
#
# makes Debian 12 (bookworm) and Debian 13 (trixie) chroots with
# debootstrap --variant=minbase from the host's Debian mirror, installs
# DEBDIR/ringcap_*.deb into each with apt-get (which fetches its Depends),
# and runs there, on the host's kernel (/proc, /sys, tracefs and debugfs
# mounted in): ringcap record --check, ringcap record -e syscalls -- true,
# ringcap report and ringcap stat of that capture, checking what they print.
# In a copy of the trixie chroot, from when debootstrap has made it and
# meanwhile, in a copy of the source: scripts/deps.sh --simulate (every
# package it names resolves on Debian 13), scripts/deps.sh --build, and
# make all with what it installed. -b runs BUILD COMMAND (make
# deb-check: make deb), which must leave the .deb in DEBDIR, while the
# chroots are made: debootstrap waits on the network, the build on the CPU.
#
# Root, and Debian's archive on the network. The finished chroots are kept
# as tarballs in $DEB_CHECK_CACHE (/var/cache/ringcap-deb) for a week;
# DEB_CHECK_CACHE= keeps none (CI starts clean either way). The script runs
# in a mount namespace of its own (unshare -m, private propagation): what it
# mounts in the chroots (/proc, /sys, tracefs, debugfs, and debootstrap's
# own) never reaches the host's mount table, even where / is a shared mount
# (systemd), and goes with the namespace when the script ends, however it
# ends; it unmounts them on exit too. DEB_CHECK_SUITES="bookworm" picks
# some; DEB_CHECK_MIRROR names a mirror.
set -euo pipefail

build=
if [ "${1:-}" = -b ] && [ $# -ge 2 ]; then
	build=$2
	shift 2
fi
[ $# -eq 1 ] || { echo "usage: $0 [-b 'BUILD COMMAND'] DEBDIR" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "deb-check: debootstrap and chroot need root" >&2; exit 1; }
if [ -z "${RINGCAP_DEB_CHECK_NS:-}" ]; then
	command -v unshare >/dev/null ||
		{ echo "deb-check: unshare (util-linux) is missing: run scripts/deps.sh" >&2; exit 1; }
	RINGCAP_DEB_CHECK_NS=1 exec unshare --mount --propagation private -- "$BASH" \
		"$0" ${build:+-b "$build"} "$@"
fi
debdir=$(realpath -m "$1")
src=$(cd "$(dirname "$0")/.." && pwd)
command -v debootstrap >/dev/null ||
	{ echo "deb-check: debootstrap is missing: run scripts/deps.sh" >&2; exit 1; }
shopt -s nullglob

# The host's Debian mirror (deb822 or one-line sources), else Debian's CDN
mirror=${DEB_CHECK_MIRROR:-$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list \
	2>/dev/null | grep -oE 'https?://[^ ]*/debian/?( |$)' | grep -v security | head -n 1 |
	tr -d ' ' || true)}
mirror=${mirror:-http://deb.debian.org/debian}
suites=${DEB_CHECK_SUITES:-bookworm trixie}
cache=${DEB_CHECK_CACHE-/var/cache/ringcap-deb}

work=$(mktemp -d /var/tmp/ringcap-deb-check.XXXXXX)
mounts=()
pids=()

# Stop the debootstraps still running (a failed build or the other
# debootstrap's failure leaves one writing into $work), each a process
# group of its own (set -m), and wait for them; unmount in reverse order,
# then whatever a killed debootstrap left mounted in its chroot; remove the
# work directory only when nothing is mounted under it any more (rm -rf
# through a bound /sys is not an option).
cleanup() {
	local rc=$? i pid
	set +e
	for pid in "${pids[@]}"; do
		kill -TERM -- "-$pid" 2>/dev/null
	done
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null
		# what outlives the group's leader (dpkg finishing a file): 10 s, then KILL
		for i in {1..50}; do
			kill -0 -- "-$pid" 2>/dev/null || break
			sleep 0.2
		done
		kill -KILL -- "-$pid" 2>/dev/null
	done
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}"
	done
	awk -v w="$work/" 'index($2, w) == 1 { print $2 }' /proc/self/mounts | sort -r |
		while read -r m; do umount "$m" 2>/dev/null || umount -l "$m"; done
	if grep -q " $work/" /proc/self/mounts; then
		echo "deb-check: still mounted under $work, not removed:" >&2
		grep " $work/" /proc/self/mounts >&2
	else
		rm -rf "$work"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mnt() { # mount ARGS... TARGET: remembered for cleanup
	mount "$@"
	mounts+=("${!#}")
}

# A minbase chroot of suite $1 in $work/$1: from the cache when a tarball
# of a week or less is there, else debootstrap (then cached).
make_root() {
	local suite=$1 root=$work/$1 tarball=${cache:+$cache/$1-minbase.tar.zst}
	mkdir -p "$root"
	if [ -n "$tarball" ] && [ -n "$(find "$tarball" -mtime -7 2>/dev/null)" ]; then
		tar --zstd -xpf "$tarball" -C "$root"
		echo "$suite: the chroot from $tarball"
		return
	fi
	debootstrap --variant=minbase "$suite" "$root" "$mirror" > "$work/$suite-debootstrap.log" 2>&1 ||
		{ tail -n 20 "$work/$suite-debootstrap.log" >&2
		  echo "deb-check: debootstrap $suite from $mirror failed" >&2; return 1; }
	if [ -n "$tarball" ]; then
		mkdir -p "$cache"
		tar --zstd -cpf "$tarball.tmp" -C "$root" . && mv "$tarball.tmp" "$tarball"
	fi
	echo "$suite: debootstrap --variant=minbase $suite from $mirror"
}

mount_root() {
	local root=$1
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	mnt -t proc proc "$root/proc"
	mnt --bind /sys "$root/sys"
	# a bind of /sys leaves out what is mounted on it: tracefs, debugfs
	mnt -t tracefs nodev "$root/sys/kernel/tracing"
	if [ -d /sys/kernel/debug/tracing ]; then
		mnt -t debugfs nodev "$root/sys/kernel/debug"
	fi
	mnt -t tmpfs tmpfs "$root/tmp"
}

in_root() { # ROOT COMMAND...: run in the chroot, its output kept in $out
	local root=$1
	shift
	out=$(chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@" 2>&1) ||
		{ printf '%s\n' "$out" | tail -n 30 >&2
		  echo "deb-check: $(basename "$root"): '$*' failed" >&2; return 1; }
}

expect() { # WHAT PATTERN: $out must hold a line matching PATTERN
	grep -qE "$2" <<<"$out" ||
		{ printf '%s\n' "$out" | tail -n 30 >&2
		  echo "deb-check: $suite: $1: no line matches '$2'" >&2; exit 1; }
}

# scripts/deps.sh on Debian 13: every package it asks for resolves
# (apt-get -s; installing the test tools too, npm's hundreds of node-*
# packages among them, took over 15 minutes here), and what it installs
# with --build builds the tree. In a copy of the trixie chroot, so that the
# package's checks still run where apt-get alone brought its Depends, and
# meanwhile. Its lines go to $work/build-check.log.
build_check() { # ROOT
	local root=$1 t i
	t=$(date +%s)
	mount_root "$root"
	mkdir -p "$root/src"
	(cd "$src" && git ls-files -z -c -o --exclude-standard |
		xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		tar -c --null -T -) | tar -x -C "$root/src"
	in_root "$root" sh -c 'cd /src && scripts/deps.sh --simulate'
	echo "trixie: scripts/deps.sh --simulate:" \
		"$(($(grep -m 1 '^deps: would install' <<<"$out" | wc -w) - 3)) packages resolve"
	in_root "$root" sh -c 'cd /src && scripts/deps.sh --build'
	echo "trixie: scripts/deps.sh --build:" \
		"$(($(grep -m 1 '^deps: installing' <<<"$out" | wc -w) - 2)) packages asked for," \
		"$(($(date +%s) - t)) s"
	t=$(date +%s)
	in_root "$root" sh -c "cd /src && make -j$(nproc) all"
	in_root "$root" sh -c 'cd /src && build/ringcap --version && build/ringcap record --check >/dev/null && gcc --version | head -n 1 && clang --version | head -n 1'
	echo "trixie: make all: $(($(date +%s) - t)) s; $(tr '\n' ';' <<<"$out")"
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount "${mounts[i]}"; done
}

# A suite's job: its chroot, and for trixie then the build check in a copy
# of it ($work/trixie-build). $work/SUITE.made says the chroot is there.
suite_job() { # SUITE
	make_root "$1"
	if [ "$1" != trixie ]; then
		touch "$work/$1.made"
		return
	fi
	cp -a "$work/trixie" "$work/trixie-build"
	# a chroot thrown away after: dpkg need not sync each file that
	# scripts/deps.sh --build installs (clang, LLVM, gcc: some 100 packages)
	echo force-unsafe-io > "$work/trixie-build/etc/dpkg/dpkg.cfg.d/ringcap-deb-check"
	touch "$work/$1.made"
	build_check "$work/trixie-build" > "$work/build-check.log" 2>&1
}

# The chroots, made side by side (the network's time and dpkg's overlap),
# the package built meanwhile (-b), and the build check started as soon as
# trixie's chroot is there. Each job is a process group of its own (set -m),
# which cleanup stops whole.
t0=$(date +%s)
declare -A job
set -m
for suite in $suites; do
	suite_job "$suite" & pids+=($!)
	job[$suite]=$!
done
set +m
if [ -n "$build" ]; then
	sh -c "$build" || { echo "deb-check: '$build' failed" >&2; exit 1; }
	echo "deb-check: '$build' done at $(($(date +%s) - t0)) s"
fi
debs=("$debdir"/ringcap_*.deb)
[ ${#debs[@]} -eq 1 ] ||
	{ echo "deb-check: want one ringcap_*.deb in $debdir (make deb), found ${#debs[@]}" >&2; exit 1; }
deb=${debs[0]}

made() { # SUITE: wait until its job has made its chroot (exit 1 if it failed)
	while [ ! -e "$work/$1.made" ]; do
		if ! kill -0 "${job[$1]}" 2>/dev/null; then
			[ -e "$work/$1.made" ] && break
			echo "deb-check: $1: no chroot" >&2
			exit 1
		fi
		sleep 1
	done
}

for suite in $suites; do
	made "$suite"
	root=$work/$suite
	t=$(date +%s)
	mount_root "$root"
	cp "$deb" "$root/tmp/"
	# a chroot thrown away after: dpkg need not sync each file it unpacks
	echo force-unsafe-io > "$root/etc/dpkg/dpkg.cfg.d/ringcap-deb-check"
	in_root "$root" apt-get update -qq
	in_root "$root" dpkg-query -W -f '${Package}\n'
	before=$out
	in_root "$root" apt-get install -y -qq --no-install-recommends "./tmp/$(basename "$deb")"
	in_root "$root" dpkg-query -W -f '${Package}\n'
	echo "$suite: apt-get install ./$(basename "$deb") installed" \
		"$(comm -13 <(sort <<<"$before") <(sort <<<"$out") | tr '\n' ' ')"
	in_root "$root" dpkg-query -W -f '${Version} ${Depends}\n' ringcap
	echo "$suite: installed ringcap $out"

	in_root "$root" ringcap record --check
	expect "record --check" '^BPF ring buffer \(5\.8\) +yes$'
	expect "record --check" '^  -e syscalls +yes'
	echo "$suite: ringcap record --check: $(grep -cE ' yes' <<<"$out") lines say yes, exit 0"

	in_root "$root" ringcap record -e syscalls -o /tmp/x -- true
	expect "record" "'true' exited with status 0"
	expect "record" '[0-9]+ events captured, 0 dropped'
	echo "$suite: ringcap record -e syscalls -o /tmp/x -- true: $(tail -n 1 <<<"$out")"

	in_root "$root" ringcap report /tmp/x
	expect "report" '^ +true +[0-9]+/[0-9]+ +\[[0-9]+\] [0-9.]+: syscall: nr=execve '
	expect "report" '^ +true +[0-9]+/[0-9]+ +\[[0-9]+\] [0-9.]+: syscall: nr=exit_group '
	echo "$suite: ringcap report /tmp/x: $(grep -c ' true ' <<<"$out") events of true, its last:"
	grep ' true ' <<<"$out" | tail -n 1

	in_root "$root" ringcap stat /tmp/x
	expect "stat" 'dropped'
	chroot "$root" test -f /usr/share/man/man1/ringcap-record.1.gz ||
		{ echo "deb-check: $suite: the man pages are missing" \
			"(no /usr/share/man/man1/ringcap-record.1.gz)" >&2; exit 1; }
	echo "$suite: ringcap stat /tmp/x: exit 0; the package's checks: $(($(date +%s) - t)) s"

	# unmount this chroot's mounts now (the trap does it on failure)
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount "${mounts[i]}"; done
	mounts=()
done
echo "deb-check: the package's checks done at $(($(date +%s) - t0)) s"
for suite in $suites; do
	if ! wait "${job[$suite]}"; then
		[ -e "$work/build-check.log" ] && tail -n 40 "$work/build-check.log" >&2
		echo "deb-check: $suite: its chroot or the build check in it failed" >&2
		exit 1
	fi
done
pids=()
[ -e "$work/build-check.log" ] && cat "$work/build-check.log"
echo "deb-check: ok ($suites), $(($(date +%s) - t0)) s in all"
