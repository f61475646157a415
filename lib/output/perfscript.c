// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf script's text (output.h), the layout perf script prints by default
 * for the same kind of data, which equals these explicit field lists:
 *
 * tracepoints  -F comm,tid,cpu,time,event,trace
 *	"%16s %5d [%03d] %5lu.%06lu: %*s: TRACE", the event's name right-aligned
 *	to the longest name of the events recorded
 * samples      -F comm,tid,cpu,time,period,event,ip,sym,symoff,dso
 *	"%s %5d [%03d] %5lu.%06lu: %10lu %*s: ", then a line a frame,
 *	"\t%16lx SYM+0xOFF (DSO)", innermost first, and an empty line
 *
 * TRACE is what the kernel's print format makes of the fields for
 * ringcap's built-in events (sched_*, and -e syscalls as raw_syscalls'
 * sys_enter and sys_exit) and for syscalls:sys_enter_X/sys_exit_X. Other
 * tracepoints are rendered by libtraceevent from the format the capture
 * kept (tepfmt.h), as perf script renders them; without it (a build
 * without libtraceevent, a format it cannot take, a record that does not
 * hold its fields) they show "field=value" in the format's order. Times count from the capture's start (perf script
 * --reltime), or are wall-clock seconds with RC_FMT_WALL.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output/output_int.h"
#include "output/tepfmt.h"
#include "util/mem.h"

/*
 * -e syscalls records a call once, at its exit: its entry's line belongs
 * before the lines of what happened during the call. With such records,
 * lines are held, each at its time, and written in time order once the
 * records read are HOLD_NS past them (or HOLD_BYTES are held: the oldest
 * go first; about 30k lines). A call longer than that has its entry line written at the
 * head of those still held, the earliest place left.
 */
#define HOLD_NS	   10000000000ull /* 10 s of the capture's time */
#define HOLD_BYTES (8u << 20)	  /* held, with each line's heap entry and malloc's header */
#define HELD_COST  (sizeof(struct held) + 16)

/* A record's lines held: at @ts, after those of the same time held before (@seq). */
struct held {
	uint64_t ts, seq;
	char *text;
	size_t len;
};

/* The state of one output: nothing static, several may run at once. */
struct perfscript {
	bool reorder;		      /* syscall records: lines held and put in time order */
	struct held *heap;	      /* the lines held, a min-heap by (ts, seq) */
	size_t nheld, held_cap, held_bytes;
	uint64_t seq, newest, last_ts; /* @last_ts: of the last lines held, for a stack's */
	int err;		      /* out of memory holding: lines written as they come */
	int name_width;		      /* the longest event name shown */
	const struct rc_meta *stk_m;  /* the source @stacked was read from */
	bool stacked;		      /* its events recorded with their stacks (-g) */
	const struct rc_meta *note_m; /* the source @sampling was read from */
	char sampling[32];	      /* its sampling event: cycles, cpu-clock */
	struct rc_tepfmt *tep;	      /* print formats; NULL: field=value */
};

#define SAMPLING_DEFAULT "cycles"

static void sampling_name(const struct rc_meta *m, char *buf, size_t len)
{
	const struct rc_note *note = rc_meta__note(m, 0, "sampling");
	size_t i;

	if (!note || !note->len) {
		snprintf(buf, len, "%s", SAMPLING_DEFAULT);
		return;
	}
	snprintf(buf, len, "%.*s", (int)note->len, (const char *)note->data);
	for (i = 0; buf[i]; i++) /* from the file: printable only */
		if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] >= 0x7f)
			buf[i] = '?';
}

/* The name perf gives the records of @ev; NULL: not shown. */
static const char *shown_name(const char *name, const char *sampling)
{
	if (!strncmp(name, "ringcap:", 8) || !strcmp(name, "stack"))
		return NULL;
	if (!strcmp(name, "syscall"))
		return "raw_syscalls:sys_enter"; /* and raw_syscalls:sys_exit: one shorter */
	if (!strcmp(name, "sample"))
		return sampling;
	if (!strcmp(name, "offcpu"))
		return "offcpu-time"; /* perf record --off-cpu's name */
	return name;
}

