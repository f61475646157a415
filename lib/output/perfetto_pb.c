// SPDX-License-Identifier: GPL-2.0-only
/*
 * Perfetto's own trace (output.h): a Trace of TracePackets, protobuf,
 * encoded by hand with util/pb.h (field numbers from Perfetto's
 * perfetto_trace.proto), as traced writes it:
 *
 * - sched_switch and sched_waking in FtraceEventBundle's compact_sched
 *   form, a bundle per CPU of at most BUNDLE_MAX events, with the comms
 *   interned in the bundle and prev_state the kernel's raw value;
 *   sched_wakeup, sched_process_fork and sched_process_exit as ordinary
 *   FtraceEvents of the same bundle;
 * - a SystemInfo (utsname: Perfetto reads prev_state by the kernel's
 *   version) and a ClockSnapshot (BOOTTIME, the capture clock, against
 *   REALTIME) per machine;
 * - process and thread TrackDescriptors, with names, again after exec;
 * - syscalls as TrackEvent slices on their threads' tracks (begin at
 *   entry with the arguments, end at exit with the return value, as
 *   debug annotations); any other record an instant with its fields;
 * - records with a stack as PerfSamples, their callstacks, frames,
 *   mappings and function names interned;
 * - the records the kernel lost (ringcap:lost) as a counter track,
 *   cumulative.
 *
 * One trusted packet sequence per machine (host). Its interned data is
 * bounded: past INTERN_MAX entries the next packet that interns clears
 * the sequence's incremental state (SEQ_INCREMENTAL_STATE_CLEARED) and
 * interns from 1 again. Every packet that uses an interned id says
 * SEQ_NEEDS_INCREMENTAL_STATE. Several hosts are several machines
 * (TracePacket.machine_id: the first host's packets carry none, as a
 * trace's own machine), so that their CPUs and pids never mix.
 *
 * The packets are written in batches of at most BATCH_MAX bytes, each
 * deflated into a compressed_packets packet, as traced does with
 * compression_type DEFLATE: a trace of syscalls, whose arguments are
 * mostly 64-bit numbers, is otherwise only half the JSON's size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "output/output_int.h"
#include "decode/value.h"
#include "util/idmap.h"
#include "util/mem.h"
#include "util/pb.h"

#define BUNDLE_MAX 1024	      /* events in a CPU's bundle */
#define INTERN_MAX (1u << 15) /* interned entries of a sequence before it is cleared */
#define TASKS_MAX  (1u << 16) /* threads remembered as described */
#define BATCH_MAX  (256u << 10)

/* TracePacket */
#define P_FTRACE	   1
#define P_CLOCK		   6
#define P_TIMESTAMP	   8
#define P_SEQ_ID	   10
#define P_TRACK_EVENT	   11
#define P_INTERNED	   12
#define P_SEQ_FLAGS	   13
#define P_SYSTEM_INFO	   45
#define P_COMPRESSED	   50
#define P_TRACK_DESCRIPTOR 60
#define P_PERF_SAMPLE	   66
#define P_MACHINE	   98

#define SEQ_CLEARED 1
#define SEQ_NEEDS   2

/* InternedData */
#define I_EVENT_NAMES	 2
#define I_ANN_NAMES	 3
#define I_FUNCTION_NAMES 5
#define I_FRAMES	 6
#define I_CALLSTACKS	 7
#define I_MAPPING_PATHS	 17
#define I_MAPPINGS	 19

/* TrackEvent */
#define TE_ANNOTATION 4
#define TE_TYPE	      9
#define TE_NAME_IID   10
#define TE_TRACK      11
#define TE_COUNTER    30
#define TYPE_BEGIN    1
#define TYPE_END      2
#define TYPE_INSTANT  3
#define TYPE_COUNTER  4

/* DebugAnnotation */
#define DA_NAME_IID 1
#define DA_UINT	    3
#define DA_INT	    4
#define DA_STRING   6
#define DA_ARRAY    12

/* Track uuids: small for threads, the most of a packet's bytes after its time. */
#define UUID_MACHINE_SHIFT 24 /* a thread's: its tid + 1 + machine << 24 (tids < 2^22) */
#define UUID_PROCESS	   (1ull << 40)
#define UUID_UNKNOWN	   (2ull << 40)
#define UUID_DROPS	   (3ull << 40)

/* A CPU's bundle in the making. */
struct bundle {
	struct rc_pb ev; /* its FtraceEvents, encoded */
	uint32_t nev;
	uint32_t nsw, nwk;
	uint64_t sw_ts[BUNDLE_MAX], wk_ts[BUNDLE_MAX];
	int64_t sw_state[BUNDLE_MAX];
	int32_t sw_pid[BUNDLE_MAX], sw_prio[BUNDLE_MAX];
	uint32_t sw_comm[BUNDLE_MAX];
	int32_t wk_pid[BUNDLE_MAX], wk_cpu[BUNDLE_MAX], wk_prio[BUNDLE_MAX];
	uint32_t wk_comm[BUNDLE_MAX];
	struct rc_idmap comms; /* a comm's hash -> its index in @names + 1 */
	char (*names)[16];
	uint32_t nnames;
	size_t names_cap;
};

