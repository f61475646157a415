// SPDX-License-Identifier: GPL-2.0-only
/*
 * report's output formats, all decoded from the schema in the capture:
 *
 * text      perf-script-like lines (lib/decode/decode.c)
 * json      JSON Lines: {"time", "ts", "cpu", "pid", "tid", "comm", "event",
 *           "fields": {...}}; enum values by name, errno values as numbers
 *           with "<field>_errno" beside them, durations in ns; a struct's
 *           fields nested as it was (json_fields.c)
 * csv       a header row: the record's columns, then every field of every
 *           event of the schema; a record fills the columns of its event
 * perfetto  Chrome trace-event JSON (ui.perfetto.dev opens it): a track per
 *           CPU with the thread running from sched_switch, syscalls as slices
 *           on their threads' tracks, fork/exec/exit as instants, and names
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "json_fields.h"
#include "report_fmt.h"

#define FLUSH_AT (1u << 20)
/* Append a string literal, its length counted by the compiler. */
#define APPEND_LIT(sb, lit) rc_strbuf__append(sb, lit, sizeof(lit) - 1)
#define CPU_PID		    2147483000 /* the synthetic process holding the CPU tracks */
#define UNKNOWN_PID	    (CPU_PID - 1) /* ... and the one of records of no known task */
#define CSV_MAX_COLUMNS	    4096       /* distinct field names shown; real schemas have dozens */
#define CSV_NO_COLUMN	    UINT32_MAX

struct thread_name {
	uint64_t key; /* tid + 1; 0: empty */
	char comm[16];
};

struct cpu_state {
	uint64_t since; /* 0: nothing known to run */
	uint32_t pid, tid;
	char comm[16];
};

/* A capture file of the report: its header, stacks, host, and how its events are shown. */
struct report_src {
	const struct rc_meta *m;
	const struct rc_reader *stacks;
	struct json_fields *jf;
	uint32_t **colmap;
};

struct report_out {
	enum report_format fmt;
	struct report_src *srcs;
	size_t nsrcs;
	bool hosts;		 /* files of several hosts: each event's host shown */
	uint32_t ncpus;		 /* the most CPUs of any file */
	size_t ncsvfixed;	 /* csv: the columns before the fields */
	const struct rc_meta *m; /* of the current source: the event being shown */
	unsigned int flags;
	struct rc_strbuf buf;
	bool first;
	const struct rc_event_desc *snap; /* ringcap:snapshot, or NULL */
	struct json_fields *jf;		  /* json, perfetto: the events' fields, nested */
	/* csv: the union of field names, and each event's column for each field */
	const char **cols;
	size_t ncols;
	uint32_t **colmap; /* [event index][field] -> column, or CSV_NO_COLUMN */
	/* perfetto */
	struct cpu_state *cpus;
	uint64_t last_ts;
	struct thread_name *names;
	size_t names_cap, names_used;
	/* text --stacks, perfetto: the current source's stacks */
	const struct rc_reader *stacks;
	const struct rc_event_desc *stack_ev; /* "stack": the records -g adds after events' */
	struct rc_rec_hdr prev;		      /* the last record shown: a stack's event */
};

static int flush_buf(struct report_out *o)
{
	if (o->buf.len && fwrite(o->buf.buf, 1, o->buf.len, stdout) != o->buf.len)
		return -EIO;
	o->buf.len = 0;
	return 0;
}

/* Seconds from the start, with 9 decimals: exactly, from the integer ns. */
static void put_seconds(struct rc_strbuf *sb, const struct rc_meta *m, uint64_t ts)
{
	bool neg = ts < m->start_ts;
	uint64_t ns = neg ? m->start_ts - ts : ts - m->start_ts;

	rc_strbuf__printf(sb, "%s%" PRIu64 ".%09" PRIu64, neg ? "-" : "", ns / 1000000000,
			  ns % 1000000000);
}

/* ---- JSON Lines ------------------------------------------------------- */

/* ,"KEY":V, or null when the record does not know it */
static void json_known(struct rc_strbuf *sb, const char *key, uint32_t v, bool unknown)
{
	if (unknown)
		rc_strbuf__printf(sb, ",\"%s\":null", key);
	else
		rc_strbuf__printf(sb, ",\"%s\":%u", key, v);
}

