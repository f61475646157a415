// SPDX-License-Identifier: GPL-2.0-only
/*
 * Symbol tables sorted once and binary-searched, with perf's choice among
 * aliases (tools/perf/util/symbol.c, choose_best_symbol()) and its
 * fallback to labels for code that no sized function covers.
 */
#include <stdlib.h>
#include <string.h>
#include "symbol/symtab.h"
#include "util/mem.h"

#define RC_SYM_SIZED 0x4 /* in a builder's flags: has a size */

/* Sized symbols nested in another: how far back a lookup looks for the outer one. */
#define NEST_SCAN 16

struct rc_bsym {
	uint64_t start;
	uint64_t size;
	uint64_t sec_end;
	uint32_t name;
	uint32_t name_len;
	uint32_t seq;
	uint8_t flags;
	uint8_t unders;
};

int rc_symtab_builder__add(struct rc_symtab_builder *b, uint64_t start, uint64_t size,
			   uint64_t sec_end, const char *name, unsigned int flags)
{
	size_t len = strlen(name), unders = 0;
	struct rc_bsym *s;
	int err;

	/* names are addressed by 32-bit offsets; this also bounds the count */
	if (len >= UINT32_MAX - 1 || b->names_len > UINT32_MAX - 1 - len)
		return -E2BIG;
	err = rc_ensure_arr(&b->v, &b->cap, b->cnt + 1, 256);
	err = err ?: rc_ensure_arr(&b->names, &b->names_cap, b->names_len + len + 1, 4096);
	if (err)
		return err;
	while (name[unders] == '_' && unders < 255)
		unders++;
	s = &b->v[b->cnt];
	s->start = start;
	s->size = size;
	s->sec_end = sec_end;
	s->name = b->names_len;
	s->name_len = len;
	/* the order added breaks the last ties: reversed, the last added wins */
	s->seq = b->prefer_later ? UINT32_MAX - (uint32_t)b->cnt : (uint32_t)b->cnt;
	s->flags =
	    (flags & (RC_SYM_FUNC | RC_SYM_STRONG | RC_SYM_GLOBAL)) | (size ? RC_SYM_SIZED : 0);
	s->unders = unders;
	memcpy(b->names + b->names_len, name, len + 1);
	b->names_len += len + 1;
	b->cnt++;
	return 0;
}

/* By address, then the best of one address first. */
static int bsym_cmp(const void *pa, const void *pb)
{
	const struct rc_bsym *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	/* function, sized, not weak, global: the flags' bits from the highest */
	if (a->flags != b->flags)
		return a->flags > b->flags ? -1 : 1;
	if (a->unders != b->unders)
		return a->unders < b->unders ? -1 : 1;
	if (a->name_len != b->name_len)
		return a->name_len > b->name_len ? -1 : 1;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return 0;
}

static bool bsym_is_func(const struct rc_bsym *s)
{
	return (s->flags & RC_SYM_FUNC) && s->size;
}

/* The length a symbol covers, @next the start of the following one (UINT64_MAX: none). */
static uint64_t bsym_len(const struct rc_bsym *s, uint64_t next)
{
	uint64_t lim = next;

	if (s->size)
		return s->size;
	if (s->sec_end) {
		if (s->sec_end <= s->start)
			return 0;
		if (s->sec_end < lim)
			lim = s->sec_end;
	}
	/* the last symbol, of no size and in no known section: itself only */
	return lim == UINT64_MAX ? 1 : lim - s->start;
}

int rc_symtab_builder__finish(struct rc_symtab_builder *b, struct rc_symtab *t)
{
	size_t i, n = 0, kept = 0, names_len = 0;
	uint64_t cover_end = 0, len;
	bool covered = false;
	struct rc_sym *syms = NULL;
	char *names = NULL;
	int err = 0;

	rc_symtab__free(t);
	if (!b->cnt)
		goto out;
	qsort(b->v, b->cnt, sizeof(*b->v), bsym_cmp);
	/* one per address, then no label inside a function */
	for (i = 0; i < b->cnt; i++) {
		const struct rc_bsym *s = &b->v[i];

		if (n && b->v[n - 1].start == s->start)
			continue;
		if (!bsym_is_func(s) && covered && s->start < cover_end)
			continue;
		if (bsym_is_func(s)) {
			uint64_t end = s->start + s->size;

			if (end < s->start)
				end = UINT64_MAX;
			if (!covered || end > cover_end)
				cover_end = end;
			covered = true;
		}
		b->v[n++] = *s;
	}
	for (i = 0; i < n; i++)
		names_len += b->v[i].name_len + 1;
	syms = malloc(n * sizeof(*syms));
	names = malloc(names_len);
	if (!syms || !names) {
		err = -ENOMEM;
		goto out;
	}
	names_len = 0;
	for (i = 0; i < n; i++) {
		const struct rc_bsym *s = &b->v[i];

		len = bsym_len(s, i + 1 < n ? b->v[i + 1].start : UINT64_MAX);
		if (!len)
			continue;
		syms[kept].start = s->start;
		syms[kept].len = len > UINT32_MAX ? UINT32_MAX : len;
		syms[kept].name = names_len;
		memcpy(names + names_len, b->names + s->name, s->name_len + 1);
		names_len += s->name_len + 1;
		kept++;
	}
	t->syms = syms;
	t->cnt = kept;
	t->names = names;
	syms = NULL;
	names = NULL;
out:
	free(syms);
	free(names);
	rc_symtab_builder__free(b);
	return err;
}

void rc_symtab_builder__free(struct rc_symtab_builder *b)
{
	bool later = b->prefer_later;

	free(b->v);
	free(b->names);
	memset(b, 0, sizeof(*b));
	b->prefer_later = later;
}

const char *rc_symtab__find(const struct rc_symtab *t, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi = t->cnt, mid, k;

	/* lo: how many start at or before addr */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the nearest first; a function nested in a longer one is rare */
	for (k = 0; lo > 0 && k < NEST_SCAN; lo--, k++) {
		const struct rc_sym *s = &t->syms[lo - 1];

		if (addr - s->start < s->len) {
			*off = addr - s->start;
			return t->names + s->name;
		}
	}
	return NULL;
}

void rc_symtab__free(struct rc_symtab *t)
{
	free(t->syms);
	free(t->names);
	memset(t, 0, sizeof(*t));
}
