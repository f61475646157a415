#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""What --since/--until save: reading the last second of a large capture against all of it.

A syscall storm (rc_workload steady RATE SECONDS: RATE getppid() a second,
evenly) is recorded twice, once as one file and once rotated
(--switch-output=TIME), with ringcap record -e syscalls. Then, for each,
ringcap report -v --format csv reads all of it, its first second (--until
1: later chunks passed over by their headers, later files by their
trailers) and its last second (--since the last record's time less 1 s:
earlier files passed over by their trailers, the chunks before it by the
index; neither decompressed); median wall
time of --runs, with the chunks decompressed and the bytes of records
they held (report -v's "read:" line) and the events printed.

Usage: range.py BUILD_DIR [--seconds S] [--rate R] [--switch TIME] [--runs N] [-o FILE]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time


def record(rc, wl, out, seconds, rate, extra):
    cmd = [rc, "record", "-q", "-e", "syscalls", "-o", out] + extra + \
        ["--", wl, "steady", str(rate), str(seconds)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def duration(rc, inputs):
    st = subprocess.run([rc, "stat", "--json"] + inputs, check=True, capture_output=True,
                        text=True)
    return json.loads(st.stdout)["duration_s"]


def report(rc, inputs, since, until):
    cmd = [rc, "report", "-v", "--format", "csv"] + inputs
    if since is not None:
        cmd += ["--since", "%.3f" % since]
    if until is not None:
        cmd += ["--until", "%.3f" % until]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = 0
    while True:
        b = p.stdout.read(1 << 20)
        if not b:
            break
        lines += b.count(b"\n")
    err = p.stderr.read().decode()
    if p.wait():
        sys.exit("report failed: " + err)
    wall = time.monotonic() - t0
    m = re.search(r"read: (\d+) chunks decompressed \((\d+) bytes of records\) of (\d+) "
                  r"files?, (\d+) passed over whole", err)
    if not m:
        sys.exit("no 'read:' line from report -v: " + err)
    return wall, int(m[1]), int(m[2]), int(m[3]), int(m[4]), lines - 1  # less the header


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--seconds", type=int, default=30)
    ap.add_argument("--rate", type=int, default=150000)
    ap.add_argument("--switch", default="5s")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    rc = os.path.join(a.build, "ringcap")
    wl = os.path.join(a.build, "rc_workload")
    rows = []
    with tempfile.TemporaryDirectory(prefix="rc-bench-range.") as d:
        one = os.path.join(d, "one.rcap")
        rot = os.path.join(d, "rot")
        os.mkdir(rot)
        print("recording %d s at %d calls/s, as one file, then rotated every %s..." %
              (a.seconds, a.rate, a.switch), file=sys.stderr)
        record(rc, wl, one, a.seconds, a.rate, [])
        record(rc, wl, os.path.join(rot, "run.rcap"), a.seconds, a.rate,
               ["--switch-output=" + a.switch])
        for name, inputs in (("one file", [one]), ("rotated", [rot])):
            files = [os.path.join(rot, f) for f in os.listdir(rot)] if inputs == [rot] \
                else [one]
            size = sum(os.path.getsize(f) for f in files)
            last = duration(rc, inputs)
            for what, since, until in (("all", None, None),
                                       ("first 1 s", None, 1.0),
                                       ("last 1 s", max(last - 1.0, 0.0), None)):
                runs = [report(rc, inputs, since, until) for _ in range(a.runs)]
                wall = statistics.median(r[0] for r in runs)
                _, chunks, raw, nfiles, skipped, events = runs[-1]
                rows.append((name, nfiles, size, what, wall, chunks, raw, skipped, events))
    out = ["| capture | files | on disk | read | wall (s) | chunks decompressed | "
           "records decompressed | files passed over | events |",
           "|---|---:|---:|---|---:|---:|---:|---:|---:|"]
    for name, nfiles, size, what, wall, chunks, raw, skipped, events in rows:
        out.append("| %s | %d | %.1f MiB | %s | %.3f | %d | %.1f MiB | %d | %d |" %
                   (name, nfiles, size / 2**20, what, wall, chunks, raw / 2**20, skipped,
                    events))
    text = "\n".join(out) + "\n"
    sys.stdout.write(text)
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
