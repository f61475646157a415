#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""ringcap against perf, trace-cmd and bpftrace, side by side.

The lead table (the suite "lead", first): like for like. On the storms
among the workloads, every recorder records the one tracepoint
syscalls:sys_enter_getppid, one event a call, the workload as its
command:

  floor            rc_floor floor: a BPF program on the tracepoint that
                   only counts (tests/bench/floor.bpf.c), no ring: what
                   any BPF program there costs the workload at the least
  bare reference   rc_floor ref: a BPF program that reserves a record of
                   ringcap's size for this event (56 bytes) in a BPF ring
                   buffer of ringcap's size (16 MiB), fills and submits it
                   with ringcap's wake-up policy (none below 1 MiB pending,
                   forced above), drained by ring_buffer__poll() and
                   fwrite() to a file: the least a BPF recorder can do
  the same, -W     rc_floor ref -W: the bare reference with ringcap's own
                   wake-up check (each CPU asks the ring once a sixteenth
                   of the mark it wrote, and only while the reader sleeps)
                   instead of a query of the ring at every record
  a ring a CPU     rc_floor pcpu -W: the same records into a BPF ring buffer
                   of this CPU's own (an array of rings indexed by the CPU),
                   drained by one ring_buffer__poll() over all: no ring
                   shared by two CPUs
  discarded        the same reader, but the records not written anywhere
                   (rc_floor without -o): what the reader's file costs
  read in place    rc_floor ref|pcpu -W -D: no libbpf callback: each ring
                   read where it lies, its records counted by their
                   headers and written as they lie (headers and all, 64
                   bytes a record) by one write() a ring a wake-up, or,
                   discarded, not written: the least a reader can do, the
                   bare floor of a recorder's reader (no time order, no
                   check, no compression)
  zstd 1           rc_floor pcpu -W -D -z 1: read in place, each stretch
                   compressed as one zstd frame at ringcap's level and
                   written: the least a reader keeping the events
                   compressed can do (no sort, check, count or shuffle)
  batched          rc_floor batch -W: the same records staged in a per-CPU
                   array and published 16 at a time by one
                   bpf_ringbuf_output() into the shared ring
  perf event array rc_floor perf: the same records by bpf_perf_event_output()
                   into this CPU's perf ring (woken at a sixteenth of it)
  ringcap          ringcap record -e TP (the BPF ring buffer, the default)
  ringcap ftrace   ringcap record --transport ftrace -e TP (no BPF; its
                   rings spliced, and mapped with --ftrace-read=mmap)
  trace-cmd record trace-cmd record -e TP -F -c (as in the tracepoint
                   suite below)

Each recorder's slowdown is against an untraced run just before it.
floor and the reference are not filtered to the workload: they count the
system's few other getppid() calls too (lost silently can then be
slightly negative). Slowdowns are measured with the kernel's BPF
statistics off. Then a separate pass with them on
(kernel.bpf_stats_enabled=1) runs each BPF recorder RUNS times more, the
workload wrapped in two `bpftool prog show` snapshots, and gives the
kernel's own run_time_ns / run_cnt of the recorder's programs over the
workload: the "BPF ns/event" column. Under the lead table, the same for
the built-in syscalls source (ringcap record -e syscalls: the sys_enter
and sys_exit programs, summed) against floor and reference programs on
the raw sys_exit tracepoint writing its 112-byte record (rc_floor -b).

The tables that follow are the second table and on: ringcap's own
syscall record against its peers. The last, memory (--no-memory skips
it): record's peak RssAnon on a storm of CALLS calls, and report's peak
RSS at -j 1, 2 and 4 on captures of CALLS and CALLS / 4 events.

For each workload (rc_load: an exact number of calls of known syscalls)
and each recorder, RUNS rounds; each round runs the workload untraced and
then under every recorder, in turn, so that all of a round's figures share
the machine's weather. The table gives each figure's median over rounds.

Figures, per call of the workload's syscalls (ringcap makes one record a
call, entry and exit paired; the peers record the sys_enter and sys_exit
tracepoints, two events a call, filtered to the syscall in the kernel):

  made        calls the workload made (its own count)
  captured    calls found in the file (peers: events / 2)
  lost rep.   calls the recorder says it lost
  lost silent made - captured - lost reported
  slowdown    the workload's own wall time, traced / untraced
  cpu ns      recorder user+sys time (the workload's own taken away) / made
  B/call      file bytes / made
  RSS         recorder peak resident set (the largest process of its tree),
              as rc_load spawn measures it

perf sometimes writes a sample twice (the same thread, event and
nanosecond); when its file holds more than was made, the duplicates are
counted with perf script, taken out of captured, and shown.

trace-cmd runs twice: with the syscall filter (-f) like perf, and
without it (an ftrace filter discards an event after it was written to
the ring). Unfiltered, its lost count covers the workload's few other
syscalls too, so lost silently can be slightly negative.

Decode speed: events a second of ringcap report (text, summary) and of
perf script / trace-cmd report on the first workload's files.

The same tracepoints, recorded by all (the suite "tracepoints", after the
tables above; --suites picks either or both): on the storms among the
workloads, every recorder records syscalls:sys_enter_getppid and
syscalls:sys_exit_getppid, two events a call, the workload as its command:

  ringcap ftrace   ringcap record --transport ftrace -e TP,TP: the kernel's
                   event tracer in a tracefs instance of ringcap's own, its
                   per-CPU rings mapped (no BPF; --buffer-size, 8M a CPU)
  ringcap ringbuf  ringcap record -e TP,TP: ringcap's generic BPF
                   tracepoint program and the BPF ring buffer
  trace-cmd record trace-cmd record -e TP -e TP -F -c, through the same
                   mount namespace shim; -c because the storms' processes
                   are the command's children (-F alone records none of
                   their events); its ring is the top instance's, as it
                   is (buffer_size_kb, printed above the tables)
  trace-cmd record -b 8192
                   the same with 8 MiB a CPU, ringcap ftrace's default
                   (trace-cmd leaves the top instance so; the bench puts
                   the size from before back after each run)

