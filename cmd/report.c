// SPDX-License-Identifier: GPL-2.0-only
/* ringcap report: events as text, or a summary. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "ringcap.h"

enum {
	OPT_SUMMARY = 256,
	OPT_WALL,
};

static struct env {
	const char *input;
	bool summary;
	bool wall;
	unsigned int top;
} env;

static const struct argp_option opts[] = {
	{ "input", 'i', "FILE", 0, "Capture to read (default: ringcap.rcap; - for stdin)" },
	{ "summary", OPT_SUMMARY, NULL, 0, "Counts by event, process and syscall, with latencies" },
	{ "top", 't', "N", 0, "Rows in each summary table (default: 10)" },
	{ "wall", OPT_WALL, NULL, 0, "Wall-clock time instead of seconds from the start" },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	char *end;
	long v;

	switch (key) {
	case 'i':
		env.input = arg;
		break;
	case OPT_SUMMARY:
		env.summary = true;
		break;
	case 't':
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || *end || v <= 0 || v > 1000000)
			argp_error(state, "invalid --top '%s': a positive number of rows", arg);
		env.top = v;
		break;
	case OPT_WALL:
		env.wall = true;
		break;
	case ARGP_KEY_ARG:
		if (state->arg_num > 0 || (env.input && strcmp(env.input, arg)))
			argp_error(state, "one capture file at a time");
		env.input = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const char *event_name(const struct rc_meta *m, uint64_t id)
{
	const struct rc_event_desc *ev = rc_schema__event(m->schema, id);

	return ev ? ev->name : "?";
}

static const char *syscall_name(const struct rc_meta *m, uint64_t nr, char *buf, size_t len)
{
	const struct rc_event_desc *ev = rc_schema__event_by_name(m->schema, "syscall");
	const char *name = NULL;
	uint16_t i;

	for (i = 0; ev && i < ev->nfields; i++)
		if (!strcmp(ev->fields[i].name, "nr") && ev->fields[i].hint == RC_HINT_ENUM)
			name = rc_enum__name(rc_schema__enum(m->schema, ev->fields[i].enum_id), nr);
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
	for (i = 0; i < s->nprocs && i < top; i++)
		printf("%-16s %8" PRIu64 " %12" PRIu64 "\n", s->procs[i].comm, s->procs[i].key,
		       s->procs[i].count);

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

static uint64_t total_dropped(const struct rc_stats *st)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; st && i < st->nentries; i++)
		n += st->entries[i].dropped;
	return n;
}

int cmd_report(int argc, char **argv)
{
	static const struct argp_child children[] = { { .argp = &common_argp }, {} };
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.args_doc = "[FILE]",
		.doc = "Decode a capture: one line per event in time order, or a summary.",
		.children = children,
	};
	struct rc_strbuf line = {};
	struct rc_summary sum = {};
	const struct rc_rec_hdr *rec;
	const struct rc_meta *m;
	struct rc_reader *r;
	bool out_failed = false;
	uint64_t dropped;
	int err, ret = 0;

	env = (struct env){ .input = NULL };
	err = argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, NULL);
	if (err)
		return -err;
	if (!env.input)
		env.input = "ringcap.rcap";
	r = rc_reader__open(env.input);
	if (!r)
		return -errno; /* the reader said why */
	m = rc_reader__meta(r);
	while ((err = rc_reader__next(r, &rec)) > 0) {
		if (env.summary) {
			err = rc_summary__add(&sum, m, rec);
			if (err)
				break;
			continue;
		}
		line.len = 0;
		err = rc_decode__text(&line, m, rec, env.wall ? RC_FMT_WALL : 0);
		err = err ?: rc_strbuf__printf(&line, "\n");
		if (err)
			break;
		if (fwrite(line.buf, 1, line.len, stdout) != line.len) {
			out_failed = true; /* main says why */
			break;
		}
	}
	if (out_failed) {
		ret = -EIO;
	} else if (err < 0) {
		say("%s: %s\n", env.input,
		    rc_reader__error(r)[0] ? rc_reader__error(r) : strerror(-err));
		ret = err;
	} else {
		if (env.summary)
			show_summary(m, &sum);
		dropped = total_dropped(rc_reader__stats(r));
		if (dropped)
			say("warning: %" PRIu64 " events were dropped in the kernel (ring full): "
			    "see 'ringcap stat %s'\n",
			    dropped, env.input);
		if (rc_reader__truncated(r)) {
			say("warning: '%s' is truncated at byte %" PRIu64 " (recorder killed or "
			    "disk full): shown are the events of its %" PRIu64 " complete chunks\n",
			    env.input, rc_reader__offset(r), rc_reader__chunks(r));
			ret = RC_EXIT_TRUNCATED;
		}
	}
	rc_summary__free(&sum);
	rc_strbuf__free(&line);
	rc_reader__free(r);
	return ret;
}
