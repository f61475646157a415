// SPDX-License-Identifier: GPL-2.0-only
/* Kernel symbols from /proc/kallsyms (ksym.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "symbol/ksym.h"
#include "util/mem.h"
#include "util/keymap.h"

#define KERNEL_DSO "[kernel.kallsyms]"

struct rc_ksyms {
	struct rc_ksym *syms;
	size_t n, cap;
	struct rc_keymap dsos; /* module names, interned: index into dso_names */
	char **dso_names;
	size_t ndso, dso_cap;
	char *names; /* every name, NUL-terminated, one after another */
	size_t names_len, names_cap;
};

static int cmp_addr(const void *a, const void *b)
{
	const struct rc_ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The module's "[name]" as a string the table owns. */
static const char *intern_dso(struct rc_ksyms *k, const char *mod, size_t len)
{
	uint32_t idx;
	int added;

	if (!len)
		return KERNEL_DSO;
	added = rc_keymap__intern(&k->dsos, mod, len, k->ndso, &idx);
	if (added < 0)
		return NULL;
	if (added) {
		if (rc_ensure_arr(&k->dso_names, &k->dso_cap, k->ndso + 1, 16))
			return NULL;
		k->dso_names[k->ndso] = malloc(len + 3);
		if (!k->dso_names[k->ndso])
			return NULL;
		snprintf(k->dso_names[k->ndso], len + 3, "[%.*s]", (int)len, mod);
		k->ndso++;
	}
	return k->dso_names[idx];
}

/* One line: "ADDR TYPE NAME[\t[MODULE]]". 0: taken or passed over; -ENOMEM. */
static int take_line(struct rc_ksyms *k, char *line, size_t *nzero)
{
	char *end, *name, *mod = NULL;
	size_t mlen = 0, nlen;
	uint64_t addr;
	char type;

	errno = 0;
	addr = strtoull(line, &end, 16);
	if (errno || end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
		return 0;
	type = end[1];
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;
	name = end + 3;
	nlen = strcspn(name, "\t\n");
	if (!nlen)
		return 0;
	if (name[nlen] == '\t' && name[nlen + 1] == '[') {
		mod = name + nlen + 2;
		mlen = strcspn(mod, "]\n");
	}
	if (!addr) {
		(*nzero)++;
		return 0;
	}
	if (rc_ensure_arr(&k->syms, &k->cap, k->n + 1, 1024) ||
	    rc_ensure_arr(&k->names, &k->names_cap, k->names_len + nlen + 1, 1 << 16))
		return -ENOMEM;
	memcpy(k->names + k->names_len, name, nlen);
	k->names[k->names_len + nlen] = '\0';
	k->syms[k->n].addr = addr;
	/* names are pointed at once the table is complete: the buffer moves while it grows */
	k->syms[k->n].name = (const char *)(uintptr_t)k->names_len;
	k->syms[k->n].dso = intern_dso(k, mod, mlen);
	if (!k->syms[k->n].dso)
		return -ENOMEM;
	k->names_len += nlen + 1;
	k->n++;
	return 0;
}

struct rc_ksyms *rc_ksyms__load_file(FILE *f)
{
	struct rc_ksyms *k = calloc(1, sizeof(*k));
	size_t cap = 0, nzero = 0, i;
	char *line = NULL;
	int err = 0;

	if (!k)
		return NULL;
	while (!err && getline(&line, &cap, f) > 0)
		err = take_line(k, line, &nzero);
	free(line);
	if (!err && ferror(f))
		err = -EIO;
	if (!err && !k->n)
		err = nzero ? -EPERM : -ENOENT;
	if (err) {
		rc_ksyms__free(k);
		errno = -err;
		return NULL;
	}
	for (i = 0; i < k->n; i++)
		k->syms[i].name = k->names + (uintptr_t)k->syms[i].name;
	qsort(k->syms, k->n, sizeof(*k->syms), cmp_addr);
	return k;
}

struct rc_ksyms *rc_ksyms__load(const char *path)
{
	struct rc_ksyms *k;
	FILE *f = fopen(path ? path : "/proc/kallsyms", "re");
	int err;

	if (!f)
		return NULL;
	k = rc_ksyms__load_file(f);
	err = errno;
	fclose(f);
	errno = err;
	return k;
}

const struct rc_ksym *rc_ksyms__find(const struct rc_ksyms *k, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi = k->n;

	/* the first symbol above addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	*off = addr - k->syms[lo - 1].addr;
	return &k->syms[lo - 1];
}

void rc_ksyms__free(struct rc_ksyms *k)
{
	size_t i;

	if (!k)
		return;
	for (i = 0; i < k->ndso; i++)
		free(k->dso_names[i]);
	free(k->dso_names);
	rc_keymap__free(&k->dsos);
	free(k->syms);
	free(k->names);
	free(k);
}
