/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one hash map of lib/: 64-bit keys to 64-bit values, open addressing,
 * linear probing from a Fibonacci hash of the key (its high bits: every bit
 * of the key counts), at most half full, no deletion (a value can be set to
 * one that means none). The lookup and the add are inline: the decoders and
 * the ftrace encoder look up an id a record.
 *
 * Three ways to key it:
 *  - an id (tids, pids): rc_idmap__find() and rc_idmap__get(), the key
 *    being the id + 1;
 *  - any key that is its own identity, not 0 (two 32-bit indexes packed in
 *    one, say): rc_idmap__find_key() and rc_idmap__get_key();
 *  - the hash of something kept elsewhere (a name, a file's identity), not
 *    0, with values that say where it is: several may share a hash, so
 *    rc_idmap__put() adds one whatever is there, and rc_idmap__next() walks
 *    those of a hash for the caller to compare. util/keymap.h does so for
 *    byte strings.
 */
#ifndef RINGCAP_UTIL_IDMAP_H
#define RINGCAP_UTIL_IDMAP_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct rc_idmap - keys to values; starts zeroed
 * @keys: each slot's key; 0: an empty slot
 * @vals: each slot's value
 * @cap: slots, 0 or a power of 2
 * @used: slots in use
 * @shift: 64 - log2(@cap): a key's first slot is the top bits of its hash
 */
struct rc_idmap {
	uint64_t *keys, *vals;
	size_t cap, used;
	unsigned int shift;
};

/* Where the probe for @key starts (@m->cap != 0). */
static inline size_t rc_idmap__home(const struct rc_idmap *m, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> m->shift);
}

/* The slot of @key, or the empty one where it would go (@m->cap != 0, @key != 0). */
static inline size_t rc_idmap__slot(const struct rc_idmap *m, uint64_t key)
{
	size_t i = rc_idmap__home(m, key);

	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* Twice the slots (at most half are used, so that probes stay short): 0 or -ENOMEM. */
int rc_idmap__grow(struct rc_idmap *m);

/**
 * rc_idmap__find_key() - the value of a key
 * @m: the map
 * @key: the key, not 0
 *
 * In a map of hashes (rc_idmap__put()), the first value of @key.
 *
 * Return: the value, valid until the map grows; NULL when @key is not in @m.
 */
static inline uint64_t *rc_idmap__find_key(const struct rc_idmap *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = rc_idmap__slot(m, key);
	return m->keys[i] ? &m->vals[i] : NULL;
}

/**
 * rc_idmap__get_key() - the value of a key, added when new
 * @m: the map
 * @key: the key, not 0
 * @added: set when @key was not in @m (its value is then 0); may be NULL
 *
 * The pointer is valid until the next add to @m or rc_idmap__clear().
 *
 * Return: the value; NULL (ENOMEM) when the map could not grow.
 */
static inline uint64_t *rc_idmap__get_key(struct rc_idmap *m, uint64_t key, bool *added)
{
	size_t i;

	if ((m->used + 1) * 2 > m->cap && rc_idmap__grow(m))
		return NULL;
	i = rc_idmap__slot(m, key);
	if (added)
		*added = !m->keys[i];
	if (!m->keys[i]) {
		m->keys[i] = key;
		m->vals[i] = 0;
		m->used++;
	}
	return &m->vals[i];
}

/* The value of @id, or NULL when @id is not in @m. */
static inline uint64_t *rc_idmap__find(const struct rc_idmap *m, uint32_t id)
{
	return rc_idmap__find_key(m, id + 1ull);
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
	return rc_idmap__get_key(m, id + 1ull, added);
}

/* rc_idmap__next()'s *@pos before the first value of a hash. */
#define RC_IDMAP_START SIZE_MAX

/**
 * rc_idmap__next() - the next value stored under a hash
 * @m: the map
 * @hash: the hash, not 0
 * @pos: RC_IDMAP_START for the first; then left as it is set
 *
 * Walks the values rc_idmap__put() stored under @hash, in no order, for
 * the caller to tell which is the one it wants. Adding to @m ends a walk.
 *
 * Return: the value, valid until the map grows; NULL after the last.
 */
static inline uint64_t *rc_idmap__next(const struct rc_idmap *m, uint64_t hash, size_t *pos)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = *pos == RC_IDMAP_START ? rc_idmap__home(m, hash) : (*pos + 1) & (m->cap - 1);
	for (; m->keys[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == hash) {
			*pos = i;
			return &m->vals[i];
		}
	}
	return NULL;
}

/**
 * rc_idmap__put() - store a value under a hash, beside any it has
 * @m: the map
 * @hash: the hash, not 0
 * @val: the value
 *
 * Return: 0, or -ENOMEM (nothing stored).
 */
static inline int rc_idmap__put(struct rc_idmap *m, uint64_t hash, uint64_t val)
{
	size_t i;

	if ((m->used + 1) * 2 > m->cap && rc_idmap__grow(m))
		return -ENOMEM;
	for (i = rc_idmap__home(m, hash); m->keys[i]; i = (i + 1) & (m->cap - 1))
		;
	m->keys[i] = hash;
	m->vals[i] = val;
	m->used++;
	return 0;
}

/**
 * rc_idmap__each() - the next slot in use, for walking the whole map
 * @m: the map
 * @pos: 0 for the first; then left as it is set
 * @key: set to its key
 *
 * Return: its value; NULL after the last.
 */
static inline uint64_t *rc_idmap__each(const struct rc_idmap *m, size_t *pos, uint64_t *key)
{
	for (; *pos < m->cap; ++*pos) {
		if (m->keys[*pos]) {
			*key = m->keys[*pos];
			return &m->vals[(*pos)++];
		}
	}
	return NULL;
}

/* Empty @m, keeping its memory. */
void rc_idmap__clear(struct rc_idmap *m);

/* Free @m's memory; @m is zeroed. */
void rc_idmap__free(struct rc_idmap *m);

#endif /* RINGCAP_UTIL_IDMAP_H */
