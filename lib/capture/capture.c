// SPDX-License-Identifier: GPL-2.0-only
/*
 * What every capture backend shares (backend.h): the defaults, the
 * header's meta, the one drain loop, and freeing the shared state.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capture/backend.h"

void rc_capture__init(struct rc_capture *c, const struct rc_record_opts *opts)
{
	memcpy(&c->opts, opts, opts->sz < sizeof(c->opts) ? opts->sz : sizeof(c->opts));
	c->clock_every = 1;
}

void rc_capture__fill_meta(struct rc_capture *c)
{
	struct rc_meta *m = &c->meta;
	uint64_t boot = rc_now_ns(CLOCK_BOOTTIME), wall = rc_now_ns(CLOCK_REALTIME);

	uname(&c->uts);
	m->clock_id = CLOCK_BOOTTIME;
	m->ncpus = c->ncpus;
	m->page_size = sysconf(_SC_PAGESIZE);
	m->recorder_pid = getpid();
	m->transport = c->transport;
	m->flags = c->opts.overwrite ? RC_META_OVERWRITE : 0;
	m->start_ts = boot;
	m->wall_offset_ns = (int64_t)(wall - boot);
	m->ringbuf_size = c->opts.ringbuf_size;
	m->host = c->uts.nodename;
	m->kernel = c->uts.release;
	m->arch = c->uts.machine;
	m->cmdline = c->opts.cmdline;
	m->schema = c->schema;
	m->notes = c->dset.notes;
	m->nnotes = c->dset.nnotes;
}

int rc_capture__drain(struct rc_capture *c, const struct rc_backend_ops *ops, int ms)
{
	uint64_t start = rc_now_ns(CLOCK_MONOTONIC), now = start, end = start + ms * 1000000ull;
	bool busy = c->opts.drain == RC_DRAIN_BUSY && !c->opts.overwrite;
	unsigned int spins = 0;
	long total = 0, n;
	int err;

	do {
		n = ops->read(c, end);
		if (n < 0)
			return n;
		total += n;
		/* busy: look at the clock every clock_every reads, busy ones included */
		if (busy && ++spins % c->clock_every)
			continue;
		now = rc_now_ns(CLOCK_MONOTONIC);
		if (now - c->last_stats >= RC_STATS_NS) {
			err = ops->push_stats(c);
			if (err)
				return err;
		}
		if (now - c->last_flush >= c->flush_ns) {
			c->last_flush = now;
			err = ops->flush(c);
			if (err)
				return err;
		}
		if (now >= end)
			break;
		if (!busy) {
			err = ops->wait(
			    c, rc_wait_ms(&c->opts, now, c->last_flush + c->flush_ns, end));
			if (err < 0)
				return err;
		}
	} while (now < end);
	err = ops->drained ? ops->drained(c) : 0;
	return err ?: (int)(total > INT32_MAX ? INT32_MAX : total);
}

void rc_capture__release(struct rc_capture *c)
{
	rc_writer__free(c->w);
	c->w = NULL;
	rc_dyn__free(&c->dset);
	rc_schema__free(c->schema);
	c->schema = NULL;
	free(c->last.entries);
	c->last.entries = NULL;
	if (c->stacks)
		rc_stacks__log(c->stacks);
	rc_stacks__free(c->stacks);
	c->stacks = NULL;
}