/* @word in @s, not followed by ':' or '_' (a group: "sched", not "sched:x") */
static bool has_group(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (; (s = strstr(s, word)); s += n)
		if (s[n] != ':' && s[n] != '_')
			return true;
	return false;
}

/*
 * Whether the capture can hold records of @name. perf aligns the names of
 * the events it recorded; a capture's schema has every built-in event, so
 * a built-in one counts when the record command line asked for it (all
 * of them when the file has no command line).
 */
static bool recorded(const struct rc_meta *m, const struct rc_event_desc *ev)
{
	const char *cl = m->cmdline;

	if (ev->id >= RC_FIRST_DYN_ID || !cl || !cl[0])
		return true;
	if (!strcmp(ev->name, "sample"))
		return rc_meta__note(m, 0, "sampling");
	if (!strcmp(ev->name, "offcpu"))
		return strstr(cl, "--off-cpu");
	if (!strcmp(ev->name, "syscall"))
		return has_group(cl, "syscalls");
	if (!strncmp(ev->name, "sched:", 6))
		return has_group(cl, "sched") || strstr(cl, ev->name) || strstr(cl, "sched:*");
	return true;
}

/*
 * Whether the record command line asked for events' stacks (-g,
 * --call-graph): perf prints the comm of an event with a callchain
 * unpadded, and of one without in 16 columns.
 */
static bool stacked(const struct rc_meta *m)
{
	const char *cl = m->cmdline, *p;

	if (!cl)
		return false;
	for (p = cl; (p = strstr(p, " -g")); p += 3)
		if (p[3] == ' ' || p[3] == '\0')
			return true;
	return strstr(cl, " --call-graph");
}

/* Whether this source's events print their comm in 16 columns. */
static bool padded_comm(struct rc_output *o)
{
	struct perfscript *ps = o->state;

	if (ps->stk_m != o->m) {
		ps->stacked = o->stacks && stacked(o->m);
		ps->stk_m = o->m;
	}
	return !ps->stacked;
}

static bool held_before(const struct held *a, const struct held *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->seq < b->seq);
}

/* The earliest lines held, out of the heap: to o->buf. */
static void release_one(struct rc_output *o)
{
	struct perfscript *ps = o->state;
	struct held top = ps->heap[0], t;
	size_t i = 0, k;

	rc_strbuf__put(&o->buf, top.text, top.len);
	ps->held_bytes -= top.len + HELD_COST;
	free(top.text);
	ps->heap[0] = ps->heap[--ps->nheld];
	for (;;) {
		k = 2 * i + 1;
		if (k >= ps->nheld)
			break;
		if (k + 1 < ps->nheld && held_before(&ps->heap[k + 1], &ps->heap[k]))
			k++;
		if (!held_before(&ps->heap[k], &ps->heap[i]))
			break;
		t = ps->heap[i];
		ps->heap[i] = ps->heap[k];
		ps->heap[k] = t;
		i = k;
	}
}

/* Write the lines held that no record to come can precede: HOLD_NS old, or past HOLD_BYTES. */
static void release(struct rc_output *o, bool all)
{
	struct perfscript *ps = o->state;

	while (ps->nheld && (all || ps->held_bytes > HOLD_BYTES ||
			     ps->heap[0].ts + HOLD_NS <= ps->newest))
		release_one(o);
}

/*
 * The lines written to o->buf from @start on: held at @ts, out of o->buf.
 * Without the memory to hold them, they stay where they are, and what is
 * held is written first: the order as without holding, from there on.
 */
