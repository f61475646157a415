// SPDX-License-Identifier: GPL-2.0-only
/* Interning byte strings (keymap.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include "util/keymap.h"

#define EMPTY ((size_t)-1)

static struct rc_keymap_slot *lookup(const struct rc_keymap *m, struct rc_keymap_slot *slots,
				     size_t cap, uint64_t hash, const void *key, size_t len)
{
	size_t i = hash & (cap - 1);

	for (;; i = (i + 1) & (cap - 1)) {
		struct rc_keymap_slot *s = &slots[i];

		if (s->off == EMPTY)
			return s;
		if (key && s->hash == hash && s->len == len &&
		    !memcmp(m->keys.buf + s->off, key, len))
			return s;
	}
}

static int grow(struct rc_keymap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64, i;
	struct rc_keymap_slot *slots;

	if (cap > SIZE_MAX / sizeof(*slots))
		return -ENOMEM;
	slots = malloc(cap * sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < cap; i++)
		slots[i].off = EMPTY;
	for (i = 0; i < m->cap; i++) {
		const struct rc_keymap_slot *s = &m->slots[i];

		if (s->off != EMPTY)
			*lookup(m, slots, cap, s->hash, NULL, 0) = *s;
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

int rc_keymap__intern(struct rc_keymap *m, const void *key, size_t len, uint32_t val,
		      uint32_t *found)
{
	uint64_t hash = XXH64(key, len, 0);
	struct rc_keymap_slot *s;
	int err;

	if (len > UINT32_MAX)
		return -EINVAL;
	if ((m->n + 1) * 4 > m->cap * 3) {
		err = grow(m);
		if (err)
			return err;
	}
	s = lookup(m, m->slots, m->cap, hash, key, len);
	if (s->off != EMPTY) {
		*found = s->val;
		return 0;
	}
	err = rc_strbuf__append(&m->keys, key, len);
	if (err)
		return err;
	s->hash = hash;
	s->off = m->keys.len - len;
	s->len = len;
	s->val = val;
	m->n++;
	*found = val;
	return 1;
}

void rc_keymap__free(struct rc_keymap *m)
{
	free(m->slots);
	rc_strbuf__free(&m->keys);
	memset(m, 0, sizeof(*m));
}
