// SPDX-License-Identifier: GPL-2.0-only
/* Samples counted by task name and stack (ringcap.h, profiles). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ringcap.h"
#include "util/keymap.h"
#include "util/mem.h"

struct profile_key {
	char comm[16];
	uint32_t stack_id;
};

int rc_profile__add(struct rc_profile *p, const struct rc_meta *m, const struct rc_rec_hdr *rec)
{
	const struct rc_event_desc *ev = rc_schema__event(m->schema, rec->type);
	const struct rc_field *f;
	struct profile_key k = {};
	uint32_t idx;
	int added;

	if (!ev || strcmp(ev->name, "sample"))
		return 0;
	f = rc_event__field(ev, "stack_id");
	memcpy(k.comm, rec->comm, sizeof(k.comm));
	k.stack_id = f ? (uint32_t)rc_field__u64(f, rec, 0) : 0;
	if (!p->index) {
		p->index = calloc(1, sizeof(struct rc_keymap));
		if (!p->index)
			return -ENOMEM;
	}
	added = rc_keymap__intern(p->index, &k, sizeof(k), p->nrows, &idx);
	if (added < 0)
		return added;
	if (added) {
		if (rc_ensure_arr(&p->rows, &p->cap, p->nrows + 1, 256))
			return -ENOMEM;
		memset(&p->rows[idx], 0, sizeof(p->rows[idx]));
		memcpy(p->rows[idx].comm, k.comm, sizeof(k.comm));
		p->rows[idx].stack_id = k.stack_id;
		p->nrows++;
	}
	p->rows[idx].samples++;
	p->samples++;
	if (!k.stack_id)
		p->no_stack++;
	return 0;
}

void rc_profile__free(struct rc_profile *p)
{
	if (p->index)
		rc_keymap__free(p->index);
	free(p->index);
	free(p->rows);
	memset(p, 0, sizeof(*p));
}

const char *rc_frame__name(const struct rc_frame *f, char *buf, size_t len)
{
	const char *base;

	if (f->sym) {
		snprintf(buf, len, "%s", f->sym);
	} else if (f->dso && strcmp(f->dso, "[unknown]")) {
		base = strrchr(f->dso, '/');
		snprintf(buf, len, "[%s+0x%llx]", base ? base + 1 : f->dso,
			 (unsigned long long)f->off);
	} else {
		snprintf(buf, len, "[unknown]");
	}
	return buf;
}
