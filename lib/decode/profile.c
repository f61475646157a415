// SPDX-License-Identifier: GPL-2.0-only
/*
 * Samples counted by task name and stack, and several files' profiles
 * folded and merged (decode/profile.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "decode/filter.h"
#include "decode/profile.h"
#include "util/keymap.h"
#include "util/mem.h"

#define FRAME_NAME  512
#define KERNEL_MARK "_[k]"

struct profile_key {
	char comm[16];
	uint32_t kind;
	uint32_t stack_id;
};

int rc_profile__add(struct rc_profile *p, const struct rc_meta *m, const struct rc_rec_hdr *rec)
{
	const struct rc_event_desc *ev = rc_schema__event(m->schema, rec->type);
	const struct rc_field *f, *blocked = NULL;
	struct profile_key k = {};
	uint64_t weight = 1;
	uint32_t idx;
	int added;

	if (!ev || rec->type >= RC_FIRST_DYN_ID)
		return 0;
	if (!strcmp(ev->name, "sample")) {
		k.kind = RC_PROFILE_CPU;
	} else if (!strcmp(ev->name, "offcpu")) {
		k.kind = RC_PROFILE_OFFCPU;
		blocked = rc_event__field(ev, "blocked");
		weight = blocked ? rc_field__u64(blocked, rec, 0) : 0;
	} else if (!strcmp(ev->name, "stack")) {
		k.kind = RC_PROFILE_EVENTS;
	} else {
		return 0;
	}
	f = rc_event__field(ev, "stack_id");
	memcpy(k.comm, rec->comm, sizeof(k.comm));
	k.stack_id = f ? (uint32_t)rc_field__u64(f, rec, 0) : 0;
	if (!p->index) {
		p->index = calloc(1, sizeof(struct rc_keymap));
		if (!p->index)
			return -ENOMEM;
	}
	added = rc_keymap__intern(p->index, &k, sizeof(k), p->nrows, &idx);
	if (added < 0)
		return added;
	if (added) {
		if (rc_ensure_arr(&p->rows, &p->cap, p->nrows + 1, 256))
			return -ENOMEM;
		memset(&p->rows[idx], 0, sizeof(p->rows[idx]));
		memcpy(p->rows[idx].comm, k.comm, sizeof(k.comm));
		p->rows[idx].kind = k.kind;
		p->rows[idx].stack_id = k.stack_id;
		p->nrows++;
	}
	p->rows[idx].samples++;
	p->rows[idx].weight += weight;
	if (k.kind == RC_PROFILE_OFFCPU) {
		p->offcpu++;
		p->offcpu_ns += weight;
		return 0;
	}
	if (k.kind == RC_PROFILE_EVENTS) {
		p->events++;
		return 0;
	}
	p->samples++;
	if (!k.stack_id)
		p->no_stack++;
	return 0;
}

/* The row of @k, found or added: its index in *@idx; 0, or -ENOMEM. */
static int row_of(struct rc_profile *p, const struct profile_key *k, uint32_t *idx)
{
	int added;

	if (!p->index) {
		p->index = calloc(1, sizeof(struct rc_keymap));
		if (!p->index)
			return -ENOMEM;
	}
	added = rc_keymap__intern(p->index, k, sizeof(*k), p->nrows, idx);
	if (added < 0)
		return added;
	if (added) {
		if (rc_ensure_arr(&p->rows, &p->cap, p->nrows + 1, 256))
			return -ENOMEM;
		memset(&p->rows[*idx], 0, sizeof(p->rows[*idx]));
		memcpy(p->rows[*idx].comm, k->comm, sizeof(k->comm));
		p->rows[*idx].kind = k->kind;
		p->rows[*idx].stack_id = k->stack_id;
		p->nrows++;
	}
	return 0;
}

int rc_profile__merge(struct rc_profile *p, const struct rc_profile *later)
{
	size_t i;
	int err;

	for (i = 0; i < later->nrows; i++) {
		const struct rc_profile_row *row = &later->rows[i];
		struct profile_key k = { .kind = row->kind, .stack_id = row->stack_id };
		uint32_t idx;

		memcpy(k.comm, row->comm, sizeof(k.comm));
		err = row_of(p, &k, &idx);
		if (err)
			return err;
		p->rows[idx].samples += row->samples;
		p->rows[idx].weight += row->weight;
	}
	p->samples += later->samples;
	p->no_stack += later->no_stack;
	p->offcpu += later->offcpu;
	p->offcpu_ns += later->offcpu_ns;
	p->events += later->events;
	return 0;
}

void rc_profile__free(struct rc_profile *p)
{
	if (p->index)
		rc_keymap__free(p->index);
	free(p->index);
	free(p->rows);
	memset(p, 0, sizeof(*p));
}

