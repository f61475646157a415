// SPDX-License-Identifier: GPL-2.0-only
/*
 * ringcap stat: did anything get lost, where, and why. From a capture
 * file, or live (-a -d SECS, -p PID, -- COMMAND) without writing one.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cmd.h"
#include "output/json.h"
#include "output/prom.h"
#include "util/file.h"
#include "util/mem.h"

#define LIVE_EVENTS 64	 /* built-in event ids are below this */
#define MAX_INPUTS  4096 /* files, directories and globs named */

enum {
	OPT_JSON = 256,
	OPT_FAIL_ON_DROPS,
	OPT_PROMETHEUS,
};

static struct env {
	const char *inputs[MAX_INPUTS];
	size_t ninputs;
	bool json;
	bool prometheus;
	const char *prom_file; /* --prometheus=FILE; NULL: stdout */
	bool fail_on_drops;
	uint64_t max_drops;
	int dashdash; /* argv index of "--", or 0 */
} env;

static const struct argp_option opts[] = {
	{ "json", OPT_JSON, NULL, 0, "One JSON object with every counter" },
	{ "prometheus", OPT_PROMETHEUS, "FILE", OPTION_ARG_OPTIONAL,
	  "The ledger in Prometheus' text format: on stdout, or into FILE (a .prom file for "
	  "node_exporter's textfile collector), replaced by an atomic rename" },
	{ "fail-on-drops", OPT_FAIL_ON_DROPS, "N", OPTION_ARG_OPTIONAL,
	  "Exit with status 3 when more than N events (default 0) were lost" },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	char *end;

	switch (key) {
	case OPT_JSON:
		if (env.prometheus)
			argp_error(state, "--json or --prometheus: one of them");
		env.json = true;
		break;
	case OPT_PROMETHEUS:
		if (env.json)
			argp_error(state, "--json or --prometheus: one of them");
		env.prometheus = true;
		env.prom_file = arg;
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
		if (env.ninputs == MAX_INPUTS)
			argp_error(state, "at most %d captures: name their directory instead",
				   MAX_INPUTS);
		env.inputs[env.ninputs++] = arg;
		break;
	case ARGP_KEY_ARGS:
		scope.cmd = state->argv + state->next;
		break;
	case ARGP_KEY_END:
		scope_check(state);
		if (env.ninputs && (scope.given || scope.cmd))
			argp_error(state, "a capture file, or what to trace live: not both");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---- what is shown ---------------------------------------------------- */

static const char *event_name(const struct rc_ledger_file *v, uint32_t id)
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

static void print_row(const struct rc_ledger_file *v, const char *name,
		      const struct rc_ledger_row *r)
{
	printf("%-26s %12" PRIu64 " %12" PRIu64 " %10" PRIu64 " %12" PRIu64, name, r->made,
	       v->led.live ? r->captured : r->in_file, r->dropped, r->filtered);
	if (v->led.live)
		printf(" %12.0f\n", v->duration > 0 ? r->made / v->duration : 0.0);
	else
		printf(" %10" PRIu64 "\n", rc_ledger__missing(&v->led, r));
}

static const char *file_state(const struct rc_ledger_file *v)
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
static void show_damage_plain(const struct rc_ledger_file *v)
{
	const struct rc_damage *d = &v->dmg;

	printf("# damaged: %s\n", v->damage);
	printf("# damaged: %s%" PRIu64 " %s of %" PRIu64 " events lost, %" PRIu64
	       " bytes passed over in %" PRIu64 " %s%s\n",
	       d->exact ? "" : "at least ", d->chunks, plural(d->chunks, "chunk", "chunks"),
	       d->records, d->bytes, d->stretches, plural(d->stretches, "stretch", "stretches"),
	       d->exact ? "" : " (no trailer to count them)");
}

/* Files that sampled different events: each event, and how many files sampled it. */
static void show_sampling_mixed(const struct rc_ledger_file *fv, size_t nfv)
{
	const char *sep = " ";
	size_t i, k, n;

	printf("# sampling event: mixed, the files differ:");
	for (i = 0; i < nfv; i++) {
		if (!fv[i].sampling[0])
			continue;
		for (k = 0; k < i && strcmp(fv[k].sampling, fv[i].sampling); k++)
			;
		if (k < i)
			continue; /* named already */
		for (k = i, n = 0; k < nfv; k++)
			n += !strcmp(fv[k].sampling, fv[i].sampling);
		printf("%s%s in %zu %s", sep, fv[i].sampling, n, n == 1 ? "file" : "files");
		sep = ", ";
	}
	printf("\n");
}

static void show_plain(const struct rc_ledger_file *v, const struct rc_ledger_file *fv, size_t nfv)
{
	const char *last = v->led.live ? "PER SEC" : "MISSING";
	const char *got = v->led.live ? "CAPTURED" : "IN FILE";
	char b[32], c[32], b2[32];
	uint32_t i;

	if (v->led.live)
		printf("# live: %.3f s\n", v->duration);
	else
		printf("# %s: %s, %" PRIu64 " events in %" PRIu64 " %s, %.3f s\n", v->source,
		       file_state(v), v->nev, v->chunks, plural(v->chunks, "chunk", "chunks"),
		       v->duration);
	if (v->damaged)
		show_damage_plain(v);
	if (!v->led.live && v->nrec)
		printf("# %s on disk, %s of records: %.1fx compressed, %.2f bytes an event\n",
		       human_bytes(v->file_bytes, b, sizeof(b)),
		       human_bytes(v->raw_bytes, c, sizeof(c)),
		       v->file_bytes ? (double)v->raw_bytes / v->file_bytes : 0.0,
		       v->nev ? (double)v->file_bytes / v->nev : 0.0);
	if (!strcmp(v->sampling, RC_LEDGER_MIXED) && nfv > 1)
		show_sampling_mixed(fv, nfv);
	else if (v->sampling[0])
		printf("# sampling event: %s%s\n", v->sampling,
		       strcmp(v->sampling, "cpu-clock")
			   ? ""
			   : " (no hardware cycles event on the machine)");
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
		if (!v->led.live && !v->damaged)
			printf(", %" PRIu64 " missing from the file (cut short)",
			       rc_ledger__missing(&v->led, &v->led.total));
		else if (!v->led.live)
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
		if (v->led.total.paused)
			printf("# paused: %" PRIu64
			       " events made while a snapshot paused the rings to "
			       "copy them (not a full ring: fewer snapshots pause less)\n",
			       v->led.total.paused);
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
		if (v->led.aux.made)
			printf("# AUX streams: %s written by the PMUs, %s captured, %s not read; "
			       "%" PRIu64 " truncations (the area was full: a gap in the trace), "
			       "%" PRIu64 " snapshots of a wrapped area, %" PRIu64
			       " of the kernel's records about them lost\n",
			       human_bytes(v->led.aux.made, b, sizeof(b)),
			       human_bytes(v->led.aux.captured, c, sizeof(c)),
			       human_bytes(v->led.aux.dropped, b2, sizeof(b2)),
			       v->led.aux.throttles, v->led.aux.not_run, v->led.aux.missed);
	}
	printf("\n%-26s %12s %12s %10s %12s %*s\n", "EVENT", "MADE", got, "DROPPED", "FILTERED",
	       v->led.live ? 12 : 10, last);
	for (i = 0; i < RC_LEDGER_EVENTS; i++)
		if (row_used(&v->led.by_event[i]))
			print_row(v, event_name(v, i), &v->led.by_event[i]);
	print_row(v, "total", &v->led.total);
	printf("\n%-26s %12s %12s %10s %12s %*s\n", "CPU", "MADE", got, "DROPPED", "FILTERED",
	       v->led.live ? 12 : 10, last);
	for (i = 0; i < v->led.ncpus; i++) {
		const struct rc_ledger_row *r = &v->led.by_cpu[i];

		if (row_used(r)) {
			snprintf(b, sizeof(b), "%u", i);
			print_row(v, b, r);
		}
	}
}

static void json_row(struct rc_json *j, const struct rc_ledger_file *v, const struct rc_ledger_row *r)
{
#define KEY(name) rc_json__u64(j, #name, r->name);
	RC_COUNTERS_FLOW(KEY)
	if (!v->led.live) {
		rc_json__u64(j, "in_file", r->in_file);
		rc_json__u64(j, "missing", rc_ledger__missing(&v->led, r));
	}
	RC_COUNTERS_LOSS(KEY)
#undef KEY
}

/* "corrupt": what damage cost (zeros when none), and where the first was. */
static void show_damage_json(struct rc_json *j, const struct rc_ledger_file *v)
{
	const struct rc_damage *d = &v->dmg;

	rc_json__begin_object(j, "corrupt");
	rc_json__u64(j, "chunks", d->chunks);
	rc_json__u64(j, "records", d->records);
	rc_json__bool(j, "exact", !v->damaged || d->exact);
	rc_json__u64(j, "bytes", d->bytes);
	rc_json__u64(j, "stretches", d->stretches);
	rc_json__u64(j, "offset", d->offset);
	rc_json__u64(j, "resync", d->resync);
	rc_json__string(j, "message", v->damaged ? v->damage : "");
	rc_json__end_object(j);
}

static void show_files_json(struct rc_json *j, const struct rc_ledger_file *fv, size_t n,
			    const struct rc_ledger_gap *g, size_t ng);

static void show_json(const struct rc_ledger_file *v, const struct rc_ledger_file *fv, size_t nfv,
		      const struct rc_ledger_gap *g, size_t ng)
{
	struct rc_json j = { .f = stdout };
	uint32_t i;

	rc_json__begin_object(&j, NULL);
	rc_json__string(&j, "source", v->led.live ? "live" : v->source);
	rc_json__bool(&j, "complete", !v->truncated && !v->damaged);
	rc_json__fixed(&j, "duration_s", v->duration, 9);
	if (v->sampling[0])
		rc_json__string(&j, "sampling_event", v->sampling);
	if (!v->led.live) {
		rc_json__u64(&j, "events", v->nev);
		rc_json__u64(&j, "records", v->nrec);
		rc_json__u64(&j, "chunks", v->chunks);
		rc_json__u64(&j, "file_bytes", v->file_bytes);
		rc_json__u64(&j, "raw_bytes", v->raw_bytes);
		rc_json__fixed(&j, "compression_ratio",
			   v->file_bytes ? (double)v->raw_bytes / v->file_bytes : 0.0, 6);
		rc_json__fixed(&j, "bytes_per_event", v->nev ? (double)v->file_bytes / v->nev : 0.0, 6);
		rc_json__u64(&j, "late", v->late);
		rc_json__u64(&j, "lost_in_stream", v->led.lost_in_stream);
		rc_json__u64(&j, "lost_at_end", v->led.lost_at_end);
		rc_json__bool(&j, "overwrite", v->led.overwrite);
		rc_json__u64(&j, "snapshots", v->led.snapshots);
		rc_json__u64(&j, "overwritten", rc_ledger__overwritten(&v->led));
		rc_json__bool(&j, "truncated", v->truncated);
		rc_json__bool(&j, "damaged", v->damaged);
		rc_json__u64(&j, "cut_short", rc_ledger__cut_short(&v->led));
		show_damage_json(&j, v);
	}
	rc_json__u64(&j, "lost", rc_ledger__lost(&v->led));
	rc_json__bool(&j, "has_counters", v->led.st != NULL);
	if (v->led.st) {
		rc_json__begin_object(&j, "ring");
		rc_json__u64(&j, "size", v->led.st->ring_size);
		rc_json__u64(&j, "high_water", v->led.st->ring_hwm);
		rc_json__u64(&j, "pending", v->led.st->ring_pending);
		rc_json__end_object(&j);
		rc_json__u64(&j, "user_dropped", v->led.st->user_dropped);
		rc_json__u64(&j, "writer_wait_ns", v->led.st->writer_wait_ns);
	}
	rc_json__begin_object(&j, "aux");
	rc_json__u64(&j, "made_bytes", v->led.aux.made);
	rc_json__u64(&j, "captured_bytes", v->led.aux.captured);
	rc_json__u64(&j, "not_read_bytes", v->led.aux.dropped);
	rc_json__u64(&j, "truncations", v->led.aux.throttles);
	rc_json__u64(&j, "wrapped_snapshots", v->led.aux.not_run);
	rc_json__u64(&j, "records_lost", v->led.aux.missed);
	rc_json__end_object(&j);
	rc_json__begin_object(&j, "worst_second");
	rc_json__fixed(&j, "at_s", v->led.worst_at, 9);
	rc_json__u64(&j, "dropped", v->led.worst_dropped);
	rc_json__u64(&j, "made", v->led.worst_made);
	rc_json__end_object(&j);
	rc_json__begin_object(&j, "total");
	json_row(&j, v, &v->led.total);
	rc_json__end_object(&j);
	rc_json__begin_array(&j, "by_event");
	for (i = 0; i < RC_LEDGER_EVENTS; i++) {
		if (!row_used(&v->led.by_event[i]))
			continue;
		rc_json__begin_object(&j, NULL);
		rc_json__string(&j, "event", event_name(v, i));
		json_row(&j, v, &v->led.by_event[i]);
		rc_json__end_object(&j);
	}
	rc_json__end_array(&j);
	rc_json__begin_array(&j, "by_cpu");
	for (i = 0; i < v->led.ncpus; i++) {
		if (!row_used(&v->led.by_cpu[i]))
			continue;
		rc_json__begin_object(&j, NULL);
		rc_json__u64(&j, "cpu", i);
		json_row(&j, v, &v->led.by_cpu[i]);
		rc_json__end_object(&j);
	}
	rc_json__end_array(&j);
	/* several files, or a rotated run's file with files missing before it */
	if (nfv > 1 || ng)
		show_files_json(&j, fv, nfv, g, ng);
	rc_json__end_object(&j);
}

/*
 * --prometheus: the text on stdout, or into FILE through a temporary file
 * beside it and rename(2), so that node_exporter's textfile collector never
 * reads half of one.
 */
static int show_prom(const struct rc_ledger_file *v)
{
	struct rc_strbuf sb = {};
	char tmp[4096];
	int err, fd = STDOUT_FILENO;

	err = rc_prom__ledger(&sb, v, NULL, RINGCAP_VERSION);
	if (err)
		goto out;
	if (env.prom_file) {
		if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", env.prom_file, (int)getpid()) >=
		    (int)sizeof(tmp)) {
			err = -ENAMETOOLONG;
			say("--prometheus=%s: %s\n", env.prom_file, strerror(-err));
			goto out;
		}
		/* a name another could have planted a link at: made new, never followed */
		unlink(tmp);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0) {
			err = -errno;
			say("cannot write '%s': %s\n", tmp, strerror(errno));
			goto out;
		}
	} else {
		fflush(stdout);
	}
	err = rc_write_all(fd, sb.buf, sb.len);
	if (env.prom_file) {
		if (!err && fsync(fd))
			err = -errno;
		if (close(fd) && !err)
			err = -errno;
		if (!err && rename(tmp, env.prom_file))
			err = -errno;
		if (err) {
			say("cannot write '%s': %s\n", env.prom_file, strerror(-err));
			unlink(tmp);
		}
	} else if (err) {
		say("cannot write the metrics: %s\n", strerror(-err));
	}
