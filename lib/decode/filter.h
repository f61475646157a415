/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which records a reader keeps (lib/decode/filter.c).
 */
#ifndef RINGCAP_DECODE_FILTER_H
#define RINGCAP_DECODE_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/meta.h"

#define RC_MAX_EVENT_ID_API RC_MAX_EVENT_ID /* event ids are 1 to this (format/records.h) */

/**
 * struct rc_filter - which records to keep
 * @pids: only records of these processes; @npids 0: any
 * @tids: only of these threads; @ntids 0: any
 * @cpus: only of these CPUs; @ncpus 0: any
 * @npids: entries of @pids
 * @ntids: entries of @tids
 * @ncpus: entries of @cpus
 * @comm: only of threads of this name (as the kernel cuts it, 15
 *	characters); NULL: any
 * @events: NULL: any event; else indexed by event id, non-zero to keep
 *	(rc_filter__add_event() allocates it)
 * @since: the earliest time kept (capture clock); 0: from the start
 * @until: the latest time kept; UINT64_MAX: to the end. Not 0 for "any": a
 *	zeroed filter keeps only records of time 0
 *
 * The lists and @comm are the caller's; @events is freed by
 * rc_filter__free().
 */
struct rc_filter {
	const uint32_t *pids, *tids, *cpus;
	size_t npids, ntids, ncpus;
	const char *comm;
	uint8_t *events;
	uint64_t since, until;
};

/**
 * rc_filter__match() - whether a record passes a filter
 * @f: the filter
 * @m: the capture's header, for its schema
 * @rec: the record
 *
 * A pid, tid, cpu or comm the record's event does not know (RC_EVENT_NO_*)
 * passes no list of them and no @f->comm: it is not 0.
 *
 * Return: true when @rec passes every test of @f (all of them together).
 */
bool rc_filter__match(const struct rc_filter *f, const struct rc_meta *m,
		      const struct rc_rec_hdr *rec);

/**
 * rc_filter__add_event() - keep the records of an event or a group of them
 * @f: the filter
 * @s: the capture's schema
 * @name: an event's full name ("sched:sched_switch"), a group (every event
 *	named "GROUP:...", e.g. "sched"), or "syscalls" for the "syscall" event
 *
 * The first call allocates @f->events, failing or not: a filter that had
 * no event list keeps none then until an event is added.
 *
 * Return: 0; -ENOENT when no event of @s matches @name; or -ENOMEM.
 */
int rc_filter__add_event(struct rc_filter *f, const struct rc_schema *s, const char *name);

/**
 * rc_filter__free() - free what rc_filter__add_event() allocated
 * @f: the filter; @f->events is left NULL (any event)
 */
void rc_filter__free(struct rc_filter *f);

#endif /* RINGCAP_DECODE_FILTER_H */
