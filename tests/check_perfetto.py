#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check a `ringcap report --format perfetto-json` file: it is JSON in the Chrome
trace-event format, every complete slice ("X") has its fields, and on each
track (pid, tid) slices nest and never overlap. Prints the number of slices
named NAME (argv[2]) on the tracks of pid PID (argv[3]), for the caller to
compare with what it knows."""
import json
import sys

with open(sys.argv[1]) as f:
    events = json.load(f)["traceEvents"]
name = sys.argv[2] if len(sys.argv) > 2 else None
pid = int(sys.argv[3]) if len(sys.argv) > 3 else None

tracks = {}
named = 0
for e in events:
    assert e["ph"] in ("X", "M", "i"), e
    if e["ph"] != "X":
        continue
    for k in ("pid", "tid", "ts", "dur", "name"):
        assert k in e, (k, e)
    assert e["dur"] >= 0, e
    tracks.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"], e))
    if e["name"] == name and (pid is None or e["pid"] == pid):
        named += 1

EPS = 0.0005  # half a nanosecond, in microseconds
for track, slices in tracks.items():
    slices.sort(key=lambda s: (s[0], -s[1]))
    stack = []
    for start, end, e in slices:
        while stack and start >= stack[-1][1] - EPS:
            stack.pop()
        if stack and end > stack[-1][1] + EPS:
            sys.exit(f"track {track}: {e} overlaps {stack[-1][2]} without nesting")
        stack.append((start, end, e))
print(f"{len(tracks)} tracks, {sum(len(s) for s in tracks.values())} slices, {named} named")
