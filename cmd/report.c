// SPDX-License-Identifier: GPL-2.0-only
/* ringcap report: events in a format, a summary, or histograms; filters. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cmd.h"
#include "report_fmt.h"

#define MAX_LIST 1024

enum {
	OPT_SUMMARY = 256,
	OPT_STACKS,
	OPT_WALL,
	OPT_FORMAT,
	OPT_HIST,
	OPT_PID,
	OPT_TID,
	OPT_COMM,
	OPT_CPU,
	OPT_EVENT,
	OPT_SINCE,
	OPT_UNTIL,
};

enum hist_kind {
	HIST_NONE,
	HIST_SYSCALL,
	HIST_RUNQ,
};

enum profile_kind {
	PROFILE_NONE,
	PROFILE_FOLDED,
	PROFILE_FLAMEGRAPH,
};

static struct env {
	const char *input;
	enum report_format format;
	enum profile_kind profile;
	bool summary;
	bool stacks;
	enum hist_kind hist;
	bool wall;
	unsigned int top;
	uint32_t pids[MAX_LIST], tids[MAX_LIST], cpus[MAX_LIST];
	size_t npids, ntids, ncpus;
	const char *comm;
	const char *events;
	const char *since, *until;
} env;

static const struct argp_option opts[] = {
	{ "input", 'i', "FILE", 0, "Capture to read (default: ringcap.rcap; - for stdin)" },
	{ "format", OPT_FORMAT, "FORMAT", 0,
	  "text (default), json (JSON Lines), csv, perfetto; for samples, folded (collapsed "
	  "stacks) or flamegraph (an SVG)" },
	{ "summary", OPT_SUMMARY, NULL, 0,
	  "Counts by event, process and syscall, with latencies; for samples, the top functions" },
	{ "stacks", OPT_STACKS, NULL, 0, "text: each sample's stack under it, as perf script prints it" },
	{ "hist", OPT_HIST, "WHAT", 0,
	  "A log2 histogram: syscall (durations) or runq (wakeup to running)" },
	{ "top", 't', "N", 0, "Rows in each summary table (default: 10)" },
	{ "wall", OPT_WALL, NULL, 0, "Wall-clock time instead of seconds from the start" },
	{ "pid", OPT_PID, "PID[,PID...]", 0, "Only these processes" },
	{ "tid", OPT_TID, "TID[,TID...]", 0, "Only these threads" },
	{ "comm", OPT_COMM, "NAME", 0, "Only this command name" },
	{ "cpu", OPT_CPU, "CPU[,CPU...]", 0, "Only these CPUs" },
	{ "event", OPT_EVENT, "EVENTS", 0,
	  "Only these events: names or groups (syscalls, sched), comma-separated" },
	{ "since", OPT_SINCE, "TIME", 0,
	  "From this time: seconds from the start (2.5), or a wall-clock time (14:03:05, "
	  "'2026-11-21 14:03:05.25')" },
	{ "until", OPT_UNTIL, "TIME", 0, "Up to this time, as --since" },
	{},
};

static int parse_list(const char *arg, uint32_t *out, size_t *n, struct argp_state *state,
		      const char *what)
{
	char *copy = strdup(arg), *tok, *save = NULL;

	if (!copy)
		return ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long v;

		if (!parse_long(tok, 0, UINT32_MAX, &v) || *n == MAX_LIST) {
			/* tok points into copy: say it, then free it */
			argp_error(state, "invalid %s '%s': numbers, comma-separated", what, tok);
			free(copy);
			return EINVAL;
		}
		out[(*n)++] = v;
	}
	free(copy);
	return 0;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	long v;

	switch (key) {
	case 'i':
		env.input = arg;
		break;
	case OPT_FORMAT:
		if (!strcmp(arg, "text"))
			env.format = FMT_TEXT;
		else if (!strcmp(arg, "json"))
			env.format = FMT_JSON;
		else if (!strcmp(arg, "csv"))
			env.format = FMT_CSV;
		else if (!strcmp(arg, "perfetto"))
			env.format = FMT_PERFETTO;
		else if (!strcmp(arg, "folded"))
			env.profile = PROFILE_FOLDED;
		else if (!strcmp(arg, "flamegraph"))
			env.profile = PROFILE_FLAMEGRAPH;
		else
			argp_error(state,
				   "unknown format '%s': text, json, csv, perfetto, folded or "
				   "flamegraph",
				   arg);
		break;
	case OPT_SUMMARY:
		env.summary = true;
		break;
	case OPT_STACKS:
		env.stacks = true;
		break;
	case OPT_HIST:
		if (!strcmp(arg, "syscall"))
			env.hist = HIST_SYSCALL;
		else if (!strcmp(arg, "runq"))
			env.hist = HIST_RUNQ;
		else
			argp_error(state, "unknown histogram '%s': syscall or runq", arg);
		break;
	case 't':
		if (!parse_long(arg, 1, 1000000, &v))
			argp_error(state, "invalid --top '%s': a positive number of rows", arg);
		env.top = v;
		break;
	case OPT_WALL:
		env.wall = true;
		break;
	case OPT_PID:
		return parse_list(arg, env.pids, &env.npids, state, "pid");
	case OPT_TID:
		return parse_list(arg, env.tids, &env.ntids, state, "tid");
	case OPT_CPU:
		return parse_list(arg, env.cpus, &env.ncpus, state, "cpu");
	case OPT_COMM:
		if (!*arg || strlen(arg) > 15)
			argp_error(state,
				   "invalid --comm '%s': a command name of 1 to 15 characters",
				   arg);
		env.comm = arg;
		break;
	case OPT_EVENT:
		env.events = arg;
		break;
	case OPT_SINCE:
		env.since = arg;
		break;
	case OPT_UNTIL:
		env.until = arg;
		break;
	case ARGP_KEY_ARG:
		if (state->arg_num > 0 || (env.input && strcmp(env.input, arg)))
			argp_error(state, "one capture file at a time");
		env.input = arg;
		break;
	case ARGP_KEY_END:
		if ((env.summary || env.hist) && (env.format != FMT_TEXT || env.profile))
			argp_error(state, "--summary and --hist print tables: drop --format");
		if (env.summary && env.hist)
			argp_error(state, "--summary or --hist: one at a time");
		if (env.stacks && (env.format != FMT_TEXT || env.profile || env.summary || env.hist))
			argp_error(state, "--stacks prints stacks under the events of the text format");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/*
 * A time of the capture: seconds from its start ("2.5"), or a local
 * wall-clock time, with the date ("2026-11-21 14:03:05.25") or without it
 * (the capture's start date).
 */
static int parse_time(const char *s, const struct rc_meta *m, uint64_t *ts)
{
	int64_t wall_start, wall;
	double frac = 0;
	struct tm tm = {};
	time_t secs, day;
	char *end;

	errno = 0;
	frac = strtod(s, &end);
	if (!errno && !*end && end != s && frac >= 0 && frac < 1e9) {
		*ts = m->start_ts + (uint64_t)llround(frac * 1e9); /* 1.001 is 1001000000 ns */
		return 0;
	}
	if (!rc_meta__wall_ns(m, m->start_ts, &wall_start))
		return -EINVAL; /* the file's wall-clock offset is out of range */
	secs = wall_start / 1000000000;
	if (!localtime_r(&secs, &tm))
		return -EINVAL;
	day = secs;
	end = strptime(s, "%Y-%m-%d %H:%M:%S", &tm);
	if (!end) {
		localtime_r(&day, &tm);
		end = strptime(s, "%H:%M:%S", &tm);
	}
	if (!end)
		return -EINVAL;
	frac = 0;
	if (*end == '.') {
		char *e2;

		frac = strtod(end, &e2);
		if (e2 == end || !(frac >= 0 && frac < 1))
			return -EINVAL;
		end = e2;
	}
	if (*end)
		return -EINVAL;
	tm.tm_isdst = -1;
	secs = mktime(&tm);
	if (secs == (time_t)-1)
		return -EINVAL;
	if (__builtin_mul_overflow((int64_t)secs, 1000000000, &wall) ||
	    __builtin_add_overflow(wall, llround(frac * 1e9), &wall))
		return -EINVAL; /* a date past 2262 */
	return rc_meta__from_wall_ns(m, wall, ts) ? 0 : -EINVAL;
}

static int setup_filter(struct rc_filter *f, const struct rc_meta *m)
{
	char *copy, *tok, *save = NULL;
	int err = 0;

	*f = (struct rc_filter){ .pids = env.pids,
				 .npids = env.npids,
				 .tids = env.tids,
				 .ntids = env.ntids,
				 .cpus = env.cpus,
				 .ncpus = env.ncpus,
				 .comm = env.comm,
				 .until = UINT64_MAX };
	if (env.since && parse_time(env.since, m, &f->since)) {
		say("invalid --since '%s': seconds from the start, or a time like 14:03:05\n",
		    env.since);
		return -EINVAL;
	}
	if (env.until && parse_time(env.until, m, &f->until)) {
		say("invalid --until '%s': seconds from the start, or a time like 14:03:05\n",
		    env.until);
		return -EINVAL;
	}
	if (!env.events)
		return 0;
	copy = strdup(env.events);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		err = rc_filter__add_event(f, m->schema, tok);
		if (err == -ENOENT)
			say("no event '%s' in this capture: see 'ringcap report --summary'\n", tok);
	}
	free(copy);
	return err;
}