/* A host: its CPUs' bundles, its threads, its sequence's interned data. */
struct machine {
	const struct rc_meta *m; /* its first file's header */
	uint32_t id;		 /* machine_id: 0 for the first host */
	uint32_t ncpus;
	struct bundle **cpus;	  /* [ncpus], each made at its first event */
	struct rc_idmap tasks;	  /* tid -> its comm's hash: described */
	struct rc_idmap procs;	  /* pid -> 1: described */
	struct rc_idmap interned; /* a key's hash -> its iid */
	uint64_t next_iid;
	bool cleared; /* interned nothing since the last clear: the next to intern says so */
	bool begun;   /* its SystemInfo and clocks written */
	bool unknown; /* the track of records of no known task described */
	uint64_t lost;
};

struct pfpb {
	struct machine *machines; /* [o->nsrcs]: at most one a source */
	uint32_t nmachines;
	uint32_t *src_machine; /* [source] -> its machine */
	struct rc_pb pkt;      /* the packet being made */
	struct rc_pb intern;   /* its InternedData's fields */
	struct rc_pb out;      /* the batch of packets, a Trace's bytes */
	struct rc_pb tmp;      /* a compact_sched, before its bundle */
	uint8_t *z;
	size_t zcap;
	uint32_t pkt_machine;
	bool pkt_interns; /* the packet uses or defines interned data */
};