static void json_event(struct report_out *o, const struct rc_rec_hdr *rec)
{
	const struct rc_event_desc *ev = rc_schema__event(o->m->schema, rec->type);
	struct rc_strbuf *sb = &o->buf;
	unsigned int no = ev->flags;

	APPEND_LIT(sb, "{\"time\":");
	put_seconds(sb, o->m, rec->ts);
	rc_strbuf__printf(sb, ",\"ts\":%" PRIu64, rec->ts);
	if (o->hosts) {
		APPEND_LIT(sb, ",\"host\":");
		json_escape(sb, o->m->host ? o->m->host : "", SIZE_MAX);
	}
	json_known(sb, "cpu", rec->cpu, no & RC_EVENT_NO_CPU);
	json_known(sb, "pid", rec->pid, no & RC_EVENT_NO_PID);
	json_known(sb, "tid", rec->tid, no & RC_EVENT_NO_TID);
	APPEND_LIT(sb, ",\"comm\":");
	if (no & RC_EVENT_NO_COMM)
		APPEND_LIT(sb, "null");
	else
		json_escape(sb, rec->comm, sizeof(rec->comm));
	APPEND_LIT(sb, ",\"event\":");
	json_escape(sb, ev->name, SIZE_MAX);
	APPEND_LIT(sb, ",\"fields\":");
	json_fields__put(o->jf, sb, ev, rec);
	APPEND_LIT(sb, "}\n");
}

/* ---- CSV -------------------------------------------------------------- */

static const char *const csv_fixed[] = { "time", "ts", "cpu", "pid", "tid", "comm", "event" };
/* the column of an event's field named as a fixed column (a tracepoint's pid) */
static const char *const csv_renamed[] = { "fields.time", "fields.ts",	"fields.cpu",
					   "fields.pid",  "fields.tid", "fields.comm",
					   "fields.event" };

