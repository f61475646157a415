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

int rc_runq__add(struct rc_runq *q, const struct rc_meta *m, const struct rc_rec_hdr *rec)
{
	const struct rc_event_desc *ev = rc_schema__event(m->schema, rec->type);
	const struct rc_field *f;
	uint64_t *v;

	if (!ev)
		return 0;
	if (!strcmp(ev->name, "sched:sched_wakeup") && (f = rc_event__field(ev, "wakee_tid"))) {
		uint32_t tid = rc_field__u64(f, rec, 0); /* a tid is 32 bits */

		v = rc_idmap__get(&q->woken, tid, NULL);
		if (!v)
			return -ENOMEM;
		*v = rec->ts;
	} else if (!strcmp(ev->name, "sched:sched_switch") &&
		   (f = rc_event__field(ev, "next_tid"))) {
		uint32_t tid = rc_field__u64(f, rec, 0);

		v = rc_idmap__find(&q->woken, tid);
		if (v && rec->ts >= *v) {
			rc_hist__add(&q->hist, (rec->ts - *v) / (q->div ? q->div : 1));
			*v = UINT64_MAX; /* counted; the next wakeup resets it */
		}
	}
	return 0;
}

void rc_runq__free(struct rc_runq *q)
{
	rc_idmap__free(&q->woken);
	memset(q, 0, sizeof(*q));
}
