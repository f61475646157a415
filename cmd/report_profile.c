// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --format folded, flamegraph and pprof: a profile's samples as
 * folded stacks (Brendan Gregg's collapsed format: "comm;outer;...;inner
 * COUNT", for flamegraph.pl, inferno and speedscope), as an SVG flame
 * graph, or as pprof's gzipped profile.proto (go tool pprof, Pyroscope, Parca).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd.h"
#include "output/flamegraph.h"
#include "util/mem.h"

/* A row's weight as shown: samples, or microseconds blocked (as offcputime -f). */
static uint64_t shown_weight(const struct rc_profile_row *row)
{
	return row->kind == RC_PROFILE_OFFCPU ? row->weight / 1000 : row->weight;
}

int show_folded(const struct rc_profile_src *ps, size_t nps, enum rc_profile_kind kind)
{
	struct rc_folded *v = NULL;
	size_t i, n = 0;
	int err = rc_profile__fold(ps, nps, kind, false, &v, &n);

	for (i = 0; !err && i < n; i++) {
		uint64_t w = kind == RC_PROFILE_OFFCPU ? v[i].count / 1000 : v[i].count;

		if (w)
			printf("%s %" PRIu64 "\n", v[i].text, w);
	}
	rc_folded__free(v, n);
	return err;
}

int show_flamegraph(const struct rc_profile_src *ps, size_t nps, enum rc_profile_kind kind)
{
	bool off = kind == RC_PROFILE_OFFCPU;
	struct rc_fg_opts o = { .title = off ? "Off-CPU flame graph (time blocked)"
					     : kind == RC_PROFILE_EVENTS ? "Events flame graph"
									 : "CPU flame graph",
				.unit = off ? "us" : kind == RC_PROFILE_EVENTS ? "events" : "samples",
				.off_cpu = off,
				.kernel_marks = true };
	struct rc_strbuf names = {};
	const char **frames = NULL;
	size_t i, k, s, cap = 0, nframes;
	struct rc_fg *g = rc_fg__new();
	int err = g ? 0 : -errno;

	for (s = 0; !err && s < nps; s++) {
		const struct rc_profile *p = ps[s].p;

		for (i = 0; !err && i < p->nrows; i++) {
			const char *f;

			if (p->rows[i].kind != kind || !shown_weight(&p->rows[i]))
				continue;
			err = rc_profile__frames(ps[s].r, &p->rows[i], true, &names, &nframes);
			err = err ?: rc_ensure_arr(&frames, &cap, nframes, 64);
			for (k = 0, f = names.buf; !err && k < nframes; k++, f += strlen(f) + 1)
				frames[k] = f;
			err = err ?: rc_fg__add(g, frames, nframes, shown_weight(&p->rows[i]));
		}
	}
	err = err ?: rc_fg__write(g, &o, stdout);
	rc_fg__free(g);
	free(frames);
	rc_strbuf__free(&names);
	return err;
}

int show_functions(const struct rc_profile_src *ps, size_t nps, enum rc_profile_kind kind,
		   size_t top)
{
	bool off = kind == RC_PROFILE_OFFCPU;
	uint64_t all = 0, samples = 0, offcpu = 0, events = 0, no_stack = 0;
	struct rc_func_count *f = NULL;
	size_t i, n = 0;
	int err;

	for (i = 0; i < nps; i++) {
		const struct rc_profile *p = ps[i].p;

		all += off ? p->offcpu_ns : kind == RC_PROFILE_EVENTS ? p->events : p->samples;
		samples += p->samples;
		offcpu += p->offcpu;
		events += p->events;
		no_stack += p->no_stack;
	}
	err = rc_profile__merge_functions(ps, nps, kind, &f, &n);
	if (err)
		return err;
	if (off)
		printf("\n# %" PRIu64 " off-CPU records, %.3f s blocked\n", offcpu, all / 1e9);
	else if (kind == RC_PROFILE_EVENTS)
		printf("\n# %" PRIu64 " events with their stacks\n", events);
	else
		printf("\n# %" PRIu64 " samples%s\n", samples,
		       no_stack ? "; some without a stack (record -g takes them)" : "");
	printf("%8s %8s  %s\n", "CHILDREN", "SELF", "FUNCTION");
	for (i = 0; all && i < n && i < top; i++)
		printf("%7.2f%% %7.2f%%  %s\n", 100.0 * f[i].total / all, 100.0 * f[i].self / all,
		       f[i].name);
	rc_func_counts__free(f, n);
	return 0;
}

int show_pprof(struct rc_pprof *pp, const struct rc_profile_src *ps, size_t nps,
	       enum rc_profile_kind kind, const struct rc_meta *m0, uint64_t span)
{
	struct rc_pprof_span s = { .duration_ns = span > INT64_MAX ? INT64_MAX : (int64_t)span };
	int err;

	if (isatty(STDOUT_FILENO)) {
		say("pprof is gzipped binary: send it to a file (> profile.pb.gz) or a pipe\n");
		return -EINVAL;
	}
	/* the set's start (m0's start_ts), on the wall clock */
	if (!rc_meta__wall_ns(m0, m0->start_ts, &s.time_ns))
		s.time_ns = 0;
	err = rc_pprof__write(pp, ps, nps, kind, &s, stdout);
	if (err == -ENODATA)
		say("no %s in this capture for pprof\n",
		    kind == RC_PROFILE_OFFCPU ? "off-CPU records" : "samples");
	return err;
}