Same rounds, the same figures, but per EVENT (made: calls x 2): events
made, captured (ringcap: report --summary's per-event counts, checked
against stat's per-event rows; trace-cmd: report lines of the two events),
lost reported (ringcap: stat's "lost", which with ftrace includes the
ringcap:lost records' counts; trace-cmd: overrun + dropped events of
report --stat), lost silently, slowdown, recorder CPU ns an event, bytes an
event and peak RSS.

Needs root. trace-cmd 3.1 writes /proc/sys/kernel/ftrace_enabled and the
function tracer's files even when recording events only, and a kernel
without the function tracer refuses that; it then runs in a private mount
namespace with scratch files bound over those, which changes nothing
outside it.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TRACEFS = "/sys/kernel/tracing"
FTRACE_FILES = ["set_ftrace_pid", "set_ftrace_filter", "set_ftrace_notrace",
                "set_graph_function", "set_graph_notrace"]


def syscall_numbers():
    out = subprocess.run(["cc", "-E", "-dM", "-"], input="#include <sys/syscall.h>\n",
                         capture_output=True, text=True, check=True).stdout
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"#define __NR_(\w+) (\d+)$", out, re.M)}


class Workload:
    def __init__(self, name, argv, calls, made):
        self.name, self.argv, self.calls, self.made = name, argv, calls, made


