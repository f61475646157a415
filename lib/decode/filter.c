// SPDX-License-Identifier: GPL-2.0-only
/* Which records a report shows: by process, thread, command, CPU, event and time. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "decode/filter.h"

static bool in_list(const uint32_t *v, size_t n, uint32_t x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* Whether the record's pid, tid, cpu and comm pass: a value it does not know never does. */
static bool task_match(const struct rc_filter *f, const struct rc_meta *m,
		       const struct rc_rec_hdr *rec)
{
	unsigned int no;

	if (!f->npids && !f->ntids && !f->ncpus && !f->comm)
		return true;
	no = rc_rec__unknown(m->schema, rec);
	if (f->npids && ((no & RC_EVENT_NO_PID) || !in_list(f->pids, f->npids, rec->pid)))
		return false;
	if (f->ntids && ((no & RC_EVENT_NO_TID) || !in_list(f->tids, f->ntids, rec->tid)))
		return false;
	if (f->ncpus && ((no & RC_EVENT_NO_CPU) || !in_list(f->cpus, f->ncpus, rec->cpu)))
		return false;
	if (f->comm && ((no & RC_EVENT_NO_COMM) || strncmp(rec->comm, f->comm, sizeof(rec->comm))))
		return false;
	return true;
}

bool rc_filter__match(const struct rc_filter *f, const struct rc_meta *m,
		      const struct rc_rec_hdr *rec)
{
	if (rec->ts < f->since || rec->ts > f->until)
		return false;
	if (f->events && (rec->type > RC_MAX_EVENT_ID_API || !f->events[rec->type]))
		return false;
	return task_match(f, m, rec);
}

/* "sched:sched_switch", a group ("sched": every "sched:..."), or "syscalls". */
int rc_filter__add_event(struct rc_filter *f, const struct rc_schema *s, const char *name)
{
	size_t len = strlen(name);
	uint32_t i;
	int found = 0;

	if (!f->events) {
		f->events = calloc(RC_MAX_EVENT_ID_API + 1, 1);
		if (!f->events)
			return -ENOMEM;
	}
	for (i = 0; i < s->nevents; i++) {
		const char *ev = s->events[i].name;

		if (!strcmp(ev, name) || (!strncmp(ev, name, len) && ev[len] == ':') ||
		    (!strcmp(name, "syscalls") && !strcmp(ev, "syscall"))) {
			f->events[s->events[i].id] = 1;
			found++;
		}
	}
	return found ? 0 : -ENOENT;
}

void rc_filter__free(struct rc_filter *f)
{
	free(f->events);
	f->events = NULL;
}
