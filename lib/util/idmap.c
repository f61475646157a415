// SPDX-License-Identifier: GPL-2.0-only
/* The one hash map: 64-bit keys to 64-bit values (idmap.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/idmap.h"

#define IDMAP_MIN_BITS 8 /* 256 slots, at first */

int rc_idmap__grow(struct rc_idmap *m)
{
	struct rc_idmap n = { .cap = m->cap ? m->cap * 2 : 1u << IDMAP_MIN_BITS,
			      .shift = m->cap ? m->shift - 1 : 64 - IDMAP_MIN_BITS };
	size_t i, k;

	if (m->cap > SIZE_MAX / 2 / sizeof(*n.keys)) {
		errno = ENOMEM;
		return -ENOMEM;
	}
	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = malloc(n.cap * sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		errno = ENOMEM;
		return -ENOMEM;
	}
	/* each to the first free slot from its home: keys a map of hashes shares stay */
	for (i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		for (k = rc_idmap__home(&n, m->keys[i]); n.keys[k]; k = (k + 1) & (n.cap - 1))
			;
		n.keys[k] = m->keys[i];
		n.vals[k] = m->vals[i];
		n.used++;
	}
	free(m->keys);
	free(m->vals);
	*m = n;
	return 0;
}

void rc_idmap__clear(struct rc_idmap *m)
{
	if (m->used)
		memset(m->keys, 0, m->cap * sizeof(*m->keys));
	m->used = 0;
}

void rc_idmap__free(struct rc_idmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
