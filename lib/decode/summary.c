// SPDX-License-Identifier: GPL-2.0-only
/* Counts by event, by process and by syscall, with syscall latencies. */
#include <stdlib.h>
#include <string.h>
#include "decode/summary.h"
#include "util/mem.h"

static struct rc_sum_count *find(struct rc_sum_count **items, size_t *n, size_t *cap, uint64_t key)
{
	size_t i;

	/* tables stay small (events, syscalls) or are searched newest first */
	for (i = *n; i > 0; i--)
		if ((*items)[i - 1].key == key)
			return &(*items)[i - 1];
	if (rc_ensure_arr(items, cap, *n + 1, 64))
		return NULL;
	memset(&(*items)[*n], 0, sizeof(**items));
	(*items)[*n].key = key;
	return &(*items)[(*n)++];
}

int rc_summary__add(struct rc_summary *s, const struct rc_meta *m, const struct rc_rec_hdr *rec)
{
	const struct rc_event_desc *ev = rc_schema__event(m->schema, rec->type);
	const struct rc_field *nr, *ret, *dur;
	struct rc_sum_count *c;

	if (!s->nrec || rec->ts < s->first_ts)
		s->first_ts = rec->ts;
	if (rec->ts > s->last_ts)
		s->last_ts = rec->ts;
	s->nrec++;
	c = find(&s->events, &s->nevents, &s->cap_events, rec->type);
	if (!c)
		return -ENOMEM;
	c->count++;
	c = find(&s->procs, &s->nprocs, &s->cap_procs,
		 ev && (ev->flags & RC_EVENT_NO_PID) ? RC_SUM_UNKNOWN : rec->pid);
	if (!c)
		return -ENOMEM;
	c->count++;
	memcpy(c->comm, rec->comm, sizeof(c->comm));
	c->comm[sizeof(c->comm) - 1] = '\0';

	if (!ev || strcmp(ev->name, "syscall"))
		return 0;
	nr = rc_event__field(ev, "nr");
	ret = rc_event__field(ev, "ret");
	dur = rc_event__field(ev, "duration");
	if (!nr)
		return 0;
	c = find(&s->syscalls, &s->nsyscalls, &s->cap_syscalls,
		 (rc_field__u64(nr, rec, 0) & 0xffffffffu) +
		     (rec->type == RC_EV_SYSCALL && (rec->flags & RC_SYSCALL_F_COMPAT) ? RC_SUM_COMPAT
											: 0));
	if (!c)
		return -ENOMEM;
	c->count++;
	if (ret) {
		int64_t v = rc_field__s64(ret, rec, 0);

		c->errors += v < 0 && v >= -4095;
	}
	if (dur) {
		uint64_t d = rc_field__u64(dur, rec, 0);

		c->total_ns += d;
		if (d > c->max_ns)
			c->max_ns = d;
	}
	return 0;
}

static int by_count(const void *a, const void *b)
{
	const struct rc_sum_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->key < y->key ? -1 : x->key > y->key;
}

void rc_summary__sort(struct rc_summary *s)
{
	if (s->nevents)
		qsort(s->events, s->nevents, sizeof(*s->events), by_count);
	if (s->nprocs)
		qsort(s->procs, s->nprocs, sizeof(*s->procs), by_count);
	if (s->nsyscalls)
		qsort(s->syscalls, s->nsyscalls, sizeof(*s->syscalls), by_count);
}

void rc_summary__free(struct rc_summary *s)
{
	free(s->events);
	free(s->procs);
	free(s->syscalls);
	memset(s, 0, sizeof(*s));
}

/* Add @c to table @items, @n, @cap: a row of its key, found or appended. */
static int merge_rows(struct rc_sum_count **items, size_t *n, size_t *cap,
		      const struct rc_sum_count *from, size_t nfrom, bool comm)
{
	size_t i;

	for (i = 0; i < nfrom; i++) {
		struct rc_sum_count *c = find(items, n, cap, from[i].key);

		if (!c)
			return -ENOMEM;
		c->count += from[i].count;
		c->errors += from[i].errors;
		c->total_ns += from[i].total_ns;
		c->max_ns = from[i].max_ns > c->max_ns ? from[i].max_ns : c->max_ns;
		if (comm) /* the later records' name, as rc_summary__add() keeps */
			memcpy(c->comm, from[i].comm, sizeof(c->comm));
	}
	return 0;
}

int rc_summary__merge(struct rc_summary *s, const struct rc_summary *later)
{
	if (!later->nrec)
		return 0;
	if (!s->nrec || later->first_ts < s->first_ts)
		s->first_ts = later->first_ts;
	if (later->last_ts > s->last_ts)
		s->last_ts = later->last_ts;
	s->nrec += later->nrec;
	return merge_rows(&s->events, &s->nevents, &s->cap_events, later->events,
			  later->nevents, false) ?:
	       merge_rows(&s->procs, &s->nprocs, &s->cap_procs, later->procs, later->nprocs,
			  true) ?:
	       merge_rows(&s->syscalls, &s->nsyscalls, &s->cap_syscalls, later->syscalls,
			  later->nsyscalls, false);
}
