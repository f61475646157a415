// SPDX-License-Identifier: GPL-2.0-only
/*
 * STACKS blocks (ringcap-file(5)) read into a table: a payload is checked
 * whole before anything of it is taken, so a bad block adds nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "format/format.h"
#include "format/stacktab.h"
#include "util/mem.h"

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/*
 * Ids a block may use: up to those defined so far, plus its own, plus a
 * gap for blocks lost to damage. Ids are given in order from 1, so a
 * file of a few bytes cannot make the table allocate for 4M of them.
 */
#define ID_GAP 65536

/*
 * Walk the payload, checking it against @bounds (the table as it is); with
 * @t, take what it defines.
 */
static int walk(const struct rc_stacktab *bounds, struct rc_stacktab *t, const unsigned char *p,
		size_t len, const char **why)
{
	struct rc_disk_stacks ds;
	size_t pos = sizeof(ds);
	uint64_t max_sym, max_stack;
	uint32_t i;

	if (len < sizeof(ds)) {
		*why = "stacks block shorter than its counts";
		return -EBADMSG;
	}
	memcpy(&ds, p, sizeof(ds));
	max_sym = (uint64_t)bounds->nsyms + ds.nsyms + ID_GAP;
	max_stack = (uint64_t)bounds->nstacks + ds.nstacks + ID_GAP;
	for (i = 0; i < ds.nsyms; i++) {
		struct rc_disk_sym sy;
		size_t n;

		if (len - pos < sizeof(sy)) {
			*why = "stacks block: symbol past its end";
			return -EBADMSG;
		}
		memcpy(&sy, p + pos, sizeof(sy));
		n = pad8(sizeof(sy) + (size_t)sy.name_len + sy.dso_len);
		if (!sy.id || sy.id > RC_MAX_SYM_ID || sy.id > max_sym || n > len - pos) {
			*why = "stacks block: symbol id or length out of range";
			return -EBADMSG;
		}
		if (t && (sy.id > t->nsyms || !(t->syms[sy.id - 1].name || t->syms[sy.id - 1].dso))) {
			struct rc_stacktab_sym *s;
			const char *str = (const char *)p + pos + sizeof(sy);
			size_t need = sy.id > t->nsyms ? sy.id : t->nsyms;

			if (rc_ensure_arr(&t->syms, &t->syms_cap, need, 64))
				return -ENOMEM;
			if (need > t->nsyms)
				memset(t->syms + t->nsyms, 0, (need - t->nsyms) * sizeof(*t->syms));
			t->nsyms = need;
			s = &t->syms[sy.id - 1];
			s->name = sy.name_len ? strndup(str, sy.name_len) : NULL;
			s->dso = sy.dso_len ? strndup(str + sy.name_len, sy.dso_len) : NULL;
			if ((sy.name_len && !s->name) || (sy.dso_len && !s->dso))
				return -ENOMEM;
			if (!s->name && !s->dso)
				s->dso = strdup("[unknown]"); /* defined, and names nothing */
			if (!s->dso && !s->name)
				return -ENOMEM;
		}
		pos += n;
	}
	for (i = 0; i < ds.nstacks; i++) {
		struct rc_disk_stack dk;
		size_t nf, k;

		if (len - pos < sizeof(dk)) {
			*why = "stacks block: stack past its end";
			return -EBADMSG;
		}
		memcpy(&dk, p + pos, sizeof(dk));
		nf = (size_t)dk.nkernel + dk.nuser;
		if (!dk.id || dk.id > RC_MAX_STACK_ID || dk.id > max_stack || dk.nkernel > RC_MAX_FRAMES ||
		    dk.nuser > RC_MAX_FRAMES || nf * sizeof(struct rc_disk_frame) > len - pos - sizeof(dk)) {
			*why = "stacks block: stack id or length out of range";
			return -EBADMSG;
		}
		pos += sizeof(dk);
		if (t && (dk.id > t->nstacks || !t->stacks[dk.id - 1].frames)) {
			size_t need = dk.id > t->nstacks ? dk.id : t->nstacks;
			struct rc_frame *fr;
			struct rc_stack *st;

			if (rc_ensure_arr(&t->stacks, &t->stacks_cap, need, 64))
				return -ENOMEM;
			if (need > t->nstacks)
				memset(t->stacks + t->nstacks, 0,
				       (need - t->nstacks) * sizeof(*t->stacks));
			t->nstacks = need;
			fr = calloc(nf ? nf : 1, sizeof(*fr));
			if (!fr)
				return -ENOMEM;
			for (k = 0; k < nf; k++) {
				struct rc_disk_frame df;

				memcpy(&df, p + pos + k * sizeof(df), sizeof(df));
				fr[k].addr = df.addr;
				fr[k].off = df.off;
				if (df.sym && df.sym <= t->nsyms) {
					fr[k].sym = t->syms[df.sym - 1].name;
					fr[k].dso = t->syms[df.sym - 1].dso;
				}
			}
			st = &t->stacks[dk.id - 1];
			st->id = dk.id;
			st->pid = dk.pid;
			st->nkernel = dk.nkernel;
			st->nuser = dk.nuser;
			st->flags = dk.flags;
			st->frames = fr;
		}
		pos += nf * sizeof(struct rc_disk_frame);
	}
	if (pos != len) {
		*why = "stacks block: bytes after its entries";
		return -EBADMSG;
	}
	return 0;
}

int rc_stacktab__add_block(struct rc_stacktab *t, const void *p, size_t len, const char **why)
{
	return walk(t, NULL, p, len, why) ?: walk(t, t, p, len, why);
}

const struct rc_stack *rc_stacktab__stack(const struct rc_stacktab *t, uint32_t id)
{
	if (!id || id > t->nstacks || !t->stacks[id - 1].frames)
		return NULL;
	return &t->stacks[id - 1];
}

void rc_stacktab__free(struct rc_stacktab *t)
{
	size_t i;

	for (i = 0; i < t->nsyms; i++) {
		free(t->syms[i].name);
		free(t->syms[i].dso);
	}
	for (i = 0; i < t->nstacks; i++)
		free((void *)t->stacks[i].frames);
	free(t->syms);
	free(t->stacks);
	memset(t, 0, sizeof(*t));
}