/* ---- summary and histograms ------------------------------------------- */

static const char *event_name(const struct rc_meta *m, uint64_t id)
{
	const struct rc_event_desc *ev = rc_schema__event(m->schema, id);

	return ev ? ev->name : "?";
}

/*
 * record --bpf kept records that were not the size of their struct as
 * bytes: say so once for each such event, so that nobody mistakes them.
 */
static void warn_raw(const struct rc_meta *m, uint16_t id)
{
	static uint8_t said[RC_MAX_EVENT_ID_API + 1];
	const struct rc_note *n;

	if (said[id])
		return;
	said[id] = 1;
	n = rc_meta__note(m, id, "raw_of");
	if (n)
		say("warning: some records were not the size of %.*s: they are shown as "
		    "bytes (event %s)\n",
		    (int)n->len, (const char *)n->data, event_name(m, id));
}

static const char *syscall_name(const struct rc_meta *m, uint64_t nr, char *buf, size_t len)
{
	const struct rc_event_desc *ev = rc_schema__event_by_name(m->schema, "syscall");
	const struct rc_field *f = rc_event__field(ev, "nr");
	const char *name = NULL;

	if (f && f->hint == RC_HINT_ENUM)
		name = rc_enum__name(rc_schema__enum(m->schema, f->enum_id), nr);
	if (name)
		return name;
	snprintf(buf, len, "sys_%" PRIu64, nr);
	return buf;
}

