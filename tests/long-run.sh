#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# A long capture at a steady rate, switching files all along: ringcap's
# memory and open descriptors must stay flat across the switches, and
# every file of the run left must be complete. Run as root from the top of
# the repository, after make:
#
#   tests/long-run.sh [SECONDS [RATE]]      (default: 600 s at 50000 events/s)
#
# The environment shortens or changes it: SWITCH (--switch-output, default
# 30s), KEEP (--switch-max-files, default 5), EVERY (seconds between two
# looks, default 30), WARMUP (the look the others are compared with,
# default 60 s). A SIGHUP is sent at every third look: a switch too.
#
#   SWITCH=5s EVERY=10 WARMUP=20 tests/long-run.sh 90     (a short run)
#
# Prints RSS (KiB) and descriptors at each look; fails when RSS grew by
# more than 8 MiB after the warm-up, the descriptors changed, a file left
# is not complete, or the run kept other than KEEP files.
set -eu
secs=${1:-600}
rate=${2:-50000}
bin=${BIN:-build}
switch=${SWITCH:-30s}
keep=${KEEP:-5}
every=${EVERY:-30}
warmup=${WARMUP:-60}
dir=$(mktemp -d)
out=$dir/long.rcap
"$bin/ringcap" record -q -e syscalls,sched --flush-ms 200 --switch-output="$switch" \
	--switch-max-files="$keep" -o "$out" -- "$bin/rc_workload" steady "$rate" "$secs" &
pid=$!
sleep 1
first_rss= first_fds= worst=0 t=0 looks=0 hups=0
while kill -0 "$pid" 2>/dev/null && [ $((t + every)) -lt "$secs" ]; do
	sleep "$every"
	t=$((t + every))
	looks=$((looks + 1))
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null) || break
	fds=$(ls "/proc/$pid/fd" | wc -l)
	files=$(ls "$out".* 2>/dev/null | wc -l)
	echo "t=${t}s rss=${rss}KiB fds=$fds files=$files"
	if [ "$t" -ge "$warmup" ] && [ -z "$first_rss" ]; then first_rss=$rss first_fds=$fds; fi
	if [ -n "$first_rss" ]; then
		[ $((rss - first_rss)) -gt "$worst" ] && worst=$((rss - first_rss))
		[ "$fds" -eq "$first_fds" ] || { echo "FAIL: descriptors $first_fds -> $fds"; exit 1; }
	fi
	if [ $((looks % 3)) -eq 0 ]; then
		kill -HUP "$pid"
		hups=$((hups + 1))
	fi
done
wait "$pid"
n=0
for f in "$out".*; do
	n=$((n + 1))
	# stat names each file of a rotated run first, then "# FILE: complete, ..."
	"$bin/ringcap" stat "$f" | grep -q '^# .*: complete,' ||
		{ echo "FAIL: $f is not complete"; "$bin/ringcap" stat "$f" | head -8; exit 1; }
done
last=$(ls "$out".* | tail -1)
"$bin/ringcap" stat "$last" | head -8
echo "$n files left of the run, the last ${last##*.}; $hups SIGHUPs"
rm -rf "$dir"
[ "$n" -eq "$keep" ] || { echo "FAIL: $n files left, not $keep"; exit 1; }
[ "$worst" -le 8192 ] || { echo "FAIL: RSS grew by ${worst} KiB"; exit 1; }
echo "ok: RSS grew by at most ${worst} KiB after the warm-up; descriptors flat across switches"
