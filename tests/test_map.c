// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one hash map of lib/util (idmap.h) and the byte-string interning over
 * it (keymap.h), in-process: ids, keys of their own, hashes shared by
 * several values, growth, and the walks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/idmap.h"
#include "util/keymap.h"
#include "test_progs.h"

void test_map_ids(void)
{
	struct rc_idmap m = {};
	uint64_t *v, key, sum = 0;
	size_t pos = 0, n = 0;
	bool added, ok = true;
	uint32_t i;

	ASSERT_TRUE(!rc_idmap__find(&m, 0), "empty: nothing");
	/* 0 and UINT32_MAX are ids like any other; 100k of them grow it from 256 slots */
	for (i = 0; i < 100000; i++) {
		uint32_t id = i == 99999 ? UINT32_MAX : i * 7919u;

		v = rc_idmap__get(&m, id, &added);
		if (!v || !added) {
			ok = false;
			break;
		}
		*v = id + 1000ull;
	}
	ASSERT_TRUE(ok, "100k added");
	ASSERT_EQ(m.used, 100000, "used");
	ASSERT_EQ(m.cap, 262144, "at most half full: 2^18 slots");
	for (i = 0; ok && i < 100000; i++) {
		uint32_t id = i == 99999 ? UINT32_MAX : i * 7919u;

		v = rc_idmap__find(&m, id);
		ok = v && *v == id + 1000ull;
	}
	ASSERT_TRUE(ok, "each found with its value");
	ASSERT_TRUE(!rc_idmap__find(&m, 1), "an id not added");
	v = rc_idmap__get(&m, 7919u, &added);
	ASSERT_TRUE(v && !added && *v == 7919u + 1000ull, "get of one there: not added");
	while ((v = rc_idmap__each(&m, &pos, &key))) {
		n++;
		sum += *v - 1000 - (key - 1);
	}
	ASSERT_EQ(n, 100000, "the walk: every one");
	ASSERT_EQ(sum, 0, "the walk: keys are id + 1");
	rc_idmap__clear(&m);
	ASSERT_EQ(m.used, 0, "cleared");
	ASSERT_TRUE(!rc_idmap__find(&m, 0), "cleared: nothing");
	ASSERT_EQ(m.cap, 262144, "cleared: memory kept");
	rc_idmap__free(&m);
	ASSERT_TRUE(!m.keys && !m.cap, "freed");
}

void test_map_hashes(void)
{
	struct rc_idmap m = {};
	uint64_t *v, wide = 0xffffffff00000001ull;
	bool seen[600] = {};
	size_t pos = RC_IDMAP_START;
	int n = 0, err = 0;
	uint64_t i;

	/* keys of their own: the high half counts as much as the low */
	for (i = 1; i <= 1000; i++) {
		v = rc_idmap__get_key(&m, i << 32 | 5, NULL);
		if (!v) {
			err = -1;
			break;
		}
		*v = i;
	}
	ASSERT_OK(err, "packed keys added");
	v = rc_idmap__find_key(&m, 77ull << 32 | 5);
	ASSERT_TRUE(v && *v == 77, "a packed key found");
	ASSERT_TRUE(!rc_idmap__find_key(&m, 77ull << 32 | 6), "its neighbour not");
	rc_idmap__free(&m);

	/* several values under one hash, and others around them, across growths */
	for (i = 0; i < 600; i++) {
		err = rc_idmap__put(&m, i % 3 ? i + 1 : wide, i);
		if (err)
			break;
	}
	ASSERT_OK(err, "put");
	ASSERT_EQ(m.used, 600, "every value stored");
	while ((v = rc_idmap__next(&m, wide, &pos))) {
		n++;
		if (*v % 3 || *v >= 600 || seen[*v])
			err = -1;
		else
			seen[*v] = true;
	}
	ASSERT_EQ(n, 200, "the hash's 200 values");
	ASSERT_OK(err, "each of them once, none of another hash");
	pos = RC_IDMAP_START;
	v = rc_idmap__next(&m, 5, &pos); /* i = 4 */
	ASSERT_TRUE(v && *v == 4, "a hash of one value");
	ASSERT_TRUE(!rc_idmap__next(&m, 5, &pos), "and no other");
	pos = RC_IDMAP_START;
	ASSERT_TRUE(!rc_idmap__next(&m, 4, &pos), "a hash not put"); /* i = 3 went to wide */
	rc_idmap__free(&m);
}

void test_map_keymap(void)
{
	struct rc_keymap k = {};
	char key[32];
	uint32_t val, i;
	int ret = 0, bad = 0;

	for (i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "frame_%u", i);
		ret = rc_keymap__intern(&k, key, strlen(key), i * 2, &val);
		if (ret != 1 || val != i * 2)
			bad++;
	}
	ASSERT_EQ(bad, 0, "5000 added, each with its value");
	ASSERT_EQ(k.n, 5000, "held");
	for (i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "frame_%u", i);
		ret = rc_keymap__intern(&k, key, strlen(key), 1, &val);
		if (ret != 0 || val != i * 2)
			bad++;
	}
	ASSERT_EQ(bad, 0, "each found again, the value it was given");
	/* a key that is a prefix of another, the empty key, bytes with NULs */
	ASSERT_EQ(rc_keymap__intern(&k, "frame_1", 6, 7, &val), 1, "a prefix is a key of its own");
	ASSERT_EQ(val, 7, "its value");
	ASSERT_EQ(rc_keymap__intern(&k, "", 0, 8, &val), 1, "the empty key");
	ASSERT_EQ(rc_keymap__intern(&k, "", 0, 9, &val), 0, "the empty key again");
	ASSERT_EQ(val, 8, "its value");
	ASSERT_EQ(rc_keymap__intern(&k, "a\0b", 3, 10, &val), 1, "NULs");
	ASSERT_EQ(rc_keymap__intern(&k, "a\0c", 3, 11, &val), 1, "past the NUL, another key");
	ASSERT_EQ(rc_keymap__intern(&k, "a\0b", 3, 12, &val), 0, "found past the NUL");
	ASSERT_EQ(val, 10, "its value");
	rc_keymap__free(&k);
	ASSERT_TRUE(!k.n && !k.keys.buf, "freed");
}