static uint64_t hash_bytes(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	while (len--)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

/* A string's length, at most @max bytes (SIZE_MAX: to its NUL). */
static size_t slen(const char *s, size_t max)
{
	return max == SIZE_MAX ? strlen(s) : strnlen(s, max);
}

static uint64_t hash_str(uint64_t kind, const char *s, size_t max)
{
	uint64_t h = hash_bytes(0xcbf29ce484222325ull, &kind, sizeof(kind));

	return hash_bytes(h, s, slen(s, max)) | 1; /* never 0: an idmap key */
}

/* Deflate the batch into one compressed_packets packet of the output. */
static void flush_batch(struct rc_output *o)
{
	struct pfpb *p = o->state;
	uLongf zlen = compressBound(p->out.len);
	uint8_t hdr[16];
	size_t n = 0;
	uint64_t v;

	if (!p->out.len || p->out.err)
		return;
	/* level 1: 0.3% larger than 6 on 4M syscalls, and a third less CPU */
	if (rc_ensure_arr(&p->z, &p->zcap, zlen, 1) ||
	    compress2(p->z, &zlen, p->out.buf, p->out.len, 1) != Z_OK) {
		p->out.err = -ENOMEM;
		return;
	}
	/* Trace.packet (1) { compressed_packets (50): the deflated Trace } */
	v = 2 + rc_pb__varint_len(zlen) + zlen; /* field 50: a 2-byte tag */
	hdr[n++] = 0x0a;
	for (; v >= 0x80; v >>= 7)
		hdr[n++] = (uint8_t)(v | 0x80);
	hdr[n++] = (uint8_t)v;
	hdr[n++] = ((P_COMPRESSED << 3 | RC_PB_LEN) & 0x7f) | 0x80;
	hdr[n++] = (P_COMPRESSED << 3 | RC_PB_LEN) >> 7;
	for (v = zlen; v >= 0x80; v >>= 7)
		hdr[n++] = (uint8_t)(v | 0x80);
	hdr[n++] = (uint8_t)v;
	rc_strbuf__put(&o->buf, hdr, n);
	rc_strbuf__put(&o->buf, p->z, zlen);
	rc_pb__reset(&p->out);
}

static void pkt_begin(struct pfpb *p, uint32_t machine, uint64_t ts)
{
	rc_pb__reset(&p->pkt);
	rc_pb__reset(&p->intern);
	p->pkt_machine = machine;
	p->pkt_interns = false;
	if (ts)
		rc_pb__uint(&p->pkt, P_TIMESTAMP, ts);
}

/* The packet made into the batch, with its sequence, machine and interned data. */
static void pkt_end(struct rc_output *o)
{
	struct pfpb *p = o->state;
	struct machine *mc = &p->machines[p->pkt_machine];

	rc_pb__uint(&p->pkt, P_SEQ_ID, p->pkt_machine + 1);
	if (mc->id)
		rc_pb__uint(&p->pkt, P_MACHINE, mc->id);
	if (p->pkt_interns) {
		rc_pb__uint(&p->pkt, P_SEQ_FLAGS, SEQ_NEEDS | (mc->cleared ? SEQ_CLEARED : 0));
		mc->cleared = false;
	}
	if (p->intern.len)
		rc_pb__bytes(&p->pkt, P_INTERNED, p->intern.buf, p->intern.len);
	if (p->pkt.err)
		p->out.err = p->out.err ?: p->pkt.err;
	rc_pb__bytes(&p->out, 1, p->pkt.buf, p->pkt.len);
	if (p->out.len >= BATCH_MAX)
		flush_batch(o);
}

/*
 * A packet about to use interned data: past the bound, the sequence's
 * state is cleared first, so that its ids stay few.
 */
static void pkt_uses_interned(struct pfpb *p)
{
	struct machine *mc = &p->machines[p->pkt_machine];

	if (!p->pkt_interns && mc->interned.used >= INTERN_MAX) {
		rc_idmap__clear(&mc->interned);
		mc->next_iid = 1;
		mc->cleared = true;
	}
	p->pkt_interns = true;
}

/*
 * The iid of a string in one of InternedData's tables (@table: the field
 * number, of EventName's, DebugAnnotationName's or InternedString's
 * shape, all { iid = 1; name or str = 2 }), interned in this packet when new.
 */
static uint64_t intern_str(struct pfpb *p, uint32_t table, const char *s, size_t max)
{
	struct machine *mc = &p->machines[p->pkt_machine];
	uint64_t *slot;
	bool added;

	pkt_uses_interned(p);
	slot = rc_idmap__get_key(&mc->interned, hash_str(table, s, max), &added);
	if (!slot) {
		p->out.err = -ENOMEM;
		return 0;
	}
	if (added) {
		*slot = mc->next_iid++;
		rc_pb__begin(&p->intern, table);
		rc_pb__uint(&p->intern, 1, *slot);
		rc_pb__bytes(&p->intern, 2, s, slen(s, max));
		rc_pb__end(&p->intern);
	}
	return *slot;
}

static uint64_t thread_uuid(uint32_t machine, uint32_t tid)
{
	return tid + 1ull + ((uint64_t)machine << UUID_MACHINE_SHIFT);
}

enum track_kind { TRACK_THREAD, TRACK_PROCESS, TRACK_NAMED, TRACK_COUNTER };

/* A track's descriptor: a thread's, a process's, or one of a name (a counter's). */
static void describe(struct rc_output *o, uint32_t machine, uint64_t uuid, uint32_t pid,
		     uint32_t tid, const char *name, size_t max, enum track_kind kind)
{
	struct pfpb *p = o->state;

	pkt_begin(p, machine, 0);
	rc_pb__begin(&p->pkt, P_TRACK_DESCRIPTOR);
	rc_pb__uint(&p->pkt, 1, uuid);
	if (kind == TRACK_THREAD) {
		rc_pb__begin(&p->pkt, 4); /* ThreadDescriptor */
		rc_pb__uint(&p->pkt, 1, pid);
		rc_pb__uint(&p->pkt, 2, tid);
		rc_pb__bytes(&p->pkt, 5, name, slen(name, max));
		rc_pb__end(&p->pkt);
	} else if (kind == TRACK_PROCESS) {
		rc_pb__begin(&p->pkt, 3); /* ProcessDescriptor */
		rc_pb__uint(&p->pkt, 1, pid);
		rc_pb__bytes(&p->pkt, 6, name, slen(name, max));
		rc_pb__end(&p->pkt);
	} else {
		rc_pb__bytes(&p->pkt, 2, name, slen(name, max));
		if (kind == TRACK_COUNTER) {
			rc_pb__begin(&p->pkt, 8);   /* CounterDescriptor */
			rc_pb__uint(&p->pkt, 3, 2); /* UNIT_COUNT */
			rc_pb__end(&p->pkt);
		}
	}
	rc_pb__end(&p->pkt);
	pkt_end(o);
}

/* Describe a thread (and its process) the first time, and after exec. */
static void name_thread(struct rc_output *o, uint32_t machine, uint32_t pid, uint32_t tid,
			const char *comm)
{
	struct pfpb *p = o->state;
	struct machine *mc = &p->machines[machine];
	uint64_t h = hash_str(0, comm, 16), *slot;
	bool added;

	if (mc->tasks.used >= TASKS_MAX)
		rc_idmap__clear(&mc->tasks); /* described again: bounded memory */
	slot = rc_idmap__get(&mc->tasks, tid, &added);
	if (!slot || *slot == h)
		return;
	*slot = h;
	/* the process by its leader's name; by its first thread's until the leader is seen */
	if (mc->procs.used >= TASKS_MAX)
		rc_idmap__clear(&mc->procs);
	slot = rc_idmap__get(&mc->procs, pid, &added);
	if (pid == tid || (slot && added))
		describe(o, machine, UUID_PROCESS + ((uint64_t)machine << 32) + pid, pid, 0, comm,
			 16, TRACK_PROCESS);
	describe(o, machine, thread_uuid(machine, tid), pid, tid, comm, 16, TRACK_THREAD);
}

/* A machine's header packets: its SystemInfo, its clocks, its counter track. */
static void machine_begin(struct rc_output *o, uint32_t machine)
{
	struct pfpb *p = o->state;
	struct machine *mc = &p->machines[machine];
	const struct rc_meta *m = mc->m;

	mc->begun = true;
	pkt_begin(p, machine, 0);
	rc_pb__begin(&p->pkt, P_SYSTEM_INFO);
	rc_pb__begin(&p->pkt, 1); /* Utsname */
	rc_pb__string(&p->pkt, 1, "Linux");
	if (m->kernel)
		rc_pb__string(&p->pkt, 3, m->kernel);
	if (m->arch)
		rc_pb__string(&p->pkt, 4, m->arch);
	rc_pb__end(&p->pkt);
	if (m->page_size)
		rc_pb__uint(&p->pkt, 6, m->page_size);
	rc_pb__uint(&p->pkt, 8, mc->ncpus);
	if (m->host)
		rc_pb__string(&p->pkt, 17, m->host);
	rc_pb__end(&p->pkt);
	pkt_end(o);

	pkt_begin(p, machine, m->start_ts);
	rc_pb__begin(&p->pkt, P_CLOCK);
	rc_pb__begin(&p->pkt, 1);
	rc_pb__uint(&p->pkt, 1, 6); /* BOOTTIME: the capture clock */
	rc_pb__uint(&p->pkt, 2, m->start_ts);
	rc_pb__end(&p->pkt);
	rc_pb__begin(&p->pkt, 1);
	rc_pb__uint(&p->pkt, 1, 1); /* REALTIME */
	rc_pb__uint(&p->pkt, 2, m->start_ts + (uint64_t)m->wall_offset_ns);
	rc_pb__end(&p->pkt);
	rc_pb__uint(&p->pkt, 2, 6); /* primary_trace_clock */
	rc_pb__end(&p->pkt);
	pkt_end(o);

	describe(o, machine, UUID_DROPS | machine, 0, 0, "records lost", SIZE_MAX, TRACK_COUNTER);
	pkt_begin(p, machine, m->start_ts);
	rc_pb__begin(&p->pkt, P_TRACK_EVENT);
	rc_pb__uint(&p->pkt, TE_TYPE, TYPE_COUNTER);
	rc_pb__uint(&p->pkt, TE_TRACK, UUID_DROPS | machine);
	rc_pb__uint(&p->pkt, TE_COUNTER, 0);
	rc_pb__end(&p->pkt);
	pkt_end(o);
}

/* A CPU's bundle into a packet: its FtraceEvents and its compact_sched. */
static void flush_bundle(struct rc_output *o, uint32_t machine, uint32_t cpu)
{
	struct pfpb *p = o->state;
	struct bundle *b = p->machines[machine].cpus[cpu];
	struct rc_pb *t = &p->tmp;
	uint32_t i;

	if (!b || (!b->nev && !b->nsw && !b->nwk))
		return;
	rc_pb__reset(t);
	for (i = 0; i < b->nnames; i++)
		rc_pb__bytes(t, 5, b->names[i], strnlen(b->names[i], 16));
#define PACKED(field, n, expr)                                                                     \
	do {                                                                                       \
		if (!(n))                                                                          \
			break;                                                                     \
		rc_pb__begin(t, field);                                                            \
		for (i = 0; i < (n); i++)                                                          \
			rc_pb__raw_varint(t, (expr));                                              \
		rc_pb__end(t);                                                                     \
	} while (0)
	/* the times delta-encoded: the first absolute, each next from the one before */
	PACKED(1, b->nsw, b->sw_ts[i] - (i ? b->sw_ts[i - 1] : 0));
	PACKED(2, b->nsw, (uint64_t)b->sw_state[i]);
	PACKED(3, b->nsw, (uint64_t)(int64_t)b->sw_pid[i]);
	PACKED(4, b->nsw, (uint64_t)(int64_t)b->sw_prio[i]);
	PACKED(6, b->nsw, b->sw_comm[i]);
	PACKED(7, b->nwk, b->wk_ts[i] - (i ? b->wk_ts[i - 1] : 0));
	PACKED(8, b->nwk, (uint64_t)(int64_t)b->wk_pid[i]);
	PACKED(9, b->nwk, (uint64_t)(int64_t)b->wk_cpu[i]);
	PACKED(10, b->nwk, (uint64_t)(int64_t)b->wk_prio[i]);
	PACKED(11, b->nwk, b->wk_comm[i]);
#undef PACKED
	pkt_begin(p, machine, 0);
	rc_pb__begin(&p->pkt, P_FTRACE);
	rc_pb__uint(&p->pkt, 1, cpu);
	if (b->nev)
		rc_pb__raw(&p->pkt, b->ev.buf, b->ev.len);
	if (b->nsw || b->nwk)
		rc_pb__bytes(&p->pkt, 4, t->buf, t->len);
	rc_pb__end(&p->pkt);
	if (t->err || b->ev.err)
		p->out.err = p->out.err ?: (t->err ?: b->ev.err);
	pkt_end(o);
	rc_pb__reset(&b->ev);
	b->nev = b->nsw = b->nwk = 0;
	b->nnames = 0;
	rc_idmap__clear(&b->comms);
}

/* The bundle of a record's CPU, with room for one more event; NULL: none (no CPU known). */
static struct bundle *bundle_of(struct rc_output *o, uint32_t machine, uint32_t cpu)
{
	struct pfpb *p = o->state;
	struct machine *mc = &p->machines[machine];
	struct bundle *b;

	if (cpu >= mc->ncpus)
		return NULL;
	b = mc->cpus[cpu];
	if (!b) {
		b = mc->cpus[cpu] = calloc(1, sizeof(*b));
		if (!b)
			return NULL;
	}
	if (b->nev + b->nsw + b->nwk >= BUNDLE_MAX)
		flush_bundle(o, machine, cpu);
	return b;
}

/* A comm's index in the bundle's intern table. */
static uint32_t bundle_comm(struct rc_output *o, struct bundle *b, const char *comm, size_t size)
{
	struct pfpb *p = o->state;
	char c[16] = {};
	uint64_t *slot;
	bool added;

	memcpy(c, comm, size < sizeof(c) - 1 ? size : sizeof(c) - 1);
	slot = rc_idmap__get_key(&b->comms, hash_str(0, c, sizeof(c)), &added);
	if (!slot || (added && rc_ensure_arr(&b->names, &b->names_cap, b->nnames + 1, 64))) {
		p->out.err = -ENOMEM;
		return 0;
	}
	if (added) {
		memcpy(b->names[b->nnames++], c, sizeof(c));
		*slot = b->nnames;
	}
	return (uint32_t)*slot - 1;
}

static const struct rc_field *field2(const struct rc_event_desc *ev, const char *a, const char *b)
{
	const struct rc_field *f = rc_event__field(ev, a);

	return f ? f : (b ? rc_event__field(ev, b) : NULL);
}

static int64_t sfield(const struct rc_field *f, const struct rc_rec_hdr *rec, int64_t dflt)
{
	return f && f->kind != RC_FIELD_STR ? rc_field__s64(f, rec, 0) : dflt;
}

/* A string field's bytes, at most @max; "" when absent. */
static const char *strfield(const struct rc_field *f, const struct rc_rec_hdr *rec, size_t *len)
{
	if (!f || f->kind != RC_FIELD_STR) {
		*len = 0;
		return "";
	}
	*len = strnlen((const char *)rec + f->offset, f->size);
	return (const char *)rec + f->offset;
}

/*
 * The sched events Perfetto knows from ftrace, into the record's CPU's
 * bundle. ringcap's own sched_switch names the next task's tgid next_pid
 * and its tid next_tid; the kernel's (ftrace transport) next_pid is the
 * tid, as Perfetto's.
 */
static bool sched_event(struct rc_output *o, uint32_t machine, const struct rc_event_desc *ev,
			const struct rc_rec_hdr *rec)
{
	const char *name = ev->name;
	struct bundle *b;
	const char *s;
	size_t len;
	uint32_t i;

	if (strncmp(name, "sched:sched_", 12) || ev->flags & RC_EVENT_NO_CPU)
		return false;
	name += 12;
	if (strcmp(name, "switch") && strcmp(name, "waking") && strcmp(name, "wakeup") &&
	    strcmp(name, "process_fork") && strcmp(name, "process_exit"))
		return false;
	if (!(b = bundle_of(o, machine, rec->cpu)))
		return false;
	if (!strcmp(name, "switch")) {
		i = b->nsw++;
		b->sw_ts[i] = rec->ts;
		b->sw_state[i] = sfield(rc_event__field(ev, "prev_state"), rec, 0);
		b->sw_pid[i] = (int32_t)sfield(field2(ev, "next_tid", "next_pid"), rec, 0);
		b->sw_prio[i] = (int32_t)sfield(rc_event__field(ev, "next_prio"), rec, 120);
		s = strfield(rc_event__field(ev, "next_comm"), rec, &len);
		b->sw_comm[i] = bundle_comm(o, b, s, len);
		return true;
	}
	if (!strcmp(name, "waking")) {
		i = b->nwk++;
		b->wk_ts[i] = rec->ts;
		b->wk_pid[i] = (int32_t)sfield(field2(ev, "pid", "tid"), rec, 0);
		b->wk_cpu[i] = (int32_t)sfield(rc_event__field(ev, "target_cpu"), rec, 0);
		b->wk_prio[i] = (int32_t)sfield(rc_event__field(ev, "prio"), rec, 120);
		s = strfield(rc_event__field(ev, "comm"), rec, &len);
		b->wk_comm[i] = bundle_comm(o, b, s, len);
		return true;
	}
	/* FtraceEventBundle.event (2) { timestamp 1, pid 2, the event's own } */
	rc_pb__begin(&b->ev, 2);
	rc_pb__uint(&b->ev, 1, rec->ts);
	rc_pb__uint(&b->ev, 2, rec->tid);
	if (!strcmp(name, "wakeup")) {
		rc_pb__begin(&b->ev, 17);
		s = strfield(field2(ev, "wakee_comm", "comm"), rec, &len);
		rc_pb__bytes(&b->ev, 1, s, len);
		rc_pb__uint(&b->ev, 2, (uint64_t)sfield(field2(ev, "wakee_tid", "pid"), rec, 0));
		rc_pb__uint(&b->ev, 3, (uint64_t)sfield(rc_event__field(ev, "prio"), rec, 120));
		rc_pb__uint(&b->ev, 4, 1);
		rc_pb__uint(&b->ev, 5, (uint64_t)sfield(rc_event__field(ev, "target_cpu"), rec, 0));
	} else if (!strcmp(name, "process_fork")) {
		rc_pb__begin(&b->ev, 239);
		s = strfield(rc_event__field(ev, "parent_comm"), rec, &len);
		if (len)
			rc_pb__bytes(&b->ev, 1, s, len);
		else
			rc_pb__bytes(&b->ev, 1, rec->comm, strnlen(rec->comm, sizeof(rec->comm)));
		rc_pb__uint(&b->ev, 2,
			    (uint64_t)sfield(rc_event__field(ev, "parent_pid"), rec, rec->tid));
		s = strfield(rc_event__field(ev, "child_comm"), rec, &len);
		rc_pb__bytes(&b->ev, 3, s, len);
		rc_pb__uint(&b->ev, 4,
			    (uint64_t)sfield(field2(ev, "child_tid", "child_pid"), rec, 0));
	} else {
		rc_pb__begin(&b->ev, 238);
		s = strfield(rc_event__field(ev, "comm"), rec, &len);
		if (len)
			rc_pb__bytes(&b->ev, 1, s, len);
		else
			rc_pb__bytes(&b->ev, 1, rec->comm, strnlen(rec->comm, sizeof(rec->comm)));
		rc_pb__uint(&b->ev, 2, (uint64_t)sfield(rc_event__field(ev, "pid"), rec, rec->tid));
		rc_pb__uint(&b->ev, 3,
			    (uint64_t)sfield(rc_event__field(ev, "tgid"), rec, rec->pid));
		rc_pb__uint(&b->ev, 4, (uint64_t)sfield(rc_event__field(ev, "prio"), rec, 120));
	}
	rc_pb__end(&b->ev);
	rc_pb__end(&b->ev);
	b->nev++;
	return true;
}

/* One element of a field as a DebugAnnotation's value. */
static void put_value(struct pfpb *p, const struct rc_schema *s, const struct rc_field *f,
		      const struct rc_rec_hdr *rec, unsigned int idx)
{
	struct rc_value v;

	rc_field__value(s, f, rec, idx, &v);
	if (v.kind == RC_FIELD_STR)
		rc_pb__bytes(&p->pkt, DA_STRING, v.str, strnlen(v.str, v.len));
	else if (v.name)
		rc_pb__string(&p->pkt, DA_STRING, v.name);
	else if (v.kind == RC_FIELD_SINT || f->hint == RC_HINT_ERRNO)
		rc_pb__uint(&p->pkt, DA_INT, (uint64_t)v.s);
	else
		rc_pb__uint(&p->pkt, DA_UINT, v.u);
}

/* Field @fld of @rec as a debug annotation of the track event open. */
static void annotate(struct pfpb *p, const struct rc_schema *s, const struct rc_field *fld,
		     const struct rc_rec_hdr *rec)
{
	const struct rc_field *f = fld;
	struct rc_field plain;
	uint16_t k;

	if ((fld->kind == RC_FIELD_DATA_LOC || fld->kind == RC_FIELD_REL_LOC) &&
	    rc_field__resolve(fld, rec, &plain))
		return; /* out of the record */
	if (fld->kind == RC_FIELD_DATA_LOC || fld->kind == RC_FIELD_REL_LOC)
		f = &plain;
	/* a call of no argument: no value to annotate (an empty array is one of none) */
	if (f->kind != RC_FIELD_STR && f->count > 1 && !rc_field__count(s, f, rec))
		return;
	rc_pb__begin(&p->pkt, TE_ANNOTATION);
	rc_pb__uint(&p->pkt, DA_NAME_IID, intern_str(p, I_ANN_NAMES, fld->name, SIZE_MAX));
	if (f->kind != RC_FIELD_STR && f->count != 1) {
		uint16_t n = rc_field__count(s, f, rec);

		for (k = 0; k < n; k++) {
			rc_pb__begin(&p->pkt, DA_ARRAY);
			put_value(p, s, f, rec, k);
			rc_pb__end(&p->pkt);
		}
	} else {
		put_value(p, s, f, rec, 0);
	}
	rc_pb__end(&p->pkt);
}

/* A TrackEvent packet at @ts on @track: its type and name; left open for annotations. */
static void track_event(struct pfpb *p, uint32_t machine, uint64_t ts, uint64_t track,
			unsigned int type, const char *name)
{
	pkt_begin(p, machine, ts);
	rc_pb__begin(&p->pkt, P_TRACK_EVENT);
	rc_pb__uint(&p->pkt, TE_TYPE, type);
	rc_pb__uint(&p->pkt, TE_TRACK, track);
	if (name)
		rc_pb__uint(&p->pkt, TE_NAME_IID, intern_str(p, I_EVENT_NAMES, name, SIZE_MAX));
	else
		pkt_uses_interned(p);
}

/* A syscall: a slice from entry (its arguments) to exit (its return); the record's time is the
 * exit. */
static void syscall_event(struct rc_output *o, uint32_t machine, const struct rc_event_desc *ev,
			  const struct rc_rec_hdr *rec, const struct rc_field *dur_f,
			  const struct rc_field *nr_f, uint64_t track)
{
	const struct rc_schema *s = o->m->schema;
	struct pfpb *p = o->state;
	uint64_t dur = rc_field__u64(dur_f, rec, 0), nr = rc_field__u64(nr_f, rec, 0);
	uint64_t start = dur <= rec->ts ? rec->ts - dur : rec->ts;
	const char *nm = rc_enum__name(rc_schema__enum(s, nr_f->enum_id), (int64_t)nr);
	const struct rc_field *ret = rc_event__field(ev, "ret");
	char nb[32];
	uint16_t i;

	if (rec->flags & RC_SYSCALL_F_COMPAT) { /* a 32-bit task's: of another table than the names' */
		snprintf(nb, sizeof(nb), "sys32_%" PRIu64, nr);
		nm = nb;
	} else if (!nm || nr_f->hint != RC_HINT_ENUM) {
		snprintf(nb, sizeof(nb), "sys_%" PRIu64, nr);
		nm = nb;
	}
	track_event(p, machine, start, track, TYPE_BEGIN, nm);
	for (i = 0; i < ev->nfields; i++)
		if (&ev->fields[i] != dur_f && &ev->fields[i] != nr_f && &ev->fields[i] != ret)
			annotate(p, s, &ev->fields[i], rec);
	rc_pb__end(&p->pkt);
	pkt_end(o);
	track_event(p, machine, rec->ts, track, TYPE_END, NULL);
	if (ret)
		annotate(p, s, ret, rec);
	rc_pb__end(&p->pkt);
	pkt_end(o);
}

/* The iid of a frame, interned with its function's name and its mapping when new. */
static uint64_t intern_frame(struct pfpb *p, const struct rc_frame *f, bool kernel)
{
	struct machine *mc = &p->machines[p->pkt_machine];
	char name[512];
	uint64_t fn, map = 0, h, *slot;
	bool added;

	rc_frame__name(f, name, sizeof(name));
	h = hash_str(I_FRAMES, name, sizeof(name));
	if (f->dso)
		h = hash_bytes(h, f->dso, strlen(f->dso));
	h = hash_bytes(h, &f->off, sizeof(f->off)) | 1;
	if ((slot = rc_idmap__find_key(&mc->interned, h)))
		return *slot;
	fn = intern_str(p, I_FUNCTION_NAMES, name, sizeof(name));
	if (f->dso || kernel) {
		const char *path = f->dso ? f->dso : "[kernel.kallsyms]";
		uint64_t mh = hash_str(I_MAPPINGS, path, SIZE_MAX), path_iid;

		path_iid = intern_str(p, I_MAPPING_PATHS, path, SIZE_MAX);
		slot = rc_idmap__get_key(&mc->interned, mh, &added);
		if (!slot)
			return 0;
		if (added) {
			*slot = mc->next_iid++;
			rc_pb__begin(&p->intern, I_MAPPINGS);
			rc_pb__uint(&p->intern, 1, *slot);
			rc_pb__uint(&p->intern, 7, path_iid);
			rc_pb__end(&p->intern);
		}
		map = *slot;
	}
	slot = rc_idmap__get_key(&mc->interned, h, &added);
	if (!slot)
		return 0;
	if (added) {
		*slot = mc->next_iid++;
		rc_pb__begin(&p->intern, I_FRAMES);
		rc_pb__uint(&p->intern, 1, *slot);
		rc_pb__uint(&p->intern, 2, fn);
		if (map)
			rc_pb__uint(&p->intern, 3, map);
		rc_pb__uint(&p->intern, 4, f->off);
		rc_pb__end(&p->intern);
	}
	return *slot;
}

/* A record with a stack: a PerfSample, its callstack interned (root first). */
static bool stacked_event(struct rc_output *o, uint32_t machine, const struct rc_event_desc *ev,
			  const struct rc_rec_hdr *rec, bool no_task)
{
	const struct rc_field *id = rc_event__field(ev, "stack_id");
	struct pfpb *p = o->state;
	struct machine *mc;
	const struct rc_stack *st;
	uint64_t frames[256], key, *slot;
	size_t i, n, k = 0;
	bool added;

	if (!o->stacks || !id || ev->id >= RC_FIRST_DYN_ID)
		return false;
	st = rc_reader__stack(o->stacks, (uint32_t)rc_field__u64(id, rec, 0));
	n = st ? (size_t)st->nkernel + st->nuser : 0;
	if (!n)
		return false;
	pkt_begin(p, machine, rec->ts);
	pkt_uses_interned(p);
	mc = &p->machines[machine];
	key = ((uint64_t)(o->cur + 1) << 40 | st->id) * 2 + 1; /* the source's stack */
	key = hash_bytes(key, "cs", 2) | 1;
	slot = rc_idmap__find_key(&mc->interned, key);
	if (!slot) {
		/* user frames outermost first, then the kernel's: "bottom frame first" */
		for (i = n; i-- > st->nkernel && k < 256;)
			frames[k++] = intern_frame(p, &st->frames[i], false);
		for (i = st->nkernel; i-- > 0 && k < 256;)
			frames[k++] = intern_frame(p, &st->frames[i], true);
		slot = rc_idmap__get_key(&mc->interned, key, &added);
		if (!slot) {
			p->out.err = -ENOMEM;
			return true;
		}
		*slot = mc->next_iid++;
		rc_pb__begin(&p->intern, I_CALLSTACKS);
		rc_pb__uint(&p->intern, 1, *slot);
		rc_pb__begin(&p->intern, 2);
		for (i = 0; i < k; i++)
			rc_pb__raw_varint(&p->intern, frames[i]);
		rc_pb__end(&p->intern);
		rc_pb__end(&p->intern);
	}
	rc_pb__begin(&p->pkt, P_PERF_SAMPLE);
	if (!(ev->flags & RC_EVENT_NO_CPU))
		rc_pb__uint(&p->pkt, 1, rec->cpu);
	if (!no_task) {
		rc_pb__uint(&p->pkt, 2, rec->pid);
		rc_pb__uint(&p->pkt, 3, rec->tid);
	}
	rc_pb__uint(&p->pkt, 4, *slot);
	rc_pb__uint(&p->pkt, 5, st->nuser ? 2 : 1); /* MODE_USER, MODE_KERNEL */
	rc_pb__end(&p->pkt);
	pkt_end(o);
	return true;
}

static void pfpb_event(struct rc_output *o, const struct rc_rec_hdr *rec)
{
	const struct rc_event_desc *ev = rc_output__ev(o, rec->type);
	bool no_task = ev->flags & (RC_EVENT_NO_PID | RC_EVENT_NO_TID);
	struct pfpb *p = o->state;
	uint32_t machine = p->src_machine[o->cur];
	struct machine *mc = &p->machines[machine];
	const struct rc_field *f, *g;
	uint64_t track;
	uint16_t i;

	if (!mc->begun)
		machine_begin(o, machine);
	/*
	 * every track used is described: the idle tasks as one "swapper"
	 * (their comms, one a CPU, would describe tid 0 again at each turn),
	 * a task of no comm known unnamed until an event names it
	 */
	if (!no_task && !(ev->flags & RC_EVENT_NO_COMM))
		name_thread(o, machine, rec->pid, rec->tid, rec->tid ? rec->comm : "swapper");
	else if (!no_task && !rc_idmap__find(&mc->tasks, rec->tid))
		name_thread(o, machine, rec->pid, rec->tid, "");
	if (sched_event(o, machine, ev, rec))
		return;
	if (!strcmp(ev->name, "ringcap:lost") && (f = rc_event__field(ev, "lost"))) {
		mc->lost += rc_field__u64(f, rec, 0);
		track_event(p, machine, rec->ts, UUID_DROPS | machine, TYPE_COUNTER, NULL);
		rc_pb__uint(&p->pkt, TE_COUNTER, mc->lost);
		rc_pb__end(&p->pkt);
		pkt_end(o);
		return;
	}
	track = no_task ? UUID_UNKNOWN | machine : thread_uuid(machine, rec->tid);
	if (no_task && !mc->unknown) {
		mc->unknown = true;
		describe(o, machine, UUID_UNKNOWN | machine, 0, 0, "task unknown", SIZE_MAX,
			 TRACK_NAMED);
	}
	if (!strcmp(ev->name, "syscall") && (f = rc_event__field(ev, "duration")) &&
	    (g = rc_event__field(ev, "nr"))) {
		syscall_event(o, machine, ev, rec, f, g, track);
		return;
	}
	if (stacked_event(o, machine, ev, rec, no_task))
		return;
	track_event(p, machine, rec->ts, track, TYPE_INSTANT, ev->name);
	for (i = 0; i < ev->nfields; i++)
		annotate(p, o->m->schema, &ev->fields[i], rec);
	rc_pb__end(&p->pkt);
	pkt_end(o);
}

static void pfpb_end(struct rc_output *o)
{
	struct pfpb *p = o->state;
	uint32_t mi, cpu;

	for (mi = 0; mi < p->nmachines; mi++)
		for (cpu = 0; cpu < p->machines[mi].ncpus; cpu++)
			flush_bundle(o, mi, cpu);
	flush_batch(o);
}

static int pfpb_begin(struct rc_output *o)
{
	struct pfpb *p = calloc(1, sizeof(*p));
	size_t i, j;

	o->state = p;
	if (!p)
		return -ENOMEM;
	p->machines = calloc(o->nsrcs ? o->nsrcs : 1, sizeof(*p->machines));
	p->src_machine = calloc(o->nsrcs ? o->nsrcs : 1, sizeof(*p->src_machine));
	if (!p->machines || !p->src_machine)
		return -ENOMEM;
	/*
	 * a machine a host name: the files of one host (a run's, rotated)
	 * share one; containers of one boot (one clock) are machines apart
	 */
	for (i = 0; i < o->nsrcs; i++) {
		const struct rc_meta *m = o->srcs[i].m;

		for (j = 0; j < p->nmachines; j++)
			if (!strcmp(p->machines[j].m->host ?: "", m->host ?: ""))
				break;
		if (j == p->nmachines) {
			p->machines[j].m = m;
			p->machines[j].id = (uint32_t)j;
			p->machines[j].next_iid = 1;
			p->machines[j].cleared = true;
			p->nmachines++;
		}
		p->src_machine[i] = (uint32_t)j;
		if (m->ncpus > p->machines[j].ncpus)
			p->machines[j].ncpus = m->ncpus;
	}
	for (j = 0; j < p->nmachines; j++) {
		p->machines[j].ncpus = p->machines[j].ncpus < 4096 ? p->machines[j].ncpus : 4096;
		p->machines[j].cpus = calloc(p->machines[j].ncpus ?: 1, sizeof(struct bundle *));
		if (!p->machines[j].cpus)
			return -ENOMEM;
	}
	return 0;
}

static void pfpb_free(struct rc_output *o)
{
	struct pfpb *p = o->state;
	uint32_t mi, cpu;

	if (!p)
		return;
	for (mi = 0; p->machines && mi < p->nmachines; mi++) {
		struct machine *mc = &p->machines[mi];

		for (cpu = 0; mc->cpus && cpu < mc->ncpus; cpu++) {
			struct bundle *b = mc->cpus[cpu];

			if (!b)
				continue;
			rc_pb__free(&b->ev);
			rc_idmap__free(&b->comms);
			free(b->names);
			free(b);
		}
		free(mc->cpus);
		rc_idmap__free(&mc->tasks);
		rc_idmap__free(&mc->procs);
		rc_idmap__free(&mc->interned);
	}
	free(p->machines);
	free(p->src_machine);
	rc_pb__free(&p->pkt);
	rc_pb__free(&p->intern);
	rc_pb__free(&p->out);
	rc_pb__free(&p->tmp);
	free(p->z);
	free(p);
	o->state = NULL;
}

const struct rc_output_ops rc_output_perfetto = {
	.name = "perfetto",
	.begin = pfpb_begin,
	.event = pfpb_event,
	.end = pfpb_end,
	.free = pfpb_free,
};