static void show_summary(const struct rc_meta *m, struct rc_summary *s)
{
	size_t i, top = env.top ? env.top : 10;
	char nb[32];

	rc_summary__sort(s);
	printf("# capture of %s, kernel %s, %s, %u CPUs\n", m->host ? m->host : "?",
	       m->kernel ? m->kernel : "?", m->arch ? m->arch : "?", m->ncpus);
	printf("# command: %s\n", m->cmdline ? m->cmdline : "?");
	printf("# %" PRIu64 " events over %.3f s\n\n", s->nrec,
	       s->nrec ? (s->last_ts - s->first_ts) / 1e9 : 0.0);

	printf("%-28s %12s\n", "EVENT", "COUNT");
	for (i = 0; i < s->nevents; i++)
		printf("%-28s %12" PRIu64 "\n", event_name(m, s->events[i].key),
		       s->events[i].count);

	printf("\n%-16s %8s %12s\n", "COMM", "PID", "EVENTS");
	for (i = 0; i < s->nprocs && i < top; i++) {
		/* the records whose pid is unknown: a row of their own, not pid 0's */
		if (s->procs[i].key == RC_SUM_UNKNOWN)
			snprintf(nb, sizeof(nb), "-");
		else
			snprintf(nb, sizeof(nb), "%" PRIu64, s->procs[i].key);
		printf("%-16s %8s %12" PRIu64 "\n", s->procs[i].comm, nb, s->procs[i].count);
	}

	if (!s->nsyscalls)
		return;
	printf("\n%-20s %10s %8s %12s %12s %12s\n", "SYSCALL", "COUNT", "ERRORS", "TOTAL(us)",
	       "AVG(us)", "MAX(us)");
	for (i = 0; i < s->nsyscalls && i < top; i++) {
		const struct rc_sum_count *c = &s->syscalls[i];

		printf("%-20s %10" PRIu64 " %8" PRIu64 " %12.3f %12.3f %12.3f\n",
		       syscall_name(m, c->key, nb, sizeof(nb)), c->count, c->errors,
		       c->total_ns / 1e3, c->total_ns / 1e3 / c->count, c->max_ns / 1e3);
	}
}

/* As bcc's print_log2_hist: a row per power of two, stars to scale. */
static void show_hist(const struct rc_hist *h, const char *unit, const char *what)
{
	int lo = 0, hi = -1, i, j, stars;
	uint64_t max = 0;

	printf("# %s: %" PRIu64 " values", what, h->count);
	if (h->count)
		printf(", min %" PRIu64 ", average %.1f, max %" PRIu64 " %s", h->min,
		       (double)h->total / h->count, h->max, unit);
	printf("\n");
	for (i = 0; i < 64; i++) {
		if (h->slots[i]) {
			hi = i;
			max = h->slots[i] > max ? h->slots[i] : max;
		}
	}
	printf("%*s : count     distribution\n", 24, unit);
	for (i = lo; i <= hi; i++) {
		uint64_t low = i ? 1ull << i : 0;
		uint64_t high = !i ? 1 : i == 63 ? UINT64_MAX : (1ull << (i + 1)) - 1;

		stars = max ? (int)(h->slots[i] * 40 / max) : 0;
		printf("%10" PRIu64 " -> %-10" PRIu64 " : %-9" PRIu64 " |", low, high, h->slots[i]);
		for (j = 0; j < 40; j++)
			putchar(j < stars ? '*' : ' ');
		printf("|\n");
	}
}

