#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The kernel matrix: boot Debian's own kernel packages under qemu (TCG) with
# a busybox initramfs holding the built ringcap and its tests, run the
# guest test set in each, and report "N passed, N failed" per kernel.
#
#   scripts/vmtest.sh BUILD_DIR [KERNEL ...]
#
# KERNEL is a name from the table below (default: all of them). Kernel
# packages come from Debian's archive with apt-get download, and are kept in
# $VMTEST_CACHE (default /var/cache/ringcap-vmtest) between runs. A kernel of
# another Debian release (bullseye's 5.10) comes through a private apt
# configuration under the cache: a sources list and a state directory of its
# own, so the machine's apt sources are never changed.
# VMTEST_JOBS guests boot at once (default 2: each qemu TCG guest runs on one
# host thread), the longest first; their results are printed in the table's
# order. VMTEST_ARM64_BUILD=DIR (with the x86 table) adds the arm64 guests of
# the cross build in DIR to the same pool, as CI runs them.
# VMTEST_ARCH=arm64 boots the arm64 table with qemu-system-aarch64: BUILD_DIR
# then holds a static cross build (make ARCH=arm64), and busybox comes from
# Debian's busybox-static:arm64 package.
# VMTEST_SET=smoke runs the short arm64 set CI runs (make vmtest ARCH=arm64);
# full, the default elsewhere, the whole guest set (make vmtest-all).
# VMTEST_TESTS overrides the test_progs filter run in each guest;
# VMTEST_CMD runs a shell command in /ringcap instead (to look at a failure);
# VMTEST_TIMEOUT (seconds) bounds each boot: by default 900 on x86, and
# 1800 on arm64, whose guest runs the same tests in about 900 s under TCG.
# Each kernel's skips are bounded by tests/skips/guest-NAME.txt (NAME from
# the table): a test that skips there without a line of it fails.
# VMTEST_STATIC=FILE (a static x86-64 ringcap: make static's
# build-static/ringcap) adds a guest static-NAME for each x86 kernel NAME
# selected (all of them by default): that kernel booted on an initramfs of
# busybox, that ringcap and the static rc_workload, and nothing else (no
# library, no dynamic loader), running a smoke test of it (static_smoke
# below).
set -euo pipefail

# name | package name pattern (the newest match is used) | kernel command
# line | Debian release to fetch it from (empty: the machine's own sources) |
# test set (empty: the architecture's; a name below)
# (the longest first: with no times of a last run, as in CI's fresh
# clone, the pool boots them in this order; 6.1-rt, whose preemptible
# uprobe load alone is a minute, took 476 s there, the others 375 to 389)
KERNELS_x86=(
	"6.1-rt|^linux-image-6\.1\.0-[0-9]+-rt-amd64$|||GUEST_MORE_nomap"
	"6.12-preempt-full|^linux-image-6\.12\.[0-9]+\+deb12-amd64$|preempt=full||"
	"6.12|^linux-image-6\.12\.[0-9]+\+deb12-amd64$|||"
	"6.1|^linux-image-6\.1\.0-[0-9]+-amd64$|||GUEST_MORE_nomap"
	"5.10|^linux-image-5\.10\.0-[0-9]+-amd64$||bullseye|GUEST_TESTS_510"
)
KERNELS_arm64=(
	"arm64-6.1|^linux-image-6\.1\.0-[0-9]+-arm64$|||"
)

