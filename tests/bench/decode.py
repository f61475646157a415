#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Decoding speed: ringcap report at -j 1 and -j 2 against perf script and trace-cmd report.

The workload: rc_load storm CALLS 1 (CALLS getppid() calls on one CPU),
recorded as the one tracepoint syscalls:sys_enter_getppid by each tool:
ringcap record -e TP, perf record -e TP, trace-cmd record -e TP -F -c
(through bench.py's mount-namespace shim, as bench.py runs it). Then, in
RUNS rounds, each decoder in turn (so that a round's figures share the
machine's weather), output to /dev/null:

  ringcap report -j 1 / -j 2: text, --format json, --format csv, --summary
  perf script
  trace-cmd report

and, on a capture with stacks (ringcap record -g -e TP of rc_load storm
CALLS / 4: a kernel and a user stack on every event), ringcap report
-j 1 / -j 2 --format folded and --summary.

--part formats (make bench-decode PART=formats) times instead each
--format of report on one capture of CALLS events (rc_load storm; text,
json, csv, perf-script, perfetto, perfetto-json) and on the -g capture of
CALLS / 4 (folded, pprof, flamegraph, perf-script, text): the median wall
and CPU time of RUNS rounds, output to /dev/null, and the output's size in
bytes (one more run, its output counted through a pipe), with the
capture's own size beside them.

Figures: the median wall time over the rounds with its spread (min-max),
events a second at the median, the median CPU time (user + system of the
decoder: the threads' overhead shows as CPU above -j 1's), and the peak
RSS (ru_maxrss of the child). ringcap's rows are measured on two captures,
CALLS and CALLS / 4, to show that report's RSS does not grow with the file.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import TraceCmd  # noqa: E402  (the shim that lets trace-cmd record run)

TP = "syscalls:sys_enter_getppid"
MODES = [("text", []), ("json", ["--format", "json"]), ("csv", ["--format", "csv"]),
         ("--summary", ["--summary"])]
STACK_MODES = [("folded", ["--format", "folded"]), ("--summary", ["--summary"])]


def timed(argv, tmp):
    """Run argv, stdout to /dev/null; return (wall s, cpu s, maxrss KiB, status).

    The peak RSS from /usr/bin/time: a child's ru_maxrss counts the Python
    it was forked from, before its exec."""
    res = os.path.join(tmp, "rss")
    with open(os.devnull, "w") as null:
        t = time.monotonic()
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", res, *argv], stdout=null,
                             stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t
    with open(res) as f:
        rss = int(f.read().split()[-1])
    return wall, ru.ru_utime + ru.ru_stime, rss, status


FORMATS = ["text", "json", "csv", "perf-script", "perfetto", "perfetto-json"]
STACK_FORMATS = ["folded", "pprof", "flamegraph", "perf-script", "text"]


def out_size(argv):
    """Run argv; return the bytes it wrote to stdout, or -1 when it failed."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    n = 0
    while True:
        b = p.stdout.read(1 << 20)
        if not b:
            break
        n += len(b)
    return n if p.wait() == 0 else -1


def formats(args, rc, load, tmp):
    """Each --format's time and output size, on a storm capture and a -g one."""
    nstk = args.calls // 4
    cap = os.path.join(tmp, "storm.rcap")
    stk = os.path.join(tmp, "stacks.rcap")
    jobs = []  # (format, capture, events, argv)
    if record([rc, "record", "-q", "-e", TP, "-o", cap, "--", load, "storm", str(args.calls),
               "1"], "ringcap record"):
        for f in FORMATS:
            jobs.append((f, "storm", args.calls, [rc, "report", "--format", f, cap]))
    if record([rc, "record", "-q", "-g", "-e", TP, "-o", stk, "--", load, "storm", str(nstk),
               "1"], "ringcap record -g"):
        for f in STACK_FORMATS:
            jobs.append((f, "-g", nstk, [rc, "report", "--format", f, stk]))
    res = {(f, c): [] for f, c, _, _ in jobs}
    for i in range(args.runs):
        for f, c, _, argv in jobs:
            res[(f, c)].append(timed(argv, tmp))
        sys.stderr.write("decode: round %d/%d done\n" % (i + 1, args.runs))
    sizes = {(f, c): out_size(argv) for f, c, _, argv in jobs}
    lines = ["Each report --format on one capture: %d getppid events (rc_load storm, %s), "
             "%s bytes; and %d events with a kernel and a user stack each (record -g), "
             "%s bytes. Median of %d rounds interleaved, output to /dev/null (its size from "
             "one more run); machine: %d CPUs, shared, load average %.1f at the end" %
             (args.calls, TP, os.path.getsize(cap) if os.path.exists(cap) else "-", nstk,
              os.path.getsize(stk) if os.path.exists(stk) else "-", args.runs, os.cpu_count(),
              os.getloadavg()[0]), "",
             "| format | capture | events | output (bytes) | bytes/event | wall (s) | "
             "spread (s) | CPU (s) | peak RSS (MiB) |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for f, c, n, _ in jobs:
        r = res[(f, c)]
        if any(x[3] for x in r) or sizes[(f, c)] < 0:
            lines.append("| %s | %s | %d | failed | | | | | |" % (f, c, n))
            continue
        lines.append("| %s | %s | %d | %d | %.1f | %.2f | %.2f-%.2f | %.2f | %.1f |" %
                     (f, c, n, sizes[(f, c)], sizes[(f, c)] / n,
                      statistics.median(x[0] for x in r), min(x[0] for x in r),
                      max(x[0] for x in r), statistics.median(x[1] for x in r),
                      max(x[2] for x in r) / 1024))
    return "\n".join(lines) + "\n"


def record(argv, what):
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if p.returncode:
        sys.stderr.write("decode: %s failed (exit %d): %s\n" %
                         (what, p.returncode, p.stderr.decode(errors="replace")[-500:]))
        return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build", help="the build directory, with ringcap and rc_load")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("-n", "--calls", type=int, default=4000000)
    ap.add_argument("-o", "--output", help="also write the markdown here")
    ap.add_argument("--part", choices=["decoders", "formats"], default="decoders",
                    help="decoders: ringcap against perf script and trace-cmd report; "
                    "formats: each --format's time and output size")
    args = ap.parse_args()
    rc = os.path.abspath(os.path.join(args.build, "ringcap"))
    load = os.path.abspath(os.path.join(args.build, "rc_load"))
    tmp = tempfile.mkdtemp(prefix="rc-decode-")
    if args.part == "formats":
        text = formats(args, rc, load, tmp)
        sys.stdout.write(text)
        if args.output:
            with open(args.output, "w") as f:
                f.write(text)
        subprocess.run(["rm", "-rf", tmp])
        return
    sizes = [args.calls, args.calls // 4]
    caps = {}
    for n in sizes:
        cap = os.path.join(tmp, "storm%d.rcap" % n)
        if record([rc, "record", "-q", "-e", TP, "-o", cap, "--", load, "storm", str(n), "1"],
                  "ringcap record"):
            caps[n] = cap
    jobs = []  # (name, events, argv)
    for n in sizes:
        for j in ("1", "2"):
            for name, extra in MODES:
                if n in caps:
                    jobs.append(("ringcap report -j %s %s%s" % (j, name, "" if n == sizes[0]
                                                                 else ", a quarter"), n,
                                 [rc, "report", "-j", j, *extra, caps[n]]))
    # stacks: every event's kernel and user stack (-g), folded and summed per thread count
    nstk = args.calls // 4
    stk = os.path.join(tmp, "stacks.rcap")
    if record([rc, "record", "-q", "-g", "-e", TP, "-o", stk, "--", load, "storm", str(nstk),
               "1"], "ringcap record -g"):
        for j in ("1", "2"):
            for name, extra in STACK_MODES:
                jobs.append(("ringcap report -j %s %s, -g capture" % (j, name), nstk,
                             [rc, "report", "-j", j, *extra, stk]))
    perf = os.path.join(tmp, "storm.perf")
    if record(["perf", "record", "-q", "-e", TP, "-o", perf, "--", load, "storm",
               str(args.calls), "1"], "perf record"):
        jobs.append(("perf script", args.calls, ["perf", "script", "-i", perf]))
    dat = os.path.join(tmp, "storm.dat")
    if record(["unshare", "-m", "sh", "-c", TraceCmd.SHIM, "shim", "trace-cmd", "record", "-q",
               "-e", TP, "-F", "-c", "-o", dat, load, "storm", str(args.calls), "1"],
              "trace-cmd record"):
        jobs.append(("trace-cmd report", args.calls, ["trace-cmd", "report", dat]))

    res = {name: [] for name, _, _ in jobs}
    for i in range(args.runs):
        for name, _, argv in jobs:
            res[name].append(timed(argv, tmp))
        sys.stderr.write("decode: round %d/%d done\n" % (i + 1, args.runs))

    lines = ["Decoding %d getppid events (rc_load storm, one tracepoint, %s), "
             "median of %d rounds interleaved, output to /dev/null; machine: %d CPUs, "
             "load average %.1f at the end" % (args.calls, TP, args.runs, os.cpu_count(),
                                                os.getloadavg()[0]), "",
             "| decoder | events | wall (s) | spread (s) | events/s | CPU (s) | peak RSS (MiB) |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for name, n, _ in jobs:
        r = res[name]
        if any(x[3] for x in r):
            lines.append("| %s | %d | failed | | | | |" % (name, n))
            continue
        wall = statistics.median(x[0] for x in r)
        lines.append("| %s | %d | %.2f | %.2f-%.2f | %.2fM | %.2f | %.1f |" %
                     (name, n, wall, min(x[0] for x in r), max(x[0] for x in r),
                      n / wall / 1e6, statistics.median(x[1] for x in r),
                      max(x[2] for x in r) / 1024))
    lines.append("")
    pairs = [(name, "ringcap report -j %%s %s" % name) for name, _ in MODES]
    pairs += [(name + " on the -g capture", "ringcap report -j %%s %s, -g capture" % name)
              for name, _ in STACK_MODES]
    for name, row in pairs:
        a, b = res.get(row % "1"), res.get(row % "2")
        if a and b and not any(x[3] for x in a + b):
            lines.append("- %s: -j 2 is %.2fx -j 1 in wall time, %.2fx its CPU time (medians)" %
                         (name, statistics.median(x[0] for x in a) /
                          statistics.median(x[0] for x in b),
                          statistics.median(x[1] for x in b) /
                          statistics.median(x[1] for x in a)))
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
