#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run a command as one named stage and print its wall time:
#
#   scripts/timed.sh NAME COMMAND [ARG...]
#
# prints "stage NAME: N s (ok)" or "(failed, exit N)" when the command ends,
# appends "NAME N" to $STAGE_TIMES when that is set (.ci/run sums them), and
# exits with the command's status.
set -u
[ $# -ge 2 ] || { echo "usage: $0 NAME COMMAND [ARG...]" >&2; exit 2; }
name=$1
shift
start=$(date +%s)
"$@"
rc=$?
secs=$(($(date +%s) - start))
if [ "$rc" -eq 0 ]; then
	echo "stage $name: $secs s (ok)"
else
	echo "stage $name: $secs s (failed, exit $rc)"
fi
[ -n "${STAGE_TIMES:-}" ] && echo "$name $secs $rc" >> "$STAGE_TIMES"
exit "$rc"
