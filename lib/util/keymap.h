/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A map from byte strings to 32-bit values, for interning: stacks by their
 * frames, symbols by their names. Open addressing on XXH64 of the key;
 * keys are copied into one buffer, so entries are two words and a hash.
 */
#ifndef RINGCAP_UTIL_KEYMAP_H
#define RINGCAP_UTIL_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/strbuf.h"

struct rc_keymap_slot {
	uint64_t hash;
	size_t off; /* of the key in keys; (size_t)-1: empty */
	uint32_t len;
	uint32_t val;
};

/**
 * struct rc_keymap - the map; zeroed is empty
 * @slots: a power of two of them, at most 3/4 used
 * @cap: slots
 * @n: keys held
 * @keys: every key, one after another
 */
struct rc_keymap {
	struct rc_keymap_slot *slots;
	size_t cap, n;
	struct rc_strbuf keys;
};

/**
 * rc_keymap__intern() - the value of @key, adding it with @val if absent
 * @m: the map
 * @key: the key's bytes
 * @len: its length, below 4 GiB
 * @val: the value a new key gets
 * @found: set to the value the key has (@val if it was added)
 *
 * Return: 1 when the key was added, 0 when it was there, -ENOMEM or -EINVAL (@len).
 */
int rc_keymap__intern(struct rc_keymap *m, const void *key, size_t len, uint32_t val,
		      uint32_t *found);

/**
 * rc_keymap__free() - free the map's memory, leaving it empty
 * @m: the map
 */
void rc_keymap__free(struct rc_keymap *m);

#endif /* RINGCAP_UTIL_KEYMAP_H */
