// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --format folded and flamegraph: a profile's samples as folded
 * stacks (Brendan Gregg's collapsed format: "comm;outer;...;inner COUNT",
 * for flamegraph.pl, inferno and speedscope) or as an SVG flame graph.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "output/flamegraph.h"
#include "util/mem.h"

#define FRAME_NAME 512
#define KERNEL_MARK "_[k]"

/*
 * The frames of a row, outermost first: the task's name, then the user
 * frames, then the kernel's (a stack keeps each side innermost first).
 * With @mark, kernel frames end in "_[k]", as stackcollapse-perf.pl
 * --kernel writes them. Names go into @names, one after another.
 */
static int row_frames(const struct rc_reader *r, const struct rc_profile_row *row, bool mark,
		      struct rc_strbuf *names, size_t *nframes)
{
	const struct rc_stack *st = rc_reader__stack(r, row->stack_id);
	char comm[17], buf[FRAME_NAME];
	size_t i, n;
	int err;

	snprintf(comm, sizeof(comm), "%.16s", row->comm);
	names->len = 0;
	err = rc_strbuf__append(names, comm[0] ? comm : "[unknown]",
				strlen(comm[0] ? comm : "[unknown]") + 1);
	*nframes = 1;
	if (!st) {
		err = err ?: rc_strbuf__append(names, "[unknown]", sizeof("[unknown]"));
		(*nframes)++;
		return err;
	}
	n = (size_t)st->nkernel + st->nuser;
	for (i = 0; !err && i < st->nuser; i++) {
		const struct rc_frame *f = &st->frames[n - 1 - i];

		rc_frame__name(f, buf, sizeof(buf));
		err = rc_strbuf__append(names, buf, strlen(buf) + 1);
		(*nframes)++;
	}
	for (i = 0; !err && i < st->nkernel; i++) {
		const struct rc_frame *f = &st->frames[st->nkernel - 1 - i];

		rc_frame__name(f, buf, sizeof(buf));
		err = rc_strbuf__append(names, buf, strlen(buf));
		err = err ?: rc_strbuf__append(names, mark ? KERNEL_MARK : "",
					       mark ? sizeof(KERNEL_MARK) : 1);
		(*nframes)++;
	}
	return err;
}

/* A folded line: its text and its count. */
struct folded {
	char *text;
	uint64_t count;
};

static int cmp_folded(const void *a, const void *b)
{
	return strcmp(((const struct folded *)a)->text, ((const struct folded *)b)->text);
}

/* A row's weight as shown: samples, or microseconds blocked (as offcputime -f). */
static uint64_t shown_weight(const struct rc_profile_row *row)
{
	return row->kind == RC_PROFILE_OFFCPU ? row->weight / 1000 : row->weight;
}

/*
 * The rows of @kind as folded lines, sorted, equal ones merged (two stacks
 * can name the same functions).
 */
static int fold(const struct prof_src *ps, size_t nps, enum rc_profile_kind kind, bool mark,
		struct folded **out, size_t *nout)
{
	struct rc_strbuf names = {}, line = {};
	size_t i, k, n = 0, nframes, rows = 0, s;
	struct folded *v;
	int err;

	for (s = 0; s < nps; s++)
		rows += ps[s].p->nrows;
	v = calloc(rows ? rows : 1, sizeof(*v));
	err = v ? 0 : -ENOMEM;
	for (s = 0; !err && s < nps; s++) {
		const struct rc_profile *p = ps[s].p;

		for (i = 0; !err && i < p->nrows; i++) {
			const char *f;

			if (p->rows[i].kind != kind)
				continue;
			err = row_frames(ps[s].r, &p->rows[i], mark, &names, &nframes);
			line.len = 0;
			for (k = 0, f = names.buf; !err && k < nframes; k++, f += strlen(f) + 1)
				err = rc_strbuf__append(&line, k ? ";" : "", !!k)
					  ?: rc_strbuf__append(&line, f, strlen(f));
			if (err)
				break;
			v[n].text = strdup(line.buf);
			if (!v[n].text) {
				err = -ENOMEM;
				break;
			}
			/* merged as it is, shown as shown_weight() says */
			v[n++].count = p->rows[i].weight;
		}
	}
	rc_strbuf__free(&names);
	rc_strbuf__free(&line);
	if (!err && n) {
		qsort(v, n, sizeof(*v), cmp_folded);
		for (i = 1, k = 0; i < n; i++) {
			if (!strcmp(v[i].text, v[k].text)) {
				v[k].count += v[i].count;
				free(v[i].text);
			} else {
				v[++k] = v[i];
			}
		}
		n = k + 1;
	}
	*out = v;
	*nout = n;
	return err;
}

static void free_folded(struct folded *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i].text);
	free(v);
}

int show_folded(const struct prof_src *ps, size_t nps, enum rc_profile_kind kind)
{
	struct folded *v = NULL;
	size_t i, n = 0;
	int err = fold(ps, nps, kind, false, &v, &n);

	for (i = 0; !err && i < n; i++) {
		uint64_t w = kind == RC_PROFILE_OFFCPU ? v[i].count / 1000 : v[i].count;

		if (w)
			printf("%s %" PRIu64 "\n", v[i].text, w);
	}
	free_folded(v, n);
	return err;
}

int show_flamegraph(const struct prof_src *ps, size_t nps, enum rc_profile_kind kind)
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
			err = row_frames(ps[s].r, &p->rows[i], true, &names, &nframes);
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

static int cmp_func_name(const void *a, const void *b)
{
	return strcmp(((const struct rc_func_count *)a)->name,
		      ((const struct rc_func_count *)b)->name);
}

static int cmp_func_shown(const void *a, const void *b)
{
	const struct rc_func_count *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * The functions of every file's profile, merged by name: a sample counts
 * a function once in its own file's count, so the sums count it once too.
 */
static int merged_functions(const struct prof_src *ps, size_t nps, enum rc_profile_kind kind,
			    struct rc_func_count **out, size_t *nout)
{
	struct rc_func_count *all = NULL, *f;
	size_t s, i, k, n = 0, cap = 0, nf;
	int err = 0;

	for (s = 0; !err && s < nps; s++) {
		err = rc_profile__functions(ps[s].p, kind, ps[s].r, &f, &nf);
		if (err)
			break;
		err = rc_ensure_arr(&all, &cap, n + nf, 64);
		if (err) {
			rc_func_counts__free(f, nf);
			break;
		}
		memcpy(all + n, f, nf * sizeof(*f));
		n += nf;
		free(f); /* the names moved to @all */
	}
	if (err) {
		rc_func_counts__free(all, n);
		return err;
	}
	if (nps > 1 && n) {
		qsort(all, n, sizeof(*all), cmp_func_name);
		for (i = 1, k = 0; i < n; i++) {
			if (!strcmp(all[i].name, all[k].name)) {
				all[k].self += all[i].self;
				all[k].total += all[i].total;
				free(all[i].name);
			} else {
				all[++k] = all[i];
			}
		}
		n = k + 1;
		qsort(all, n, sizeof(*all), cmp_func_shown);
	}
	*out = all;
	*nout = n;
	return 0;
}

int show_functions(const struct prof_src *ps, size_t nps, enum rc_profile_kind kind, size_t top)
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
	err = merged_functions(ps, nps, kind, &f, &n);
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
