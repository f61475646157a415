/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A map from byte strings to 32-bit values, for interning: stacks by their
 * frames, symbols by their names. The one map (util/idmap.h) keyed by the
 * XXH64 of the key, its values where the key is in one buffer of every key,
 * each after its length and value.
 */
#ifndef RINGCAP_UTIL_KEYMAP_H
#define RINGCAP_UTIL_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/idmap.h"
#include "util/strbuf.h"

/**
 * struct rc_keymap - the map; zeroed is empty
 * @index: the keys' hashes to their offsets in @keys
 * @n: keys held
 * @keys: every key, one after another, each after a struct rc_keymap_entry
 */
struct rc_keymap {
	struct rc_idmap index;
	size_t n;
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
