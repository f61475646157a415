// SPDX-License-Identifier: GPL-2.0-only
/* ringcap report: events in a format, a summary, or histograms; filters. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cmd.h"
#include "decode/auxsum.h"

#define MAX_LIST   1024
#define MAX_INPUTS 4096

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
	OPT_AUX,
	OPT_AUX_DUMP,
	OPT_PPROF_LABELS,
	OPT_JOBS,
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
	PROFILE_PPROF,
};

static struct env {
	const char *inputs[MAX_INPUTS]; /* files, directories, globs */
	size_t ninputs;
	const struct rc_output_ops *format; /* an event format, by its name */
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
	bool aux;	      /* --aux */
	const char *aux_dump; /* --aux-dump DIR */
	unsigned int pprof_labels; /* --pprof-labels: RC_PPROF_L_* */
	bool pprof_labels_set;
	unsigned int jobs;    /* -j: threads; 0: the CPUs available */
} env;

static const struct argp_option opts[] = {
	{ "input", 'i', "FILE", 0,
	  "Capture to read (default: ringcap.rcap; - for stdin); more files, directories and "
	  "globs as arguments" },
	{ "format", OPT_FORMAT, "FORMAT", 0,
	  "text (default), json (JSON Lines), csv, perfetto (its protobuf), perfetto-json (Chrome JSON), perf-script; for samples, folded (collapsed "
	  "stacks), flamegraph (an SVG) or pprof (gzipped profile.proto, for go tool pprof)" },
	{ "pprof-labels", OPT_PPROF_LABELS, "LABELS", 0,
	  "pprof: the labels of each sample, of pid, tid, comm, cpu, host; all; none (default: "
	  "comm,cpu,host)" },
	{ "summary", OPT_SUMMARY, NULL, 0,
	  "Counts by event, process and syscall, with latencies; for samples, the top functions" },
	{ "stacks", OPT_STACKS, NULL, 0,
	  "text: each sample's stack under it, as perf script prints it" },
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
	{ "aux", OPT_AUX, NULL, 0,
	  "Each CPU's AUX stream (record -e PMU//): bytes, gaps, the kernel's records about it; "
	  "for Intel PT, its packets by type, PSBs and TSC span" },
	{ "jobs", 'j', "N", 0,
	  "Decode on N threads (default: the CPUs available; 1: one thread); the output is "
	  "the same" },
	{ "aux-dump", OPT_AUX_DUMP, "DIR", 0,
	  "Write each CPU's AUX stream, as recorded, to DIR/aux-cpuN.bin (and show --aux)" },
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

/* report's event formats, picked by name (lib/output/output.h) */
static const struct rc_output_ops *const outputs[] = {
	&rc_output_text,
	&rc_output_json,
	&rc_output_csv,
	&rc_output_perfetto,
	&rc_output_perfetto_json,
	&rc_output_perf_script,
};

static const struct rc_output_ops *output_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++)
		if (!strcmp(outputs[i]->name, name))
			return outputs[i];
	return NULL;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	const struct rc_output_ops *out;
	long v;

	switch (key) {
	case 'i':
	case ARGP_KEY_ARG:
		if (env.ninputs == MAX_INPUTS)
			argp_error(state, "at most %d captures: name their directory instead",
				   MAX_INPUTS);
		env.inputs[env.ninputs++] = arg;
		break;
	case OPT_FORMAT:
		if ((out = output_by_name(arg)))
			env.format = out;
		else if (!strcmp(arg, "folded"))
			env.profile = PROFILE_FOLDED;
		else if (!strcmp(arg, "flamegraph"))
			env.profile = PROFILE_FLAMEGRAPH;
		else if (!strcmp(arg, "pprof"))
			env.profile = PROFILE_PPROF;
		else
			argp_error(state,
				   "unknown format '%s': text, json, csv, perfetto, perfetto-json, perf-script, "
				   "folded, flamegraph or pprof",
				   arg);
		break;
	case OPT_PPROF_LABELS:
		if (rc_pprof__parse_labels(arg, &env.pprof_labels))
			argp_error(state,
				   "invalid --pprof-labels '%s': pid, tid, comm, cpu, host "
				   "comma-separated; all; none",
				   arg);
		env.pprof_labels_set = true;
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
	case 'j':
		if (!parse_long(arg, 1, 1024, &v))
			argp_error(state, "invalid --jobs '%s': a number of threads, 1 to 1024", arg);
		env.jobs = v;
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
	case OPT_AUX_DUMP:
		env.aux_dump = arg;
		/* fall through */
	case OPT_AUX:
		env.aux = true;
		break;
	case ARGP_KEY_END:
		if (env.aux && (env.summary || env.hist || env.profile || env.stacks ||
				(env.format != &rc_output_text && env.format != &rc_output_json)))
			argp_error(state, "--aux prints the AUX streams: drop the other report's "
					  "options (--format json is taken)");
		if (env.aux && (env.npids || env.ntids || env.ncpus || env.comm || env.events ||
				env.since || env.until))
			argp_error(state, "--aux reads whole streams: drop --pid, --tid, --comm, "
					  "--cpu, --event, --since and --until");
		if ((env.summary || env.hist) && (env.format != &rc_output_text || env.profile))
			argp_error(state, "--summary and --hist print tables: drop --format");
		if (env.summary && env.hist)
			argp_error(state, "--summary or --hist: one at a time");
		if (env.stacks &&
		    (env.format != &rc_output_text || env.profile || env.summary || env.hist))
			argp_error(state, "--stacks prints stacks under the events of the text format");
		if (env.pprof_labels_set && env.profile != PROFILE_PPROF)
			argp_error(state, "--pprof-labels goes with --format pprof");
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

/* A time of the set (rc_set__time()) in file @i's clock, clamped to it. */
static uint64_t file_ts(const struct rc_set *set, size_t i, uint64_t t)
{
	uint64_t off = rc_set__time(set, i, 0);
	int64_t o = (int64_t)off;

	if (o >= 0)
		return t < off ? 0 : t - off;
	return t > UINT64_MAX + o ? UINT64_MAX : t - off;
}

/*
 * --since and --until, in the set's time: read against the first file's
 * header, whose start is where times count from (the set's start).
 */
static int parse_range(const struct rc_set *set, const struct rc_meta *m0, uint64_t *since,
		       uint64_t *until)
{
	uint64_t ts;

	*since = 0;
	*until = UINT64_MAX;
	if (env.since) {
		if (parse_time(env.since, m0, &ts)) {
			say("invalid --since '%s': seconds from the start, or a time like "
			    "14:03:05\n",
			    env.since);
			return RC_EXIT_USAGE;
		}
		*since = rc_set__time(set, 0, ts);
	}
	if (env.until) {
		if (parse_time(env.until, m0, &ts)) {
			say("invalid --until '%s': seconds from the start, or a time like "
			    "14:03:05\n",
			    env.until);
			return RC_EXIT_USAGE;
		}
		*until = rc_set__time(set, 0, ts);
	}
	return 0;
}

/*
 * The filter of one file: its --event names found in its schema, *@found
 * counting for each name whether this file has it. A file with none of
 * them keeps none of its records.
 */
static int setup_filter(struct rc_filter *f, const struct rc_meta *m, uint64_t since,
			uint64_t until, bool *found)
{
	char *copy, *tok, *save = NULL;
	size_t k = 0;
	int err = 0;

	*f = (struct rc_filter){ .pids = env.pids,
				 .npids = env.npids,
				 .tids = env.tids,
				 .ntids = env.ntids,
				 .cpus = env.cpus,
				 .ncpus = env.ncpus,
				 .comm = env.comm,
				 .since = since,
				 .until = until };
	if (!env.events)
		return 0;
	copy = strdup(env.events);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		err = rc_filter__add_event(f, m->schema, tok);
		if (err == -ENOENT)
			err = 0;
		else if (!err && k < MAX_LIST)
			found[k] = true;
		k++;
	}
	free(copy);
	return err;
}

