#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The profiling benchmark: ringcap record -F -g against perf record -g.

Two copies of rc_prof work, one pinned to each CPU, do a fixed amount of
work, 5:3:2 in work_a, work_b and work_c, and time it; each recorder
samples the whole system at 999 Hz (cpu-clock here: no hardware PMU) for
the run:

  ringcap record -a -F 999 -g          (frame pointers, stacks stored once)
  ringcap record -a -F 999 --call-graph dwarf   (8 KiB of stack a sample,
                                       unwound while recording, stacks stored once)
  perf record -a -F 999 -g             (frame pointers)
  perf record -a -F 999 --call-graph dwarf   (8 KiB of stack a sample)

In rounds, each recorder in turn after an untraced run, median of --runs:
the workload's slowdown (its wall time against the untraced run's); the
recorder's own CPU (user + system, from wait4(), start-up and the final
write included) a sample; bytes a sample; samples lost. Then the
top-10 functions of rc_prof by self samples, from each recorder's report
of its last run (ringcap report --summary, perf report --no-children
--sort symbol), side by side.

Usage: profile.py BUILD_DIR [--runs N] [--rounds N] [-o FILE]
"""
import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HZ = "999"
WARMUP_S = 2.0  # the recorders' start-up (BTF, synthesis) before the workload


def wall_of(path):
    with open(path) as f:
        return int(f.read().split()[0])


def run_workload(build, rounds, tmp):
    """Both CPUs' workers; their wall times (ns), the slower one."""
    outs, procs = [], []
    for cpu in (0, 1):
        out = os.path.join(tmp, "wall%d" % cpu)
        outs.append(out)
        procs.append(subprocess.Popen(["taskset", "-c", str(cpu), os.path.join(build, "rc_prof"),
                                       "work", str(rounds), out]))
    for p in procs:
        if p.wait() != 0:
            sys.exit("bench-profile: rc_prof work failed")
    return max(wall_of(o) for o in outs)


class Recorder:
    def __init__(self, name, argv, out):
        self.name, self.argv, self.out = name, argv, out


def recorders(build, tmp):
    rc = os.path.join(build, "ringcap")
    r_out = os.path.join(tmp, "prof.rcap")
    p_out = os.path.join(tmp, "perf.data")
    d_out = os.path.join(tmp, "perf-dwarf.data")
    return [
        Recorder("ringcap record -F 999 -g", [rc, "record", "-q", "-a", "-F", HZ, "-g", "-o", r_out],
                 r_out),
        Recorder("ringcap record -F 999 --call-graph dwarf",
                 [rc, "record", "-q", "-v", "-a", "-F", HZ, "--call-graph", "dwarf", "-o",
                  r_out + ".dwarf"], r_out + ".dwarf"),
        Recorder("perf record -F 999 -g", ["perf", "record", "-q", "-a", "-F", HZ, "-g", "-o",
                                           p_out], p_out),
        Recorder("perf record -F 999 --call-graph dwarf",
                 ["perf", "record", "-q", "-a", "-F", HZ, "--call-graph", "dwarf", "-o", d_out],
                 d_out),
    ]


def traced(build, rec, rounds, tmp):
    """Run the workload under @rec; its wall time, and the recorder's CPU ns."""
    for f in (rec.out, rec.out + ".old"):
        if os.path.exists(f):
            os.unlink(f)
    # stderr to a file: a pipe nobody reads could fill and stop the recorder (-v)
    err = open(os.path.join(tmp, "stderr"), "w+")
    p = subprocess.Popen(rec.argv, stdout=subprocess.DEVNULL, stderr=err)
    p.stderr = err
    time.sleep(WARMUP_S)
    if p.poll() is not None:
        err.seek(0)
        sys.exit("bench-profile: %s exited early: %s" % (rec.name, err.read()))
    wall = run_workload(build, rounds, tmp)
    p.send_signal(signal.SIGINT)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = status
    # perf ends by SIGINT again (or exits 130) once its file is complete
    ok = (os.WIFEXITED(status) and os.WEXITSTATUS(status) in (0, 130)) or \
        (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGINT)
    err.seek(0)
    text = err.read()
    err.close()
    if not ok:
        sys.exit("bench-profile: %s failed: %s" % (rec.name, text))
    # ringcap -v, dwarf: the writer's time unwinding a stack
    m = re.search(r"dwarf unwinding: .*; ([\d.]+) us a stack", text)
    return wall, int((ru.ru_utime + ru.ru_stime) * 1e9), float(m.group(1)) if m else None


def samples_ringcap(build, path):
    st = json.loads(subprocess.run([os.path.join(build, "ringcap"), "stat", "--json", path],
                                   capture_output=True, text=True, check=True).stdout)
    ev = next(e for e in st["by_event"] if e["event"] == "sample")
    return ev["in_file"], ev["dropped"] + ev["missing"] + ev["missed"]