struct analysis {
	struct rc_profile prof;
	struct rc_summary sum;
	struct rc_hist hist;
	struct rc_runq runq;
	const struct rc_field *dur; /* syscall's duration, for --hist syscall */
	uint16_t syscall_id;
};

static int analyse(struct analysis *a, const struct rc_meta *m, const struct rc_rec_hdr *rec)
{
	if (env.profile)
		return rc_profile__add(&a->prof, m, rec);
	if (env.summary)
		return rc_summary__add(&a->sum, m, rec) ?: rc_profile__add(&a->prof, m, rec);
	if (env.hist == HIST_RUNQ)
		return rc_runq__add(&a->runq, m, rec);
	if (a->dur && rec->type == a->syscall_id)
		rc_hist__add(&a->hist, rc_field__u64(a->dur, rec, 0));
	return 0;
}

static void analysis_init(struct analysis *a, const struct rc_meta *m)
{
	const struct rc_event_desc *ev = rc_schema__event_by_name(m->schema, "syscall");

	memset(a, 0, sizeof(*a));
	a->dur = rc_event__field(ev, "duration");
	a->syscall_id = ev ? ev->id : 0;
	a->runq.div = 1000; /* microseconds, as bcc's runqlat */
}

static int analysis_show(struct analysis *a, const struct rc_meta *m, const struct rc_reader *r)
{
	/* samples when there are, else time blocked, else events' stacks; --event picks */
	enum rc_profile_kind kind = a->prof.samples ? RC_PROFILE_CPU
				    : a->prof.offcpu ? RC_PROFILE_OFFCPU
						     : RC_PROFILE_EVENTS;
	int err = 0;

	if (env.profile && !a->prof.samples && !a->prof.offcpu && !a->prof.events)
		say("no stacks in this capture: record them with -F HZ -g, --off-cpu, or -e EVENTS "
		    "-g\n");
	if (env.profile && a->prof.samples && a->prof.offcpu)
		say("note: this capture has off-CPU records too: --event offcpu shows them\n");
	if (env.profile && (a->prof.samples || a->prof.offcpu) && a->prof.events)
		say("note: this capture has events' stacks too: --event stack shows them\n");
	if (env.profile == PROFILE_FOLDED)
		return show_folded(r, &a->prof, kind);
	if (env.profile == PROFILE_FLAMEGRAPH)
		return show_flamegraph(r, &a->prof, kind);
	if (env.summary) {
		show_summary(m, &a->sum);
		if (a->prof.samples)
			err = show_functions(r, &a->prof, RC_PROFILE_CPU, env.top ? env.top : 10);
		if (!err && a->prof.offcpu)
			err = show_functions(r, &a->prof, RC_PROFILE_OFFCPU, env.top ? env.top : 10);
		if (!err && a->prof.events)
			err = show_functions(r, &a->prof, RC_PROFILE_EVENTS, env.top ? env.top : 10);
		return err;
	} else if (env.hist == HIST_SYSCALL) {
		if (!a->dur)
			say("no syscall events in this capture: record them with -e syscalls\n");
		show_hist(&a->hist, "nsecs", "syscall duration");
	} else if (env.hist == HIST_RUNQ) {
		if (!a->runq.hist.count)
			say("no wakeup followed by its switch: record -e sched:sched_wakeup,"
			    "sched:sched_switch\n");
		show_hist(&a->runq.hist, "usecs", "wakeup to running (run-queue latency)");
	}
	return 0;
}

/* Where the file was damaged, and what it lost: chunks passed over, whose events are not shown. */
static void say_damage(const struct rc_reader *r)
{
	struct rc_damage d;

	rc_reader__corrupt(r, &d);
	say("warning: '%s' is damaged: %s\n", env.input, rc_reader__error(r));
	say("warning: %s%" PRIu64 " chunk%s of %" PRIu64 " events lost to damage%s, %" PRIu64
	    " bytes in %" PRIu64 " stretch%s: shown are the events of the %" PRIu64
	    " chunks read\n",
	    d.exact ? "" : "at least ", d.chunks, d.chunks == 1 ? "" : "s", d.records,
	    d.exact ? "" : " (no trailer to count them)", d.bytes, d.stretches,
	    d.stretches == 1 ? "" : "es", rc_reader__chunks(r));
}