# The tests every guest runs: recording on every transport and source.
GUEST_TESTS_x86=kernel_check,matrix_,record_command,record_duration,record_pid,record_comm,record_fork_exec,record_self_excluded,record_drops,perfbuf_,dyn_,ftrace_,stat_fail_on_drops,stat_progress,crash_kill_loop,output_safety,report_pipe,profile_,stacks_,rotate_count,rotate_time_grid,rotate_signal_storm,rotate_profile,rotate_flight_recorder,rotate_hup_tty,flight_storm,format_run,aux_ring_kernel,aux_refuse,aux_attr_kernel,aux_ring_forward,aux_ring_overwrite
# arm64 under TCG runs the guest set in 900 s or more (rotate_count alone
# 524 s, matrix_uprobe_threads 129 s); CI runs this smoke set there, a few
# minutes: an exact count of each source and transport, a command and its
# children, the flight recorder, profiles with both unwinders, off-CPU
# time, and reading a capture of an older version. make vmtest-all runs the
# whole set. (=NAME: that test alone, not every name it begins.)
GUEST_TESTS_arm64_smoke=kernel_check,matrix_syscalls,matrix_sched,matrix_tracepoint,=matrix_uprobe,matrix_children,matrix_pid,matrix_overwrite,matrix_bpf_object,record_command,perfbuf_exact,profile_shares,profile_dwarf,profile_offcpu,stacks_,format_run
# Before 6.10 ftrace's rings cannot be mapped: the ftrace_mmap_ twins,
# which map them, are left out there. (+: added to the set.)
GUEST_MORE_nomap=+-ftrace_mmap_
# 5.10 (Debian 11): every source its compat programs record (ringcap-record(1),
# KERNELS), record --check naming them (compat_check) and telling the truth
# (kernel_check). Tracepoints and uprobes there: dyn.bpf.c's slot programs.
# ftrace records there, its rings spliced (no ring-buffer mapping before 6.10).
# Open: ftrace_overrun's ledger came 45 short of 1,000,000 once there (CI,
# spliced, under TCG): left out of this set until found.
GUEST_TESTS_510=kernel_check,matrix_,profile_offcpu,profile_shares,record_command,record_fork_exec,compat_check,compat_pending_full,compat_follow_full,ftrace_,-ftrace_mmap_,-ftrace_overrun
# The qemu, console, time bound, kernels and test set of architecture $1.
arch_setup() {
	ARCH=$1
	case "$ARCH" in
	x86)
		QEMU=qemu-system-x86_64 QEMU_ARGS="-cpu max" CONSOLE=ttyS0
		TIMEOUT=${VMTEST_TIMEOUT:-900}
		KERNELS=("${KERNELS_x86[@]}") GUEST_TESTS=${VMTEST_TESTS:-$GUEST_TESTS_x86}
		;;
	arm64)
		QEMU=qemu-system-aarch64 QEMU_ARGS="-M virt -cpu cortex-a72" CONSOLE=ttyAMA0
		TIMEOUT=${VMTEST_TIMEOUT:-1800}
		KERNELS=("${KERNELS_arm64[@]}") GUEST_TESTS=${VMTEST_TESTS:-$GUEST_TESTS_x86}
		if [ "${VMTEST_SET:-full}" = smoke ]; then
			GUEST_TESTS=${VMTEST_TESTS:-$GUEST_TESTS_arm64_smoke}
		fi
		;;
	*)
		echo "vmtest: no kernels for VMTEST_ARCH=$ARCH (x86 or arm64)" >&2
		exit 1
		;;
	esac
}
CACHE=${VMTEST_CACHE:-/var/cache/ringcap-vmtest}

die() {
	echo "vmtest: $*" >&2
	exit 1
}