out:
	rc_strbuf__free(&sb);
	return err;
}

static int show(const struct rc_ledger_file *v, const struct rc_ledger_file *fv, size_t nfv,
		const struct rc_ledger_gap *g, size_t ng)
{
	uint64_t n = rc_ledger__lost(&v->led);
	int err;

	if (env.prometheus) {
		err = show_prom(v);
		if (err)
			return err;
	} else if (env.json)
		show_json(v, fv, nfv, g, ng);
	else
		show_plain(v, fv, nfv);
	if (env.fail_on_drops && n > env.max_drops) {
		fflush(stdout);
		say("%" PRIu64 " events lost, more than the %" PRIu64 " allowed\n", n,
		    env.max_drops);
		return RC_EXIT_DROPS;
	}
	return v->truncated || v->damaged ? RC_EXIT_TRUNCATED : 0;
}

/* ---- from files: a line each, missing spans, the sum ------------------- */

/* A wall-clock time, UTC, to the millisecond: "2026-11-26 06:15:12.345". */
static const char *utc(const struct rc_meta *m, uint64_t ts, char *buf, size_t len)
{
	int64_t wall;
	time_t secs;
	struct tm tm;
	size_t k;

	if (!rc_meta__wall_ns(m, ts, &wall) || wall < 0) {
		snprintf(buf, len, "?");
		return buf;
	}
	secs = wall / 1000000000;
	if (!gmtime_r(&secs, &tm) || !(k = strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))) {
		snprintf(buf, len, "?");
		return buf;
	}
	snprintf(buf + k, len - k, ".%03lld", (long long)(wall % 1000000000 / 1000000));
	return buf;
}

