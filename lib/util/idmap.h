/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A map of 32-bit ids (tids, pids) to 64-bit values: open addressing,
 * linear probing, Knuth's multiplicative hash, no deletion (a value can be
 * set to one that means none). The lookup and the add are inline: the
 * decoders and the ftrace encoder look up an id a record.
 */
#ifndef RINGCAP_UTIL_IDMAP_H
#define RINGCAP_UTIL_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct rc_idmap - ids to values; starts zeroed
 * @keys: each slot's id + 1; 0: an empty slot
 * @vals: each slot's value
 * @cap: slots, 0 or a power of 2
 * @used: slots in use
 */
struct rc_idmap {
	uint64_t *keys, *vals;
	size_t cap, used;
};

/* The slot of @id, or the empty one where it would go (@m->cap != 0). */
static inline size_t rc_idmap__slot(const struct rc_idmap *m, uint32_t id)
{
	size_t i = (id * 2654435761u) & (m->cap - 1);

	while (m->keys[i] && m->keys[i] != id + 1ull)
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* Twice the slots (at most half are used, so that probes stay short): 0 or -ENOMEM. */
int rc_idmap__grow(struct rc_idmap *m);

/* The value of @id, or NULL when @id is not in @m. */
static inline uint64_t *rc_idmap__find(const struct rc_idmap *m, uint32_t id)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = rc_idmap__slot(m, id);
	return m->keys[i] ? &m->vals[i] : NULL;
}

/**
 * rc_idmap__get() - the value of @id, added when new
 * @m: the map
 * @id: the id
 * @added: set when @id was not in @m (its value is then 0); may be NULL
 *
 * The pointer is valid until the next rc_idmap__get() or rc_idmap__clear().
 *
 * Return: the value; NULL (ENOMEM) when the map could not grow.
 */
static inline uint64_t *rc_idmap__get(struct rc_idmap *m, uint32_t id, bool *added)
{
	size_t i;

	if ((m->used + 1) * 2 > m->cap && rc_idmap__grow(m))
		return NULL;
	i = rc_idmap__slot(m, id);
	if (added)
		*added = !m->keys[i];
	if (!m->keys[i]) {
		m->keys[i] = id + 1ull;
		m->vals[i] = 0;
		m->used++;
	}
	return &m->vals[i];
}

/* Empty @m, keeping its memory. */
void rc_idmap__clear(struct rc_idmap *m);

/* Free @m's memory; @m is zeroed. */
void rc_idmap__free(struct rc_idmap *m);

#endif /* RINGCAP_UTIL_IDMAP_H */
