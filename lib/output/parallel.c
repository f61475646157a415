// SPDX-License-Identifier: GPL-2.0-only
/*
 * report -j (parallel.h): each worker filters a chunk's records with its
 * own copy of the file's keep state and formats them into the chunk's
 * slot, through an output of its own writing to memory, or counts them
 * into the slot's summary and profile; the calling thread takes the slots
 * in file order (pipeline.h), writes their bytes or merges their counts,
 * and carries the keep state from chunk to chunk.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "output/parallel.h"
#include "output/pipeline.h"
#include "util/strbuf.h"

#define PAR_RAW_TYPES 8

bool rc_keep__record(struct rc_keep *k, const struct rc_rec_hdr *rec)
{
	bool is_stack = k->stack_ev && rec->type == k->stack_ev->id;
	bool keep = is_stack ? (k->kept && rec->ts == k->prev.ts && rec->tid == k->prev.tid &&
				rec->cpu == k->prev.cpu) ||
				   rc_filter__match(k->filter, k->view, rec)
			     : rc_filter__match(k->filter, k->view, rec);

	k->kept = keep && !is_stack;
	k->prev = *rec;
	return keep;
}

/* A chunk in flight: what its records gave, taken in file order. */
struct par_slot {
	struct rc_strbuf out;	 /* its events, formatted */
	struct rc_summary sum;	 /* counted, with a summary */
	struct rc_profile prof;	 /* counted */
	struct rc_strbuf head;	 /* a stack record first: its event is the chunk before's */
	struct rc_rec_hdr last;	 /* its last record, and whether it was kept, */
	bool last_kept;		 /* for the next chunk's first */
	uint16_t raw[PAR_RAW_TYPES]; /* record --bpf's raw events met, first met first */
	size_t nraw;
	bool more_raw; /* more of them: said of every such type of the schema */
};

/* A worker: its copy of the file's keep state, its own output. */
struct par_worker {
	struct rc_parallel *p;
	struct rc_keep keep;
	struct rc_output *out;
	FILE *f;
	struct rc_strbuf *to; /* where the output's bytes go; NULL: dropped */
};

static ssize_t par_write(void *cookie, const char *buf, size_t len)
{
	struct par_worker *w = cookie;

	if (w->to && rc_strbuf__append(w->to, buf, len))
		return 0; /* ENOMEM: a write error */
	return len;
}

static void *par_worker_new(void *ctx)
{
	static const cookie_io_functions_t io = { .write = par_write };
	struct rc_parallel *p = ctx;
	struct par_worker *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->p = p;
	w->keep = *p->keep; /* the filter is only read: shared */
	if (!p->out)
		return w;
	w->f = fopencookie(w, "w", io);
	if (!w->f)
		goto fail;
	setvbuf(w->f, NULL, _IONBF, 0);
	w->out = rc_output__new(p->format, w->f, p->views, 1, p->fmt_flags, p->hosts);
	/* what the format writes first is the calling thread's to write: dropped */
	if (!w->out || rc_output__flush(w->out))
		goto fail;
	return w;
fail:
	rc_output__free(w->out);
	if (w->f)
		fclose(w->f);
	free(w);
	return NULL;
}

static void par_worker_free(void *wp)
{
	struct par_worker *w = wp;

	rc_output__free(w->out);
	if (w->f)
		fclose(w->f);
	free(w);
}

static void *par_slot_new(void *ctx)
{
	return calloc(1, sizeof(struct par_slot));
}

static void par_slot_free(void *sp)
{
	struct par_slot *s = sp;

	rc_strbuf__free(&s->out);
	rc_strbuf__free(&s->head);
	rc_summary__free(&s->sum);
	rc_profile__free(&s->prof);
	free(s);
}

static void par_note_raw(struct par_slot *s, uint16_t type)
{
	size_t i;

	for (i = 0; i < s->nraw; i++)
		if (s->raw[i] == type)
			return;
	if (s->nraw < PAR_RAW_TYPES)
		s->raw[s->nraw++] = type;
	else
		s->more_raw = true;
}