static const char *run_short(const struct rc_meta *m, char *buf, size_t len)
{
	if (!m->has_run)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%02x%02x%02x%02x", m->run.id[0], m->run.id[1], m->run.id[2],
			 m->run.id[3]);
	return buf;
}

static void show_files_plain(const struct rc_ledger_file *fv, size_t n,
			     const struct rc_ledger_gap *g, size_t ng)
{
	char a[40], b[40], run[16];
	int w = 4;
	size_t i;

	for (i = 0; i < n; i++)
		w = (int)strlen(fv[i].source) > w ? (int)strlen(fv[i].source) : w;
	printf("%-*s %-12s %-8s %6s %-23s %-23s %10s %10s %10s %8s\n", w, "FILE", "HOST", "RUN",
	       "SEQ", "START (UTC)", "END (UTC)", "EVENTS", "MADE", "DROPPED", "MISSING");
	for (i = 0; i < n; i++) {
		const struct rc_ledger_file *f = &fv[i];
		const struct rc_ledger_row *t = &f->led.total;

		printf("%-*s %-12s %-8s %6u %-23s %-23s %10" PRIu64 " %10" PRIu64 " %10" PRIu64
		       " %8" PRIu64 "%s\n",
		       w, f->source, f->m->host ? f->m->host : "?",
		       run_short(f->m, run, sizeof(run)), f->m->has_run ? f->m->run.seq : 0,
		       utc(f->m, f->m->start_ts, a, sizeof(a)), utc(f->m, f->last, b, sizeof(b)),
		       f->nev, t->made, t->dropped, rc_ledger__missing(&f->led, t),
		       f->truncated ? " (truncated)" : "");
	}
	for (i = 0; i < ng; i++) {
		const struct rc_ledger_gap *x = &g[i];
		const struct rc_meta *m = x->after->m;

		printf("# missing: run %s, file%s %u", run_short(m, run, sizeof(run)),
		       x->seq_to > x->seq_from ? "s" : "", x->seq_from);
		if (x->seq_to > x->seq_from)
			printf("-%u", x->seq_to);
		printf(" (%s to %s, %.3f s): ", utc(m, x->from_ts, a, sizeof(a)),
		       utc(m, x->to_ts, b, sizeof(b)),
		       x->to_ts > x->from_ts ? (x->to_ts - x->from_ts) / 1e9 : 0.0);
		if (x->known)
			printf("%" PRIu64 " events made, %" PRIu64 " dropped, not in these files "
			       "(deleted by --switch-max-files or --max-size, or not given)\n",
			       x->made, x->dropped);
		else
			printf("events made unknown: the counters on its side are damaged\n");
	}
	printf("\n");
}

