// SPDX-License-Identifier: GPL-2.0-only
/*
 * Perfetto's JSON (output.h, "perfetto-json"): Chrome trace-event JSON,
 * which ui.perfetto.dev and chrome://tracing open: a track per CPU with
 * the thread running from sched_switch, syscalls as slices on their
 * threads' tracks, samples named by their stacks, anything else an
 * instant, and the threads' names. Perfetto's own protobuf, five times
 * smaller and read faster, is perfetto_pb.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "output/output_int.h"
#include "util/idmap.h"
#include "util/mem.h"

#define CPU_PID	    2147483000	  /* the synthetic process holding the CPU tracks */
#define UNKNOWN_PID (CPU_PID - 1) /* ... and the one of records of no known task */

/* What ran on a CPU since when, from sched_switch. */
struct cpu {
	uint64_t since; /* 0: nothing known to run */
	uint32_t pid, tid;
	char comm[16];
};

/* The output's Perfetto state. */
struct perfetto {
	bool first;	  /* no event written yet: none to separate from */
	struct cpu *cpus; /* [the most CPUs of any file], or NULL */
	uint64_t last_ts; /* the latest event's time, where the CPUs' last slices end */
	struct rc_idmap names; /* tid -> its name's index in comms + 1 */
	char (*comms)[16];
	size_t ncomms, comms_cap;
};

static void trace_sep(struct rc_output *o)
{
	struct perfetto *p = o->state;

	if (!p->first)
		APPEND_LIT(&o->buf, ",\n");
	p->first = false;
}

/* Microseconds since the start of the capture, as the format wants them. */
static void put_us(struct rc_strbuf *sb, const struct rc_meta *m, uint64_t ts)
{
	bool neg = ts < m->start_ts;
	uint64_t ns = neg ? m->start_ts - ts : ts - m->start_ts;

	if (neg)
		APPEND_LIT(sb, "-");
	rc_strbuf__put_u64(sb, ns / 1000);
	APPEND_LIT(sb, ".");
	rc_strbuf__put_u64_0(sb, ns % 1000, 3);
}