static void hold(struct rc_output *o, uint64_t ts, size_t start)
{
	struct perfscript *ps = o->state;
	size_t len = o->buf.len - start, i, p;
	struct held h = { .ts = ts, .seq = ps->seq++, .len = len }, t;

	if (!len)
		return;
	h.text = ps->err ? NULL : malloc(len);
	if (!h.text || rc_ensure_arr(&ps->heap, &ps->held_cap, ps->nheld + 1, 256)) {
		free(h.text);
		ps->err = -ENOMEM;
		ps->reorder = false;
		if (ps->nheld) { /* what is held, then these lines */
			char *tail = malloc(len);

			if (tail) {
				memcpy(tail, o->buf.buf + start, len);
				o->buf.len = start;
				release(o, true);
				rc_strbuf__put(&o->buf, tail, len);
				free(tail);
			}
		}
		return;
	}
	memcpy(h.text, o->buf.buf + start, len);
	o->buf.len = start;
	ps->held_bytes += len + HELD_COST;
	ps->last_ts = ts;
	if (ts > ps->newest)
		ps->newest = ts;
	i = ps->nheld++;
	ps->heap[i] = h;
	while (i && held_before(&ps->heap[i], &ps->heap[p = (i - 1) / 2])) {
		t = ps->heap[i];
		ps->heap[i] = ps->heap[p];
		ps->heap[p] = t;
		i = p;
	}
}

static int ps_begin(struct rc_output *o)
{
	struct perfscript *ps = calloc(1, sizeof(*ps));
	char sampling[32];
	size_t i;
	uint32_t e;

	if (!ps)
		return -ENOMEM;
	o->state = ps;
	ps->tep = rc_tepfmt__new(o->nsrcs);
	for (i = 0; i < o->nsrcs; i++) {
		const struct rc_meta *m = o->srcs[i].m;

		sampling_name(m, sampling, sizeof(sampling));
		for (e = 0; e < m->schema->nevents; e++) {
			const struct rc_event_desc *ev = &m->schema->events[e];
			const char *n = shown_name(ev->name, sampling);

			if (n && recorded(m, ev) && (int)strlen(n) > ps->name_width)
				ps->name_width = (int)strlen(n);
			if (!strcmp(ev->name, "syscall") && recorded(m, ev))
				ps->reorder = true;
		}
	}
	return 0;
}

/* comm as perf shows it: unprintable bytes as '?' */
static void comm_of(char *dst, const struct rc_rec_hdr *rec, unsigned int no)
{
	size_t i;

	if (no & RC_EVENT_NO_COMM) {
		strcpy(dst, ":-1");
		return;
	}
	for (i = 0; i < sizeof(rec->comm) && rec->comm[i]; i++)
		dst[i] = (unsigned char)rec->comm[i] >= 0x20 && (unsigned char)rec->comm[i] < 0x7f
			     ? rec->comm[i]
			     : '?';
	dst[i] = '\0';
}

/* "COMM   TID [CPU]  SECS.USECS: ": @padded: comm in 16 columns */
static void put_head(struct rc_output *o, const struct rc_rec_hdr *rec, unsigned int no,
		     uint64_t ts, bool padded)
{
	char comm[sizeof(rec->comm) + 4], secs[32];
	uint64_t ns;
	int64_t wall;
	bool neg = false;

	comm_of(comm, rec, no);
	rc_strbuf__printf(&o->buf, padded ? "%16s " : "%s ", comm);
	if (no & RC_EVENT_NO_TID)
		APPEND_LIT(&o->buf, "   -1 ");
	else
		rc_strbuf__printf(&o->buf, "%5u ", rec->tid);
	if (no & RC_EVENT_NO_CPU)
		APPEND_LIT(&o->buf, "[-01] ");
	else
		rc_strbuf__printf(&o->buf, "[%03u] ", rec->cpu);
	if ((o->flags & RC_FMT_WALL) && rc_meta__wall_ns(o->m, ts, &wall)) {
		ns = (uint64_t)wall;
	} else {
		neg = ts < o->m->start_ts;
		ns = neg ? o->m->start_ts - ts : ts - o->m->start_ts;
	}
	/* microseconds, cut as perf cuts them; a sign beside its digits */
	snprintf(secs, sizeof(secs), "%s%" PRIu64 ".%06" PRIu64, neg ? "-" : "",
		 ns / 1000000000, ns % 1000000000 / 1000);
	rc_strbuf__printf(&o->buf, "%12s: ", secs);
}

static void put_name(struct rc_output *o, const char *name)
{
	const struct perfscript *ps = o->state;

	rc_strbuf__printf(&o->buf, "%*s: ", ps->name_width, name);
}