static void show_files_json(struct rc_json *j, const struct rc_ledger_file *fv, size_t n,
			    const struct rc_ledger_gap *g, size_t ng)
{
	char a[40], run[40];
	size_t i, k;

	rc_json__begin_array(j, "files");
	for (i = 0; i < n; i++) {
		const struct rc_ledger_file *f = &fv[i];
		int64_t wall;

		rc_json__begin_object(j, NULL);
		rc_json__string(j, "path", f->source);
		rc_json__string(j, "host", f->m->host ? f->m->host : "");
		for (k = 0; f->m->has_run && k < 16; k++)
			snprintf(run + 2 * k, sizeof(run) - 2 * k, "%02x", f->m->run.id[k]);
		rc_json__string(j, "run", f->m->has_run ? run : "");
		rc_json__u64(j, "seq", f->m->has_run ? f->m->run.seq : 0);
		rc_json__string(j, "start", utc(f->m, f->m->start_ts, a, sizeof(a)));
		rc_json__seconds(j, "start_wall_s",
			     rc_meta__wall_ns(f->m, f->m->start_ts, &wall) ? wall : 0);
		rc_json__seconds(j, "end_wall_s", rc_meta__wall_ns(f->m, f->last, &wall) ? wall : 0);
		rc_json__u64(j, "events", f->nev);
		rc_json__u64(j, "records", f->nrec);
		rc_json__bool(j, "complete", !f->truncated && !f->damaged);
		rc_json__bool(j, "has_base", f->base != NULL);
		if (f->sampling[0])
			rc_json__string(j, "sampling_event", f->sampling);
		rc_json__begin_object(j, "total");
		json_row(j, f, &f->led.total);
		rc_json__end_object(j);
		rc_json__end_object(j);
	}
	rc_json__end_array(j);
	rc_json__begin_array(j, "missing_spans");
	for (i = 0; i < ng; i++) {
		const struct rc_ledger_gap *x = &g[i];

		rc_json__begin_object(j, NULL);
		rc_json__string(j, "run", run_short(x->after->m, run, sizeof(run)));
		rc_json__u64(j, "seq_from", x->seq_from);
		rc_json__u64(j, "seq_to", x->seq_to);
		rc_json__seconds(j, "duration_s", x->to_ts > x->from_ts ? x->to_ts - x->from_ts : 0);
		rc_json__bool(j, "known", x->known);
		rc_json__u64(j, "made", x->made);
		rc_json__u64(j, "dropped", x->dropped);
		rc_json__end_object(j);
	}
	rc_json__end_array(j);
}