def workloads(n):
    return {
        "storm1": Workload("storm1", ["storm", str(n), "1"], ["getppid"], n),
        "storm2": Workload("storm2", ["storm", str(n // 2), "2"], ["getppid"], n // 2 * 2),
        "pingpong": Workload("pingpong", ["pingpong", str(max(n // 100, 1))], ["read", "write"],
                             4 * max(n // 100, 1)),
        "burst": Workload("burst", ["burst", str(max(n // 4, 1)), "500"], ["getppid"],
                          max(n // 4, 1)),
    }


def run(ctx, argv, env=None, timeout=1800):
    """Run argv under rc_load spawn; return (status, {cpu_ns, maxrss_kib}, stderr)."""
    res = os.path.join(ctx.tmp, "spawn.txt")
    if os.path.exists(res):
        os.unlink(res)
    try:
        rt = ["chrt", "-r", "2"] if ctx.rt else []
        p = subprocess.run([*rt, ctx.load, "spawn", res, *argv], env=env, timeout=timeout,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        err = p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return -1, {}, "timed out after %d s" % timeout
    if not os.path.exists(res):
        return -1, {}, err
    ru = read_report(res)
    return ru["status"], ru, err


def count_lines(argv, pattern):
    """Lines of argv's output that match pattern, streamed."""
    rx = re.compile(pattern)
    n = 0
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True, errors="replace") as p:
        for line in p.stdout:
            if rx.search(line):
                n += 1
    return n


class Recorder:
    name = ""
    per_call = 1  # the unit of count(): 1, calls; 2, events (entry and exit)

    def __init__(self, ctx):
        self.ctx = ctx

    def available(self):
        return True

    def cleanup(self):
        """After each run: put back what the recorder changed and kept."""


class Ringcap(Recorder):
    def __init__(self, ctx, name, extra, binary=None):
        super().__init__(ctx)
        self.name, self.extra = name, extra
        self.binary = binary or ctx.ringcap

    def argv(self, out, wl, cmd):
        return [self.binary, "record", "-q", "-e", "syscalls", *self.extra,
                "-o", out, "--", *cmd]

    def count(self, out, wl):
        s = subprocess.run([self.ctx.ringcap, "report", "--summary", "-t", "1000", "-i", out],
                           capture_output=True, text=True, check=True).stdout
        rows = dict(re.findall(r"^(\w+)\s+(\d+)\s+\d+\s+[\d.]+", s, re.M))
        captured = sum(int(rows.get(c, 0)) for c in wl.calls)
        st = json.loads(subprocess.run([self.ctx.ringcap, "stat", "--json", out],
                                       capture_output=True, text=True, check=True).stdout)
        return captured, st["lost"], 0


class Perf(Recorder):
    def __init__(self, ctx, compress):
        super().__init__(ctx)
        self.compress = compress
        self.name = "perf record -z" if compress else "perf record"

    def available(self):
        return shutil.which("perf") is not None

    def argv(self, out, wl, cmd):
        f = self.ctx.id_filter(wl)
        z = ["-z"] if self.compress else []
        return ["perf", "record", "-q", *z, "-e", "raw_syscalls:sys_enter", "--filter", f,
                "-e", "raw_syscalls:sys_exit", "--filter", f, "-o", out, "--", *cmd]

    def count(self, out, wl):
        s = subprocess.run(["perf", "report", "--stats", "-i", out],
                           capture_output=True, text=True).stdout
        per_event = s.split("raw_syscalls:", 1)[1] if "raw_syscalls:" in s else ""
        samples = sum(int(x) for x in re.findall(r"\bSAMPLE events:\s+(\d+)", per_event))
        lost = sum(int(x) for x in re.findall(r"LOST_SAMPLES events:\s+(\d+)", per_event))
        dups = 0
        if (samples + lost) / 2 > wl.made:
            dups = self.duplicates(out)
        return (samples - dups) / 2, lost / 2, dups / 2

    @staticmethod
    def duplicates(out):
        """Samples written twice: the same thread, event and nanosecond."""
        sh = "perf script --ns -F tid,time,event -i '%s' 2>/dev/null | sort | uniq -d -c" % out
        p = subprocess.run(["sh", "-c", sh], capture_output=True, text=True)
        return sum(int(line.split()[0]) - 1 for line in p.stdout.splitlines() if line.strip())


class TraceCmd(Recorder):
    """trace-cmd with the syscall filter in the kernel (-f), or without it:
    an ftrace filter discards an event after writing it to the ring, so
    unfiltered, trace-cmd records the workload's every syscall (a few
    more than its storm) and the counting picks the storm's out."""

    def __init__(self, ctx, id_filter=True):
        super().__init__(ctx)
        self.id_filter = id_filter
        self.name = "trace-cmd record" + ("" if id_filter else " (no -f)")

    def available(self):
        return shutil.which("trace-cmd") is not None and shutil.which("unshare") is not None

    def argv(self, out, wl, cmd):
        f = ["-f", self.ctx.id_filter(wl)] if self.id_filter else []
        tc = ["trace-cmd", "record", "-q", "-e", "raw_syscalls:sys_enter", *f,
              "-e", "raw_syscalls:sys_exit", *f, "-o", out, "-F", "-c", *cmd]
        return ["unshare", "-m", "sh", "-c", self.SHIM, "shim", *tc]

    # In the private mount namespace: scratch files over those trace-cmd
    # cannot write, then trace-cmd itself.
    SHIM = (
        'd=$(mktemp -d) && echo 1 > "$d/enabled" && '
        'mount --bind "$d/enabled" /proc/sys/kernel/ftrace_enabled || exit 125; '
        "for f in " + " ".join(FTRACE_FILES) + "; do "
        '[ -e "' + TRACEFS + '/$f" ] || continue; : > "$d/$f" && '
        'mount --bind "$d/$f" "' + TRACEFS + '/$f" || exit 125; done; exec "$@"')

    def count(self, out, wl):
        ids = "|".join(str(self.ctx.nr[c]) for c in wl.calls)
        n = count_lines(["trace-cmd", "report", out], r"\bsys_(enter|exit):\s+NR (%s)\b" % ids)
        s = subprocess.run(["trace-cmd", "report", "--stat", out],
                           capture_output=True, text=True).stdout
        lost = sum(int(x) for x in re.findall(r"^(?:overrun|dropped events):\s+(\d+)", s, re.M))
        return n / 2, lost / 2, 0


class Bpftrace(Recorder):
    name = "bpftrace"

    def available(self):
        return shutil.which("bpftrace") is not None

    def argv(self, out, wl, cmd):
        pred = " || ".join("args->id == %d" % self.ctx.nr[c] for c in wl.calls)
        # comm, not cpid: the storm's processes are the command's children
        prog = ("tracepoint:raw_syscalls:sys_enter /comm == \"rc_load\" && (%s)/ "
                "{ printf(\"%%d %%d\\n\", tid, args->id); } "
                "tracepoint:raw_syscalls:sys_exit /comm == \"rc_load\" && (%s)/ "
                "{ printf(\"%%d %%d\\n\", tid, args->ret); }") % (pred, pred)
        return ["bpftrace", "-q", "-o", out, "-e", prog, "-c", " ".join(cmd)]

    def count(self, out, wl):
        n = lost = 0
        with open(out, errors="replace") as f:
            for line in f:
                m = re.match(r"Lost (\d+) events", line)
                if m:
                    lost += int(m.group(1))
                elif re.match(r"\d+ -?\d+$", line):
                    n += 1
        return n / 2, lost / 2, 0


def tracepoints(wl):
    """The tracepoints of the workload's syscalls, entry and exit: two events a call."""
    return ["syscalls:sys_%s_%s" % (d, c) for c in wl.calls for d in ("enter", "exit")]


class TpRingcap(Recorder):
    """ringcap recording the tracepoints by name: over ftrace (the kernel's
    event tracer in a tracefs instance of its own), or with its generic BPF
    tracepoint program and the BPF ring buffer. Counts are events."""
    per_call = 2

    def __init__(self, ctx, name, extra, binary=None):
        super().__init__(ctx)
        self.name, self.extra = name, extra
        self.binary = binary or ctx.ringcap

    def argv(self, out, wl, cmd):
        return [self.binary, "record", "-q", *self.extra, "-e", ",".join(tracepoints(wl)),
                "-o", out, "--", *cmd]

    def count(self, out, wl):
        """Events decoded by report --summary; losses from stat: its "lost"
        (dropped in the kernel, in user space, missing from the file), checked
        against the ringcap:lost records and its own per-event rows."""
        names = tracepoints(wl)
        s = subprocess.run([self.ctx.ringcap, "report", "--summary", "-i", out],
                           capture_output=True, text=True, check=True).stdout
        rows = dict(re.findall(r"^(\S+:\S+)\s+(\d+)$", s, re.M))
        captured = sum(int(rows.get(n, 0)) for n in names)
        st = json.loads(subprocess.run([self.ctx.ringcap, "stat", "--json", out],
                                       capture_output=True, text=True, check=True).stdout)
        in_file = sum(e["in_file"] for e in st.get("by_event", []) if e["event"] in names)
        records = st.get("lost_in_stream", 0) + st.get("lost_at_end", 0)
        if in_file != captured:
            sys.stderr.write("bench: %s: report --summary found %d events, stat says %d in "
                             "the file\n" % (self.name, captured, in_file))
        if records > st["lost"]:
            sys.stderr.write("bench: %s: ringcap:lost records count %d, stat's lost is %d\n"
                             % (self.name, records, st["lost"]))
        return captured, st["lost"], 0


class TpTraceCmd(TraceCmd):
    """trace-cmd recording the same tracepoints (per syscall already: no
    filter). -c as well as -F: the storms' processes are the command's
    children, and without -c trace-cmd records none of their events.

    With ring_kib, -b: the top instance's rings resized to ringcap's
    default, which trace-cmd leaves so; the size from before is put back
    after each run. (-B, an instance of its own, would not get past the
    shim: trace-cmd writes the new instance's function tracer files too.)"""
    per_call = 2

    def __init__(self, ctx, ring_kib=None):
        super().__init__(ctx)
        self.ring_kib = ring_kib
        self.name = "trace-cmd record" + (" -b %d" % ring_kib if ring_kib else "")
        self.saved = None

    def argv(self, out, wl, cmd):
        ev = [x for t in tracepoints(wl) for x in ("-e", t)]
        b = []
        if self.ring_kib:
            b = ["-b", str(self.ring_kib)]
            self.saved = top_ring_kib()
        tc = ["trace-cmd", "record", "-q", *b, *ev, "-o", out, "-F", "-c", *cmd]
        return ["unshare", "-m", "sh", "-c", self.SHIM, "shim", *tc]

    def cleanup(self):
        if self.saved and self.saved.isdigit():
            with open(os.path.join(TRACEFS, "buffer_size_kb"), "w") as f:
                f.write(self.saved)
        self.saved = None

    def count(self, out, wl):
        names = "|".join(re.escape(t.split(":", 1)[1]) for t in tracepoints(wl))
        n = count_lines(["trace-cmd", "report", out], r"\b(%s):" % names)
        s = subprocess.run(["trace-cmd", "report", "--stat", out],
                           capture_output=True, text=True).stdout
        lost = sum(int(x) for x in re.findall(r"^(?:overrun|dropped events):\s+(\d+)", s, re.M))
        return n, lost, 0


LEAD_TP = "syscalls:sys_enter_getppid"


def lead_tp(wl):
    """The lead table's tracepoint for workload @wl: the storms' one event a
    call, or the context switches of the ping-pong (no ground truth)."""
    return "sched:sched_switch" if wl.name == "pingpong" else LEAD_TP


class Floor(Recorder):
    """rc_floor: the floor (a program that only counts), the bare reference
    (reserve, fill, submit SIZE bytes) on one tracepoint; with btf on the
    raw sys_exit tracepoint; with raw on the raw sys_enter tracepoint for
    getppid's number only, as ringcap records syscalls:sys_enter_NAME; or
    pair, the bare reference of the syscalls source (rc_floor pair)."""

    def __init__(self, ctx, mode, size=56, btf=False, raw=False, lazy=False, direct=False,
                 discard=False, zstd=0):
        super().__init__(ctx)
        self.mode, self.size, self.btf, self.raw, self.lazy = mode, size, btf, raw, lazy
        self.direct, self.discard, self.zstd = direct, discard, zstd
        self.name = {"floor": "floor (counts only)",
                     "ref": "bare reference (%d-byte records)" % size,
                     "pcpu": "bare reference, a ring a CPU",
                     "batch": "bare reference, batched by 16",
                     "perf": "bare reference, perf event array",
                     "pair": "bare reference, entry and exit paired (112-byte records)"}[mode]
        if lazy:
            self.name += ", -W"
        if direct:
            self.name += ", read in place"
        if zstd:
            self.name += ", zstd %d" % zstd
        if discard:
            self.name += ", discarded"
        if btf:
            self.name += ", raw sys_exit"
        if raw:
            self.name += ", raw sys_enter"

    def available(self):
        return os.path.exists(self.ctx.floor)

    def applies(self, wl):
        """raw: only where the lead's tracepoint is a syscall event; the
        references of the ring's layout: on the storms."""
        if self.mode in ("pcpu", "batch", "perf") or self.lazy or self.direct or self.discard \
                or self.zstd:
            return wl.name in TP_WORKLOADS
        return not self.raw or lead_tp(wl).startswith("syscalls:")

    def prog_names(self):
        """The names (prefixes) of the recorder's programs."""
        if self.mode == "pair":
            return ["handle_pair_enter", "handle_pair_exit"]
        if self.raw:
            return ["handle_%s_sc" % self.mode]
        if self.mode in ("pcpu", "batch", "perf"):
            return ["handle_%s_56" % self.mode]
        return ["handle_floor"] if self.mode == "floor" else \
            ["handle_ref_%d" % self.size, "handle_ref_btf_%d" % self.size]

    def argv(self, out, wl, cmd):
        if self.mode == "pair":
            where = []
        elif self.raw:
            where = ["-n", str(self.ctx.nr["getppid"])]
        else:
            where = ["-b"] if self.btf else ["-e", lead_tp(wl)]
        o = ["-o", out] if self.mode != "floor" and not self.discard else []
        w = (["-W"] if self.lazy else []) + (["-D"] if self.direct else []) + \
            (["-z", str(self.zstd)] if self.zstd else [])
        return [self.ctx.floor, self.mode, *where, "-s", str(self.size), *w, *o,
                "-c", out + ".counts", "--", *cmd]

    def count(self, out, wl):
        c = read_report(out + ".counts")
        return c["events"], c["dropped"], 0


class LeadRingcap(Recorder):
    """ringcap recording the lead's tracepoint (or, with source, -e syscalls)."""

    def __init__(self, ctx, name, extra, binary=None, source=None):
        super().__init__(ctx)
        self.name, self.extra, self.source = name, extra, source
        self.binary = binary or ctx.ringcap

    def available(self):
        """The mapped ftrace rings need Linux 6.10 (record --check says so)."""
        if "--ftrace-read=mmap" not in self.extra:
            return True
        s = subprocess.run([self.binary, "record", "--check"], capture_output=True,
                           text=True).stdout
        return "--ftrace-read=mmap too" in s

    def prog_names(self):
        if "ftrace" in self.extra:
            return []
        # handle_tp and its sized variants, handle_tp_N; handle_sc_enter for a
        # syscall event; ringcap's own program for sched:sched_switch
        return ["handle_sys_enter", "handle_sys_exit"] if self.source else \
            ["handle_tp", "handle_sc_enter", "handle_sched_switch"]

    def argv(self, out, wl, cmd):
        return [self.binary, "record", "-q", *self.extra, "-e", self.source or lead_tp(wl),
                "-o", out, "--", *cmd]

    def count(self, out, wl):
        if self.source:
            return Ringcap.count(self, out, wl)  # calls, entry and exit paired
        s = subprocess.run([self.ctx.ringcap, "report", "--summary", "-i", out],
                           capture_output=True, text=True, check=True).stdout
        rows = dict(re.findall(r"^(\S+:\S+)\s+(\d+)$", s, re.M))
        st = json.loads(subprocess.run([self.ctx.ringcap, "stat", "--json", out],
                                       capture_output=True, text=True, check=True).stdout)
        return int(rows.get(lead_tp(wl), 0)), st["lost"], 0


class LeadTraceCmd(TpTraceCmd):
    """trace-cmd record -e TP -F -c, as the tracepoint suite runs it."""
    per_call = 1

    def argv(self, out, wl, cmd):
        tc = ["trace-cmd", "record", "-q", "-e", lead_tp(wl), "-o", out, "-F", "-c", *cmd]
        return ["unshare", "-m", "sh", "-c", self.SHIM, "shim", *tc]

    def count(self, out, wl):
        n = count_lines(["trace-cmd", "report", out], r"\b%s:" % lead_tp(wl).split(":", 1)[1])
        s = subprocess.run(["trace-cmd", "report", "--stat", out],
                           capture_output=True, text=True).stdout
        lost = sum(int(x) for x in re.findall(r"^(?:overrun|dropped events):\s+(\d+)", s, re.M))
        return n, lost, 0


def baselines(spec):
    """--baseline DIR[,DIR...]: (label, ringcap binary) of each build; one is
    "baseline", several are named by their directories."""
    dirs = [os.path.abspath(d) for d in (spec or "").split(",") if d]
    names = [os.path.basename(d) for d in dirs]
    if len(set(names)) < len(names):  # a/build, b/build: named by two components
        names = [os.path.join(os.path.basename(os.path.dirname(d)), os.path.basename(d))
                 for d in dirs]
    return [("baseline" if len(dirs) == 1 else "baseline %s" % n, os.path.join(d, "ringcap"))
            for n, d in zip(names, dirs)]


def lead_recorders(ctx, baseline):
    base = [LeadRingcap(ctx, "ringcap (%s)" % label, [], binary)
            for label, binary in baselines(baseline)]
    return [Floor(ctx, "floor"), Floor(ctx, "ref"), Floor(ctx, "ref", lazy=True),
            Floor(ctx, "ref", lazy=True, direct=True),
            Floor(ctx, "pcpu", lazy=True), Floor(ctx, "pcpu", lazy=True, discard=True),
            Floor(ctx, "pcpu", lazy=True, direct=True),
            Floor(ctx, "pcpu", lazy=True, direct=True, zstd=1),
            Floor(ctx, "pcpu", lazy=True, direct=True, discard=True),
            Floor(ctx, "batch", lazy=True), Floor(ctx, "perf"),
            Floor(ctx, "floor", raw=True), Floor(ctx, "ref", raw=True),
            Floor(ctx, "pcpu", raw=True, lazy=True, direct=True),
            Floor(ctx, "pcpu", raw=True, lazy=True, direct=True, zstd=1),
            *base, LeadRingcap(ctx, "ringcap", []),
            LeadRingcap(ctx, "ringcap --transport ftrace", ["--transport", "ftrace"]),
            LeadRingcap(ctx, "ringcap --transport ftrace --ftrace-read=mmap",
                        ["--transport", "ftrace", "--ftrace-read=mmap"]),
            LeadTraceCmd(ctx)]


def syscall_cost_recorders(ctx, baseline):
    """The built-in syscalls source beside floor and reference programs on sys_exit."""
    base = [LeadRingcap(ctx, "ringcap -e syscalls (%s)" % label, [], binary, "syscalls")
            for label, binary in baselines(baseline)]
    return [Floor(ctx, "floor", btf=True), Floor(ctx, "ref", 112, btf=True),
            Floor(ctx, "pair", 112), *base,
            LeadRingcap(ctx, "ringcap -e syscalls", [], source="syscalls")]


BPF_STATS = "/proc/sys/kernel/bpf_stats_enabled"


def bpf_progs():
    p = subprocess.run(["bpftool", "prog", "show", "-j"], capture_output=True, text=True)
    return {q["id"]: q for q in json.loads(p.stdout or "[]")}


def bpf_costs(ctx, wl, recs, runs, tmp):
    """With the kernel's BPF statistics on, RUNS runs of each recorder that
    has BPF programs, the workload between two snapshots of every loaded
    program: each recorder's programs' run_time_ns / run_cnt, summed over
    its programs (each runs once an event). {name: [ns, ...]}"""
    recs = [r for r in recs if hasattr(r, "prog_names") and r.prog_names()]
    res = {r.name: [] for r in recs}
    if not recs or not shutil.which("bpftool"):
        return res
    with open(BPF_STATS) as f:
        saved = f.read().strip()
    before, after = os.path.join(tmp, "progs-before"), os.path.join(tmp, "progs-after")
    sh = 'b=$0 a=$1; shift; bpftool prog show -j > "$b" && "$@"; s=$?; ' \
         'bpftool prog show -j > "$a"; exit $s'
    try:
        with open(BPF_STATS, "w") as f:
            f.write("1")
        for i in range(runs):
            for r in recs:
                out = os.path.join(tmp, "out")
                for p in (before, after):
                    if os.path.exists(p):
                        os.unlink(p)
                ids = set(bpf_progs())
                cmd = ["sh", "-c", sh, before, after, *ctx.workload(wl)]
                status, _, err = run(ctx, r.argv(out, wl, cmd))
                r.cleanup()
                if status != 0 or not os.path.exists(after):
                    sys.stderr.write("bench: %s (BPF statistics) failed: %s\n" % (r.name, err[-500:]))
                    continue
                with open(before) as f:
                    b = {q["id"]: q for q in json.load(f)}
                with open(after) as f:
                    a = {q["id"]: q for q in json.load(f)}
                ns = 0.0
                for pid, q in a.items():
                    name = q.get("name", "")
                    if pid in ids or pid not in b or \
                            not any(name.startswith(n) for n in r.prog_names()):
                        continue
                    cnt = q.get("run_cnt", 0) - b[pid].get("run_cnt", 0)
                    if cnt >= wl.made // 2:
                        ns += (q.get("run_time_ns", 0) - b[pid].get("run_time_ns", 0)) / cnt
                if ns:
                    res[r.name].append(ns)
            sys.stderr.write("bench: %s (BPF statistics) round %d/%d done\n" % (wl.name, i + 1,
                                                                                runs))
    finally:
        with open(BPF_STATS, "w") as f:
            f.write(saved)
    return res


def lead_table(wl, results, costs, runs, busy=None):
    exact = lead_tp(wl) == LEAD_TP  # a ground truth: one event a call
    lines = ["### %s: `rc_load %s`, %s, median of %d (lowest–highest slowdown of the "
             "rounds in brackets)" % (wl.name, " ".join(wl.argv), lead_tp(wl),
                                                         runs), ""]
    if busy and wl.name in TP_WORKLOADS:  # the storms: CPU-bound, a thread a CPU
        lines += ["Untraced, the workload kept %.2f CPUs busy (median; %.2f–%.2f). A "
                  "figure below its CPU count means its threads seldom ran together (a "
                  "loaded machine: --rt), which understates a shared ring's contention." % (
                      statistics.median(busy), min(busy), max(busy)), ""]
    lines += [
             "| recorder | events made | captured | lost reported | lost silently | slowdown "
             "| BPF ns/event | recorder CPU ns/event | bytes/event | peak RSS MiB |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, rows in results.items():
        ns = costs.get(name)
        ns = "%.0f" % statistics.median(ns) if ns else ""
        if not rows:
            lines.append("| %s | failed | | | | | %s | | | |" % (name, ns))
            continue
        made, silent = (("%d" % median(rows, "made"), "%d" % median(rows, "silent")) if exact
                        else ("n/a", "n/a"))
        # no ground truth: per event is per event captured
        per = 1.0 if exact else median(rows, "made") / max(median(rows, "captured"), 1)
        lines.append("| %s | %s | %d | %d | %s | %s | %s | %.0f | %.2f | %.1f |" % (
            name, made, median(rows, "captured"), median(rows, "lost"), silent,
            slowdown(rows), ns, median(rows, "cpu_ns") * per,
            median(rows, "bytes") * per, median(rows, "rss_mib")))
    return "\n".join(lines) + "\n"


def cost_table(wl, results, costs, runs):
    lines = ["### %s: the built-in syscalls source against programs on the raw sys_exit "
             "tracepoint, median of %d (lowest–highest slowdown in brackets)" % (wl.name, runs), "",
             "ringcap -e syscalls runs two programs a call (sys_enter keeps the arguments "
             "and the time, sys_exit writes the 112-byte record); floor and reference run "
             "on every syscall of the system, unfiltered. BPF ns/call: the programs' "
             "run_time_ns / run_cnt, summed.", "",
             "| recorder | calls made | captured | slowdown | BPF ns/call "
             "| recorder CPU ns/call | bytes/call |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for name, rows in results.items():
        ns = costs.get(name)
        ns = "%.0f" % statistics.median(ns) if ns else ""
        if not rows:
            lines.append("| %s | failed | | | %s | | |" % (name, ns))
            continue
        lines.append("| %s | %d | %d | %s | %s | %.0f | %.2f |" % (
            name, median(rows, "made"), median(rows, "captured"), slowdown(rows), ns,
            median(rows, "cpu_ns"), median(rows, "bytes")))
    return "\n".join(lines) + "\n"


class Context:
    def __init__(self, build):
        self.build = os.path.abspath(build)
        self.ringcap = os.path.join(self.build, "ringcap")
        self.load = os.path.join(self.build, "rc_load")
        self.floor = os.path.join(self.build, "rc_floor")
        self.nr = syscall_numbers()
        self.tmp = None
        self.rt = False  # --rt
        self.busy = {}  # workload: its untraced runs' CPU time / wall time

    def workload(self, wl):
        """The command that runs workload @wl under a recorder. --rt: one
        step below the recorder's priority, which a reader woken then gets
        at once, as it would from an idle CPU on a quiet machine."""
        return [*(["chrt", "-r", "1"] if self.rt else []), self.load, *wl.argv]

    def id_filter(self, wl):
        return " || ".join("id == %d" % self.nr[c] for c in wl.calls)


RINGCAPS = [("ringbuf poll", []), ("ringbuf busy", ["--drain", "busy"]),
            ("perfbuf", ["--transport", "perfbuf"])]


TP_RINGCAPS = [("ftrace", ["--transport", "ftrace"]), ("ringbuf", [])]

# The tracepoint suite's workloads: the storms (getppid)
TP_WORKLOADS = ["storm1", "storm2"]
LEAD_WORKLOADS = TP_WORKLOADS + ["pingpong"]


def recorders(ctx, baseline, suite="syscalls"):
    """Every recorder of a suite; with a baseline build, its ringcap too, for
    before and after."""
    kind, rcs = (TpRingcap, TP_RINGCAPS) if suite == "tracepoints" else (Ringcap, RINGCAPS)
    base = [kind(ctx, "ringcap %s (%s)" % (n, label), x, binary)
            for label, binary in baselines(baseline) for n, x in rcs]
    ours = [kind(ctx, "ringcap " + n, x) for n, x in rcs]
    if suite == "tracepoints":
        return base + ours + [TpTraceCmd(ctx), TpTraceCmd(ctx, ring_kib=8192)]
    return base + ours + [
        Perf(ctx, False),
        Perf(ctx, True),
        TraceCmd(ctx),
        TraceCmd(ctx, id_filter=False),
        Bpftrace(ctx),
    ]


def top_ring_kib():
    """The top tracefs instance's ring size a CPU, which trace-cmd records with."""
    try:
        with open(os.path.join(TRACEFS, "buffer_size_kb")) as f:
            return f.read().strip()
    except OSError:
        return "?"


def read_report(path):
    with open(path) as f:
        return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", f.read())}


def file_bytes(out):
    return os.path.getsize(out) if os.path.exists(out) else 0


def one_run(ctx, rec, wl, tmp, untraced_ns):
    out = os.path.join(tmp, "out")
    rep = os.path.join(tmp, "load.txt")
    for p in (out, rep):
        if os.path.exists(p):
            os.unlink(p)
    env = dict(os.environ, RC_LOAD_REPORT=rep)
    try:
        status, ru, err = run(ctx, rec.argv(out, wl, ctx.workload(wl)), env=env)
    finally:
        rec.cleanup()
    if status != 0 or not os.path.exists(rep):
        sys.stderr.write("%s on %s failed (exit %d):\n%s\n" % (rec.name, wl.name, status,
                                                              err[-2000:]))
        return None
    load = read_report(rep)
    made = load["calls"]
    if made != wl.made:
        sys.exit("bench: rc_load made %d calls, not %d" % (made, wl.made))
    captured, lost, dups = rec.count(out, wl)
    cpu = ru["cpu_ns"] - load["cpu_ns"]
    made *= rec.per_call  # in the unit of count(): calls, or events
    return {
        "made": made,
        "captured": captured,
        "lost": lost,
        "silent": made - captured - lost,
        "dups": dups,
        "slowdown": load["wall_ns"] / untraced_ns,
        "cpu_ns": cpu / made,
        "bytes": file_bytes(out) / made,
        "rss_mib": ru["maxrss_kib"] / 1024.0,
    }


def untraced(ctx, wl, tmp):
    rep = os.path.join(tmp, "load.txt")
    status, _, err = run(ctx, [ctx.load, *wl.argv], env=dict(os.environ, RC_LOAD_REPORT=rep))
    if status != 0:
        sys.exit("rc_load %s failed: %s" % (" ".join(wl.argv), err))
    r = read_report(rep)
    # how many CPUs the workload kept busy: a storm on two CPUs on a loaded
    # machine may have had its two threads running together little of the time
    ctx.busy.setdefault(wl.name, []).append(r["cpu_ns"] / max(r["wall_ns"], 1))
    return r["wall_ns"]


def median(rows, key):
    vals = [r[key] for r in rows]
    return statistics.median(vals) if vals else float("nan")


def slowdown(rows):
    """The median slowdown, with its spread over the rounds (lowest to highest):
    a lead smaller than the spread is not a lead."""
    vals = [r["slowdown"] for r in rows]
    if len(vals) < 2:
        return "%.2fx" % median(rows, "slowdown")
    return "%.2fx (%.2f–%.2f)" % (statistics.median(vals), min(vals), max(vals))


def table(wl, results, runs, unit="call", what=None):
    lines = ["### %s: `rc_load %s` (%s), median of %d (lowest–highest slowdown in brackets)" % (wl.name, " ".join(wl.argv),
                                                            what or "+".join(wl.calls), runs), "",
             "| recorder | %s | captured | lost reported | lost silently | slowdown "
             "| recorder CPU ns/%s | bytes/%s | peak RSS MiB |"
             % ("made" if unit == "call" else unit + "s made", unit, unit),
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, rows in results.items():
        if not rows:
            lines.append("| %s | failed | | | | | | | |" % name)
            continue
        dups = median(rows, "dups")
        lines.append("| %s | %d | %d | %d | %d%s | %s | %.0f | %.2f | %.1f |" % (
            name, median(rows, "made"), median(rows, "captured"), median(rows, "lost"),
            median(rows, "silent"), " (%g written twice)" % dups if dups else "",
            slowdown(rows), median(rows, "cpu_ns"), median(rows, "bytes"),
            median(rows, "rss_mib")))
    return "\n".join(lines) + "\n"


def decode_speed(ctx, wl, tmp, names):
    """Files of the first workload, decoded by each tool; events a second."""
    out = os.path.join(tmp, "dec")
    lines = ["### Decode speed: files of %s" % wl.name, "",
             "| decoder | events | seconds | events/s |", "|---|---:|---:|---:|"]
    jobs = []
    rc = Ringcap(ctx, "", [])
    if run(ctx, rc.argv(out + ".rcap", wl, [ctx.load, *wl.argv]))[0] == 0:
        ev = json.loads(subprocess.run([ctx.ringcap, "stat", "--json", out + ".rcap"],
                                       capture_output=True, text=True).stdout)["events"]
        jobs += [("ringcap report (text)", [ctx.ringcap, "report", "-i", out + ".rcap"], ev),
                 ("ringcap report --summary",
                  [ctx.ringcap, "report", "--summary", "-i", out + ".rcap"], ev)]
    pf = Perf(ctx, False)
    if pf.available() and run(ctx, pf.argv(out + ".perf", wl, [ctx.load, *wl.argv]))[0] == 0:
        captured, _, _ = pf.count(out + ".perf", wl)
        jobs.append(("perf script", ["perf", "script", "-i", out + ".perf"], 2 * captured))
    tc = TraceCmd(ctx)
    if "trace-cmd record" in names and tc.available() and \
            run(ctx, tc.argv(out + ".dat", wl, [ctx.load, *wl.argv]))[0] == 0:
        captured, _, _ = tc.count(out + ".dat", wl)
        jobs.append(("trace-cmd report", ["trace-cmd", "report", out + ".dat"], 2 * captured))
    for name, argv, events in jobs:
        t = time.monotonic()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        dt = time.monotonic() - t
        lines.append("| %s | %d | %.2f | %.0f |" % (name, events, dt, events / dt))
    return "\n".join(lines) + "\n"


def rounds(ctx, wl, recs, runs, tmp, label="", each=False):
    """RUNS rounds: the workload untraced, then under every recorder in turn;
    with each, untraced again just before every recorder."""
    results = {r.name: [] for r in recs}
    for i in range(runs):
        base = untraced(ctx, wl, tmp)
        for k, r in enumerate(recs):
            if each and k:
                base = untraced(ctx, wl, tmp)
            res = one_run(ctx, r, wl, tmp, base)
            if res:
                results[r.name].append(res)
        sys.stderr.write("bench: %s%s round %d/%d done\n" % (wl.name, label, i + 1, runs))
    return results


SUITES = ["lead", "syscalls", "tracepoints"]


def memory(ctx, calls, tmp):
    """Issue 34's memory goals, stated: record's peak RssAnon on a storm of
    CALLS calls (start.py's sampling), and report's peak RSS at -j 1, 2 and
    4 (decode.py's /usr/bin/time) on captures of CALLS and CALLS / 4 events:
    flat in the capture's size, bounded per thread."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from start import storm  # noqa: E402
    from decode import timed  # noqa: E402

    tp = "syscalls:sys_enter_getppid"
    lines = ["## 4. Memory\n",
             "record: peak RssAnon (the heap and anonymous mappings, not the rings), "
             "sampled every 10 ms from /proc/PID/status, of `ringcap record ARGS -- "
             "rc_load storm %d 1`.\n" % calls,
             "| ARGS | peak RssAnon MiB | captured | dropped |", "|---|---:|---:|---:|"]
    for args in (["-e", tp], ["-e", "syscalls"], ["-F", "999", "-g"]):
        try:
            peak, (cap, drop) = storm(ctx.ringcap, ctx.load, args, calls, tmp)
            lines.append("| `%s` | %.1f | %s | %s |" % (" ".join(args), peak / 1024.0, cap,
                                                         drop))
        except RuntimeError as e:
            lines.append("| `%s` | failed: %s | | |" % (" ".join(args), str(e)[:80]))
    lines += ["", "report: peak RSS (/usr/bin/time's maximum resident set) of `ringcap "
              "report -j N` to /dev/null, text, on the capture of `-e %s` of "
              "`rc_load storm EVENTS 1`.\n" % tp,
              "| events | -j 1 MiB | -j 2 MiB | -j 4 MiB |", "|---:|---:|---:|---:|"]
    for n in (calls, calls // 4):
        cap = os.path.join(tmp, "mem%d.rcap" % n)
        p = subprocess.run([ctx.ringcap, "record", "-q", "-e", tp, "-o", cap, "--", ctx.load,
                            "storm", str(n), "1"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        if p.returncode:
            lines.append("| %d | record failed | | |" % n)
            continue
        cells = []
        for j in ("1", "2", "4"):
            _, _, rss, status = timed([ctx.ringcap, "report", "-j", j, cap], tmp)
            cells.append("failed" if status else "%.1f" % (rss / 1024.0))
        lines.append("| %d | %s |" % (n, " | ".join(cells)))
        os.unlink(cap)
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build", help="the build directory, with ringcap and rc_load")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("-n", "--calls", type=int, default=2000000,
                    help="calls of the storms (split over the CPUs for storm2)")
    ap.add_argument("--workloads", default="storm1,storm2,pingpong,burst",
                    help="the tracepoint suite runs the storms among them")
    ap.add_argument("--recorders", default="",
                    help="comma-separated substrings of recorder names (default: all)")
    ap.add_argument("--suites", default=",".join(SUITES),
                    help="lead: one tracepoint, every recorder, with the floor and a bare "
                    "reference program; syscalls: ringcap's syscall program against its peers; "
                    "tracepoints: the same tracepoints recorded by all (default: all three)")
    ap.add_argument("--no-decode", action="store_true", help="skip the decode speed table")
    ap.add_argument("--no-memory", action="store_true",
                    help="skip the memory table (record's RssAnon, report's RSS per -j)")
    ap.add_argument("--baseline", metavar="BUILD[,BUILD...]",
                    help="other build directories: their ringcap runs too, side by side")
    ap.add_argument("--rt", action="store_true",
                    help="run every run under SCHED_RR, the recorder at priority 2 and the "
                    "workload at 1: on a loaded machine, a storm's threads then run on all "
                    "its CPUs at once, and a woken reader at once, as on a quiet machine; "
                    "other processes wait while a run lasts")
    ap.add_argument("-o", "--output", help="also write the markdown here")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench: needs root, to load BPF programs and open tracepoints")
    ctx = Context(a.build)
    ctx.rt = a.rt
    wls = workloads(a.calls)
    chosen = [w.strip() for w in a.workloads.split(",") if w.strip()]
    for w in chosen:
        if w not in wls:
            sys.exit("bench: unknown workload '%s': one of %s" % (w, ", ".join(wls)))
    suites = [x.strip() for x in a.suites.split(",") if x.strip()]
    for x in suites:
        if x not in SUITES:
            sys.exit("bench: unknown suite '%s': one of %s" % (x, ", ".join(SUITES)))
    pats = [p.strip() for p in a.recorders.split(",") if p.strip()]

    def chosen_recorders(suite):
        every = lead_recorders(ctx, a.baseline) if suite == "lead" else \
            recorders(ctx, a.baseline, suite)
        recs = [r for r in every
                if not pats or any(p in r.name for p in pats)]
        for r in recs:
            if not r.available():
                sys.stderr.write("bench: %s is not installed; skipped\n" % r.name)
        return [r for r in recs if r.available()]

    uname = os.uname()
    md = ["# ringcap benchmark", "",
          "%s, kernel %s, %d CPUs; %s%s" % (uname.nodename, uname.release, os.cpu_count(),
                                           time.strftime("%Y-%m-%d %H:%M"),
                                           "; every run under SCHED_RR (--rt)" if a.rt else ""),
          ""]

    def emit(text):
        md.append(text)
        print(text, flush=True)
        if a.output:
            with open(a.output, "w") as f:
                f.write("\n".join(md))

    with tempfile.TemporaryDirectory(prefix="rc-bench-") as tmp:
        ctx.tmp = tmp
        tp_wls = [w for w in chosen if w in TP_WORKLOADS]
        lead_wls = [w for w in chosen if w in LEAD_WORKLOADS]
        recs = chosen_recorders("lead") if "lead" in suites else []
        if recs and lead_wls:
            emit("## 1. Like for like: one tracepoint, every recorder\n")
            for name in lead_wls:
                wl = wls[name]
                wrecs = [r for r in recs if not hasattr(r, "applies") or r.applies(wl)]
                res = rounds(ctx, wl, wrecs, a.runs, tmp, " (lead)", each=True)
                emit(lead_table(wl, res, bpf_costs(ctx, wl, wrecs, a.runs, tmp), a.runs,
                                ctx.busy.get(wl.name)))
        if recs and tp_wls:
            wl = wls[tp_wls[0]]
            sc = [r for r in syscall_cost_recorders(ctx, a.baseline)
                  if not pats or any(p in r.name for p in pats)]
            res = rounds(ctx, wl, sc, a.runs, tmp, " (syscalls source)", each=True)
            emit(cost_table(wl, res, bpf_costs(ctx, wl, sc, a.runs, tmp), a.runs))
        recs = chosen_recorders("syscalls") if "syscalls" in suites else []
        if recs:
            emit("## 2. ringcap's syscall record against its peers (the second table)\n\n"
                 "ringcap: -e syscalls, a record a call, entry and exit paired; the peers: "
                 "raw_syscalls:sys_enter and sys_exit filtered to the storm's syscall.\n")
            for name in chosen:
                emit(table(wls[name], rounds(ctx, wls[name], recs, a.runs, tmp), a.runs))
            if not a.no_decode and chosen:
                emit(decode_speed(ctx, wls[chosen[0]], tmp, [r.name for r in recs]))
        recs = chosen_recorders("tracepoints") if "tracepoints" in suites else []
        if recs and tp_wls:
            emit("## 3. The same tracepoints, recorded by all\n\n"
                 "trace-cmd's ring: the top instance's, %s KiB a CPU.\n" % top_ring_kib())
            for name in tp_wls:
                wl = wls[name]
                emit(table(wl, rounds(ctx, wl, recs, a.runs, tmp, " (tracepoints)"), a.runs,
                           unit="event", what=" + ".join(tracepoints(wl))))
        if not a.no_memory:
            emit(memory(ctx, a.calls, tmp))
    if a.output:
        with open(a.output, "w") as f:
            f.write("\n".join(md))


if __name__ == "__main__":
    main()