const char *rc_frame__name(const struct rc_frame *f, char *buf, size_t len)
{
	const char *base;

	if (f->sym) {
		snprintf(buf, len, "%s", f->sym);
	} else if (f->dso && strcmp(f->dso, "[unknown]")) {
		base = strrchr(f->dso, '/');
		snprintf(buf, len, "[%s+0x%llx]", base ? base + 1 : f->dso,
			 (unsigned long long)f->off);
	} else {
		snprintf(buf, len, "[unknown]");
	}
	return buf;
}

/* The index of function @name in @f, added when new. */
static int func_index(struct rc_keymap *names, struct rc_func_count **f, size_t *n, size_t *cap,
		      const char *name, uint32_t *idx)
{
	int added = rc_keymap__intern(names, name, strlen(name), *n, idx);

	if (added <= 0)
		return added;
	if (rc_ensure_arr(f, cap, *n + 1, 256))
		return -ENOMEM;
	(*f)[*n] = (struct rc_func_count){ .name = strdup(name) };
	if (!(*f)[*n].name)
		return -ENOMEM;
	(*n)++;
	return 0;
}

static int cmp_func(const void *a, const void *b)
{
	const struct rc_func_count *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return strcmp(x->name, y->name);
}

int rc_profile__functions(const struct rc_profile *p, enum rc_profile_kind kind,
			  const struct rc_reader *r, struct rc_func_count **out, size_t *n)
{
	struct rc_keymap names = {};
	struct rc_func_count *f = NULL;
	uint32_t *seen = NULL, idx;
	size_t cap = 0, seen_cap = 0, i, k, j, nseen;
	char buf[512];
	int err = 0;

	*n = 0;
	for (i = 0; !err && i < p->nrows; i++) {
		const struct rc_profile_row *row = &p->rows[i];
		const struct rc_stack *st;
		size_t nf;

		if (row->kind != kind)
			continue;
		st = rc_reader__stack(r, row->stack_id);
		nf = st ? (size_t)st->nkernel + st->nuser : 0;
		if (!nf) {
			err = func_index(&names, &f, n, &cap, "[unknown]", &idx);
			if (!err) {
				f[idx].self += row->weight;
				f[idx].total += row->weight;
			}
			continue;
		}
		/* innermost first: the kernel's, then the user's; each function once a sample */
		for (k = 0, nseen = 0; !err && k < nf; k++) {
			err = func_index(&names, &f, n, &cap, rc_frame__name(&st->frames[k], buf, sizeof(buf)),
					 &idx);
			if (err)
				break;
			if (!k)
				f[idx].self += row->weight;
			for (j = 0; j < nseen && seen[j] != idx; j++)
				;
			if (j < nseen)
				continue;
			err = rc_ensure_arr(&seen, &seen_cap, nseen + 1, 64);
			if (err)
				break;
			seen[nseen++] = idx;
			f[idx].total += row->weight;
		}
	}
	rc_keymap__free(&names);
	free(seen);
	if (err) {
		rc_func_counts__free(f, *n);
		*n = 0;
		*out = NULL;
		return err;
	}
	if (*n)
		qsort(f, *n, sizeof(*f), cmp_func);
	*out = f;
	return 0;
}

void rc_func_counts__free(struct rc_func_count *f, size_t n)
{
	size_t i;

	for (i = 0; f && i < n; i++)
		free(f[i].name);
	free(f);
}

/* ---- folded stacks and functions of several profiles ------------------ */

/* a stack keeps each side innermost first: read them backwards */
int rc_profile__frames(const struct rc_reader *r, const struct rc_profile_row *row, bool mark,
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
		err = err
			  ?: rc_strbuf__append(names, mark ? KERNEL_MARK : "",
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

int rc_profile__fold(const struct rc_profile_src *ps, size_t nps, enum rc_profile_kind kind,
		     bool mark, struct rc_folded **out, size_t *nout)
{
	struct rc_strbuf names = {}, line = {};
	size_t i, k, n = 0, nframes, rows = 0, s;
	struct rc_folded *v;
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
			err = rc_profile__frames(ps[s].r, &p->rows[i], mark, &names, &nframes);
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
			/* merged as it is: the caller shows it in its unit */
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

void rc_folded__free(struct rc_folded *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i].text);
	free(v);
}

static int cmp_func_name(const void *a, const void *b)
{
	return strcmp(((const struct rc_func_count *)a)->name,
		      ((const struct rc_func_count *)b)->name);
}

int rc_profile__merge_functions(const struct rc_profile_src *ps, size_t nps,
				enum rc_profile_kind kind, struct rc_func_count **out, size_t *nout)
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
		if (nf) /* none: @f may be NULL */
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
		qsort(all, n, sizeof(*all), cmp_func);
	}
	*out = all;
	*nout = n;
	return 0;
}