/* A file's ledger (rc_ledger_file__read()), saying what went wrong reading it. */
static int read_file(struct rc_set *set, size_t i, struct rc_ledger_file *f)
{
	struct rc_reader *r = rc_set__reader(set, i);
	const char *path = rc_set__path(set, i);
	int err;

	err = rc_ledger_file__read(f, r, path);
	if (err < 0) {
		/* the rows made, and no counters yet: the reader failed, not memory */
		if (f->led.by_event && f->led.by_cpu && !f->end)
			say("%s: %s\n", path, rc_reader__error(r));
		return err;
	}
	if (f->damaged)
		say("warning: '%s' is damaged: %s\n", path, f->damage);
	return err;
}

static int stat_files(void)
{
	struct read_progress prog = {};
	struct rc_ledger_file *fv = NULL;
	struct rc_ledger_file sum = {};
	struct rc_stats sum_st;
	struct rc_ledger_gap *gaps = NULL;
	size_t i, n, ngaps = 0;
	char src[64];
	struct rc_set *set;
	int err = 0;

	raise_nofile();
	set = rc_set__open(env.inputs, env.ninputs);
	if (!set)
		return -errno; /* the set said why, naming the file */
	n = rc_set__nfiles(set);
	fv = calloc(n, sizeof(*fv));
	if (!fv) {
		err = -ENOMEM;
		goto out;
	}
	read_progress_start(&prog, set);
	for (i = 0; !err && i < n; i++)
		err = read_file(set, i, &fv[i]);
	read_progress_end(&prog);
	err = err ?: rc_ledger__gaps(fv, n, &gaps, &ngaps);
	if (err)
		goto out;
	if (n == 1) {
		if (ngaps && !env.json && !env.prometheus)
			show_files_plain(fv, n, gaps, ngaps);
		err = show(&fv[0], fv, n, gaps, ngaps);
		goto out;
	}
	err = rc_ledger_file__sum(fv, n, set, &sum, &sum_st);
	if (err)
		goto out;
	snprintf(src, sizeof(src), "%zu files", n);
	sum.source = src;
	if (!env.json && !env.prometheus)
		show_files_plain(fv, n, gaps, ngaps);
	err = show(&sum, fv, n, gaps, ngaps);
out:
	for (i = 0; fv && i < n; i++)
		rc_ledger_file__free(&fv[i]);
	free(fv);
	free(gaps);
	rc_ledger_file__free(&sum);
	rc_set__free(set);
	return err;
}