static void meta_name(struct rc_output *o, const char *what, uint32_t pid, int64_t tid,
		      const char *name, size_t max)
{
	trace_sep(o);
	rc_strbuf__printf(&o->buf, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%u,", what, pid);
	if (tid >= 0)
		rc_strbuf__printf(&o->buf, "\"tid\":%" PRId64 ",", tid);
	APPEND_LIT(&o->buf, "\"args\":{\"name\":");
	rc_json__escape(&o->buf, name, max);
	APPEND_LIT(&o->buf, "}}");
}

/* Name a thread (and its process, when it leads it) the first time, and after exec. */
static void name_thread(struct rc_output *o, uint32_t pid, uint32_t tid, const char *comm)
{
	struct perfetto *p = o->state;
	uint64_t *slot = rc_idmap__get(&p->names, tid, NULL);
	char *name;

	if (!slot)
		return; /* the map cannot grow: names are left out */
	if (*slot) { /* named before: again only when its name changed (exec) */
		name = p->comms[*slot - 1];
		if (!strncmp(name, comm, sizeof(p->comms[0])))
			return;
	} else {
		if (rc_ensure_arr(&p->comms, &p->comms_cap, p->ncomms + 1, 256))
			return; /* left out, tried again at its next event */
		name = p->comms[p->ncomms++];
		*slot = p->ncomms;
	}
	memcpy(name, comm, sizeof(p->comms[0]));
	if (pid == tid)
		meta_name(o, "process_name", pid, -1, comm, sizeof(p->comms[0]));
	meta_name(o, "thread_name", pid, tid, comm, sizeof(p->comms[0]));
}

/* The slice of what ran on @cpu until @ts. */
static void end_cpu_slice(struct rc_output *o, uint32_t cpu, uint64_t ts)
{
	struct perfetto *p = o->state;
	struct cpu *c = &p->cpus[cpu];

	if (!c->since || !c->tid || ts < c->since)
		return; /* unknown, idle, or out of order */
	trace_sep(o);
	rc_strbuf__printf(&o->buf, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%u,\"ts\":", CPU_PID,
			  CPU_PID + cpu);
	put_us(&o->buf, o->m, c->since);
	rc_strbuf__printf(&o->buf,
			  ",\"dur\":%" PRIu64 ".%03" PRIu64 ",\"name\":", (ts - c->since) / 1000,
			  (ts - c->since) % 1000);
	rc_json__escape(&o->buf, c->comm, sizeof(c->comm));
	rc_strbuf__printf(&o->buf, ",\"args\":{\"pid\":%u,\"tid\":%u}}", c->pid, c->tid);
}

/* Whether some event of the capture does not know its records' process or thread. */
static bool has_unknown_tasks(const struct rc_schema *s)
{
	uint32_t i;

	for (i = 0; i < s->nevents; i++)
		if (s->events[i].flags & (RC_EVENT_NO_PID | RC_EVENT_NO_TID))
			return true;
	return false;
}

static void perfetto_begin(struct rc_output *o)
{
	struct perfetto *p = o->state;
	uint32_t cpu;
	size_t i;
	char name[32];

	p->cpus = calloc(o->ncpus ? o->ncpus : 1, sizeof(*p->cpus));
	p->first = true;
	APPEND_LIT(&o->buf, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
	meta_name(o, "process_name", CPU_PID, -1, "CPUs", SIZE_MAX);
	for (cpu = 0; p->cpus && cpu < o->ncpus && cpu < 4096; cpu++) {
		snprintf(name, sizeof(name), "CPU %u", cpu);
		meta_name(o, "thread_name", CPU_PID, CPU_PID + cpu, name, SIZE_MAX);
	}
	for (i = 0; i < o->nsrcs && !has_unknown_tasks(o->srcs[i].m->schema); i++)
		;
	if (i < o->nsrcs) {
		meta_name(o, "process_name", UNKNOWN_PID, -1, "pid unknown", SIZE_MAX);
		meta_name(o, "thread_name", UNKNOWN_PID, UNKNOWN_PID, "tid unknown", SIZE_MAX);
	}
}

/* A sched_switch: the slice of what ran on its CPU until now ends, the next one's begins. */
static void perfetto_switch(struct rc_output *o, const struct rc_event_desc *ev,
			    const struct rc_rec_hdr *rec)
{
	const struct rc_field *ncomm = rc_event__field(ev, "next_comm");
	const struct rc_field *f = rc_event__field(ev, "next_pid");
	const struct rc_field *g = rc_event__field(ev, "next_tid");
	struct perfetto *p = o->state;
	struct cpu *c = &p->cpus[rec->cpu];

	/*
	 * The record is about the task switched out: it closes the slice
	 * only when that slice is its own. With filters, switches are
	 * missing, and what ran in between is unknown: no slice.
	 */
	if (c->tid == rec->tid)
		end_cpu_slice(o, rec->cpu, rec->ts);
	c->since = rec->ts;
	c->pid = f ? rc_field__u64(f, rec, 0) : 0;
	c->tid = g ? rc_field__u64(g, rec, 0) : 0;
	memset(c->comm, 0, sizeof(c->comm));
	if (ncomm && ncomm->size >= 1)
		memcpy(c->comm, (const char *)rec + ncomm->offset,
		       ncomm->size < sizeof(c->comm) ? ncomm->size : sizeof(c->comm) - 1);
}

/* A syscall: a slice from entry to exit on its thread; the record's time is the exit. */
static void perfetto_syscall(struct rc_output *o, const struct rc_event_desc *ev,
			     const struct rc_rec_hdr *rec, const struct rc_field *dur_f,
			     const struct rc_field *nr_f, uint32_t pid, uint32_t tid)
{
	const struct rc_schema *s = o->m->schema;
	uint64_t dur = rc_field__u64(dur_f, rec, 0), nr = rc_field__u64(nr_f, rec, 0);
	uint64_t start = dur <= rec->ts ? rec->ts - dur : rec->ts;
	const char *nm = rc_enum__name(rc_schema__enum(s, nr_f->enum_id), (int64_t)nr);
	char nb[32];

	trace_sep(o);
	rc_strbuf__printf(&o->buf, "{\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"ts\":", pid, tid);
	put_us(&o->buf, o->m, start);
	rc_strbuf__printf(&o->buf,
			  ",\"dur\":%" PRIu64 ".%03" PRIu64 ",\"name\":", (rec->ts - start) / 1000,
			  (rec->ts - start) % 1000);
	if (rec->flags & RC_SYSCALL_F_COMPAT) { /* a 32-bit task's: of another table than the names' */
		snprintf(nb, sizeof(nb), "sys32_%" PRIu64, nr);
		nm = nb;
	} else if (!nm || nr_f->hint != RC_HINT_ENUM) {
		snprintf(nb, sizeof(nb), "sys_%" PRIu64, nr);
		nm = nb;
	}
	rc_json__escape(&o->buf, nm, SIZE_MAX); /* the format wants a string */
	APPEND_LIT(&o->buf, ",\"args\":");
	rc_json_fields__put(o->jf, &o->buf, ev, rec);
	APPEND_LIT(&o->buf, "}");
}

/*
 * A record with a stack (a sample, an off-CPU record), when the stacks are
 * known: on its thread, named by its innermost function, its frames in
 * args.stack, innermost first; an off-CPU record a slice over the time it
 * was blocked. False when it has none: an instant as any event.
 */
static bool perfetto_stacked(struct rc_output *o, const struct rc_event_desc *ev,
			     const struct rc_rec_hdr *rec, uint32_t pid, uint32_t tid)
{
	const struct rc_field *id = rc_event__field(ev, "stack_id");
	const struct rc_field *blocked = rc_event__field(ev, "blocked");
	const struct rc_stack *st;
	char name[512], title[576];
	uint64_t dur = 0;
	size_t i, n;

	if (!o->stacks || !id || ev->id >= RC_FIRST_DYN_ID)
		return false;
	st = rc_reader__stack(o->stacks, (uint32_t)rc_field__u64(id, rec, 0));
	n = st ? (size_t)st->nkernel + st->nuser : 0;
	if (!n)
		return false;
	if (blocked)
		dur = rc_field__u64(blocked, rec, 0);
	trace_sep(o);
	rc_strbuf__printf(&o->buf,
			  "{\"ph\":\"%s\",%s\"pid\":%u,\"tid\":%u,\"ts\":", blocked ? "X" : "i",
			  blocked ? "" : "\"s\":\"t\",", pid, tid);
	put_us(&o->buf, o->m, blocked && dur <= rec->ts ? rec->ts - dur : rec->ts);
	if (blocked) {
		APPEND_LIT(&o->buf, ",\"dur\":");
		rc_strbuf__printf(&o->buf, "%" PRIu64 ".%03" PRIu64, dur / 1000, dur % 1000);
	}
	/* the innermost user frame names it when there is one: the program's view */
	rc_frame__name(&st->frames[st->nuser ? st->nkernel : 0], name, sizeof(name));
	snprintf(title, sizeof(title), "%s: %s", blocked ? "off-CPU" : ev->name, name);
	APPEND_LIT(&o->buf, ",\"name\":");
	rc_json__escape(&o->buf, title, SIZE_MAX);
	APPEND_LIT(&o->buf, ",\"args\":{\"stack\":[");
	for (i = 0; i < n; i++) {
		if (i)
			APPEND_LIT(&o->buf, ",");
		rc_json__escape(&o->buf, rc_frame__name(&st->frames[i], name, sizeof(name)),
				SIZE_MAX);
	}
	APPEND_LIT(&o->buf, "]}}");
	return true;
}

static void perfetto_event(struct rc_output *o, const struct rc_rec_hdr *rec)
{
	const struct rc_event_desc *ev = rc_output__ev(o, rec->type);
	bool no_task = ev->flags & (RC_EVENT_NO_PID | RC_EVENT_NO_TID);
	uint32_t pid = no_task ? UNKNOWN_PID : rec->pid, tid = no_task ? UNKNOWN_PID : rec->tid;
	struct perfetto *p = o->state;
	const struct rc_field *f, *g;

	p->last_ts = rec->ts > p->last_ts ? rec->ts : p->last_ts;
	if (!no_task && !(ev->flags & RC_EVENT_NO_COMM) && (rec->pid || rec->tid))
		name_thread(o, rec->pid, rec->tid, rec->comm);
	if (!strcmp(ev->name, "sched:sched_switch") && p->cpus && rec->cpu < o->m->ncpus &&
	    !(ev->flags & RC_EVENT_NO_CPU)) {
		perfetto_switch(o, ev, rec);
		return;
	}
	if (!strcmp(ev->name, "syscall") && (f = rc_event__field(ev, "duration")) &&
	    (g = rc_event__field(ev, "nr"))) {
		perfetto_syscall(o, ev, rec, f, g, pid, tid);
		return;
	}
	if (perfetto_stacked(o, ev, rec, pid, tid))
		return;
	/* anything else: an instant on its thread (of no known task: on a track of its own) */
	trace_sep(o);
	rc_strbuf__printf(&o->buf, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%u,\"tid\":%u,\"ts\":", pid,
			  tid);
	put_us(&o->buf, o->m, rec->ts);
	APPEND_LIT(&o->buf, ",\"name\":");
	rc_json__escape(&o->buf, ev->name, SIZE_MAX);
	APPEND_LIT(&o->buf, ",\"args\":");
	rc_json_fields__put(o->jf, &o->buf, ev, rec);
	APPEND_LIT(&o->buf, "}");
}

static void perfetto_end(struct rc_output *o)
{
	struct perfetto *p = o->state;
	uint32_t cpu;

	for (cpu = 0; p->cpus && cpu < o->ncpus; cpu++)
		end_cpu_slice(o, cpu, p->last_ts);
	APPEND_LIT(&o->buf, "\n]}\n");
}

static int perfetto_start(struct rc_output *o)
{
	int err;

	o->state = calloc(1, sizeof(struct perfetto));
	if (!o->state)
		return -ENOMEM;
	err = rc_output__json_fields(o);
	if (!err)
		perfetto_begin(o);
	return err;
}

static void perfetto_free(struct rc_output *o)
{
	struct perfetto *p = o->state;

	if (!p)
		return;
	free(p->cpus);
	rc_idmap__free(&p->names);
	free(p->comms);
	free(p);
	o->state = NULL;
}

const struct rc_output_ops rc_output_perfetto_json = {
	.name = "perfetto-json",
	.begin = perfetto_start,
	.event = perfetto_event,
	.end = perfetto_end,
	.free = perfetto_free,
};