/* Every --event name is in some file; else say which is not. */
static int check_events(const bool *found)
{
	char *copy, *tok, *save = NULL;
	size_t k = 0;
	int err = 0;

	if (!env.events)
		return 0;
	copy = strdup(env.events);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save), k++) {
		if (k < MAX_LIST && !found[k]) {
			say("no event '%s' in this capture: see 'ringcap report --summary'\n", tok);
			err = -ENOENT;
			break;
		}
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

	if (nr >= RC_SUM_COMPAT) { /* a 32-bit task's: of another table than the names' */
		snprintf(buf, len, "sys32_%" PRIu64, nr - (uint64_t)RC_SUM_COMPAT);
		return buf;
	}
	if (f && f->hint == RC_HINT_ENUM)
		name = rc_enum__name(rc_schema__enum(m->schema, f->enum_id), nr);
	if (name)
		return name;
	snprintf(buf, len, "sys_%" PRIu64, nr);
	return buf;
}

static void show_summary(const struct rc_meta *m, struct rc_summary *s, size_t nfiles,
			 uint64_t span)
{
	size_t i, top = env.top ? env.top : 10;
	char nb[32];

	rc_summary__sort(s);
	printf("# capture of %s, kernel %s, %s, %u CPUs\n", m->host ? m->host : "?",
	       m->kernel ? m->kernel : "?", m->arch ? m->arch : "?", m->ncpus);
	printf("# command: %s\n", m->cmdline ? m->cmdline : "?");
	if (nfiles > 1)
		printf("# %zu files, read as one (the first's host and command above)\n", nfiles);
	printf("# %" PRIu64 " events over %.3f s\n\n", s->nrec, span / 1e9);

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

/*
 * One capture file of the report: its header as shown (times from the
 * set's start), its filter, its profile (stack ids are the file's own), and
 * the last record seen, for a stack record's event.
 */
struct src {
	struct rc_meta view;
	struct rc_filter filter;
	struct rc_profile prof;
	struct rc_profile_src ps;
	struct rc_keep keep; /* of @filter and @view, a stack record with its event */
	const struct rc_field *dur; /* syscall's duration, for --hist syscall */
	uint16_t syscall_id;
	uint32_t idx; /* of the file in the set */
};

struct analysis {
	struct rc_summary sum;
	struct rc_hist hist;
	struct rc_runq runq;
	struct rc_profile_src *ps; /* each file's profile and stacks */
	struct rc_pprof *pprof;	   /* --format pprof */
	size_t n;
	uint64_t samples, offcpu, events; /* every file's */
	struct rc_aux_sum aux;		  /* --aux */
	uint64_t span;			  /* of the files read (rc_set__span()) */
};

static int analyse(struct analysis *a, struct src *src, const struct rc_rec_hdr *rec)
{
	const struct rc_meta *m = &src->view;

	if (env.aux) {
		rc_aux_sum__record(&a->aux, rec);
		return 0;
	}
	if (env.profile == PROFILE_PPROF)
		return rc_profile__add(&src->prof, m, rec)
			   ?: rc_pprof__add(a->pprof, src->idx, m, rec);
	if (env.profile)
		return rc_profile__add(&src->prof, m, rec);
	if (env.summary)
		return rc_summary__add(&a->sum, m, rec) ?: rc_profile__add(&src->prof, m, rec);
	if (env.hist == HIST_RUNQ)
		return rc_runq__add(&a->runq, m, rec);
	if (src->dur && rec->type == src->syscall_id)
		rc_hist__add(&a->hist, rc_field__u64(src->dur, rec, 0));
	return 0;
}

static void src_init(struct src *src, const struct rc_meta *m, const struct rc_reader *r,
		     uint64_t t0)
{
	const struct rc_event_desc *ev = rc_schema__event_by_name(m->schema, "syscall");

	memset(src, 0, sizeof(*src));
	src->view = *m;
	src->view.start_ts = t0;
	src->dur = rc_event__field(ev, "duration");
	src->syscall_id = ev ? ev->id : 0;
	src->keep = (struct rc_keep){ .filter = &src->filter,
				      .view = &src->view,
				      .stack_ev = rc_schema__event_by_name(m->schema, "stack") };
	src->ps = (struct rc_profile_src){ .r = r, .p = &src->prof };
}

static int analysis_show(struct analysis *a, const struct rc_meta *m)
{
	/* samples when there are, else time blocked, else events' stacks; --event picks */
	enum rc_profile_kind kind = a->samples	? RC_PROFILE_CPU
				    : a->offcpu ? RC_PROFILE_OFFCPU
						: RC_PROFILE_EVENTS;
	size_t top = env.top ? env.top : 10;
	bool any_dur = false;
	int err = 0;
	size_t i;

	for (i = 0; i < a->n; i++) {
		a->samples += a->ps[i].p->samples;
		a->offcpu += a->ps[i].p->offcpu;
		a->events += a->ps[i].p->events;
	}
	kind = a->samples ? RC_PROFILE_CPU : a->offcpu ? RC_PROFILE_OFFCPU : RC_PROFILE_EVENTS;
	if (env.profile && !a->samples && !a->offcpu && !a->events) {
		/* an empty graph would pass for one: nothing on stdout, and a failure */
		say("no stacks in this capture: record them with -F HZ -g, --off-cpu, or -e EVENTS "
		    "-g\n");
		return -ENODATA;
	}
	if (env.profile && a->samples && a->offcpu)
		say("note: this capture has off-CPU records too: --event offcpu shows them\n");
	if (env.profile && (a->samples || a->offcpu) && a->events)
		say("note: this capture has events' stacks too: --event stack shows them\n");
	if (env.profile == PROFILE_FOLDED)
		return show_folded(a->ps, a->n, kind);
	if (env.profile == PROFILE_FLAMEGRAPH)
		return show_flamegraph(a->ps, a->n, kind);
	if (env.profile == PROFILE_PPROF)
		return show_pprof(a->pprof, a->ps, a->n, kind, m, a->span);
	if (env.summary) {
		show_summary(m, &a->sum, a->n, a->span);
		if (a->samples)
			err = show_functions(a->ps, a->n, RC_PROFILE_CPU, top);
		if (!err && a->offcpu)
			err = show_functions(a->ps, a->n, RC_PROFILE_OFFCPU, top);
		if (!err && a->events)
			err = show_functions(a->ps, a->n, RC_PROFILE_EVENTS, top);
		return err;
	} else if (env.hist == HIST_SYSCALL) {
		for (i = 0; i < a->n; i++)
			any_dur |= rc_schema__event_by_name(rc_reader__meta(a->ps[i].r)->schema,
							    "syscall") != NULL;
		if (!any_dur)
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

/* Where a file was damaged, and what it lost: chunks passed over, whose events are not shown. */
static void say_damage(const char *path, const struct rc_reader *r)
{
	struct rc_damage d;

	rc_reader__corrupt(r, &d);
	say("warning: '%s' is damaged: %s\n", path, rc_reader__error(r));
	say("warning: %s%" PRIu64 " chunk%s of %" PRIu64 " events lost to damage%s, %" PRIu64
	    " bytes in %" PRIu64 " stretch%s: shown are the events of the %" PRIu64
	    " chunk%s read\n",
	    d.exact ? "" : "at least ", d.chunks, d.chunks == 1 ? "" : "s", d.records,
	    d.exact ? "" : " (no trailer to count them)", d.bytes, d.stretches,
	    d.stretches == 1 ? "" : "es", rc_reader__chunks(r),
	    rc_reader__chunks(r) == 1 ? "" : "s");
}

/* After reading: what each file lost or lacked, said once a file; RC_EXIT_TRUNCATED or 0. */
static int say_files(const struct rc_set *set)
{
	struct rc_stats_point totals, base;
	uint64_t dropped = 0;
	size_t i, n = rc_set__nfiles(set);
	int ret = 0;

	for (i = 0; i < n; i++) {
		const struct rc_reader *r = rc_set__reader(set, i);
		const char *path = rc_set__path(set, i);

		if (rc_set__skipped(set, i))
			continue;
		if (rc_reader__stats(r)) {
			/* a run's counters are cumulative: the file's own are less its BASE */
			rc_stats__totals(rc_reader__stats(r), &totals);
			dropped += totals.dropped;
			if (rc_reader__base(r)) {
				rc_stats__totals(rc_reader__base(r), &base);
				dropped -=
				    base.dropped < totals.dropped ? base.dropped : totals.dropped;
			}
		}
		if (rc_reader__corrupt(r, NULL)) {
			say_damage(path, r);
			ret = RC_EXIT_TRUNCATED;
		}
		if (rc_reader__truncated(r)) {
			say("warning: '%s' is truncated at byte %" PRIu64 " (recorder killed, "
			    "disk full, or still being written): shown are the events of its "
			    "%" PRIu64 " complete chunk%s\n",
			    path, rc_reader__offset(r), rc_reader__chunks(r),
			    rc_reader__chunks(r) == 1 ? "" : "s");
			ret = RC_EXIT_TRUNCATED;
		}
	}
	if (dropped && n == 1)
		say("warning: %" PRIu64 " events were dropped in the kernel (ring full): "
		    "see 'ringcap stat %s'\n",
		    dropped, rc_set__path(set, 0));
	else if (dropped)
		say("warning: %" PRIu64 " events were dropped in the kernel (ring full): see "
		    "'ringcap stat' of these files\n",
		    dropped);
	return ret;
}

/* -v: what was read of the files, for measuring what --since and --until save. */
static void say_read(const struct rc_set *set)
{
	uint64_t chunks = 0, raw = 0;
	size_t i, n = rc_set__nfiles(set), skipped = 0;

	for (i = 0; i < n; i++) {
		const struct rc_reader *r = rc_set__reader(set, i);

		skipped += rc_set__skipped(set, i);
		chunks += rc_reader__chunks(r);
		raw += rc_reader__raw_bytes(r);
	}
	say("read: %" PRIu64 " chunk%s decompressed (%" PRIu64 " bytes of records) of %zu "
	    "file%s, %zu passed over whole\n",
	    chunks, chunks == 1 ? "" : "s", raw, n, n == 1 ? "" : "s", skipped);
}

static void analysis_free(struct analysis *a, struct src *srcs, size_t n)
{
	size_t i;

	for (i = 0; srcs && i < n; i++) {
		rc_profile__free(&srcs[i].prof);
		rc_filter__free(&srcs[i].filter);
	}
	rc_summary__free(&a->sum);
	rc_runq__free(&a->runq);
	rc_aux_sum__free(&a->aux);
	rc_pprof__free(a->pprof);
	free(a->ps);
}

/* -j: record --bpf's raw events met on the threads, said once a type as on one */
static void par_raw(void *ctx, const struct rc_meta *m, uint16_t type)
{
	warn_raw(m, type);
}

/* -j's threads: the CPUs this process may run on, unless given. */
static unsigned int jobs(void)
{
	cpu_set_t set;
	int n;

	if (env.jobs)
		return env.jobs;
	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	n = CPU_COUNT(&set);
	return n > 0 ? n : 1;
}

/*
 * Whether the records can go through threads: one file, read whole
 * chunks at a time, into a format or a count that keeps no state from
 * record to record but the stack record's event (output/parallel.h).
 */
static bool par_fits(const struct rc_set *set, size_t n)
{
	return n == 1 && !rc_set__skipped(set, 0) && !env.aux && !env.hist && !env.stacks &&
	       env.format != &rc_output_perfetto && env.format != &rc_output_perfetto_json &&
	       env.format != &rc_output_perf_script &&
	       env.profile != PROFILE_PPROF;
}

int cmd_report(int argc, char **argv)
{
	static const struct argp_child children[] = { { .argp = &common_argp }, {} };
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.args_doc = "[FILE|DIR|GLOB...]",
		.doc = "Decode captures: events in time order, as text, JSON Lines, CSV or a "
		       "Perfetto timeline; a summary; or a latency histogram. Several files, a "
		       "directory of them or a quoted glob are read as one, merged in time (by "
		       "wall-clock time, each event's host shown, when they come from several "
		       "hosts).",
		.children = children,
	};
	static bool found[MAX_LIST];
	const struct rc_meta **views = NULL;
	struct rc_output *out = NULL;
	const struct rc_rec_hdr *rec;
	struct read_progress prog = {};
	struct analysis a = {};
	struct src *srcs = NULL;
	struct rc_set *set;
	uint64_t since, until, t0;
	size_t i, n, f = 0;
	unsigned int threads;
	bool analysing;
	int err, ret = 0;

	env = (struct env){ .format = &rc_output_text, .pprof_labels = RC_PPROF_L_DEFAULT };
	err = argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, NULL);
	if (err)
		return -err;
	if (!env.ninputs)
		env.inputs[env.ninputs++] = "ringcap.rcap";
	if (env.format == &rc_output_perfetto && !env.summary && !env.hist && !env.profile &&
	    !env.aux && isatty(STDOUT_FILENO)) {
		say("perfetto is a binary protobuf trace: send it to a file (> trace.pftrace) "
		    "or a pipe\n");
		return -EINVAL;
	}
	raise_nofile();
	set = rc_set__open(env.inputs, env.ninputs);
	if (!set)
		return -errno; /* the set said why, naming the file */
	n = rc_set__nfiles(set);
	srcs = calloc(n, sizeof(*srcs));
	views = calloc(n, sizeof(*views));
	a.ps = calloc(n, sizeof(*a.ps));
	if (!srcs || !views || !a.ps) {
		err = -ENOMEM;
		goto out;
	}
	a.n = n;
	if (env.profile == PROFILE_PPROF && !(a.pprof = rc_pprof__new(env.pprof_labels))) {
		err = -ENOMEM;
		goto out;
	}
	a.runq.div = 1000; /* microseconds, as bcc's runqlat */
	for (i = 0; i < n; i++) {
		/* times count from the set's start: the earliest file's, in this file's clock */
		t0 = file_ts(set, i, rc_set__start(set));
		src_init(&srcs[i], rc_set__meta(set, i), rc_set__reader(set, i), t0);
		srcs[i].idx = i;
		views[i] = &srcs[i].view;
		a.ps[i] = srcs[i].ps;
	}
	memset(found, 0, sizeof(found));
	err = parse_range(set, views[0], &since, &until);
	if (err == RC_EXIT_USAGE) {
		ret = err;
		goto out;
	}
	for (i = 0; !err && i < n; i++)
		err =
		    setup_filter(&srcs[i].filter, views[i], file_ts(set, i, since),
				 until == UINT64_MAX ? UINT64_MAX : file_ts(set, i, until), found);
	err = err ?: check_events(found);
	if (err)
		goto out;
	rc_set__set_range(set, since, until);
	analysing = env.summary || env.hist || env.profile || env.aux;
	/* not between events going to the same terminal: they show how far it got */
	if (analysing || !isatty(STDOUT_FILENO))
		read_progress_start(&prog, set);
	a.aux.dump_dir = env.aux_dump;
	for (i = 0; env.aux && i < n; i++)
		rc_reader__on_aux(rc_set__reader(set, i), rc_aux_sum__chunk, &a.aux);
	if (!analysing) {
		out = rc_output__new(env.format, stdout, views, n, env.wall ? RC_FMT_WALL : 0,
				     rc_set__by_wall(set));
		if (!out) {
			err = -ENOMEM;
			goto out;
		}
		for (i = 0; i < n && (env.stacks || env.format == &rc_output_perfetto ||
				      env.format == &rc_output_perfetto_json ||
				      env.format == &rc_output_perf_script); i++)
			rc_output__set_stacks(out, i, rc_set__reader(set, i));
	}
	threads = jobs();
	if (threads > 1 && par_fits(set, n)) {
		struct rc_parallel par = {
			.r = rc_set__reader(set, 0),
			.threads = threads,
			.keep = &srcs[0].keep,
			.out = out,
			.format = env.format,
			.views = views,
			.fmt_flags = env.wall ? RC_FMT_WALL : 0,
			.hosts = rc_set__by_wall(set),
			.to = stdout,
			/* as analyse(): a profile alone, or the summary and its functions */
			.sum = env.profile ? NULL : &a.sum,
			.prof = &srcs[0].prof,
			.raw = par_raw,
		};

		/* what the format writes first, before the workers' chunks */
		err = out ? rc_output__flush(out) : 0;
		err = err ?: rc_parallel__run(&par);
		f = 0;
		threads = 0; /* done: no record left for the loop below */
	}
	while (threads && (err = rc_set__next(set, &rec, &f)) > 0) {
		if (!rc_keep__record(&srcs[f].keep, rec))
			continue;
		if (rec->type >= RC_FIRST_DYN_ID)
			warn_raw(&srcs[f].view, rec->type);
		err = analysing ? analyse(&a, &srcs[f], rec) : rc_output__event(out, f, rec);
		/*
		 * The chunk's last record: out with what is shown before the
		 * next read, which on a pipe waits for the next chunk.
		 */
		if (!err && out && !rc_reader__buffered(rc_set__reader(set, f)))
			err = rc_output__flush(out);
		if (err)
			break;
	}
	read_progress_end(&prog);
	/* what was decoded before an error is output too, then the error */
	if (out && (err >= 0 || !ferror(stdout))) {
		int e = rc_output__end(out);

		err = err < 0 ? err : e;
	}
	if (ferror(stdout)) {
		ret = -EIO; /* stdout failed: main says why */
		goto out;
	}
	if (err < 0) {
		const struct rc_reader *r = rc_set__reader(set, f);

		say("%s: %s\n", rc_set__path(set, f),
		    r && rc_reader__error(r)[0] ? rc_reader__error(r) : strerror(-err));
		ret = err;
		goto out;
	}
	if (env.aux) {
		err = show_aux(&a.aux, env.format == &rc_output_json, rc_set__start(set));
		if (err) {
			ret = err;
			goto out;
		}
	} else if (analysing) {
		a.span = rc_set__span(set);
		err = analysis_show(&a, views[0]);
		if (err) {
			ret = err;
			goto out;
		}
	}
	ret = say_files(set);
	if (verbosity)
		say_read(set);
out:
	if (err < 0 && !ret)
		ret = err;
	analysis_free(&a, srcs, n);
	rc_output__free(out);
	free(srcs);
	free(views);
	rc_set__free(set);
	return ret;
}