static void analysis_free(struct analysis *a)
{
	rc_profile__free(&a->prof);
	rc_summary__free(&a->sum);
	rc_runq__free(&a->runq);
}

int cmd_report(int argc, char **argv)
{
	static const struct argp_child children[] = { { .argp = &common_argp }, {} };
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.args_doc = "[FILE]",
		.doc = "Decode a capture: events in time order, as text, JSON Lines, CSV or a "
		       "Perfetto timeline; a summary; or a latency histogram.",
		.children = children,
	};
	struct report_out *out = NULL;
	const struct rc_rec_hdr *rec;
	const struct rc_meta *m;
	struct rc_filter filter = {};
	struct rc_stats_point totals = {};
	struct analysis a;
	struct rc_reader *r;
	bool analysing;
	const struct rc_event_desc *stack_ev;
	uint64_t dropped;
	struct rc_rec_hdr prev = {};
	bool kept = false;
	int err, ret = 0;

	env = (struct env){ .format = FMT_TEXT };
	err = argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, NULL);
	if (err)
		return -err;
	if (!env.input)
		env.input = "ringcap.rcap";
	r = rc_reader__open(env.input);
	if (!r)
		return -errno; /* the reader said why */
	m = rc_reader__meta(r);
	stack_ev = rc_schema__event_by_name(m->schema, "stack");
	analysing = env.summary || env.hist || env.profile;
	analysis_init(&a, m);
	err = setup_filter(&filter, m);
	if (err)
		goto out;
	rc_reader__set_range(r, filter.since, filter.until);
	if (!analysing) {
		out = report_out__new(env.format, m, env.wall ? RC_FMT_WALL : 0);
		if (!out) {
			err = -ENOMEM;
			goto out;
		}
		if (env.stacks || env.format == FMT_PERFETTO)
			report_out__set_stacks(out, r);
	}
	while ((err = rc_reader__next(r, &rec)) > 0) {
		/*
		 * An event's stack record goes with its event, the record before
		 * it of the same time, thread and CPU: kept when that was (or
		 * when the filter names "stack" itself).
		 */
		bool is_stack = stack_ev && rec->type == stack_ev->id;
		bool keep = is_stack ? (kept && rec->ts == prev.ts && rec->tid == prev.tid &&
					rec->cpu == prev.cpu) ||
					       rc_filter__match(&filter, m, rec)
				     : rc_filter__match(&filter, m, rec);

		kept = keep && !is_stack;
		prev = *rec;
		if (!keep)
			continue;
		if (rec->type >= RC_FIRST_DYN_ID)
			warn_raw(m, rec->type);
		err = analysing ? analyse(&a, m, rec) : report_out__event(out, rec);
		if (err)
			break;
	}
	/* what was decoded before an error is output too, then the error */
	if (out && (err >= 0 || !ferror(stdout))) {
		int e = report_out__end(out);

		err = err < 0 ? err : e;
	}
	if (ferror(stdout)) {
		ret = -EIO; /* stdout failed: main says why */
		goto out;
	}
	if (err < 0) {
		say("%s: %s\n", env.input,
		    rc_reader__error(r)[0] ? rc_reader__error(r) : strerror(-err));
		ret = err;
		goto out;
	}
	if (analysing) {
		err = analysis_show(&a, m, r);
		if (err) {
			ret = err;
			goto out;
		}
	}
	if (rc_reader__stats(r))
		rc_stats__totals(rc_reader__stats(r), &totals);
	dropped = totals.dropped;
	if (dropped)
		say("warning: %" PRIu64 " events were dropped in the kernel (ring full): "
		    "see 'ringcap stat %s'\n",
		    dropped, env.input);
	if (rc_reader__corrupt(r, NULL)) {
		say_damage(r);
		ret = RC_EXIT_TRUNCATED;
	}
	if (rc_reader__truncated(r)) {
		say("warning: '%s' is truncated at byte %" PRIu64 " (recorder killed or "
		    "disk full): shown are the events of its %" PRIu64 " complete chunks\n",
		    env.input, rc_reader__offset(r), rc_reader__chunks(r));
		ret = RC_EXIT_TRUNCATED;
	}
out:
	if (err < 0 && !ret)
		ret = err;
	analysis_free(&a);
	report_out__free(out);
	rc_filter__free(&filter);
	rc_reader__free(r);
	return ret;
}
