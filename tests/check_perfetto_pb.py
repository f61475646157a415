#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check a `ringcap report --format perfetto` file with protoc, the protobuf
compiler, against Perfetto's published schema (perfetto_trace.proto):

  check_perfetto_pb.py PROTO_DIR TRACE [--json JSONL] [--machines N]

- protoc --decode=perfetto.protos.Trace reads the whole file; its packets
  are compressed_packets (deflate), each inflated and read by protoc again;
- every interned id resolves, by sequence (trusted_packet_sequence_id),
  honouring SEQ_INCREMENTAL_STATE_CLEARED and SEQ_NEEDS_INCREMENTAL_STATE;
  every track event's track was described before, on its machine;
- with --json (report --format json of the same capture): every
  sched_switch is in a CPU's compact_sched with its time, next tid, prio,
  comm and raw prev_state, and every syscall is a slice on its thread's
  track with its pid, tid, times, name, arguments and return value;
- with --machines: that many machines, each with its SystemInfo and
  clock snapshot.

Prints what it counted; exits 1 at the first mismatch, saying what.
"""
import codecs
import collections
import json
import subprocess
import sys
import zlib

# ringcap's prev_state names (lib/capture/builtin.c): the kernel's raw bits
STATES = {"R": 0, "S": 1, "D": 2, "T": 4, "t": 8, "X": 0x10, "Z": 0x20, "P": 0x40,
          "I": 0x80, "R+": 0x100}


def fail(msg):
    print("check_perfetto_pb: " + msg, file=sys.stderr)
    sys.exit(1)


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def protoc(proto_dir, data):
    r = subprocess.run(["protoc", "--decode=perfetto.protos.Trace", "-I", proto_dir,
                        "perfetto_trace.proto"], input=data, capture_output=True)
    if r.returncode:
        fail("protoc: " + r.stderr.decode(errors="replace"))
    return r.stdout.decode(errors="replace")


def inflate(data):
    """The packets of each compressed_packets packet, one Trace's bytes."""
    out, i = [], 0
    while i < len(data):
        tag, i = varint(data, i)
        n, i = varint(data, i)
        if tag != 0x0A:
            fail("a Trace field other than packet (tag %d)" % tag)
        pkt, i = data[i:i + n], i + n
        j = 0
        while j < len(pkt):
            t, j = varint(pkt, j)
            if t & 7 == 0:
                _, j = varint(pkt, j)
            elif t & 7 == 2:
                m, j = varint(pkt, j)
                if t >> 3 == 50:
                    out.append(zlib.decompress(pkt[j:j + m]))
                j += m
            elif t & 7 in (1, 5):
                j += 8 if t & 7 == 1 else 4
    return b"".join(out)


def parse_text(text):
    """protoc's text format as nested dicts of lists."""
    root = collections.defaultdict(list)
    stack = [root]
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line == "}":
            stack.pop()
        elif line.endswith("{"):
            d = collections.defaultdict(list)
            stack[-1][line[:-1].strip()].append(d)
            stack.append(d)
        else:
            k, v = line.split(": ", 1)
            if v.startswith('"'):
                v = codecs.escape_decode(v[1:-1].encode())[0].decode(errors="replace")
            elif v.lstrip("-").isdigit():
                v = int(v)
            stack[-1][k].append(v)
    return root


def one(d, k, dflt=None):
    v = d.get(k)
    return v[0] if v else dflt


class Seq:
    def __init__(self):
        self.valid = False
        self.tables = collections.defaultdict(dict)


