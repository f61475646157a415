// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FTRACE chunk decoder (ftpage.h, rc_ftdec__chunk()): a chunk's
 * fragments turned into ringcap records for the reader, sorted by time.
 *
 * Everything here reads bytes a file gave: every length and offset is
 * checked against what is left before it is used.
 */
#include <stdlib.h>
#include <string.h>
#include "format/ftpage.h"
#include "format/ftpage_int.h"
#include "util/util.h"
#include "util/mem.h"

struct dec_ref {
	uint64_t ts;
	uint32_t off; /* in out: also the order they were decoded in */
	uint32_t size;
};

struct ftdec {
	const struct rc_ft_idmap *ids;
	uint32_t ncpus;
	struct rc_disk_task *tasks; /* sorted by tid */
	size_t ntasks;
	struct dec_ref *refs;
	size_t nrefs, refs_cap;
	struct rc_strbuf *out;
	const char **why;
};

static int bad(struct ftdec *d, const char *why)
{
	*d->why = why;
	return -EBADMSG;
}

/* The next fragment at *@pos: 1, 0 at the end, or -EBADMSG. */
static int next_frag(struct ftdec *d, const unsigned char *buf, size_t n, size_t *pos,
		     struct rc_disk_frag *f, const unsigned char **data)
{
	size_t left = n - *pos, i;
	uint64_t padded;

	if (!left)
		return 0;
	if (left < FRAG_HDR)
		return bad(d, "chunk ends inside a fragment header");
	memcpy(f, buf + *pos, FRAG_HDR);
	left -= FRAG_HDR;
	padded = round8(f->len);
	if (padded > left)
		return bad(d, "fragment longer than its chunk");
	*data = buf + *pos + FRAG_HDR;
	for (i = f->len; i < padded; i++)
		if ((*data)[i])
			return bad(d, "fragment padding not zero");
	switch (f->kind) {
	case RC_FRAG_EVENTS:
	case RC_FRAG_RECORDS:
		break;
	case RC_FRAG_TASKS:
		if (f->len % sizeof(struct rc_disk_task))
			return bad(d, "fragment of tasks ends inside one");
		break;
	default:
		return bad(d, "fragment of an unknown kind");
	}
	*pos += FRAG_HDR + padded;
	return 1;
}

