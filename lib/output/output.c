// SPDX-License-Identifier: GPL-2.0-only
/*
 * An output of events (output.h): the sources, the buffer, and the calls
 * into a format's operations. The formats are text.c, jsonl.c, csv.c and
 * perfetto.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "output/output_int.h"

#define FLUSH_AT (1u << 20)

static int flush_buf(struct rc_output *o)
{
	if (o->buf.len && fwrite(o->buf.buf, 1, o->buf.len, o->f) != o->buf.len)
		return -EIO;
	o->buf.len = 0;
	return 0;
}

int rc_output__json_fields(struct rc_output *o)
{
	size_t i;

	/* files of one run share their schema's layout, but each has its own */
	for (i = 0; i < o->nsrcs; i++)
		if (!(o->srcs[i].jf = rc_json_fields__new(o->srcs[i].m->schema)))
			return -ENOMEM;
	return 0;
}

/* The file the next event is from: its header, fields, stacks and columns. */
static void use_src(struct rc_output *o, size_t i)
{
	struct rc_output_src *src = &o->srcs[i];

	if (o->m == src->m)
		return;
	o->m = src->m;
	o->jf = src->jf;
	o->colmap = src->colmap;
	o->stacks = src->stacks;
	o->snap = rc_schema__event_by_name(o->m->schema, "ringcap:snapshot");
	o->stack_ev = rc_schema__event_by_name(o->m->schema, "stack");
}

struct rc_output *rc_output__new(const struct rc_output_ops *ops, FILE *out,
				 const struct rc_meta *const *ms, size_t n, unsigned int flags,
				 bool hosts)
{
	struct rc_output *o = calloc(1, sizeof(*o));
	size_t i;
	int err;

	if (!o)
		return NULL;
	o->ops = ops;
	o->f = out;
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
	}
	err = ops->begin ? ops->begin(o) : 0;
	if (err) {
		rc_output__free(o);
		errno = -err;
		return NULL;
	}
	use_src(o, 0);
	return o;
}

void rc_output__set_stacks(struct rc_output *o, size_t src, const struct rc_reader *r)
{
	o->srcs[src].stacks = r;
	if (o->m == o->srcs[src].m)
		o->stacks = r;
}

int rc_output__event(struct rc_output *o, size_t src, const struct rc_rec_hdr *rec)
{
	use_src(o, src);
	/*
	 * An event's stack record (record -g): its frames under its event,
	 * the line before of the same time, thread and CPU, with --stacks.
	 */
	if (o->stack_ev && rec->type == o->stack_ev->id) {
		if (o->ops->stack && o->stacks)
			o->ops->stack(o, rec,
				      rec->ts == o->prev.ts && rec->tid == o->prev.tid &&
					  rec->cpu == o->prev.cpu);
		o->prev = (struct rc_rec_hdr){};
		return o->buf.len >= FLUSH_AT ? flush_buf(o) : 0;
	}
	o->prev = *rec;
	o->ops->event(o, rec);
	return o->buf.len >= FLUSH_AT ? flush_buf(o) : 0;
}

int rc_output__flush(struct rc_output *o)
{
	return flush_buf(o) ?: (fflush(o->f) ? -EIO : 0);
}

int rc_output__end(struct rc_output *o)
{
	if (o->ops->end)
		o->ops->end(o);
	return flush_buf(o);
}

void rc_output__free(struct rc_output *o)
{
	uint32_t e;
	size_t i;

	if (!o)
		return;
	for (i = 0; i < o->nsrcs; i++) {
		struct rc_output_src *src = &o->srcs[i];

		for (e = 0; src->colmap && e < src->m->schema->nevents; e++)
			free(src->colmap[e]);
		free(src->colmap);
		rc_json_fields__free(src->jf);
	}
	free(o->srcs);
	free(o->cols);
	free(o->cpus);
	free(o->names);
	free(o->fmt_state);
	rc_strbuf__free(&o->buf);
	free(o);
}
