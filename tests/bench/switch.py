#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""How close rotated files keep to their size, and how promptly a signal switches.

Given one or more build directories (e.g. this tree's and an older one's),
runs the same cases with each, alternating, in one run:

  size-raw   record -e syscalls --no-compress --switch-output=1M of
             rc_workload getppid 300000 (about 32 MiB of records)
  size-zstd  record -e syscalls --switch-output=128K of rc_workload getppid
             3000000 (compressed; the ring drops what the drain cannot take)
  signal     record -e syscalls --switch-output=signal of rc_workload seq
             1500000, a SIGUSR2 every 20 ms while it runs

and prints, per build and case, the median over --runs of: files made,
the largest file but the last (the last also holds the stop's backlog)
against the switch size, and for signal the signals sent against the
files made.

Usage: switch.py BUILD_DIR [BUILD_DIR...] [--runs N]
"""
import argparse
import glob
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time


def files_of(prefix):
    return sorted(glob.glob(prefix + ".*"))


def size_case(build, tmp, switch, calls, extra):
    prefix = os.path.join(tmp, "s.rcap")
    cmd = [os.path.join(build, "ringcap"), "record", "-q", "-e", "syscalls",
           "--switch-output=" + switch, "-o", prefix] + extra + \
        ["--", os.path.join(build, "rc_workload"), "getppid", str(calls)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    files = files_of(prefix)
    sizes = [os.path.getsize(f) for f in files]
    for f in files:
        os.unlink(f)
    return len(sizes), max(sizes[:-1]) if len(sizes) > 1 else 0


def signal_case(build, tmp):
    prefix = os.path.join(tmp, "g.rcap")
    cmd = [os.path.join(build, "ringcap"), "record", "-q", "-e", "syscalls",
           "--ringbuf-size", "64M", "--switch-output=signal", "-o", prefix, "--",
           os.path.join(build, "rc_workload"), "seq", "1500000"]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not files_of(prefix):  # the handlers are in place once the first file is there
        time.sleep(0.01)
    sent = 0
    while p.poll() is None:
        p.send_signal(signal.SIGUSR2)
        sent += 1
        time.sleep(0.02)
    files = files_of(prefix)
    for f in files:
        os.unlink(f)
    return sent, len(files)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("builds", nargs="+")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    res = {b: {"size-raw": [], "size-zstd": [], "signal": []} for b in a.builds}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(a.runs):
            for b in a.builds:  # alternating: the machine's noise falls on both
                res[b]["size-raw"].append(size_case(b, tmp, "1M", 300000, ["--no-compress"]))
                res[b]["size-zstd"].append(size_case(b, tmp, "128K", 3000000, []))
                res[b]["signal"].append(signal_case(b, tmp))
    med = statistics.median
    for b in a.builds:
        r = res[b]
        print(b)
        for case, switch in (("size-raw", 1 << 20), ("size-zstd", 128 << 10)):
            n = med(x[0] for x in r[case])
            big = med(x[1] for x in r[case])
            print(f"  {case:9} files {n:5.0f}   largest but the last {big / 1024:8.0f} KiB"
                  f" = {big / switch:4.1f}x the switch size")
        sent = med(x[0] for x in r["signal"])
        made = med(x[1] for x in r["signal"])
        print(f"  signal    signals {sent:3.0f}   files {made:4.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