/* A cell of at most @max bytes (to a NUL), quoted when it must be (RFC 4180). */
static void csv_cell(struct rc_strbuf *sb, const char *s, size_t max)
{
	size_t n = strnlen(s, max), i;
	bool quote = n && (s[0] == ' ' || s[n - 1] == ' ');

	for (i = 0; i < n && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
	if (!quote) {
		rc_strbuf__append(sb, s, n);
		return;
	}
	APPEND_LIT(sb, "\"");
	for (i = 0; i < n; i++) {
		if (s[i] == '"')
			APPEND_LIT(sb, "\"");
		rc_strbuf__append(sb, &s[i], 1);
	}
	APPEND_LIT(sb, "\"");
}

/* The column of @name, a new one if there is room, or CSV_NO_COLUMN. */
static uint32_t csv_column(struct report_out *o, const char *name)
{
	size_t i;

	for (i = 0; i < o->ncols; i++)
		if (!strcmp(o->cols[i], name))
			return i;
	if (o->ncols == CSV_MAX_COLUMNS)
		return CSV_NO_COLUMN;
	o->cols[o->ncols] = name;
	return o->ncols++;
}

/* The columns of a file's fields: the union's, found or added. */
static int csv_map(struct report_out *o, struct report_src *src)
{
	const struct rc_schema *s = src->m->schema;
	size_t i;
	uint32_t e;
	uint16_t f;

	src->colmap = calloc(s->nevents ? s->nevents : 1, sizeof(*src->colmap));
	if (!src->colmap)
		return -ENOMEM;
	for (e = 0; e < s->nevents; e++) {
		src->colmap[e] =
		    calloc(s->events[e].nfields ? s->events[e].nfields : 1, sizeof(**src->colmap));
		if (!src->colmap[e])
			return -ENOMEM;
		for (f = 0; f < s->events[e].nfields; f++) {
			const char *name = s->events[e].fields[f].name;

			for (i = 0; i < sizeof(csv_fixed) / sizeof(csv_fixed[0]); i++)
				if (!strcmp(name, csv_fixed[i]))
					name = csv_renamed[i];
			if (o->hosts && !strcmp(name, "host"))
				name = "fields.host";
			src->colmap[e][f] = csv_column(o, name);
		}
	}
	return 0;
}

static int csv_begin(struct report_out *o)
{
	size_t i;
	int err = 0;

	o->cols = calloc(CSV_MAX_COLUMNS, sizeof(*o->cols));
	if (!o->cols)
		return -ENOMEM;
	for (i = 0; i < sizeof(csv_fixed) / sizeof(csv_fixed[0]); i++)
		csv_column(o, csv_fixed[i]);
	if (o->hosts)
		csv_column(o, "host");
	o->ncsvfixed = o->ncols;
	for (i = 0; !err && i < o->nsrcs; i++)
		err = csv_map(o, &o->srcs[i]);
	if (err)
		return err;
	for (i = 0; i < o->ncols; i++) {
		if (i)
			APPEND_LIT(&o->buf, ",");
		csv_cell(&o->buf, o->cols[i], SIZE_MAX);
	}
	APPEND_LIT(&o->buf, "\n");
	return 0;
}

/* One field as CSV text: enum names, numbers, arrays space-separated. */
static void csv_field(struct rc_strbuf *sb, const struct rc_schema *s, const struct rc_field *fld,
		      const struct rc_rec_hdr *rec)
{
	const struct rc_enum *e = rc_schema__enum(s, fld->enum_id);
	const struct rc_field *f = fld;
	struct rc_strbuf v = {};
	struct rc_field plain;
	const char *name;
	unsigned int k;
	int64_t x;

	if (rc_field__resolve(fld, rec, &plain))
		return; /* an empty cell: the data is not in the record */
	f = &plain;
	if (f->kind == RC_FIELD_STR) {
		csv_cell(sb, (const char *)rec + f->offset, f->size);
		return;
	}
	for (k = 0; k < f->count; k++) {
		if (k)
			APPEND_LIT(&v, " ");
		x = f->kind == RC_FIELD_SINT ? rc_field__s64(f, rec, k)
					     : (int64_t)rc_field__u64(f, rec, k);
		name = f->hint == RC_HINT_ENUM ? rc_enum__name(e, x) : NULL;
		if (name)
			rc_strbuf__append(&v, name, strlen(name));
		else if (f->kind == RC_FIELD_SINT)
			rc_strbuf__printf(&v, "%" PRId64, x);
		else
			rc_strbuf__printf(&v, "%" PRIu64, (uint64_t)x);
	}
	csv_cell(sb, v.buf ? v.buf : "", v.len);
	rc_strbuf__free(&v);
}

/* V, then a comma; an empty cell when the record does not know it */
static void csv_known(struct rc_strbuf *sb, uint32_t v, bool unknown)
{
	if (unknown)
		APPEND_LIT(sb, ",");
	else
		rc_strbuf__printf(sb, "%u,", v);
}

static void csv_event(struct report_out *o, const struct rc_rec_hdr *rec)
{
	const struct rc_schema *s = o->m->schema;
	const struct rc_event_desc *ev = rc_schema__event(s, rec->type);
	struct rc_strbuf *sb = &o->buf;
	size_t evi = ev - s->events, c;
	unsigned int no = ev->flags;
	uint16_t f;

	put_seconds(sb, o->m, rec->ts);
	rc_strbuf__printf(sb, ",%" PRIu64 ",", rec->ts);
	csv_known(sb, rec->cpu, no & RC_EVENT_NO_CPU);
	csv_known(sb, rec->pid, no & RC_EVENT_NO_PID);
	csv_known(sb, rec->tid, no & RC_EVENT_NO_TID);
	if (!(no & RC_EVENT_NO_COMM))
		csv_cell(sb, rec->comm, sizeof(rec->comm));
	APPEND_LIT(sb, ",");
	csv_cell(sb, ev->name, SIZE_MAX);
	if (o->hosts) {
		APPEND_LIT(sb, ",");
		csv_cell(sb, o->m->host ? o->m->host : "", SIZE_MAX);
	}
	for (c = o->ncsvfixed; c < o->ncols; c++) {
		APPEND_LIT(sb, ",");
		for (f = 0; f < ev->nfields; f++)
			if (o->colmap[evi][f] == c)
				csv_field(sb, s, &ev->fields[f], rec);
	}
	APPEND_LIT(sb, "\n");
}

/* ---- Perfetto (Chrome trace-event JSON) ------------------------------- */

static void trace_sep(struct report_out *o)
{
	if (!o->first)
		APPEND_LIT(&o->buf, ",\n");
	o->first = false;
}

/* Microseconds since the start of the capture, as the format wants them. */
static void put_us(struct rc_strbuf *sb, const struct rc_meta *m, uint64_t ts)
{
	bool neg = ts < m->start_ts;
	uint64_t ns = neg ? m->start_ts - ts : ts - m->start_ts;

	rc_strbuf__printf(sb, "%s%" PRIu64 ".%03" PRIu64, neg ? "-" : "", ns / 1000, ns % 1000);
}

static void meta_name(struct report_out *o, const char *what, uint32_t pid, int64_t tid,
		      const char *name, size_t max)
{
	trace_sep(o);
	rc_strbuf__printf(&o->buf, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%u,", what, pid);
	if (tid >= 0)
		rc_strbuf__printf(&o->buf, "\"tid\":%" PRId64 ",", tid);
	APPEND_LIT(&o->buf, "\"args\":{\"name\":");
	json_escape(&o->buf, name, max);
	APPEND_LIT(&o->buf, "}}");
}

/* Name a thread (and its process, when it leads it) the first time, and after exec. */
static size_t name_slot(const struct thread_name *t, size_t cap, uint64_t key)
{
	size_t i = (key * 2654435761u) & (cap - 1);

	while (t[i].key && t[i].key != key)
		i = (i + 1) & (cap - 1);
	return i;
}

/* Name a thread (and its process, when it leads it) the first time, and after exec. */
static void name_thread(struct report_out *o, uint32_t pid, uint32_t tid, const char *comm)
{
	uint64_t key = tid + 1ull;
	struct thread_name *t;
	size_t i;

	if (o->names_used * 2 >= o->names_cap) {
		size_t cap = o->names_cap ? o->names_cap * 2 : 1024;
		struct thread_name *n = calloc(cap, sizeof(*n));

		if (!n && !o->names_cap)
			return; /* no table: names are left out */
		if (n) {
			for (i = 0; i < o->names_cap; i++)
				if (o->names[i].key)
					n[name_slot(n, cap, o->names[i].key)] = o->names[i];
			free(o->names);
			o->names = n;
			o->names_cap = cap;
		} else if (o->names_used + 1 >= o->names_cap) {
			return; /* full and cannot grow: never probe a full table */
		}
	}
	t = &o->names[name_slot(o->names, o->names_cap, key)];
	if (t->key && !strncmp(t->comm, comm, sizeof(t->comm)))
		return;
	if (!t->key)
		o->names_used++;
	t->key = key;
	memcpy(t->comm, comm, sizeof(t->comm));
	if (pid == tid)
		meta_name(o, "process_name", pid, -1, comm, sizeof(t->comm));
	meta_name(o, "thread_name", pid, tid, comm, sizeof(t->comm));
}

/* The slice of what ran on @cpu until @ts. */
static void end_cpu_slice(struct report_out *o, uint32_t cpu, uint64_t ts)
{
	struct cpu_state *c = &o->cpus[cpu];

	if (!c->since || !c->tid || ts < c->since)
		return; /* unknown, idle, or out of order */
	trace_sep(o);
	rc_strbuf__printf(&o->buf, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%u,\"ts\":", CPU_PID,
			  CPU_PID + cpu);
	put_us(&o->buf, o->m, c->since);
	rc_strbuf__printf(&o->buf,
			  ",\"dur\":%" PRIu64 ".%03" PRIu64 ",\"name\":", (ts - c->since) / 1000,
			  (ts - c->since) % 1000);
	json_escape(&o->buf, c->comm, sizeof(c->comm));
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

static void perfetto_begin(struct report_out *o)
{
	uint32_t cpu;
	size_t i;
	char name[32];

	o->cpus = calloc(o->ncpus ? o->ncpus : 1, sizeof(*o->cpus));
	o->first = true;
	APPEND_LIT(&o->buf, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
	meta_name(o, "process_name", CPU_PID, -1, "CPUs", SIZE_MAX);
	for (cpu = 0; o->cpus && cpu < o->ncpus && cpu < 4096; cpu++) {
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
static void perfetto_switch(struct report_out *o, const struct rc_event_desc *ev,
			    const struct rc_rec_hdr *rec)
{
	const struct rc_field *ncomm = rc_event__field(ev, "next_comm");
	const struct rc_field *f = rc_event__field(ev, "next_pid");
	const struct rc_field *g = rc_event__field(ev, "next_tid");
	struct cpu_state *c = &o->cpus[rec->cpu];

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
static void perfetto_syscall(struct report_out *o, const struct rc_event_desc *ev,
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
	if (!nm || nr_f->hint != RC_HINT_ENUM) {
		snprintf(nb, sizeof(nb), "sys_%" PRIu64, nr);
		nm = nb;
	}
	json_escape(&o->buf, nm, SIZE_MAX); /* the format wants a string */
	APPEND_LIT(&o->buf, ",\"args\":");
	json_fields__put(o->jf, &o->buf, ev, rec);
	APPEND_LIT(&o->buf, "}");
}

/*
 * A record with a stack (a sample, an off-CPU record), when the stacks are
 * known: on its thread, named by its innermost function, its frames in
 * args.stack, innermost first; an off-CPU record a slice over the time it
 * was blocked. False when it has none: an instant as any event.
 */
static bool perfetto_stacked(struct report_out *o, const struct rc_event_desc *ev,
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
	rc_strbuf__printf(&o->buf, "{\"ph\":\"%s\",%s\"pid\":%u,\"tid\":%u,\"ts\":",
			  blocked ? "X" : "i", blocked ? "" : "\"s\":\"t\",", pid, tid);
	put_us(&o->buf, o->m, blocked && dur <= rec->ts ? rec->ts - dur : rec->ts);
	if (blocked) {
		APPEND_LIT(&o->buf, ",\"dur\":");
		rc_strbuf__printf(&o->buf, "%" PRIu64 ".%03" PRIu64, dur / 1000, dur % 1000);
	}
	/* the innermost user frame names it when there is one: the program's view */
	rc_frame__name(&st->frames[st->nuser ? st->nkernel : 0], name, sizeof(name));
	snprintf(title, sizeof(title), "%s: %s", blocked ? "off-CPU" : ev->name, name);
	APPEND_LIT(&o->buf, ",\"name\":");
	json_escape(&o->buf, title, SIZE_MAX);
	APPEND_LIT(&o->buf, ",\"args\":{\"stack\":[");
	for (i = 0; i < n; i++) {
		if (i)
			APPEND_LIT(&o->buf, ",");
		json_escape(&o->buf, rc_frame__name(&st->frames[i], name, sizeof(name)), SIZE_MAX);
	}
	APPEND_LIT(&o->buf, "]}}");
	return true;
}

static void perfetto_event(struct report_out *o, const struct rc_rec_hdr *rec)
{
	const struct rc_schema *s = o->m->schema;
	const struct rc_event_desc *ev = rc_schema__event(s, rec->type);
	bool no_task = ev->flags & (RC_EVENT_NO_PID | RC_EVENT_NO_TID);
	uint32_t pid = no_task ? UNKNOWN_PID : rec->pid, tid = no_task ? UNKNOWN_PID : rec->tid;
	const struct rc_field *f, *g;

	o->last_ts = rec->ts > o->last_ts ? rec->ts : o->last_ts;
	if (!no_task && !(ev->flags & RC_EVENT_NO_COMM) && (rec->pid || rec->tid))
		name_thread(o, rec->pid, rec->tid, rec->comm);
	if (!strcmp(ev->name, "sched:sched_switch") && o->cpus && rec->cpu < o->m->ncpus &&
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
	json_escape(&o->buf, ev->name, SIZE_MAX);
	APPEND_LIT(&o->buf, ",\"args\":");
	json_fields__put(o->jf, &o->buf, ev, rec);
	APPEND_LIT(&o->buf, "}");
}

static void perfetto_end(struct report_out *o)
{
	uint32_t cpu;

	for (cpu = 0; o->cpus && cpu < o->ncpus; cpu++)
		end_cpu_slice(o, cpu, o->last_ts);
	APPEND_LIT(&o->buf, "\n]}\n");
}

/* ---- the interface ---------------------------------------------------- */

/* The file the next event is from: its header, fields, stacks and columns. */
static void use_src(struct report_out *o, size_t i)
{
	struct report_src *src = &o->srcs[i];

	if (o->m == src->m)
		return;
	o->m = src->m;
	o->jf = src->jf;
	o->colmap = src->colmap;
	o->stacks = src->stacks;
	o->snap = rc_schema__event_by_name(o->m->schema, "ringcap:snapshot");
	o->stack_ev = rc_schema__event_by_name(o->m->schema, "stack");
}

struct report_out *report_out__new(enum report_format fmt, const struct rc_meta *const *ms,
				   size_t n, unsigned int flags, bool hosts)
{
	struct report_out *o = calloc(1, sizeof(*o));
	size_t i;

	if (!o)
		return NULL;
	o->fmt = fmt;
	o->flags = flags;
	o->hosts = hosts;
	o->srcs = calloc(n ? n : 1, sizeof(*o->srcs));
	if (!o->srcs) {
		free(o);
		return NULL;
	}
	o->nsrcs = n;
	for (i = 0; i < n; i++) {
		o->srcs[i].m = ms[i];
		o->ncpus = ms[i]->ncpus > o->ncpus ? ms[i]->ncpus : o->ncpus;
		/* files of one run share their schema's layout, but each has its own */
		if ((fmt == FMT_JSON || fmt == FMT_PERFETTO) &&
		    !(o->srcs[i].jf = json_fields__new(ms[i]->schema))) {
			report_out__free(o);
			return NULL;
		}
	}
	if (fmt == FMT_CSV && csv_begin(o)) {
		report_out__free(o);
		return NULL;
	}
	use_src(o, 0);
	if (fmt == FMT_PERFETTO)
		perfetto_begin(o);
	return o;
}

/* text: a flight recorder's snapshot begins; its record follows. */
static void snapshot_rule(struct report_out *o, const struct rc_rec_hdr *rec)
{
	const struct rc_field *seq = rc_event__field(o->snap, "seq");
	const struct rc_field *why = rc_event__field(o->snap, "reason");
	const struct rc_field *n = rc_event__field(o->snap, "nrec");

	APPEND_LIT(&o->buf, "# ---- snapshot ");
	if (seq)
		rc_decode__field(&o->buf, o->m->schema, seq, rec);
	APPEND_LIT(&o->buf, " (");
	if (why)
		rc_decode__field(&o->buf, o->m->schema, why, rec);
	APPEND_LIT(&o->buf, "): ");
	if (n)
		rc_decode__field(&o->buf, o->m->schema, n, rec);
	APPEND_LIT(&o->buf, " events ----\n");
}

void report_out__set_stacks(struct report_out *o, size_t src, const struct rc_reader *r)
{
	o->srcs[src].stacks = r;
	if (o->m == o->srcs[src].m)
		o->stacks = r;
}

/*
 * text --stacks: the frames of a record with a stack (a sample, an
 * off-CPU record), innermost first, a line each, as perf script prints them.
 */
static void stack_lines(struct report_out *o, const struct rc_rec_hdr *rec, bool paired)
{
	const struct rc_event_desc *ev = rc_schema__event(o->m->schema, rec->type);
	const struct rc_field *id = rc_event__field(ev, "stack_id");
	const struct rc_stack *st;
	char line[640], name[512];
	size_t i;

	if (!id || ev->id >= RC_FIRST_DYN_ID)
		return;
	if (!paired) { /* its event was not shown just before: say whose it is */
		const struct rc_field *of = rc_event__field(ev, "event");

		rc_strbuf__printf(&o->buf, "\t[the stack of event %llu of thread %u at %llu]\n",
				  of ? (unsigned long long)rc_field__u64(of, rec, 0) : 0ull, rec->tid,
				  (unsigned long long)rec->ts);
	}
	st = rc_reader__stack(o->stacks, (uint32_t)rc_field__u64(id, rec, 0));
	if (!st) {
		APPEND_LIT(&o->buf, "\t[no stack]\n");
		return;
	}
	for (i = 0; i < (size_t)st->nkernel + st->nuser; i++) {
		const struct rc_frame *f = &st->frames[i];

		rc_frame__name(f, name, sizeof(name));
		if (f->flags & RC_FRAME_F_INLINE) /* as perf script: no offset, "(inlined)" */
			snprintf(line, sizeof(line), "\t%16llx %s (inlined) (%s)",
				 (unsigned long long)f->addr, f->sym ? f->sym : "[unknown]",
				 f->dso ? f->dso : "[unknown]");
		else if (f->sym)
			snprintf(line, sizeof(line), "\t%16llx %s+0x%llx (%s)",
				 (unsigned long long)f->addr, name, (unsigned long long)f->off,
				 f->dso ? f->dso : "[unknown]");
		else
			snprintf(line, sizeof(line), "\t%16llx %s", (unsigned long long)f->addr,
				 name);
		rc_strbuf__append(&o->buf, line, strlen(line));
		/* its source line, where record found one (record --srclines) */
		if (f->file && f->line)
			rc_strbuf__printf(&o->buf, " %s:%u", f->file, f->line);
		else if (f->file)
			rc_strbuf__printf(&o->buf, " %s", f->file);
		APPEND_LIT(&o->buf, "\n");
	}
	if (st->flags & (RC_STACK_F_KERNEL_CUT | RC_STACK_F_USER_CUT))
		APPEND_LIT(&o->buf, "\t[stack cut: deeper than its frames]\n");
	APPEND_LIT(&o->buf, "\n");
}

int report_out__event(struct report_out *o, size_t src, const struct rc_rec_hdr *rec)
{
	use_src(o, src);
	/*
	 * An event's stack record (record -g): its frames under its event,
	 * the line before of the same time, thread and CPU, with --stacks.
	 */
	if (o->stack_ev && rec->type == o->stack_ev->id) {
		if (o->fmt == FMT_TEXT && o->stacks)
			stack_lines(o, rec, rec->ts == o->prev.ts && rec->tid == o->prev.tid &&
						    rec->cpu == o->prev.cpu);
		o->prev = (struct rc_rec_hdr){};
		return o->buf.len >= FLUSH_AT ? flush_buf(o) : 0;
	}
	o->prev = *rec;
	switch (o->fmt) {
	case FMT_TEXT:
		if (o->snap && rec->type == o->snap->id)
			snapshot_rule(o, rec);
		if (o->hosts)
			rc_strbuf__printf(&o->buf, "%-16s ", o->m->host ? o->m->host : "?");
		rc_decode__text(&o->buf, o->m, rec, o->flags);
		APPEND_LIT(&o->buf, "\n");
		if (o->stacks)
			stack_lines(o, rec, true);
		break;
	case FMT_JSON:
		json_event(o, rec);
		break;
	case FMT_CSV:
		csv_event(o, rec);
		break;
	case FMT_PERFETTO:
		perfetto_event(o, rec);
		break;
	}
	return o->buf.len >= FLUSH_AT ? flush_buf(o) : 0;
}

int report_out__flush(struct report_out *o)
{
	return flush_buf(o) ?: (fflush(stdout) ? -EIO : 0);
}

int report_out__end(struct report_out *o)
{
	if (o->fmt == FMT_PERFETTO)
		perfetto_end(o);
	return flush_buf(o);
}

void report_out__free(struct report_out *o)
{
	uint32_t e;
	size_t i;

	if (!o)
		return;
	for (i = 0; i < o->nsrcs; i++) {
		struct report_src *src = &o->srcs[i];

		for (e = 0; src->colmap && e < src->m->schema->nevents; e++)
			free(src->colmap[e]);
		free(src->colmap);
		json_fields__free(src->jf);
	}
	free(o->srcs);
	free(o->cols);
	free(o->cpus);
	free(o->names);
	rc_strbuf__free(&o->buf);
	free(o);
}
