// SPDX-License-Identifier: GPL-2.0-only
/* A map of 32-bit ids to 64-bit values (idmap.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/idmap.h"

#define IDMAP_MIN 256 /* slots, at first */

int rc_idmap__grow(struct rc_idmap *m)
{
	struct rc_idmap n = { .cap = m->cap ? m->cap * 2 : IDMAP_MIN };
	size_t i, k;

	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		errno = ENOMEM;
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		k = rc_idmap__slot(&n, m->keys[i] - 1);
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