/* A field by name, as ringcap shows it; nothing when @ev lacks it. */
static void put_field(struct rc_output *o, const struct rc_event_desc *ev, const char *name,
		      const struct rc_rec_hdr *rec)
{
	const struct rc_field *f = rc_event__field(ev, name);

	if (f)
		rc_decode__field(&o->buf, o->m->schema, f, rec);
}

static int64_t field_s64(const struct rc_event_desc *ev, const char *name,
			 const struct rc_rec_hdr *rec)
{
	const struct rc_field *f = rc_event__field(ev, name);

	return f ? rc_field__s64(f, rec, 0) : 0;
}

static uint64_t field_u64(const struct rc_event_desc *ev, const char *name,
			  const struct rc_rec_hdr *rec)
{
	const struct rc_field *f = rc_event__field(ev, name);

	return f ? rc_field__u64(f, rec, 0) : 0;
}

/* The frames of a stack, a line each, then the empty line that ends a sample. */
static void frames(struct rc_output *o, uint32_t id, uint64_t ip)
{
	const struct rc_stack *st = o->stacks ? rc_reader__stack(o->stacks, id) : NULL;
	char name[512];
	size_t i;

	if (!st) { /* no stack: its instruction alone, unnamed */
		rc_strbuf__printf(&o->buf, "\t%16" PRIx64 " [unknown] ([unknown])\n\n", ip);
		return;
	}
	for (i = 0; i < (size_t)st->nkernel + st->nuser; i++) {
		const struct rc_frame *f = &st->frames[i];
		const char *dso = f->dso ? f->dso : "[unknown]";

		if ((f->flags & RC_FRAME_F_INLINE) && f->sym) {
			rc_frame__name(f, name, sizeof(name));
			rc_strbuf__printf(&o->buf, "\t%16" PRIx64 " %s+0x%" PRIx64 " (inlined)\n",
					  f->addr, name, f->off);
		} else if (f->sym) {
			rc_frame__name(f, name, sizeof(name));
			rc_strbuf__printf(&o->buf, "\t%16" PRIx64 " %s+0x%" PRIx64 " (%s)\n",
					  f->addr, name, f->off, dso);
		} else {
			rc_strbuf__printf(&o->buf, "\t%16" PRIx64 " [unknown] (%s)\n", f->addr,
					  dso);
		}
	}
	APPEND_LIT(&o->buf, "\n");
}

/* A sample or an off-CPU record: perf's sample layout, its stack under it. */
static void sample(struct rc_output *o, const struct rc_event_desc *ev,
		   const struct rc_rec_hdr *rec, bool offcpu)
{
	struct perfscript *ps = o->state;

	if (ps->note_m != o->m) {
		sampling_name(o->m, ps->sampling, sizeof(ps->sampling));
		ps->note_m = o->m;
	}
	put_head(o, rec, ev->flags, rec->ts, false);
	rc_strbuf__printf(&o->buf, "%10" PRIu64 " ",
			  field_u64(ev, offcpu ? "blocked" : "period", rec));
	put_name(o, offcpu ? "offcpu-time" : ps->sampling);
	APPEND_LIT(&o->buf, "\n");
	frames(o, (uint32_t)field_u64(ev, "stack_id", rec), field_u64(ev, "ip", rec));
}

/*
 * -e syscalls: one record of a call, at its exit, with its entry's
 * arguments and its duration: raw_syscalls:sys_enter at the entry, then
 * raw_syscalls:sys_exit, each held at its time (hold()) and so put in
 * time order among the lines of other records. A call that never
 * returned: the entry only.
 */