def main():
    proto_dir, trace = sys.argv[1], sys.argv[2]
    opts = dict(zip(sys.argv[3::2], sys.argv[4::2]))
    data = open(trace, "rb").read()
    protoc(proto_dir, data)  # the file itself: a Trace
    inner = inflate(data)
    pkts = parse_text(protoc(proto_dir, inner))["packet"]
    print("%d bytes, %d inflated, %d packets" % (len(data), len(inner), len(pkts)))

    seqs = collections.defaultdict(Seq)
    tracks = {}  # (machine, uuid) -> descriptor
    machines = collections.defaultdict(set)
    switches, slices, open_slices = [], [], {}
    nsamples = nwakeup = nfork = nexit = ninstant = ncounter = nresolved = 0

    for p in pkts:
        mach = one(p, "machine_id", 0)
        seq = seqs[one(p, "trusted_packet_sequence_id", 0)]
        flags = one(p, "sequence_flags", 0)
        if flags & 1:
            seq.valid = True
            seq.tables.clear()
        for idata in p.get("interned_data", []):
            if not flags & 2:
                fail("interned data in a packet without SEQ_NEEDS_INCREMENTAL_STATE")
            for table, entries in idata.items():
                for e in entries:
                    seq.tables[table][one(e, "iid")] = e

        def res(table, iid):
            nonlocal nresolved
            if not flags & 2 or not seq.valid:
                fail("an interned id in a packet of no valid incremental state")
            if iid not in seq.tables[table]:
                fail("%s %s does not resolve" % (table, iid))
            nresolved += 1
            return seq.tables[table][iid]

        for what in ("system_info", "clock_snapshot"):
            if what in p:
                machines[mach].add(what)
        for td in p.get("track_descriptor", []):
            tracks[(mach, one(td, "uuid"))] = td
        for te in p.get("track_event", []):
            key = (mach, one(te, "track_uuid"))
            if key not in tracks:
                fail("track %s of machine %d not described" % key[::-1])
            name = res("event_names", one(te, "name_iid"))["name"][0] \
                if "name_iid" in te else None
            anns = {}
            for a in te.get("debug_annotations", []):
                an = res("debug_annotation_names", one(a, "name_iid"))["name"][0]
                if "array_values" in a:
                    anns[an] = [one(x, "uint_value", one(x, "int_value")) for x in
                                a["array_values"]]
                else:
                    anns[an] = one(a, "uint_value", one(a, "int_value",
                                                       one(a, "string_value")))
            typ = one(te, "type")
            ts = one(p, "timestamp")
            if typ == "TYPE_SLICE_BEGIN":
                open_slices[key] = (ts, name, anns)
            elif typ == "TYPE_SLICE_END":
                if key not in open_slices:
                    fail("a slice end without its begin")
                t0, nm, a0 = open_slices.pop(key)
                th = one(tracks[key], "thread")
                slices.append((one(th, "pid"), one(th, "tid"), t0, ts, nm,
                               tuple(a0.get("args", [])), anns.get("ret")))
            elif typ == "TYPE_INSTANT":
                ninstant += 1
            elif typ == "TYPE_COUNTER":
                ncounter += 1
        for ps in p.get("perf_sample", []):
            cs = res("callstacks", one(ps, "callstack_iid"))
            for fid in cs.get("frame_ids", []):
                fr = res("frames", fid)
                res("function_names", one(fr, "function_name_id"))
                if "mapping_id" in fr:
                    mp = res("mappings", one(fr, "mapping_id"))
                    for sid in mp.get("path_string_ids", []):
                        res("mapping_paths", sid)
            nsamples += 1
        for b in p.get("ftrace_events", []):
            cpu = one(b, "cpu")
            for e in b.get("event", []):
                nwakeup += "sched_wakeup" in e
                nfork += "sched_process_fork" in e
                nexit += "sched_process_exit" in e
            for cs in b.get("compact_sched", []):
                names, t = cs.get("intern_table", []), 0
                n = len(cs.get("switch_timestamp", []))
                for f in ("switch_prev_state", "switch_next_pid", "switch_next_prio",
                          "switch_next_comm_index"):
                    if len(cs.get(f, [])) != n:
                        fail("compact_sched: %s of %d entries, not %d" %
                             (f, len(cs.get(f, [])), n))
                for i in range(n):
                    t += cs["switch_timestamp"][i]
                    ci = cs["switch_next_comm_index"][i]
                    if ci >= len(names):
                        fail("compact_sched: comm index %d of %d" % (ci, len(names)))
                    switches.append((mach, cpu, t, cs["switch_next_pid"][i],
                                     cs["switch_next_prio"][i], names[ci],
                                     cs["switch_prev_state"][i]))
    if open_slices:
        fail("%d slices never end" % len(open_slices))
    for m, what in machines.items():
        if what != {"system_info", "clock_snapshot"}:
            fail("machine %d lacks a system_info or clock_snapshot" % m)
    print("%d sched_switch, %d syscall slices, %d sched_wakeup, %d fork, %d exit, "
          "%d instants, %d samples, %d counter values, %d machines" %
          (len(switches), len(slices), nwakeup, nfork, nexit, ninstant, nsamples,
           ncounter, len(machines)))
    print("%d interned ids resolved" % nresolved)
    if "--machines" in opts and len(machines) != int(opts["--machines"]):
        fail("%d machines, not %s" % (len(machines), opts["--machines"]))

    def json_int(v):
        return int(v) if isinstance(v, str) and v.lstrip("-").isdigit() else v

    if "--json" in opts:
        want_sw, want_sc = collections.Counter(), collections.Counter()
        for line in open(opts["--json"]):
            e = json.loads(line)
            f = e["fields"]
            if e["event"] == "sched:sched_switch":
                want_sw[(0, e["cpu"], json_int(e["ts"]), f.get("next_tid", f.get("next_pid")),
                         f["next_prio"], f["next_comm"], STATES[f["prev_state"]])] += 1
            elif e["event"] == "syscall":
                # report's JSON writes integers beyond 2^53 as strings of their digits
                ts, dur = json_int(e["ts"]), json_int(f["duration"])
                want_sc[(e["pid"], e["tid"], ts - dur, ts, f["nr"],
                         tuple(json_int(a) for a in f["args"]), json_int(f["ret"]))] += 1
        got_sw, got_sc = collections.Counter(switches), collections.Counter(slices)
        if got_sw != want_sw:
            fail("sched_switch differ: %d only in the JSON, e.g. %s; %d only here, e.g. %s" %
                 (sum((want_sw - got_sw).values()), list(want_sw - got_sw)[:2],
                  sum((got_sw - want_sw).values()), list(got_sw - want_sw)[:2]))
        if got_sc != want_sc:
            fail("syscalls differ: %d only in the JSON, e.g. %s; %d only here, e.g. %s" %
                 (sum((want_sc - got_sc).values()), list(want_sc - got_sc)[:2],
                  sum((got_sc - want_sc).values()), list(got_sc - want_sc)[:2]))
        print("the JSON's %d sched_switch and %d syscalls, all equal" %
              (sum(want_sw.values()), sum(want_sc.values())))


if __name__ == "__main__":
    main()
