// SPDX-License-Identifier: GPL-2.0-only
/* Interning byte strings (keymap.h), over the one map (idmap.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include "util/keymap.h"
#include "util/util.h"

/* Before each key in the buffer of keys. */
struct entry {
	uint32_t len;
	uint32_t val;
};

int rc_keymap__intern(struct rc_keymap *m, const void *key, size_t len, uint32_t val,
		      uint32_t *found)
{
	uint64_t hash = XXH64(key, len, 0) | 1; /* never 0, an empty slot */
	size_t pos = RC_IDMAP_START;
	struct entry e;
	uint64_t *off;
	int err;

	if (len > UINT32_MAX)
		return -EINVAL;
	while ((off = rc_idmap__next(&m->index, hash, &pos))) {
		memcpy(&e, m->keys.buf + *off, sizeof(e));
		if (e.len == len && !memcmp(m->keys.buf + *off + sizeof(e), key, len)) {
			*found = e.val;
			return 0;
		}
	}
	e = (struct entry){ (uint32_t)len, val };
	err = rc_strbuf__reserve(&m->keys, sizeof(e) + len);
	err = err ?: rc_idmap__put(&m->index, hash, m->keys.len);
	if (err)
		return err;
	/* into the room reserved, its NUL's too: one copy a part, no call */
	memcpy(m->keys.buf + m->keys.len, &e, sizeof(e));
	if (len)
		memcpy(m->keys.buf + m->keys.len + sizeof(e), key, len);
	m->keys.len += sizeof(e) + len;
	m->keys.buf[m->keys.len] = '\0';
	m->n++;
	*found = val;
	return 1;
}

void rc_keymap__free(struct rc_keymap *m)
{
	rc_idmap__free(&m->index);
	rc_strbuf__free(&m->keys);
	memset(m, 0, sizeof(*m));
}