static void syscall_lines(struct rc_output *o, const struct rc_event_desc *ev,
			  const struct rc_rec_hdr *rec)
{
	const struct rc_field *args = rc_event__field(ev, "args");
	int64_t nr = field_s64(ev, "nr", rec);
	uint64_t dur = field_u64(ev, "duration", rec);
	bool noret = rec->flags & RC_SYSCALL_F_NORETURN;
	uint64_t entry = noret || dur > rec->ts ? rec->ts : rec->ts - dur;
	struct perfscript *ps = o->state;
	size_t start = o->buf.len;
	unsigned int i;

	put_head(o, rec, ev->flags, entry, padded_comm(o));
	put_name(o, "raw_syscalls:sys_enter");
	rc_strbuf__printf(&o->buf, "NR %" PRId64 " (", nr);
	for (i = 0; i < 6; i++)
		rc_strbuf__printf(&o->buf, "%s%" PRIx64, i ? ", " : "",
				  args && i < args->count ? rc_field__u64(args, rec, i) : 0);
	APPEND_LIT(&o->buf, ")\n");
	if (ps->reorder) {
		/* before the exit's time: the newest stays the records' own */
		uint64_t newest = ps->newest;

		hold(o, entry, start);
		ps->newest = newest;
		start = o->buf.len;
	}
	if (noret)
		return;
	put_head(o, rec, ev->flags, rec->ts, padded_comm(o));
	put_name(o, "raw_syscalls:sys_exit");
	rc_strbuf__printf(&o->buf, "NR %" PRId64 " = %" PRId64 "\n", nr, field_s64(ev, "ret", rec));
	if (ps->reorder)
		hold(o, rec->ts, start);
}

/* The kernel's print formats of the sched events ringcap records itself. */
static bool sched_trace(struct rc_output *o, const struct rc_event_desc *ev,
			const struct rc_rec_hdr *rec)
{
	struct rc_strbuf *sb = &o->buf;
	char comm[sizeof(rec->comm) + 4];

	comm_of(comm, rec, ev->flags);
	if (!strcmp(ev->name, "sched:sched_switch")) {
		rc_strbuf__printf(sb, "prev_comm=%s prev_pid=%u prev_prio=", comm, rec->tid);
		put_field(o, ev, "prev_prio", rec);
		APPEND_LIT(sb, " prev_state=");
		put_field(o, ev, "prev_state", rec);
		APPEND_LIT(sb, " ==> next_comm=");
		put_field(o, ev, "next_comm", rec);
		APPEND_LIT(sb, " next_pid=");
		put_field(o, ev, "next_tid", rec);
		APPEND_LIT(sb, " next_prio=");
		put_field(o, ev, "next_prio", rec);
	} else if (!strcmp(ev->name, "sched:sched_wakeup")) {
		APPEND_LIT(sb, "comm=");
		put_field(o, ev, "wakee_comm", rec);
		APPEND_LIT(sb, " pid=");
		put_field(o, ev, "wakee_tid", rec);
		APPEND_LIT(sb, " prio=");
		put_field(o, ev, "prio", rec);
		rc_strbuf__printf(sb, " target_cpu=%03" PRIu64, field_u64(ev, "target_cpu", rec));
	} else if (!strcmp(ev->name, "sched:sched_process_fork")) {
		rc_strbuf__printf(sb, "comm=%s pid=%u child_comm=", comm, rec->tid);
		put_field(o, ev, "child_comm", rec);
		APPEND_LIT(sb, " child_pid=");
		put_field(o, ev, "child_tid", rec);
	} else if (!strcmp(ev->name, "sched:sched_process_exec")) {
		APPEND_LIT(sb, "filename=");
		put_field(o, ev, "filename", rec);
		rc_strbuf__printf(sb, " pid=%u old_pid=", rec->tid);
		put_field(o, ev, "old_tid", rec);
	} else if (!strcmp(ev->name, "sched:sched_process_exit")) {
		/* the kernel's has prio, which ringcap does not record; its exit code instead */
		rc_strbuf__printf(sb, "comm=%s pid=%u exit_code=", comm, rec->tid);
		put_field(o, ev, "exit_code", rec);
	} else {
		return false;
	}
	return true;
}

/*
 * A tracepoint recorded in the kernel's layout with its format (any but
 * ringcap's built-in events; the syscalls' are printed below), by its
 * print format through libtraceevent (tepfmt.h): false when not.
 */
static bool print_fmt_trace(struct rc_output *o, const struct rc_event_desc *ev,
			    const struct rc_rec_hdr *rec)
{
	struct perfscript *ps = o->state;

	if (!strncmp(ev->name, "syscalls:", 9))
		return false;
	return rc_tepfmt__render(ps->tep, o->cur, o->m, ev, rec, &o->buf);
}

