// SPDX-License-Identifier: GPL-2.0-only
/* ringcap stat FILE: what was made, captured and dropped, per event and per CPU. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cmd.h"
#include "ringcap.h"

static struct env {
	const char *input;
} env;

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case ARGP_KEY_ARG:
		if (state->arg_num > 0)
			argp_error(state, "one capture file at a time");
		env.input = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

struct row {
	uint64_t made, dropped, captured, in_file;
};

static void print_row(const char *name, const struct row *r)
{
	printf("%-28s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n", name, r->made,
	       r->in_file, r->dropped, r->captured - r->in_file);
}

static void add(struct row *to, const struct row *r)
{
	to->made += r->made;
	to->dropped += r->dropped;
	to->captured += r->captured;
	to->in_file += r->in_file;
}

/* Index rows by event id (0..RC_MAX_EVENT_ID) and by CPU. */
struct tables {
	struct row *by_event;
	struct row *by_cpu;
	uint32_t ncpus;
};

static void count_stats(struct tables *t, const struct rc_stats *st)
{
	uint32_t i;

	for (i = 0; st && i < st->nentries; i++) {
		const struct rc_stat_entry *e = &st->entries[i];
		struct row r = {e->made, e->dropped, e->captured, 0};

		if (e->type < 4096)
			add(&t->by_event[e->type], &r);
		if (e->cpu < t->ncpus)
			add(&t->by_cpu[e->cpu], &r);
	}
}

static void show(const struct rc_meta *m, struct tables *t, struct rc_reader *r, uint64_t nrec)
{
	const char *hdr = "%-28s %12s %12s %12s %12s\n";
	struct row total = {};
	char name[32];
	uint32_t i;

	printf("# %s: %s, %" PRIu64 " events in %" PRIu64 " chunks, %" PRIu64 " bytes\n", env.input,
	       rc_reader__truncated(r) ? "TRUNCATED" : "complete", nrec, rc_reader__chunks(r),
	       rc_reader__offset(r));
	if (!rc_reader__stats(r))
		printf("# no counters in the file: it was cut before the first second\n");
	printf(hdr, "EVENT", "MADE", "IN FILE", "DROPPED", "MISSING");
	for (i = 0; i < 4096; i++) {
		const struct rc_event_desc *ev = rc_schema__event(m->schema, i);
		struct row *rw = &t->by_event[i];

		if (!rw->made && !rw->in_file)
			continue;
		print_row(ev ? ev->name : "?", rw);
		add(&total, rw);
	}
	print_row("total", &total);
	printf("\n");
	printf(hdr, "CPU", "MADE", "IN FILE", "DROPPED", "MISSING");
	for (i = 0; i < t->ncpus; i++) {
		if (!t->by_cpu[i].made && !t->by_cpu[i].in_file)
			continue;
		snprintf(name, sizeof(name), "%u", i);
		print_row(name, &t->by_cpu[i]);
	}
	if (total.captured > total.in_file)
		printf(
		    "\n# MISSING: read from the ring but not in the file, which was cut short\n");
}

int cmd_stat(int argc, char **argv)
{
	static const struct argp_child children[] = {{.argp = &common_argp}, {}};
	static const struct argp argp = {
	    .parser = parse_arg,
	    .args_doc = "[FILE]",
	    .doc = "Counters of a capture: events made, in the file and dropped, per event "
		   "and CPU.",
	    .children = children,
	};
	struct tables t = {};
	const struct rc_rec_hdr *rec;
	const struct rc_meta *m;
	struct rc_reader *r;
	uint64_t nrec = 0;
	int err;

	env = (struct env){.input = "ringcap.rcap"};
	err = argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, NULL);
	if (err)
		return -err;
	r = rc_reader__open(env.input);
	if (!r)
		return -errno;
	m = rc_reader__meta(r);
	t.ncpus = m->ncpus > 4096 ? 4096 : m->ncpus;
	t.by_event = calloc(4096, sizeof(*t.by_event));
	t.by_cpu = calloc(t.ncpus ? t.ncpus : 1, sizeof(*t.by_cpu));
	if (!t.by_event || !t.by_cpu) {
		err = -ENOMEM;
		goto out;
	}
	while ((err = rc_reader__next(r, &rec)) > 0) {
		nrec++;
		t.by_event[rec->type].in_file++;
		if (rec->cpu < t.ncpus)
			t.by_cpu[rec->cpu].in_file++;
	}
	if (err < 0) {
		say("%s: %s\n", env.input, rc_reader__error(r));
		goto out;
	}
	count_stats(&t, rc_reader__stats(r));
	show(m, &t, r, nrec);
	err = rc_reader__truncated(r) ? RC_EXIT_TRUNCATED : 0;
out:
	free(t.by_event);
	free(t.by_cpu);
	rc_reader__free(r);
	return err;
}