/* ---- live ------------------------------------------------------------- */

struct live {
	bool tty;
	double last;
	bool shown;
	struct rc_stats_point prev;
	uint64_t prev_made[LIVE_EVENTS];
	struct rc_ledger_file *v;
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
	struct rc_ledger_file v = { .schema = rc_builtin_schema(), .led.live = true };
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
	workload_say_status(&wl, false);
	err = show(&v, NULL, 0, NULL, 0);
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
		.args_doc = "[FILE|DIR|GLOB...]\n-a -d SECONDS | -p PID | -- COMMAND [ARGS...]",
		.doc = "Did anything get lost, where, and why: events made, captured, dropped "
		       "and filtered, per event and per CPU, from capture files or live. Several "
		       "files (a directory, a quoted glob): a line per file, their ledgers summed, "
		       "and the spans of a rotated run whose files are missing.",
		.children = children,
	};
	int i, err;

	env = (struct env){ .ninputs = 0 };
	for (i = 1; i < argc && !env.dashdash; i++)
		if (!strcmp(argv[i], "--"))
			env.dashdash = i;
	err = argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, NULL);
	if (err)
		return -err;
	if (scope.given || scope.cmd)
		return stat_live(argc, argv);
	if (!env.ninputs)
		env.inputs[env.ninputs++] = "ringcap.rcap";
	return stat_files();
}