def samples_perf(path):
    out = subprocess.run(["perf", "report", "-i", path, "--stats"], capture_output=True,
                         text=True).stdout
    n = re.search(r"SAMPLE events:\s+(\d+)", out)
    lost = re.search(r"LOST events:\s+(\d+)", out)
    lost_samples = re.search(r"LOST_SAMPLES events:\s+(\d+)", out)
    nlost = 0
    for m in (lost, lost_samples):
        if m:
            nlost += int(m.group(1))
    return int(n.group(1)) if n else 0, nlost


def top_ringcap(build, path):
    out = subprocess.run([os.path.join(build, "ringcap"), "report", "--summary", "--comm",
                          "rc_prof", "-t", "10", path], capture_output=True, text=True).stdout
    rows, on = [], False
    for line in out.splitlines():
        if line.startswith("CHILDREN"):
            on = True
            continue
        m = re.match(r"\s*([\d.]+)%\s+([\d.]+)%\s+(.*)$", line) if on else None
        if m:
            rows.append((float(m.group(2)), m.group(3)))
    return sorted(rows, reverse=True)[:10]


def top_perf(path):
    out = subprocess.run(["perf", "report", "-i", path, "--stdio", "--no-children", "--comm",
                          "rc_prof", "--percentage", "relative", "--sort", "symbol", "-g",
                          "none", "-q"],
                         capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+\[.\]\s+(\S+)", line) or \
            re.match(r"\s*([\d.]+)%\s+(\S+)", line)
        if m:
            rows.append((float(m.group(1)), m.group(2)))
    return rows[:10]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=5000, help="rc_prof work rounds a CPU")
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    if os.geteuid() != 0:
        sys.exit("bench-profile: run as root")
    res = {}
    with tempfile.TemporaryDirectory(prefix="rc-bench-profile-") as tmp:
        recs = recorders(build, tmp)
        for run in range(a.runs):
            for rec in recs:
                base = run_workload(build, a.rounds, tmp)
                wall, cpu, unwind_us = traced(build, rec, a.rounds, tmp)
                if rec.name.startswith("ringcap"):
                    n, lost = samples_ringcap(build, rec.out)
                else:
                    n, lost = samples_perf(rec.out)
                size = os.path.getsize(rec.out)
                res.setdefault(rec.name, []).append({
                    "slowdown": wall / base, "cpu_ns": cpu / max(n, 1), "bytes": size / max(n, 1),
                    "samples": n, "lost": lost, "size": size, "unwind_us": unwind_us})
                print("bench-profile: run %d %-42s %.3fx, %d samples, %.0f B a sample, %d lost"
                      % (run + 1, rec.name, wall / base, n, size / max(n, 1), lost),
                      file=sys.stderr)
        tops = {r.name: (top_ringcap(build, r.out) if r.name.startswith("ringcap")
                         else top_perf(r.out)) for r in recs}
    lines = ["## Profiling: ringcap against perf record, 999 Hz on both CPUs", "",
             "`python3 tests/bench/profile.py %s --runs %d --rounds %d`: two `rc_prof work %d`, "
             "one pinned to each CPU, each recorder system-wide; median of %d runs, each "
             "slowdown against an untraced run just before it. Recorder CPU is its user + "
             "system time over the whole run (start-up and final write included), a sample."
             % (a.build, a.runs, a.rounds, a.rounds, a.runs), "",
             "| recorder | slowdown | recorder CPU a sample | bytes a sample | samples | lost |",
             "|---|---:|---:|---:|---:|---:|"]
    for rec in res:
        rows = res[rec]
        med = lambda k: statistics.median(r[k] for r in rows)
        lines.append("| %s | %.3fx | %.1f us | %.1f | %d | %d |"
                     % (rec, med("slowdown"), med("cpu_ns") / 1e3, med("bytes"), med("samples"),
                        max(r["lost"] for r in rows)))
    for rec in res:
        us = [r["unwind_us"] for r in res[rec] if r["unwind_us"] is not None]
        if us:
            lines += ["", "%s: %.1f us to unwind a stack in the writer's thread (median of "
                      "the runs' means, from record -v)" % (rec, statistics.median(us))]
    lines += ["", "Top functions of rc_prof by self samples, last run:", "",
              "| | " + " | ".join(tops) + " |", "|---" * (len(tops) + 1) + "|"]
    for i in range(10):
        cells = []
        for name in tops:
            t = tops[name]
            cells.append("%s %.1f%%" % (t[i][1], t[i][0]) if i < len(t) else "")
        lines.append("| %d | %s |" % (i + 1, " | ".join(cells)))
    text = "\n".join(lines) + "\n"
    print(text)
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