[ $# -ge 1 ] || die "usage: $0 BUILD_DIR [KERNEL ...]"
BUILD_MAIN=$(cd "$1" && pwd)
shift
ARCH_MAIN=${VMTEST_ARCH:-x86}
ARM64_BUILD=
if [ -n "${VMTEST_ARM64_BUILD:-}" ]; then
	[ "$ARCH_MAIN" = x86 ] || die "VMTEST_ARM64_BUILD goes with the x86 table"
	ARM64_BUILD=$(cd "$VMTEST_ARM64_BUILD" && pwd)
fi
arch_setup "$ARCH_MAIN"
for t in "$QEMU" busybox cpio apt-get dpkg-deb; do
	command -v "$t" >/dev/null ||
		die "$t is missing: scripts/deps.sh --vmtest installs what the kernel matrix needs"
done
for b in "$BUILD_MAIN" $ARM64_BUILD; do
	for f in ringcap test_progs rc_workload rc_load rc_prof rc_prof_nofp; do
		[ -x "$b/$f" ] || die "$b/$f is missing: run make first"
	done
done
mkdir -p "$CACHE"

# A static busybox of the guest's architecture.
guest_busybox() {
	local dir="$CACHE/busybox-$ARCH" tmp
	if [ "$ARCH" = x86 ]; then
		file -L "$(command -v busybox)" | grep -q 'statically linked' ||
			die "$(command -v busybox) is not static: install busybox-static"
		command -v busybox
		return
	fi
	if [ ! -x "$dir/busybox" ]; then
		tmp=$(mktemp -d "$CACHE/dl.XXXXXX")
		(cd "$tmp" && apt-get download -q "busybox-static:$ARCH" >/dev/null 2>&1) ||
			{ rm -rf "$tmp"; die "apt-get download busybox-static:$ARCH failed: scripts/deps.sh --arm64 adds the architecture"; }
		dpkg-deb -x "$tmp"/*.deb "$tmp/x"
		mkdir -p "$dir"
		cp "$tmp/x/bin/busybox" "$dir/busybox"
		rm -rf "$tmp"
	fi
	echo "$dir/busybox"
}

# apt's options for Debian release $1: none for the machine's own sources;
# for another release, a private sources list, state and cache under
# $CACHE/apt-$1, so the machine's apt configuration is left as it is.
apt_opts() {
	local suite=$1 dir
	[ -n "$suite" ] || return 0
	dir="$CACHE/apt-$suite"
	if [ ! -e "$dir/sources.list" ]; then
		mkdir -p "$dir/state/lists/partial" "$dir/cache/archives/partial"
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
			"http://deb.debian.org/debian $suite main" > "$dir/sources.list"
	fi
	echo "-o Dir::Etc::SourceList=$dir/sources.list -o Dir::Etc::SourceParts=/nonexistent" \
		"-o Dir::State=$dir/state -o Dir::Cache=$dir/cache"
}

# The archive's linux-image-* package names of release $1, read once a
# release: each apt-cache call reads apt's whole cache (about 2 s of CPU),
# and CI's pool asks for 11 guests' kernels from two releases.
declare -A PKG_NAMES=()
load_names() {
	local suite=$1 opts
	opts=$(apt_opts "$suite")
	# shellcheck disable=SC2086
	PKG_NAMES[${suite:-own}]=$(apt-cache $opts search --names-only '^linux-image-' \
		2>/dev/null | awk '{print $1}')
}

# PKG: the newest package matching $1 in release $2, from the archive's
# index (updated once when nothing matches, as on a machine that never ran
# apt-get update). In this shell, not a subshell: the names stay read.
find_pkg() {
	local pat=$1 suite=$2 opts
	[ -n "${PKG_NAMES[${suite:-own}]+x}" ] || load_names "$suite"
	PKG=$(printf '%s\n' "${PKG_NAMES[${suite:-own}]}" | grep -iE -e "$pat" | sort -V |
		tail -n 1 || true)
	if [ -z "$PKG" ]; then
		opts=$(apt_opts "$suite")
		# shellcheck disable=SC2086
		apt-get $opts update -qq >&2 || true
		load_names "$suite"
		PKG=$(printf '%s\n' "${PKG_NAMES[${suite:-own}]}" | grep -iE -e "$pat" |
			sort -V | tail -n 1 || true)
	fi
}

# Download and extract package $1 of release $2 once; print the path of
# its vmlinuz.
fetch_kernel() {
	local pkg=$1 suite=$2 dir="$CACHE/$1" tmp opts
	opts=$(apt_opts "$suite")
	if [ ! -e "$dir/vmlinuz" ]; then
		tmp=$(mktemp -d "$CACHE/dl.XXXXXX")
		# a stale index names a package the archive has dropped: update once
		# shellcheck disable=SC2086
		(cd "$tmp" && apt-get $opts download -q "$pkg" >/dev/null 2>&1) ||
			{ apt-get $opts update -qq >&2 &&
				(cd "$tmp" && apt-get $opts download -q "$pkg" >/dev/null); } ||
			{ rm -rf "$tmp"; die "apt-get download $pkg failed"; }
		dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -x -C "$tmp" ./boot
		mkdir -p "$dir"
		cp "$tmp"/boot/vmlinuz-* "$dir/vmlinuz.tmp"
		cp "$tmp"/boot/config-* "$dir/config"
		mv "$dir/vmlinuz.tmp" "$dir/vmlinuz"
		rm -rf "$tmp"
	fi
	echo "$dir/vmlinuz"
}

# Copy file $1 into the initramfs at the same path, with what ldd says it needs.
add_with_libs() {
	local f=$1 lib
	mkdir -p "$ROOT$(dirname "$f")"
	cp -L "$f" "$ROOT$f"
	for lib in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*' || true); do
		[ -e "$ROOT$lib" ] && continue
		mkdir -p "$ROOT$(dirname "$lib")"
		cp -L "$lib" "$ROOT$lib"
	done
}

build_initramfs() {
	local out=$1 f
	ROOT=$(mktemp -d "$BUILD/vmtest-root.XXXXXX")
	chmod 755 "$ROOT" # the guest's /: nobody runs ringcap too (kernel_check_unprivileged)
	mkdir -p "$ROOT"/{bin,sbin,proc,sys,dev,tmp,run,etc,root,ringcap}
	cp "$(guest_busybox)" "$ROOT/bin/busybox"
	ln -s busybox "$ROOT/bin/sh"
	echo "root:x:0:0:root:/root:/bin/sh" > "$ROOT/etc/passwd"
	echo "nobody:x:65534:65534:nobody:/nonexistent:/bin/sh" >> "$ROOT/etc/passwd"
	echo "root:x:0:" > "$ROOT/etc/group"
	echo "nogroup:x:65534:" >> "$ROOT/etc/group"
	for f in ringcap test_progs; do
		add_with_libs "$BUILD/$f"
		mkdir -p "$ROOT/ringcap"
		mv "$ROOT$BUILD/$f" "$ROOT/ringcap/$f"
	done
	cp "$BUILD/rc_workload" "$BUILD/rc_load" "$ROOT/ringcap/"
	# the skips each kernel allows (rc_name= on its command line picks its list)
	mkdir -p "$ROOT/ringcap/skips"
	cp tests/skips/guest-*.txt "$ROOT/ringcap/skips/"
	# profile_inline reads the LINE: markers of rc_prof's source, from ../tests;
	# format_run a capture of an older version, from ../tests/fixtures
	mkdir -p "$ROOT/tests/fixtures"
	cp tests/profwork.c "$ROOT/tests/"
	cp tests/fixtures/forkexec.rcap "$ROOT/tests/fixtures/"
	# rc_prof is dynamic where it can be (its stacks go through libc), static when cross-built
	for f in rc_prof rc_prof_nofp; do
		if file -L "$BUILD/$f" | grep -q 'statically linked'; then
			cp "$BUILD/$f" "$ROOT/ringcap/"
		else
			add_with_libs "$BUILD/$f"
			mv "$ROOT$BUILD/$f" "$ROOT/ringcap/$f"
		fi
	done
	# what rc_prof dlshort dlopen()s (a static one cannot: the test asks no more there)
	if ! file -L "$BUILD/rc_prof" | grep -q 'statically linked'; then
		cp "$BUILD/librc_prof_dl.so" "$ROOT/ringcap/"
	fi
	# the tests read build-ids with readelf (the host's: x86 only)
	if [ "$ARCH" = x86 ] && command -v readelf >/dev/null; then
		add_with_libs "$(command -v readelf)"
	fi
	for f in "$BUILD"/examples/*.bpf.o "$BUILD"/tests/bpf/*.bpf.o; do
		[ -e "$f" ] || continue
		mkdir -p "$ROOT/ringcap/${f#"$BUILD"/}"
		rmdir "$ROOT/ringcap/${f#"$BUILD"/}"
		cp "$f" "$ROOT/ringcap/${f#"$BUILD"/}"
	done
	cat > "$ROOT/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t bpf bpf /sys/fs/bpf
ulimit -l unlimited
export PATH=/bin:/sbin:/usr/bin HOME=/root RINGCAP_VMTEST=1
cd /ringcap
echo "vmtest: kernel \$(uname -r) \$(cat /proc/cmdline)"
# a kernel's own test set comes as rc_tests= on its command line, which
# the kernel hands to init as an environment variable; its name as rc_name=
export RINGCAP_EXPECTED_SKIPS=/ringcap/skips/guest-\$rc_name.txt
${VMTEST_CMD:-./test_progs -t "\${rc_tests:-$GUEST_TESTS}\${rc_more:+,\$rc_more}"}
echo "vmtest: exit \$?"
poweroff -f
EOF
	chmod +x "$ROOT/init"
	(cd "$ROOT" && find . | cpio -o -H newc --quiet | gzip -1) > "$out"
	rm -rf "$ROOT"
}

# The static guest's test: ringcap with no library at all in the guest.
# Each step a "# NAME:OK" or "# NAME:FAIL" line (its output under it), as
# test_progs prints them, and the count line the summary reads.
static_smoke() {
	cat <<'EOF'
pass=0 fail=0
step() {
	name=$1
	shift
	if "$@" > /tmp/step.out 2>&1; then
		echo "# $name:OK"
		pass=$((pass + 1))
	else
		echo "# $name:FAIL"
		fail=$((fail + 1))
	fi
	sed 's/^/    /' /tmp/step.out
}
no_libraries() {
	libs=$(find / -xdev \( -name '*.so' -o -name '*.so.*' -o -name 'ld-linux*' \) | head -n 5)
	[ -z "$libs" ] || { echo "libraries in the guest: $libs"; return 1; }
	# a dynamic ringcap could not even start: there is no loader
	echo "no shared object and no dynamic loader in the guest; its files:" $(find / -xdev -type f)
}
version() {
	./ringcap --version > /tmp/version && cat /tmp/version &&
		grep -q '^build: x86_64, static, ' /tmp/version
}
check() {
	./ringcap record --check > /tmp/check && tail -n 3 /tmp/check &&
		grep -q '^this build (ringcap .*, static):$' /tmp/check
}
# exact counts: a thousand getppid() of the workload, over BPF and ftrace
count() { # FILE EVENT N
	got=$(./ringcap report -i "$1" --comm rc_workload | grep -c "$2")
	echo "$1: $got events of $2 (want $3)"
	[ "$got" = "$3" ]
}
syscalls() {
	./ringcap record -q -e syscalls -o /tmp/s.rcap -- ./rc_workload getppid 1000 &&
		count /tmp/s.rcap 'syscall: nr=getppid ' 1000 && ./ringcap stat /tmp/s.rcap
}
ftrace() {
	./ringcap record -q --transport ftrace -e syscalls:sys_enter_getppid -o /tmp/f.rcap \
		-- ./rc_workload getppid 1000 && count /tmp/f.rcap sys_enter_getppid 1000
}
# user stacks unwound by libdw's CFI, statically linked; before 5.15
# (no bpf_task_pt_regs) refused with the reason and the way out
dwarf() {
	kv=$(uname -r) && maj=${kv%%.*} && rest=${kv#*.} && min=${rest%%.*}
	if [ "$maj" -lt 5 ] || { [ "$maj" -eq 5 ] && [ "$min" -lt 15 ]; }; then
		if ./ringcap record -q -F 499 --call-graph=dwarf -o /tmp/p.rcap \
			-- ./rc_workload getppid 1000 2> /tmp/err; then
			echo "--call-graph=dwarf accepted on $kv"
			return 1
		fi
		cat /tmp/err
		grep -q 'Linux 5.15.*--call-graph fp' /tmp/err
		return
	fi
	./ringcap record -q -F 499 --call-graph=dwarf -o /tmp/p.rcap -- ./rc_workload getppid 300000 &&
		./ringcap report -i /tmp/p.rcap --format folded > /tmp/folded &&
		sort -t ' ' -k 2 -n -r /tmp/folded | head -n 3 && grep -q '^rc_workload;.*main' /tmp/folded
}
step static_no_libraries no_libraries
step static_version version
step static_check check
step static_syscalls syscalls
step static_ftrace ftrace
step static_dwarf dwarf
echo "$pass passed, $fail failed, 0 skipped"
EOF
}

# A busybox initramfs holding only the static ringcap $2 and rc_workload.
build_static_initramfs() {
	local out=$1 ringcap=$2
	file -L "$ringcap" | grep -q 'statically linked' || die "$ringcap is not static: make static"
	ROOT=$(mktemp -d "$BUILD/vmtest-root.XXXXXX")
	chmod 755 "$ROOT"
	mkdir -p "$ROOT"/{bin,proc,sys,dev,tmp,ringcap}
	cp "$(guest_busybox)" "$ROOT/bin/busybox"
	ln -s busybox "$ROOT/bin/sh"
	cp "$ringcap" "$ROOT/ringcap/ringcap"
	cp "$BUILD/rc_workload" "$ROOT/ringcap/"
	cat > "$ROOT/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mount -t tracefs tracefs /sys/kernel/tracing
mount -t bpf bpf /sys/fs/bpf
ulimit -l unlimited
export PATH=/bin
cd /ringcap
echo "vmtest: kernel \$(uname -r) \$(cat /proc/cmdline)"
$(static_smoke)
echo "vmtest: exit 0"
poweroff -f
EOF
	chmod +x "$ROOT/init"
	(cd "$ROOT" && find . | cpio -o -H newc --quiet | gzip -1) > "$out"
	rm -rf "$ROOT"
}

# Boot kernel $2 with $3 on its command line; the serial console goes to $4.
# One host thread runs both vCPUs (thread=single): with a thread each, TCG
# let the kernel's live patching of its own code (static keys, switched as
# tracepoints are attached) race on the other vCPU, and 6.12 died in an
# int3 Oops in __schedule. Timing-bound tests are not in the guest set.
boot() {
	local initrd=$1 vmlinuz=$2 extra=$3 log=$4 arch=$5
	arch_setup "$arch"
	# shellcheck disable=SC2086
	timeout --foreground -k 10 "$TIMEOUT" "$QEMU" -accel tcg,thread=single $QEMU_ARGS \
		-smp 2 -m 2048 -nographic -no-reboot -kernel "$vmlinuz" -initrd "$initrd" \
		-append "console=$CONSOLE panic=-1 oops=panic quiet loglevel=3 $extra" \
		< /dev/null > "$log" 2>&1 || true
}

want=("$@")
selected() {
	local n=$1 w
	[ ${#want[@]} -eq 0 ] && return 0
	for w in "${want[@]}"; do [ "$w" = "$n" ] && return 0; done
	return 1
}

JOBS=${VMTEST_JOBS:-2}

# Per guest: its name, package, kernel, command line, initramfs, architecture
# and log directory. Each architecture's initramfs is built once, its
# kernels fetched (one at a time: apt's locks).
names=() pkgs=() vmlinuzes=() extras=() initrds=() arches=() logdirs=()
add_arch() {
	local arch=$1 k name pat extra suite set tests more
	arch_setup "$arch"
	BUILD=$2
	INITRD="$BUILD/vmtest-initramfs.gz"
	echo "vmtest: $ARCH guests run: $GUEST_TESTS"
	build_initramfs "$INITRD"
	mkdir -p "$BUILD/vmtest"
	for k in "${KERNELS[@]}"; do
		IFS='|' read -r name pat extra suite set <<< "$k"
		selected "$name" || continue
		[ -e "tests/skips/guest-$name.txt" ] ||
			die "tests/skips/guest-$name.txt is missing: the skips allowed on $name"
		find_pkg "$pat" "$suite"
		pkg=$PKG
		[ -n "$pkg" ] || die "no Debian package matches $pat${suite:+ in $suite}"
		tests= more=
		if [ -n "$set" ] && [ -z "${VMTEST_TESTS:-}" ]; then
			case "${!set}" in
			+*) more=${!set#+} ;;
			*) tests=${!set} ;;
			esac
			echo "vmtest: $name runs ${tests:-the set and $more}"
		fi
		names+=("$name") pkgs+=("$pkg") arches+=("$ARCH") initrds+=("$INITRD")
		logdirs+=("$BUILD/vmtest")
		extras+=("$extra rc_name=$name${tests:+ rc_tests=$tests}${more:+ rc_more=$more}")
		vmlinuzes+=("$(fetch_kernel "$pkg" "$suite")")
	done
}
add_arch "$ARCH_MAIN" "$BUILD_MAIN"
[ -z "$ARM64_BUILD" ] || add_arch arm64 "$ARM64_BUILD"

# The static guests: each x86 kernel of the table once more, booted on
# nothing but busybox, the static ringcap and rc_workload (static-NAME).
if [ -n "${VMTEST_STATIC:-}" ]; then
	[ "$ARCH_MAIN" = x86 ] || die "VMTEST_STATIC is an x86-64 ringcap: with the x86 table"
	arch_setup x86
	BUILD=$BUILD_MAIN
	sinitrd="$BUILD/vmtest-static-initramfs.gz"
	sbuilt=
	for k in "${KERNELS_x86[@]}"; do
		IFS='|' read -r name pat extra suite _ <<< "$k"
		selected "static-$name" || selected "$name" || continue
		if [ -z "$sbuilt" ]; then
			build_static_initramfs "$sinitrd" "$(realpath "$VMTEST_STATIC")"
			sbuilt=1
		fi
		find_pkg "$pat" "$suite"
		pkg=$PKG
		[ -n "$pkg" ] || die "no Debian package matches $pat${suite:+ in $suite}"
		echo "vmtest: static-$name runs $VMTEST_STATIC alone: static_smoke"
		names+=("static-$name") pkgs+=("$pkg") arches+=(x86) logdirs+=("$BUILD/vmtest")
		initrds+=("$sinitrd") extras+=("$extra rc_name=static-$name")
		vmlinuzes+=("$(fetch_kernel "$pkg" "$suite")")
	done
fi

run_guest() {
	local i=$1 start log
	start=$(date +%s)
	log="${logdirs[$i]}/${names[$i]}"
	boot "${initrds[$i]}" "${vmlinuzes[$i]}" "${extras[$i]}" "$log.log" "${arches[$i]}"
	echo $(($(date +%s) - start)) > "$log.secs"
	echo "vmtest: ${names[$i]}: done in $(cat "$log.secs")s"
}

# The longest first (the last run's times, else the table's order), so
# that the pool's slots end together.
order=()
while read -r _ i; do order+=("$i"); done < <(
	for i in "${!names[@]}"; do
		echo "$(cat "${logdirs[$i]}/${names[$i]}.secs" 2>/dev/null || echo 0) $i"
	done | sort -rn -s -k1,1)

running=0
for i in "${order[@]}"; do
	if [ "$running" -ge "$JOBS" ]; then
		wait -n || true
		running=$((running - 1))
	fi
	echo "vmtest: ${names[$i]}: booting ${pkgs[$i]}${extras[$i]:+ (${extras[$i]})}"
	run_guest "$i" &
	running=$((running + 1))
done
wait

total_pass=0 total_fail=0 total_skip=0 bad=0
summary=""
for i in "${!names[@]}"; do
	name=${names[$i]} pkg=${pkgs[$i]} log="${logdirs[$i]}/${names[$i]}.log"
	secs=$(cat "${logdirs[$i]}/$name.secs" 2>/dev/null || echo '?')
	tr -d '\r' < "$log" | grep -E '^(# |#   |    |wall time |NOT SKIPPED )' | grep -vE ':OK$' | sed "s/^/  $name: /" || true
	line=$(tr -d '\r' < "$log" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1 || true)
	if [ -z "$line" ]; then
		echo "vmtest: $name: no result in ${secs}s; the console's last lines:"
		tr -d '\r' < "$log" | tail -n 30 | sed 's/^/    /'
		bad=$((bad + 1))
		summary="$summary$name ($pkg, ${secs}s): no result\n"
		continue
	fi
	read -r p _ f _ s _ <<< "$(echo "$line" | tr -d ',')"
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + ${s:-0}))
	[ "$f" -eq 0 ] || bad=$((bad + 1))
	summary="$summary$name ($pkg, ${secs}s): $line\n"
done
echo "vmtest: per kernel:"
printf "$summary" | sed 's/^/  /'
echo "vmtest: $total_pass passed, $total_fail failed, $total_skip skipped"
# The failed tests by name with their first reason, last: CI shows the
# end of the output (test_progs ends with a "FAILED unit: why" line each;
# static_smoke's steps are "# NAME:FAIL").
for i in "${!names[@]}"; do
	tr -d '\r' < "${logdirs[$i]}/${names[$i]}.log" |
		sed -n -e 's/^FAILED /FAILED /p' -e 's/^# \(static_.*\):FAIL$/FAILED \1/p' |
		cut -c 1-300 | sed "s/^/vmtest: ${names[$i]}: /" || true
done
[ "$bad" -eq 0 ]
