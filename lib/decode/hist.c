// SPDX-License-Identifier: GPL-2.0-only
/* Log2 histograms of latencies: syscall durations, and wakeup to run. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "decode/hist.h"

void rc_hist__add(struct rc_hist *h, uint64_t v)
{
	unsigned int slot = v > 1 ? 63 - __builtin_clzll(v) : 0;

	h->slots[slot]++;
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->total += v;
}

/* Open addressing, tid -> time it was woken; 0 is an empty slot's tid + 1. */
static uint64_t *slot_of(struct rc_runq *q, uint32_t tid)
{
	size_t i = (tid * 2654435761u) & (q->cap - 1);

	while (q->keys[i] && q->keys[i] != tid + 1ull)
		i = (i + 1) & (q->cap - 1);
	return &q->keys[i];
}

static int grow(struct rc_runq *q)
{
	struct rc_runq n = { .cap = q->cap ? q->cap * 2 : 1024 };
	size_t i;

	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	for (i = 0; i < q->cap; i++) {
		if (q->keys[i]) {
			uint64_t *k = slot_of(&n, q->keys[i] - 1);

			*k = q->keys[i];
			n.vals[k - n.keys] = q->vals[i];
			n.used++;
		}
	}
	free(q->keys);
	free(q->vals);
	n.hist = q->hist;
	n.div = q->div;
	*q = n;
	return 0;
}

int rc_runq__add(struct rc_runq *q, const struct rc_meta *m, const struct rc_rec_hdr *rec)
{
	const struct rc_event_desc *ev = rc_schema__event(m->schema, rec->type);
	const struct rc_field *f;
	uint64_t *k;

	if (!ev)
		return 0;
	if (!strcmp(ev->name, "sched:sched_wakeup") && (f = rc_event__field(ev, "wakee_tid"))) {
		uint32_t tid = rc_field__u64(f, rec, 0); /* a tid is 32 bits */

		if (q->used * 2 >= q->cap && grow(q))
			return -ENOMEM;
		k = slot_of(q, tid);
		if (!*k)
			q->used++;
		*k = tid + 1ull;
		q->vals[k - q->keys] = rec->ts;
	} else if (!strcmp(ev->name, "sched:sched_switch") &&
		   (f = rc_event__field(ev, "next_tid")) && q->cap) {
		uint32_t tid = rc_field__u64(f, rec, 0);

		k = slot_of(q, tid);
		if (*k && rec->ts >= q->vals[k - q->keys]) {
			rc_hist__add(&q->hist,
				     (rec->ts - q->vals[k - q->keys]) / (q->div ? q->div : 1));
			q->vals[k - q->keys] = UINT64_MAX; /* counted; the next wakeup resets it */
		}
	}
	return 0;
}

void rc_runq__free(struct rc_runq *q)
{
	free(q->keys);
	free(q->vals);
	memset(q, 0, sizeof(*q));
}