/* A tracepoint's fields: the syscalls' print formats, else "name=value ..." */
static void trace_fields(struct rc_output *o, const struct rc_event_desc *ev,
			 const struct rc_rec_hdr *rec)
{
	bool enter = !strncmp(ev->name, "syscalls:sys_enter_", 19);
	bool exit = !strncmp(ev->name, "syscalls:sys_exit_", 18);
	const char *sep = "";
	uint16_t i;

	if (exit) {
		rc_strbuf__printf(&o->buf, "0x%" PRIx64, (uint64_t)field_s64(ev, "ret", rec));
		return;
	}
	for (i = 0; i < ev->nfields; i++) {
		const struct rc_field *f = &ev->fields[i];

		if (!strcmp(f->name, "__syscall_nr"))
			continue;
		if (enter && f->count == 1 && f->kind != RC_FIELD_DATA_LOC &&
		    f->kind != RC_FIELD_REL_LOC) {
			rc_strbuf__printf(&o->buf, "%s%s: 0x%08" PRIx64, sep, f->name,
					  rc_field__u64(f, rec, 0));
			sep = ", ";
			continue;
		}
		rc_strbuf__printf(&o->buf, enter ? "%s%s: " : "%s%s=", sep, f->name);
		rc_decode__field(&o->buf, o->m->schema, f, rec);
		sep = enter ? ", " : " ";
	}
}

static void ps_event(struct rc_output *o, const struct rc_rec_hdr *rec)
{
	const struct rc_event_desc *ev = rc_schema__event(o->m->schema, rec->type);
	struct perfscript *ps = o->state;
	size_t start = o->buf.len;

	if (!ev || !strncmp(ev->name, "ringcap:", 8))
		return; /* ringcap's own records: perf script has none */
	if (!strcmp(ev->name, "syscall")) {
		syscall_lines(o, ev, rec);
		if (ps->reorder)
			release(o, false);
		return;
	}
	if (!strcmp(ev->name, "sample") || !strcmp(ev->name, "offcpu")) {
		sample(o, ev, rec, ev->name[0] == 'o');
	} else {
		put_head(o, rec, ev->flags, rec->ts, padded_comm(o));
		put_name(o, ev->name);
		/* sched events through ftrace: the kernel's layout, not ringcap's own */
		if (!print_fmt_trace(o, ev, rec) && !sched_trace(o, ev, rec))
			trace_fields(o, ev, rec);
		APPEND_LIT(&o->buf, "\n");
	}
	if (ps->reorder) {
		hold(o, rec->ts, start);
		release(o, false);
	}
}

/* record -e ... -g: the stack of the event just shown, under its line */
static void ps_stack(struct rc_output *o, const struct rc_rec_hdr *rec, bool paired)
{
	const struct rc_event_desc *ev = rc_schema__event(o->m->schema, rec->type);
	const struct rc_field *id = ev ? rc_event__field(ev, "stack_id") : NULL;

	struct perfscript *ps = o->state;
	size_t start = o->buf.len;

	if (paired && id)
		frames(o, (uint32_t)rc_field__u64(id, rec, 0), 0);
	if (ps->reorder) /* after the lines just held, of its event: the same time, the next seq */
		hold(o, ps->last_ts, start);
}

static void ps_end(struct rc_output *o)
{
	struct perfscript *ps = o->state;

	if (ps && ps->nheld)
		release(o, true);
}

static void ps_free(struct rc_output *o)
{
	struct perfscript *ps = o->state;

	if (ps) {
		while (ps->nheld)
			free(ps->heap[--ps->nheld].text);
		free(ps->heap);
	}
	if (ps)
		rc_tepfmt__free(ps->tep);
	free(o->state);
	o->state = NULL;
}

const struct rc_output_ops rc_output_perf_script = {
	.name = "perf-script",
	.begin = ps_begin,
	.event = ps_event,
	.end = ps_end,
	.stack = ps_stack,
	.free = ps_free,
};
