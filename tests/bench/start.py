#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""What a short recording costs: ringcap record against perf record on
`-- true`, and ringcap's anonymous memory on a storm.

Start and stop: `perf stat -r RUNS -e task-clock` of

  ringcap record -q -e syscalls:sys_enter_getppid -o X -- true
  perf record -q -e syscalls:sys_enter_getppid -o Y -- true

the two interleaved, a round of each at a time, ROUNDS rounds (ringcap
twice: with its cache of the kernel's BTF made by an untimed start, and
with RINGCAP_CACHE=off, which reads and walks the BTF each start); the table
gives the median round's mean CPU (task-clock, ms) and wall time (ms),
with perf stat's spread of that round (+- %) and the range over rounds.

Memory: ringcap record's RssAnon (/proc/PID/status: the heap and
anonymous mappings, not the rings' shared mappings) sampled every 10 ms
while it records `rc_load storm CALLS 1` (CALLS getppid() calls), for
each of -e syscalls:sys_enter_getppid, -e syscalls (every syscall) and a
profile (-F 999 -g): its peak, with the events captured.

  start.py BUILD [--runs N] [--rounds N] [--calls N] [--baseline DIR,...]
           [-o FILE]

--baseline: the ringcap of other builds, in the same rounds (before and
after a change). Root, perf (linux-perf) for its column.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

TP = "syscalls:sys_enter_getppid"


def perf_stat(argv, runs, tmp, env=None):
    """perf stat -r RUNS -e task-clock ARGV: (cpu ms, wall ms, cpu +-%, wall +-%)."""
    out = os.path.join(tmp, "stat.txt")
    subprocess.run(["perf", "stat", "-r", str(runs), "-e", "task-clock", "-o", out, "--"]
                   + argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                   env=dict(os.environ, **(env or {})))
    text = open(out).read()
    cpu = re.search(r"([\d.,]+) msec task-clock.*?\(\s*\+-\s*([\d.]+)%", text)
    wall = re.search(r"([\d.,]+) \+- ([\d.,]+) seconds time elapsed\s*\(\s*\+-\s*([\d.]+)%",
                     text)
    if not cpu or not wall:
        raise RuntimeError("cannot read perf stat's output:\n" + text)
    return (float(cpu.group(1).replace(",", "")), float(wall.group(1).replace(",", "")) * 1e3,
            float(cpu.group(2)), float(wall.group(3)))


def rss_anon_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def storm(ringcap, load, args, calls, tmp):
    """Peak RssAnon (KiB) of ringcap record ARGS -- rc_load storm CALLS 1, and its summary."""
    out = os.path.join(tmp, "storm.rcap")
    p = subprocess.Popen([ringcap, "record"] + args + ["-o", out, "--", load, "storm",
                                                       str(calls), "1"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak = 0
    while p.poll() is None:
        v = rss_anon_kib(p.pid)
        if v is not None and v > peak:
            peak = v
        time.sleep(0.01)
    err = p.stderr.read()
    if p.returncode:
        raise RuntimeError("ringcap record %s failed: %s" % (" ".join(args), err))
    m = re.search(r"(\d+) events captured, (\d+) dropped", err)
    os.unlink(out)
    return peak, (int(m.group(1)), int(m.group(2))) if m else (None, None)


def fmt_round(rounds):
    """The median round of ROUNDS [(cpu, wall, cpu%, wall%)], with the range over rounds."""
    def med(i):
        return sorted(rounds, key=lambda r: r[i])[len(rounds) // 2]
    c, w = med(0), med(1)
    cr = "%.1f-%.1f" % (min(r[0] for r in rounds), max(r[0] for r in rounds))
    wr = "%.1f-%.1f" % (min(r[1] for r in rounds), max(r[1] for r in rounds))
    return "%.1f (+-%.1f%%; %s)" % (c[0], c[2], cr), "%.1f (+-%.1f%%; %s)" % (w[1], w[3], wr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--calls", type=int, default=2000000)
    ap.add_argument("--baseline", default="")
    ap.add_argument("-o", "--output")
    a = ap.parse_args()

    builds = [a.build] + [b for b in a.baseline.split(",") if b]
    recs = [("ringcap" + ("" if i == 0 else " (%s)" % b), os.path.join(b, "ringcap"))
            for i, b in enumerate(builds)]
    load = os.path.join(a.build, "rc_load")
    tmp = tempfile.mkdtemp(prefix="rc-start.")
    try:
        # the kernel BTF's cache (ringcap-record(1), FILES) of this run's own, made
        # by an untimed start: each build's rows warm; the first build's also off
        cache = {"RINGCAP_CACHE_DIR": os.path.join(tmp, "cache")}
        os.mkdir(cache["RINGCAP_CACHE_DIR"], 0o700)
        argvs = [(name, [path, "record", "-q", "-e", TP, "-o", os.path.join(tmp, "x.rcap"),
                         "--", "true"], cache) for name, path in recs]
        argvs.insert(1, ("ringcap, RINGCAP_CACHE=off", argvs[0][1], {"RINGCAP_CACHE": "off"}))
        if shutil.which("perf"):
            argvs.append(("perf record", ["perf", "record", "-q", "-e", TP, "-o",
                                          os.path.join(tmp, "y.data"), "--", "true"], None))
        for _, argv, env in argvs:
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           check=True, env=dict(os.environ, **(env or {})))
        res = {name: [] for name, _, _ in argvs}
        for _ in range(a.rounds):
            for name, argv, env in argvs:
                res[name].append(perf_stat(argv, a.runs, tmp, env))
        lines = ["## Start and stop: `RECORDER -q -e %s -o FILE -- true`" % TP, "",
                 "`perf stat -r %d -e task-clock`, %d rounds interleaved: the median "
                 "round's mean (perf stat's +-; the range of the rounds' means)." %
                 (a.runs, a.rounds), "",
                 "| recorder | CPU ms | wall ms |", "|---|---:|---:|"]
        for name, _, _ in argvs:
            cpu, wall = fmt_round(res[name])
            lines.append("| %s | %s | %s |" % (name, cpu, wall))
        lines += ["", "## Memory: peak RssAnon of `ringcap record ARGS -- rc_load storm %d 1`"
                  % a.calls, "", "Sampled every 10 ms from /proc/PID/status (the rings' "
                  "shared mappings are not in it).", "",
                  "| recorder | ARGS | peak RssAnon MiB | captured | dropped |",
                  "|---|---|---:|---:|---:|"]
        for name, path in recs:
            for args in (["-e", TP], ["-e", "syscalls"], ["-F", "999", "-g"]):
                peak, (cap, drop) = storm(path, load, args, a.calls, tmp)
                lines.append("| %s | `%s` | %.1f | %s | %s |" % (
                    name, " ".join(args), peak / 1024.0, cap, drop))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