static int cmp_task(const void *a, const void *b)
{
	const struct rc_disk_task *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Every TASKS fragment's entries, sorted by tid for look-ups; a tid at most once. */
static int load_tasks(struct ftdec *d, const unsigned char *buf, size_t n)
{
	const unsigned char *data;
	struct rc_disk_frag f;
	size_t pos = 0, cnt = 0, i;
	int ret;

	while ((ret = next_frag(d, buf, n, &pos, &f, &data)) > 0)
		if (f.kind == RC_FRAG_TASKS)
			cnt += f.len / sizeof(struct rc_disk_task);
	if (ret < 0 || !cnt)
		return ret;
	d->tasks = malloc(cnt * sizeof(*d->tasks));
	if (!d->tasks)
		return -ENOMEM;
	pos = 0;
	while (next_frag(d, buf, n, &pos, &f, &data) > 0) {
		if (f.kind != RC_FRAG_TASKS)
			continue;
		memcpy(d->tasks + d->ntasks, data, f.len);
		d->ntasks += f.len / sizeof(struct rc_disk_task);
	}
	qsort(d->tasks, d->ntasks, sizeof(*d->tasks), cmp_task);
	for (i = 1; i < d->ntasks; i++)
		if (d->tasks[i].tid == d->tasks[i - 1].tid)
			return bad(d, "a task described twice in one chunk");
	return 0;
}

static const struct rc_disk_task *find_task(const struct ftdec *d, uint32_t tid)
{
	struct rc_disk_task key = { .tid = tid };

	if (!d->ntasks)
		return NULL;
	return bsearch(&key, d->tasks, d->ntasks, sizeof(key), cmp_task);
}

/* Room for a record of @size bytes at the end of out, and its ref. */
static int add_ref(struct ftdec *d, uint64_t ts, size_t size)
{
	int err;

	if (size > RC_MAX_CHUNK_RAW - d->out->len)
		return bad(d, "chunk decodes to more than a chunk may hold");
	err = rc_ensure_arr(&d->refs, &d->refs_cap, d->nrefs + 1, 1024);
	if (err)
		return err;
	err = rc_strbuf__reserve(d->out, size);
	if (err)
		return err;
	d->refs[d->nrefs++] = (struct dec_ref){ ts, d->out->len, size };
	return 0;
}

static int add_event(struct ftdec *d, uint16_t cpu, const struct rc_ft_event *ev)
{
	static const unsigned char zeros[8];
	struct rc_rec_hdr h = { .ts = ev->ts, .cpu = cpu };
	const struct rc_disk_task *t;
	uint16_t common_type;
	size_t size;
	int err;

	memcpy(&common_type, ev->data, sizeof(common_type));
	memcpy(&h.tid, ev->data + 4, sizeof(h.tid));
	h.type = rc_ft_idmap__lookup(d->ids, common_type);
	if (!h.type)
		return bad(d, "ftrace event of an id the capture does not describe");
	size = REC_HDR + round8(ev->len);
	if (size > RC_REC_MAX)
		return bad(d, "ftrace event too large for a record");
	h.size = size;
	t = find_task(d, h.tid);
	if (t) {
		h.pid = t->tgid;
		memcpy(h.comm, t->comm, strnlen(t->comm, sizeof(h.comm) - 1));
	} else {
		h.pid = h.tid;
		strcpy(h.comm, h.tid ? "<...>" : "<idle>");
	}
	err = add_ref(d, h.ts, size);
	err = err ?: rc_strbuf__append(d->out, &h, sizeof(h));
	err = err ?: rc_strbuf__append(d->out, ev->data, ev->len);
	return err ?: rc_strbuf__append(d->out, zeros, size - REC_HDR - ev->len);
}

static int add_events(struct ftdec *d, const struct rc_disk_frag *f, const unsigned char *data)
{
	struct rc_ft_cursor c = { data, f->len, 0, f->ts };
	struct rc_ft_event ev;
	int ret;

	if (f->cpu >= d->ncpus)
		return bad(d, "ftrace events of a CPU beyond the capture's count");
	while ((ret = rc_ft_next(&c, &ev)) > 0) {
		ret = add_event(d, f->cpu, &ev);
		if (ret)
			return ret;
	}
	return ret < 0 ? bad(d, "malformed ftrace event") : 0;
}

static int add_records(struct ftdec *d, const unsigned char *p, uint32_t len)
{
	struct rc_rec_hdr h;
	size_t pos = 0;
	int r, err;

	while ((r = rc_rec__next(p, len, &pos, &h)) > 0) {
		err = add_ref(d, h.ts, h.size);
		err = err ?: rc_strbuf__append(d->out, p + pos - h.size, h.size);
		if (err)
			return err;
	}
	if (r == -EBADMSG)
		return bad(d, "fragment ends inside a record header");
	return r ? bad(d, "record size out of range") : 0;
}

static int cmp_ref(const void *a, const void *b)
{
	const struct dec_ref *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Sort the records of out by time, ties in decoding order. */
static int sort_out(struct ftdec *d)
{
	struct rc_strbuf sorted = {};
	size_t i;
	int err;

	for (i = 1; i < d->nrefs; i++)
		if (d->refs[i].ts < d->refs[i - 1].ts)
			break;
	if (i >= d->nrefs)
		return 0;
	qsort(d->refs, d->nrefs, sizeof(*d->refs), cmp_ref);
	err = rc_strbuf__reserve(&sorted, d->out->len);
	for (i = 0; !err && i < d->nrefs; i++)
		err = rc_strbuf__append(&sorted, d->out->buf + d->refs[i].off, d->refs[i].size);
	if (err) {
		rc_strbuf__free(&sorted);
		return err;
	}
	rc_strbuf__free(d->out);
	*d->out = sorted;
	return 0;
}

static int decode(struct ftdec *d, const unsigned char *buf, size_t n)
{
	const unsigned char *data;
	struct rc_disk_frag f;
	size_t pos = 0;
	int ret;

	ret = load_tasks(d, buf, n);
	if (ret)
		return ret;
	while ((ret = next_frag(d, buf, n, &pos, &f, &data)) > 0) {
		if (f.kind == RC_FRAG_EVENTS)
			ret = add_events(d, &f, data);
		else if (f.kind == RC_FRAG_RECORDS)
			ret = add_records(d, data, f.len);
		else
			ret = 0; /* TASKS: read already */
		if (ret)
			return ret;
	}
	return ret ?: sort_out(d);
}

int rc_ftdec__chunk(const void *buf, size_t n, const struct rc_ft_idmap *ids, uint32_t ncpus,
		    struct rc_strbuf *out, uint32_t *nrec, const char **why)
{
	struct ftdec d = { .ids = ids, .ncpus = ncpus, .out = out, .why = why };
	int err;

	out->len = 0;
	err = decode(&d, buf, n);
	if (err)
		out->len = 0;
	else
		*nrec = d.nrefs;
	free(d.tasks);
	free(d.refs);
	return err;
}