/* On a worker: a chunk's records, kept or not, formatted or counted into its slot. */
static int par_work(void *wp, void *sp, const unsigned char *raw, size_t len)
{
	struct par_worker *w = wp;
	struct par_slot *s = sp;
	struct rc_keep *k = &w->keep;
	const struct rc_meta *m = k->view;
	size_t pos;
	int err = 0;

	s->out.len = s->head.len = s->nraw = 0;
	s->more_raw = false;
	rc_summary__free(&s->sum);
	rc_profile__free(&s->prof);
	w->to = &s->out;
	for (pos = 0; pos < len && !err; pos += ((const struct rc_rec_hdr *)(raw + pos))->size) {
		const struct rc_rec_hdr *rec = (const void *)(raw + pos);

		if (!pos && k->stack_ev && rec->type == k->stack_ev->id) {
			/* kept with its event, the record before: the calling thread's */
			err = rc_strbuf__append(&s->head, rec, rec->size);
			k->prev = *rec;
			k->kept = false;
			continue;
		}
		if (!rc_keep__record(k, rec))
			continue;
		if (rec->type >= RC_FIRST_DYN_ID)
			par_note_raw(s, rec->type);
		if (w->out)
			err = rc_output__event(w->out, 0, rec);
		else if (!w->p->sum)
			err = rc_profile__add(&s->prof, m, rec);
		else
			err = rc_summary__add(&s->sum, m, rec) ?: rc_profile__add(&s->prof, m, rec);
	}
	s->last = k->prev;
	s->last_kept = k->kept;
	if (!err && w->out)
		err = rc_output__flush(w->out);
	w->to = NULL;
	return err;
}

/* A chunk's head record, kept with the chunk before's last: shown or counted here. */
static int par_head(struct rc_parallel *p, const struct rc_rec_hdr *head)
{
	const struct rc_meta *m = p->keep->view;

	if (!rc_keep__record(p->keep, head))
		return 0;
	if (head->type >= RC_FIRST_DYN_ID && p->raw)
		p->raw(p->ctx, m, head->type);
	if (p->out)
		return rc_output__event(p->out, 0, head) ?: rc_output__flush(p->out);
	if (!p->sum)
		return rc_profile__add(p->prof, m, head);
	return rc_summary__add(p->sum, m, head) ?: rc_profile__add(p->prof, m, head);
}

/* On the calling thread, in file order: a chunk's output written, its counts added. */
static int par_emit(void *ctx, void *sp)
{
	struct rc_parallel *p = ctx;
	struct par_slot *s = sp;
	const struct rc_meta *m = p->keep->view;
	size_t i;
	int err = 0;

	if (s->head.len)
		err = par_head(p, (const void *)s->head.buf);
	for (i = 0; p->raw && i < s->nraw; i++)
		p->raw(p->ctx, m, s->raw[i]);
	if (p->raw && s->more_raw)
		for (i = RC_FIRST_DYN_ID; i <= RC_MAX_EVENT_ID_API; i++)
			if (rc_schema__event(m->schema, i))
				p->raw(p->ctx, m, i);
	if (err)
		return err;
	/* a chunk out before the next is read, as rc_reader__buffered() has it */
	if (s->out.len && (fwrite(s->out.buf, 1, s->out.len, p->to) != s->out.len || fflush(p->to)))
		return -EIO;
	if (!p->out) {
		err = rc_profile__merge(p->prof, &s->prof);
		if (!err && p->sum)
			err = rc_summary__merge(p->sum, &s->sum);
	}
	p->keep->prev = s->last;
	p->keep->kept = s->last_kept;
	return err;
}

static int par_flush(void *ctx)
{
	struct rc_parallel *p = ctx;

	return p->to && fflush(p->to) ? -EIO : 0;
}

static const struct rc_pipeline_ops par_ops = {
	.worker_new = par_worker_new,
	.worker_free = par_worker_free,
	.slot_new = par_slot_new,
	.slot_free = par_slot_free,
	.work = par_work,
	.emit = par_emit,
	.flush = par_flush,
};

int rc_parallel__run(struct rc_parallel *p)
{
	return rc_pipeline__run(p->r, p->threads ? p->threads : 1, &par_ops, p);
}
