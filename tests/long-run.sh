#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# A long capture at a steady rate: ringcap's memory and open descriptors
# must stay flat. Run as root from the top of the repository, after make:
#
#   tests/long-run.sh [SECONDS [RATE]]      (default: 600 s at 50000 events/s)
#
# Prints RSS (KiB) and descriptors every 30 s; fails when RSS grew by more
# than 8 MiB after the first minute, or the descriptors changed.
set -eu
secs=${1:-600}
rate=${2:-50000}
bin=${BIN:-build}
out=$(mktemp -d)/long.rcap
"$bin/ringcap" record -q -e syscalls,sched --flush-ms 200 -o "$out" -- \
	"$bin/rc_workload" steady "$rate" "$secs" &
pid=$!
sleep 1
first_rss= first_fds= worst=0 t=0
while kill -0 "$pid" 2>/dev/null && [ "$t" -lt "$secs" ]; do
	sleep 30
	t=$((t + 30))
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null) || break
	fds=$(ls "/proc/$pid/fd" | wc -l)
	echo "t=${t}s rss=${rss}KiB fds=$fds"
	if [ "$t" -eq 60 ]; then first_rss=$rss first_fds=$fds; fi
	if [ -n "$first_rss" ]; then
		[ $((rss - first_rss)) -gt "$worst" ] && worst=$((rss - first_rss))
		[ "$fds" -eq "$first_fds" ] || { echo "FAIL: descriptors $first_fds -> $fds"; exit 1; }
	fi
done
wait "$pid"
"$bin/ringcap" stat "$out" | head -4
rm -rf "$(dirname "$out")"
[ "$worst" -le 8192 ] || { echo "FAIL: RSS grew by ${worst} KiB"; exit 1; }
echo "ok: RSS grew by at most ${worst} KiB after the first minute; descriptors flat"
