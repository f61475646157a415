#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A mutation check: known bugs put into a copy of the tree one at a time,
# each built and run against the tests that must catch it. A mutant no
# test catches fails the run: the tests no longer hold what they claim.
#
#   scripts/mutate.sh BUILD_DIR [MUTANT ...]
#
# The copy of the tree (tracked files, as they are in the worktree) lives
# in BUILD_DIR/mutate/, built there incrementally: a run rebuilds what the
# last mutant and this one touch. Prints "mutant NAME: caught by TEST" or
# "mutant NAME: SURVIVED" for each, and exits non-zero if any survived, or
# if a mutant no longer applies (its line changed: update it here).
# The tests of each run first on the unmutated copy: one that fails there
# (a flake, or another user's load) cannot catch anything, and is said.
set -euo pipefail

# name @ file @ perl substitution (applied to the whole file, -0) @ tests to
# run, cheapest first (test_progs -t names; the first that fails catches it)
MUTANTS=(
	# the BPF programs never wake a sleeping reader: it sleeps up to its
	# poll timeout (--flush-ms) while the ring fills
	"no_wakeup@bpf/common.bpf.h@s/return BPF_RB_FORCE_WAKEUP;/return BPF_RB_NO_WAKEUP;/; s/if \(!knobs.wakeup_bytes\)\n\t\treturn 0;/if (!knobs.wakeup_bytes)\n\t\treturn BPF_RB_NO_WAKEUP;/@=record_wakeup_both_cpus,=report_live_pipe"
	# the perf buffer's lost records, one too many in the ledger the file keeps
	"ledger_off_by_one@lib/capture/bpf/perfbuf.c@s/\tr->owed \+= n;/\tr->owed += n + 1;/@=perfbuf_lost,=perfbuf_exact"
	# a record the BPF side could not put in the ring, not counted
	"drop_not_counted@bpf/common.bpf.h@s/\tst->dropped\[type & \(RC_EV_SLOTS - 1\)\]\+\+;/\t(void)st;/@=record_drops,=stat_fail_on_drops"
	# a rotation that switches to no file: what follows goes nowhere
	"rotation_no_file@lib/capture/rotate.c@s/fd = create\(next, !r->rotating\);/fd = open(\"\/dev\/null\", O_WRONLY | O_CLOEXEC);/@=rotate_count,=rotate_max_files"
	# a kernel address that names no symbol
	"ksym_lookup_fails@lib/symbol/ksym.c@s/(rc_ksyms__find\(const struct rc_ksyms \*k, uint64_t addr, uint64_t \*off\)\n\{\n)/\$1\tif (k)\n\t\treturn NULL;\n/@=stacks_roundtrip,=profile_kernel"
)

die() {
	echo "mutate: $*" >&2
	exit 2
}

[ $# -ge 1 ] || die "usage: $0 BUILD_DIR [MUTANT ...]"
SRC=$(pwd)
[ -e "$SRC/scripts/mutate.sh" ] || die "run from the top of the tree"
WORK=$(mkdir -p "$1" && cd "$1" && pwd)/mutate
shift
want=("$@")
JOBS=${MUTATE_JOBS:-2}
mkdir -p "$WORK/src"
T0=$(date +%s)

# The tree's tracked files into the copy: only those whose content
# changed, with a new time, so that make rebuilds what they feed.
(cd "$SRC" && git ls-files -z --cached) | while IFS= read -r -d '' f; do
	[ -f "$SRC/$f" ] || continue
	if ! cmp -s "$SRC/$f" "$WORK/src/$f"; then
		mkdir -p "$WORK/src/$(dirname "$f")"
		cp "$SRC/$f" "$WORK/src/$f"
	fi
done
cd "$WORK/src"

B="$WORK/src/build"
TARGETS="$B/ringcap $B/test_progs $B/rc_workload $B/rc_load $B/rc_prof $B/rc_prof_nofp \
	$B/librc_prof_dl.so $B/librc_entry.so"
build() {
	local f objs=()
	for f in tests/bpf/*.bpf.c; do
		objs+=("$B/tests/bpf/$(basename "$f" .c).o")
	done
	# the copy's own make: nothing of the caller's (O=, SAN=) comes with it
	# shellcheck disable=SC2086
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -j"$JOBS" WERROR=0 $TARGETS "${objs[@]}" \
		> "$WORK/build.log" 2>&1
}

# One test on the copy's build: 0 when it passes.
run_test() {
	(cd build && RINGCAP_SRCDIR="$WORK/src" RINGCAP_EXPECTED_SKIPS="" \
		timeout 600 ./test_progs -t "$1" > "$WORK/test.log" 2>&1)
}

build || { tail -n 30 "$WORK/build.log"; die "the unmutated copy does not build"; }
echo "mutate: the unmutated copy built in $(($(date +%s) - T0)) s"

selected() {
	local w
	[ ${#want[@]} -eq 0 ] && return 0
	for w in "${want[@]}"; do [ "$w" = "$1" ] && return 0; done
	return 1
}

# Each test once on the unmutated build: a test that fails there catches nothing.
declare -A clean
for m in "${MUTANTS[@]}"; do
	IFS='@' read -r name _ _ tests <<< "$m"
	selected "$name" || continue
	for t in ${tests//,/ }; do
		[ -n "${clean[$t]:-}" ] && continue
		if run_test "$t"; then
			clean[$t]=1
		else
			clean[$t]=0
			echo "mutate: $t fails without a mutant (not used):"
			grep -E '^(FAILED|    )' "$WORK/test.log" | head -n 5 | sed 's/^/    /'
		fi
	done
done

echo "mutate: the tests pass unmutated (${#clean[@]} tests, $(($(date +%s) - T0)) s in all so far)"

bad=0
for m in "${MUTANTS[@]}"; do
	IFS='@' read -r name file expr tests <<< "$m"
	selected "$name" || continue
	cp "$file" "$WORK/orig"
	perl -0pi -e "$expr" "$file"
	if cmp -s "$file" "$WORK/orig"; then
		echo "mutant $name: NOT APPLIED ($file changed: update scripts/mutate.sh)"
		bad=$((bad + 1))
		continue
	fi
	t1=$(date +%s)
	caught=
	if ! build; then
		caught="the build (it no longer compiles)"
	else
		for t in ${tests//,/ }; do
			[ "${clean[$t]}" = 1 ] || continue
			if ! run_test "$t"; then
				caught=$t
				break
			fi
		done
	fi
	# the file back, newer than what the mutant built
	cp "$WORK/orig" "$file"
	touch "$file"
	if [ -n "$caught" ]; then
		echo "mutant $name: caught by $caught ($(($(date +%s) - t1)) s)"
		grep -E '^    ' "$WORK/test.log" | head -n 2 | sed 's/^/    /' || true
	else
		echo "mutant $name: SURVIVED ${tests} ($(($(date +%s) - t1)) s)"
		bad=$((bad + 1))
	fi
done
echo "mutate: $(($(date +%s) - T0)) s"
[ "$bad" -eq 0 ]
