// SPDX-License-Identifier: GPL-2.0-only
/*
 * ringcap stat: did anything get lost, where, and why. From a capture
 * file, or live (-a -d SECS, -p PID, -- COMMAND) without writing one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd.h"
#include "json.h"

#define LIVE_EVENTS 64 /* built-in event ids are below this */

enum {
	OPT_JSON = 256,
	OPT_FAIL_ON_DROPS,
};

static struct env {
	const char *input;
	bool json;
	bool fail_on_drops;
	uint64_t max_drops;
	int dashdash; /* argv index of "--", or 0 */
} env;

static const struct argp_option opts[] = {
	{ "json", OPT_JSON, NULL, 0, "One JSON object with every counter" },
	{ "fail-on-drops", OPT_FAIL_ON_DROPS, "N", OPTION_ARG_OPTIONAL,
	  "Exit with status 3 when more than N events (default 0) were lost" },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	char *end;

	switch (key) {
	case OPT_JSON:
		env.json = true;
		break;
	case OPT_FAIL_ON_DROPS:
		env.fail_on_drops = true;
		if (arg) {
			errno = 0;
			env.max_drops = strtoull(arg, &end, 10);
			if (errno || *end || *arg == '-' || !*arg)
				argp_error(state,
					   "invalid --fail-on-drops '%s': a number of events", arg);
		}
		break;
	case ARGP_KEY_ARG:
		/* after "--": the command and its arguments; before it: a file */
		if (env.dashdash && state->next - 1 > env.dashdash)
			return ARGP_ERR_UNKNOWN;
		if (env.input)
			argp_error(state, "one capture file at a time");
		env.input = arg;
		break;
	case ARGP_KEY_ARGS:
		scope.cmd = state->argv + state->next;
		break;
	case ARGP_KEY_END:
		scope_check(state);
		if (env.input && (scope.given || scope.cmd))
			argp_error(state, "a capture file, or what to trace live: not both");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---- what is shown ---------------------------------------------------- */

/* What is shown: the ledger (lib/decode/loss.c), and where it came from. */
struct view {
	const char *source;
	bool live, truncated, damaged;
	struct rc_damage dmg;
	const char *damage; /* where the first damage was (rc_reader__error()) */
	const struct rc_schema *schema;
	double duration;
	uint64_t nrec, chunks, file_bytes, raw_bytes, late;
	struct rc_ledger led;
};

static const char *event_name(const struct view *v, uint32_t id)
{
	const struct rc_event_desc *ev = rc_schema__event(v->schema, id);

	if (id == RC_TYPE_FOLLOW)
		return "(following children)";
	return ev ? ev->name : "?";
}

static bool row_used(const struct rc_ledger_row *r)
{
	return r->made || r->in_file || r->filtered || r->missed || r->not_run || r->throttled;
}

static void print_row(const struct view *v, const char *name, const struct rc_ledger_row *r)
{
	printf("%-26s %12" PRIu64 " %12" PRIu64 " %10" PRIu64 " %12" PRIu64, name, r->made,
	       v->live ? r->captured : r->in_file, r->dropped, r->filtered);
	if (v->live)
		printf(" %12.0f\n", v->duration > 0 ? r->made / v->duration : 0.0);
	else
		printf(" %10" PRIu64 "\n", rc_ledger__missing(&v->led, r));
}

static const char *file_state(const struct view *v)
{
	if (v->damaged)
		return v->truncated ? "DAMAGED, TRUNCATED" : "DAMAGED";
	return v->truncated ? "TRUNCATED" : "complete";
}

static const char *plural(uint64_t n, const char *one, const char *more)
{
	return n == 1 ? one : more;
}

/* Where the file was damaged, and what was lost: exactly, or at least. */
static void show_damage_plain(const struct view *v)
{
	const struct rc_damage *d = &v->dmg;

	printf("# damaged: %s\n", v->damage);
	printf("# damaged: %s%" PRIu64 " %s of %" PRIu64 " events lost, %" PRIu64
	       " bytes passed over in %" PRIu64 " %s%s\n",
	       d->exact ? "" : "at least ", d->chunks, plural(d->chunks, "chunk", "chunks"),
	       d->records, d->bytes, d->stretches, plural(d->stretches, "stretch", "stretches"),
	       d->exact ? "" : " (no trailer to count them)");
}

static void show_plain(const struct view *v)
{
	const char *last = v->live ? "PER SEC" : "MISSING";
	const char *got = v->live ? "CAPTURED" : "IN FILE";
	char b[32], c[32];
	uint32_t i;

	if (v->live)
		printf("# live: %.3f s\n", v->duration);
	else
		printf("# %s: %s, %" PRIu64 " events in %" PRIu64 " chunks, %.3f s\n", v->source,
		       file_state(v), v->nrec, v->chunks, v->duration);
	if (v->damaged)
		show_damage_plain(v);
	if (!v->live && v->nrec)
		printf("# %s on disk, %s of records: %.1fx compressed, %.2f bytes an event\n",
		       human_bytes(v->file_bytes, b, sizeof(b)),
		       human_bytes(v->raw_bytes, c, sizeof(c)),
		       v->file_bytes ? (double)v->raw_bytes / v->file_bytes : 0.0,
		       (double)v->file_bytes / v->nrec);
	if (!v->led.st) {
		printf("# no counters: the file was cut before its first second\n");
	} else {
		printf("# ring: %s, at most %s pending (%.1f%%); the drain waited %.1f ms for "
		       "the writer\n",
		       human_bytes(v->led.st->ring_size, b, sizeof(b)),
		       human_bytes(v->led.st->ring_hwm, c, sizeof(c)),
		       v->led.st->ring_size ? 100.0 * v->led.st->ring_hwm / v->led.st->ring_size
					    : 0.0,
		       v->led.st->writer_wait_ns / 1e6);
		printf("# lost: %" PRIu64 " dropped in the kernel (ring full), %" PRIu64
		       " in user space",
		       v->led.total.dropped, v->led.st->user_dropped);
		if (!v->live && !v->damaged)
			printf(", %" PRIu64 " missing from the file (cut short)",
			       rc_ledger__missing(&v->led, &v->led.total));
		else if (!v->live)
			printf(", %" PRIu64 " missing from the file (%" PRIu64
			       " in damaged chunks, %" PRIu64 " cut short)",
			       v->led.corrupt_records + rc_ledger__cut_short(&v->led),
			       v->led.corrupt_records, rc_ledger__cut_short(&v->led));
		printf("\n");
		if (v->led.lost_in_stream || v->led.lost_at_end)
			printf("# lost records: the file marks %" PRIu64
			       " lost where the kernel reported them, %" PRIu64
			       " more at the end\n",
			       v->led.lost_in_stream, v->led.lost_at_end);
		if (v->led.overwrite)
			printf(
			    "# flight recorder: %" PRIu64 " snapshots; %" PRIu64
			    " events overwritten or left out of one (the rings keep the newest)\n",
			    v->led.snapshots, rc_ledger__overwritten(&v->led));
		if (v->led.total.missed)
			printf("# possibly lost: the kernel skipped %" PRIu64
			       " runs of ringcap's programs (BPF recursion)\n",
			       v->led.total.missed);
		if (v->led.total.not_run || v->led.total.throttles)
			printf("# samples never run (estimated from the sampling events' counts): "
			       "%" PRIu64 ", %" PRIu64 " of them throttled (%" PRIu64
			       " times, %.1f ms), the others skipped while another BPF program "
			       "ran on the CPU, or a timer late\n",
			       v->led.total.not_run, v->led.total.throttled, v->led.total.throttles,
			       v->led.total.throttled_ns / 1e6);
		if (v->led.worst_dropped)
			printf("# worst second: %" PRIu64 " of %" PRIu64
			       " events dropped, at %.1f s\n",
			       v->led.worst_dropped, v->led.worst_made, v->led.worst_at);
	}
	printf("\n%-26s %12s %12s %10s %12s %*s\n", "EVENT", "MADE", got, "DROPPED", "FILTERED",
	       v->live ? 12 : 10, last);
	for (i = 0; i < RC_LEDGER_EVENTS; i++)
		if (row_used(&v->led.by_event[i]))
			print_row(v, event_name(v, i), &v->led.by_event[i]);
	print_row(v, "total", &v->led.total);
	printf("\n%-26s %12s %12s %10s %12s %*s\n", "CPU", "MADE", got, "DROPPED", "FILTERED",
	       v->live ? 12 : 10, last);
	for (i = 0; i < v->led.ncpus; i++) {
		const struct rc_ledger_row *r = &v->led.by_cpu[i];

		if (row_used(r)) {
			snprintf(b, sizeof(b), "%u", i);
			print_row(v, b, r);
		}
	}
}

static void json_row(struct json *j, const struct view *v, const struct rc_ledger_row *r)
{
	json_u64(j, "made", r->made);
	json_u64(j, "captured", r->captured);
	if (!v->live) {
		json_u64(j, "in_file", r->in_file);
		json_u64(j, "missing", rc_ledger__missing(&v->led, r));
	}
	json_u64(j, "dropped", r->dropped);
	json_u64(j, "filtered", r->filtered);
	json_u64(j, "missed", r->missed);
	json_u64(j, "not_run", r->not_run);
	json_u64(j, "throttled", r->throttled);
	json_u64(j, "throttled_ns", r->throttled_ns);
	json_u64(j, "throttles", r->throttles);
}

/* "corrupt": what damage cost (zeros when none), and where the first was. */
static void show_damage_json(struct json *j, const struct view *v)
{
	const struct rc_damage *d = &v->dmg;

	json_begin_object(j, "corrupt");
	json_u64(j, "chunks", d->chunks);
	json_u64(j, "records", d->records);
	json_bool(j, "exact", !v->damaged || d->exact);
	json_u64(j, "bytes", d->bytes);
	json_u64(j, "stretches", d->stretches);
	json_u64(j, "offset", d->offset);
	json_u64(j, "resync", d->resync);
	json_string(j, "message", v->damaged ? v->damage : "");
	json_end_object(j);
}

static void show_json(const struct view *v)
{
	struct json j = { .f = stdout };
	uint32_t i;

	json_begin_object(&j, NULL);
	json_string(&j, "source", v->live ? "live" : v->source);
	json_bool(&j, "complete", !v->truncated && !v->damaged);
	json_double(&j, "duration_s", v->duration);
	if (!v->live) {
		json_u64(&j, "events", v->nrec);
		json_u64(&j, "chunks", v->chunks);
		json_u64(&j, "file_bytes", v->file_bytes);
		json_u64(&j, "raw_bytes", v->raw_bytes);
		json_double(&j, "compression_ratio",
			    v->file_bytes ? (double)v->raw_bytes / v->file_bytes : 0.0);
		json_double(&j, "bytes_per_event", v->nrec ? (double)v->file_bytes / v->nrec : 0.0);
		json_u64(&j, "late", v->late);
		json_u64(&j, "lost_in_stream", v->led.lost_in_stream);
		json_u64(&j, "lost_at_end", v->led.lost_at_end);
		json_bool(&j, "overwrite", v->led.overwrite);
		json_u64(&j, "snapshots", v->led.snapshots);
		json_u64(&j, "overwritten", rc_ledger__overwritten(&v->led));
		json_bool(&j, "truncated", v->truncated);
		json_bool(&j, "damaged", v->damaged);
		json_u64(&j, "cut_short", rc_ledger__cut_short(&v->led));
		show_damage_json(&j, v);
	}
	json_u64(&j, "lost", rc_ledger__lost(&v->led));
	json_bool(&j, "has_counters", v->led.st != NULL);
	if (v->led.st) {
		json_begin_object(&j, "ring");
		json_u64(&j, "size", v->led.st->ring_size);
		json_u64(&j, "high_water", v->led.st->ring_hwm);
		json_u64(&j, "pending", v->led.st->ring_pending);
		json_end_object(&j);
		json_u64(&j, "user_dropped", v->led.st->user_dropped);
		json_u64(&j, "writer_wait_ns", v->led.st->writer_wait_ns);
	}
	json_begin_object(&j, "worst_second");
	json_double(&j, "at_s", v->led.worst_at);
	json_u64(&j, "dropped", v->led.worst_dropped);
	json_u64(&j, "made", v->led.worst_made);
	json_end_object(&j);
	json_begin_object(&j, "total");
	json_row(&j, v, &v->led.total);
	json_end_object(&j);
	json_begin_array(&j, "by_event");
	for (i = 0; i < RC_LEDGER_EVENTS; i++) {
		if (!row_used(&v->led.by_event[i]))
			continue;
		json_begin_object(&j, NULL);
		json_string(&j, "event", event_name(v, i));
		json_row(&j, v, &v->led.by_event[i]);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_begin_array(&j, "by_cpu");
	for (i = 0; i < v->led.ncpus; i++) {
		if (!row_used(&v->led.by_cpu[i]))
			continue;
		json_begin_object(&j, NULL);
		json_u64(&j, "cpu", i);
		json_row(&j, v, &v->led.by_cpu[i]);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
}

static int show(const struct view *v)
{
	uint64_t n = rc_ledger__lost(&v->led);

	if (env.json)
		show_json(v);
	else
		show_plain(v);
	if (env.fail_on_drops && n > env.max_drops) {
		fflush(stdout);
		say("%" PRIu64 " events lost, more than the %" PRIu64 " allowed\n", n,
		    env.max_drops);
		return RC_EXIT_DROPS;
	}
	return v->truncated || v->damaged ? RC_EXIT_TRUNCATED : 0;
}

/* ---- from a file ------------------------------------------------------ */

static void note_lost(struct view *v, const struct rc_event_desc *ev, const struct rc_rec_hdr *rec)
{
	const struct rc_field *n = rc_event__field(ev, "lost"), *fl = rc_event__field(ev, "flags");

	rc_ledger__add_lost(&v->led, n ? rc_field__u64(n, rec, 0) : 0,
			    fl && rc_field__u64(fl, rec, 0) & 1 /* RC_LOST_F_AT_END */);
}

static int stat_file(void)
{
	const struct rc_stats_point *hist;
	const struct rc_trailer *tr;
	const struct rc_rec_hdr *rec;
	const struct rc_meta *m;
	const struct rc_event_desc *lost_ev, *snap_ev;
	struct view v = { .source = env.input };
	uint64_t first = 0, last = 0;
	struct rc_reader *r;
	size_t nhist;
	int err;

	r = rc_reader__open(env.input);
	if (!r)
		return -errno;
	m = rc_reader__meta(r);
	v.schema = m->schema;
	err = rc_ledger__alloc(&v.led, m->ncpus);
	if (err)
		goto out;
	v.led.overwrite = m->flags & RC_META_OVERWRITE;
	lost_ev = rc_schema__event_by_name(m->schema, "ringcap:lost");
	snap_ev = rc_schema__event_by_name(m->schema, "ringcap:snapshot");
	while ((err = rc_reader__next(r, &rec)) > 0) {
		if (!v.nrec++)
			first = rec->ts;
		last = rec->ts > last ? rec->ts : last;
		/* records of ringcap's own, not events: counted apart */
		if (lost_ev && rec->type == lost_ev->id) {
			note_lost(&v, lost_ev, rec);
			continue;
		}
		if (snap_ev && rec->type == snap_ev->id) {
			v.led.snapshots++;
			continue;
		}
		rc_ledger__add_record(&v.led, m, rec);
	}
	if (err < 0) {
		say("%s: %s\n", env.input, rc_reader__error(r));
		goto out;
	}
	v.truncated = rc_reader__truncated(r);
	v.damaged = rc_reader__corrupt(r, &v.dmg);
	v.damage = rc_reader__error(r);
	if (v.damaged) {
		say("warning: '%s' is damaged: %s\n", env.input, v.damage);
		rc_ledger__add_corrupt(&v.led, v.dmg.chunks, v.dmg.records, v.dmg.bytes);
	}
	v.led.st = rc_reader__stats(r);
	v.chunks = rc_reader__chunks(r);
	v.file_bytes = rc_reader__offset(r);
	tr = rc_reader__trailer(r);
	v.raw_bytes = rc_reader__raw_bytes(r);
	v.late = tr ? tr->late : 0;
	if (v.led.st && v.led.st->ts > last)
		last = v.led.st->ts;
	v.duration = last > m->start_ts ? (last - m->start_ts) / 1e9 : (last - first) / 1e9;
	rc_ledger__count(&v.led, v.led.st);
	hist = rc_reader__history(r, &nhist);
	rc_ledger__worst_second(&v.led, hist, nhist, m->start_ts);
	err = show(&v);
out:
	rc_ledger__free(&v.led);
	rc_reader__free(r);
	return err;
}

/* ---- live ------------------------------------------------------------- */

struct live {
	bool tty;
	double last;
	bool shown;
	struct rc_stats_point prev;
	uint64_t prev_made[LIVE_EVENTS];
	struct view *v;
};

/* "1.2M", "340k", "12" */
static const char *short_rate(double r, char *buf, size_t len)
{
	if (r >= 1e6)
		snprintf(buf, len, "%.1fM", r / 1e6);
	else if (r >= 1e4)
		snprintf(buf, len, "%.0fk", r / 1e3);
	else
		snprintf(buf, len, "%.0f", r);
	return buf;
}

/* Each second: keep the worst second, and on a terminal show the rates. */
static void live_tick(void *ctx, struct rc_session *s, double el)
{
	uint64_t made[LIVE_EVENTS] = {};
	struct live *l = ctx;
	const struct rc_stats *st;
	struct rc_stats_point pt;
	double dt = el - l->last;
	char rates[320], r[16];
	size_t len = 0;
	uint32_t i;

	if (dt < 1.0)
		return;
	st = rc_session__sample(s);
	if (!st)
		return;
	rc_stats__totals(st, &pt);
	rc_ledger__note_interval(&l->v->led, &l->prev, &pt, l->last);
	for (i = 0; i < st->nentries; i++)
		if (st->entries[i].type < LIVE_EVENTS)
			made[st->entries[i].type] += st->entries[i].made;
	rates[0] = '\0';
	for (i = 0; i < LIVE_EVENTS && len < sizeof(rates) - 64; i++) {
		if (made[i] == l->prev_made[i])
			continue;
		len += snprintf(rates + len, sizeof(rates) - len, "  %s %s/s", event_name(l->v, i),
				short_rate((made[i] - l->prev_made[i]) / dt, r, sizeof(r)));
	}
	if (l->tty)
		status_line(true, "%6.1fs %8s events/s %8llu dropped  ring %3.0f%% (max %.0f%%)%s",
			    el, short_rate((pt.made - l->prev.made) / dt, r, sizeof(r)),
			    (unsigned long long)(pt.dropped - l->prev.dropped),
			    100.0 * st->ring_pending / st->ring_size,
			    100.0 * st->ring_hwm / st->ring_size, rates);
	l->shown = l->tty;
	memcpy(l->prev_made, made, sizeof(made));
	l->prev = pt;
	l->last = el;
}

static int stat_live(int argc, char **argv)
{
	struct workload wl = WORKLOAD_INIT;
	struct rc_record_opts ro;
	struct view v = { .live = true, .schema = rc_builtin_schema(), .led.live = true };
	struct live l = { .tty = isatty(STDERR_FILENO), .v = &v };
	struct rc_session *s = NULL;
	struct rc_stats_point end;
	struct timespec t0;
	int err, how;

	err = scope_to_opts(&ro, argc, argv);
	err = err ?: install_signals();
	if (!err && scope.cmd)
		err = workload_fork(&wl, scope.cmd);
	if (err)
		goto out;
	s = capture_open(&ro);
	if (!s) {
		err = -errno;
		goto out;
	}
	err = wl.pid > 0 ? rc_session__add_target(s, wl.pid) : 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = err ?: rc_session__start(s, -1);
	if (!err)
		v.schema = rc_session__meta(s)->schema; /* with the tracepoints and probes of -e */
	if (!err && wl.pid > 0)
		err = workload_start(&wl);
	if (!err) {
		how = capture_run(s, &wl, live_tick, &l);
		if (l.shown)
			status_clear(true);
		capture_say_end(how);
		err = how < 0 ? how : 0;
	}
	if (rc_session__stop(s) && !err)
		err = -EIO;
	if (err)
		goto out;
	v.duration = elapsed_since(&t0);
	v.led.st = rc_session__stats(s);
	rc_stats__totals(v.led.st, &end);
	rc_ledger__note_interval(&v.led, &l.prev, &end, l.last); /* the time after the last tick */
	v.schema = rc_session__meta(s)->schema;
	err = rc_ledger__alloc(&v.led, rc_session__meta(s)->ncpus);
	if (err)
		goto out;
	rc_ledger__count(&v.led, v.led.st);
	workload_end(&wl);
	workload_say_status(&wl);
	err = show(&v);
out:
	workload_end(&wl);
	rc_ledger__free(&v.led);
	rc_session__free(s);
	free((char *)ro.cmdline);
	return err;
}

int cmd_stat(int argc, char **argv)
{
	static const struct argp_child children[] = { { .argp = &scope_argp },
						      { .argp = &common_argp },
						      {} };
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.args_doc = "[FILE]\n-a -d SECONDS | -p PID | -- COMMAND [ARGS...]",
		.doc = "Did anything get lost, where, and why: events made, captured, dropped "
		       "and filtered, per event and per CPU, from a capture file or live.",
		.children = children,
	};
	int i, err;

	env = (struct env){ .input = NULL };
	for (i = 1; i < argc && !env.dashdash; i++)
		if (!strcmp(argv[i], "--"))
			env.dashdash = i;
	err = argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, NULL);
	if (err)
		return -err;
	if (scope.given || scope.cmd)
		return stat_live(argc, argv);
	if (!env.input)
		env.input = "ringcap.rcap";
	return stat_file();
}
