// SPDX-License-Identifier: GPL-2.0-only
/*
 * What every capture backend shares (backend.h): the defaults, the
 * header's meta, the one drain loop, and freeing the shared state.
 */
#include <ctype.h>
#include <limits.h>
#include <sys/random.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capture/backend.h"
#include "format/writer_int.h"
#include "util/sysfs.h"
#include "util/util.h"

void rc_capture__init(struct rc_capture *c, const struct rc_record_opts *opts)
{
	memcpy(&c->opts, opts, opts->sz < sizeof(c->opts) ? opts->sz : sizeof(c->opts));
	c->clock_every = 1;
}

/* --switch-output: the files are a run named after -o */
/* --switch-output: the files are a run named after -o */
static bool rotating(const struct rc_capture *c)
{
	return c->opts.switch_size || c->opts.switch_ns || c->opts.switch_signal;
}

/* The run's random id, and the kernel's boot id (zeros when it cannot be read). */
static void run_ids(struct rc_run *run)
{
	unsigned char id[16];
	size_t i, n = 0;
	char text[64];

	if (getrandom(run->id, sizeof(run->id), 0) != (ssize_t)sizeof(run->id)) {
		uint64_t a = rc_now_ns(CLOCK_REALTIME), b = rc_now_ns(CLOCK_MONOTONIC) ^ getpid();

		memcpy(run->id, &a, 8);
		memcpy(run->id + 8, &b, 8);
	}
	memset(run->boot_id, 0, sizeof(run->boot_id));
	if (rc_sysfs__read_line("/proc/sys/kernel/random/boot_id", text, sizeof(text)) < 0)
		return;
	for (i = 0; text[i] && n < 32; i++) {
		int v = isdigit((unsigned char)text[i])	   ? text[i] - '0'
			: isxdigit((unsigned char)text[i]) ? tolower((unsigned char)text[i]) - 'a' + 10
							   : -1;

		if (v < 0)
			continue;
		if (n % 2)
			id[n / 2] |= v;
		else
			id[n / 2] = v << 4;
		n++;
	}
	if (n == 32)
		memcpy(run->boot_id, id, sizeof(id));
}

/* @a + @b, or UINT64_MAX where it would wrap: a TIME of years is a grid point never reached */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
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
	run_ids(&m->run);
	m->run.seq = 1;
	m->run.flags = rotating(c) ? RC_RUN_F_ROTATING : 0;
	m->run.start_ts = m->start_ts;
	/*
	 * --switch-output=TIME: a grid from the first file's start, the
	 * instant its header and name give, in their clock (CLOCK_BOOTTIME,
	 * which a suspend does not stop, where CLOCK_MONOTONIC would shift
	 * every later point by the time suspended), so that file k starts
	 * at that plus k * TIME whatever the switches before it took
	 */
	if (c->opts.switch_ns)
		c->next_switch = sat_add(boot, c->opts.switch_ns);
}

/* The next file, on the drain's thread. */
static int ask_switch(struct rc_capture *c, const struct rc_backend_ops *ops)
{
	int err;

	if (__atomic_load_n(&c->limit, __ATOMIC_ACQUIRE))
		return 0; /* stopping: the file ends as it is */
	c->switches_asked++;
	err = ops->switch_file(c);
	/* after: the batch the switch hands to the file it ends is not the next one's */
	c->switch_raw = c->queued_raw;
	return err;
}

int rc_capture__switch(struct rc_capture *c, const struct rc_backend_ops *ops)
{
	if (!ops->switch_file || !c->rotor_on || !c->started || c->stopped)
		return -EINVAL;
	return ask_switch(c, ops);
}

/* Bytes written for a byte of records, as the run so far was compressed. */
static double written_ratio(struct rc_capture *c)
{
	uint64_t raw = __atomic_load_n(&c->raw_written, __ATOMIC_RELAXED);
	uint64_t all = __atomic_load_n(&c->written, __ATOMIC_RELAXED);

	return raw && all < raw ? (double)all / raw : 1.0;
}

/*
 * What the file is still to get: what was read and is not written yet,
 * and what the rings hold, which a stop reads and writes too, compressed
 * as the run so far was.
 */
static uint64_t pending_bytes(struct rc_capture *c, uint64_t *held)
{
	uint64_t raw = __atomic_load_n(&c->raw_written, __ATOMIC_ACQUIRE) +
		       __atomic_load_n(&c->taken_written, __ATOMIC_RELAXED);
	uint64_t pending = c->queued_raw > raw ? c->queued_raw - raw : 0;
	double ratio = written_ratio(c);

	/* what the writer holds: the file's already, whatever a switch does next */
	*held = (uint64_t)(pending * ratio);
	pending += c->ring_pending ?: c->last.ring_pending;
	return (uint64_t)(pending * ratio) + RC_STATS_ROOM;
}

/*
 * --max-size without rotation: stop once the file, with what it is still
 * to get, reaches it; the events stop being made at once, here on the
 * drain's thread, so that the file passes the cap by at most what the
 * rings held at this read, not what they get until the stop.
 */
static int check_max_size(struct rc_capture *c, const struct rc_backend_ops *ops, uint64_t file,
			  uint64_t pending)
{
	if (file + pending < c->opts.max_size)
		return 0;
	rc_capture__set_limit(c, RC_LIMIT_MAX_SIZE,
			      "the file reached --max-size=%llu MiB: stopping, with '%s' complete",
			      (unsigned long long)(c->opts.max_size >> 20),
			      c->opts.output ? c->opts.output : "the capture");
	return ops->halt ? ops->halt(c) : 0;
}

/*
 * The switch size: --switch-output's, or half of --max-size when that is
 * less. A file that reaches half of --max-size is switched too, whatever
 * else switches: it and the one before it fit under the cap together.
 */
static uint64_t switch_cap(const struct rc_capture *c)
{
	uint64_t cap = c->opts.switch_size;

	if (c->opts.max_size && !c->opts.overwrite && (!cap || c->opts.max_size / 2 < cap))
		cap = c->opts.max_size / 2;
	return cap;
}

/*
 * The newest file's size: what is written and what the writer holds (the
 * records the counters before a switch count go to the file it ends).
 * While the writer has not reached the last switch asked, what is written
 * is an older file's: the newest file's size is then what the drain handed
 * since that switch, so that a slow writer does not make the files it has
 * yet to start larger. Both count what the backend read and has not
 * handed over yet (@ops->unsent): it goes to this file, at the drain's end
 * or the next switch, with no check between. *@pending: what the file is
 * still to get.
 *
 * The switches first (acquire), the size after: the writer publishes the
 * new file's size before it counts the switch (release), so the size read
 * is never the old file's once the switch is seen. What is written, in
 * records (pending_bytes(), acquire), before the file's bytes: the writer
 * publishes the bytes first, so none written is missed by both.
 */
static uint64_t newest_file(struct rc_capture *c, const struct rc_backend_ops *ops,
			    uint64_t *pending)
{
	uint64_t done = __atomic_load_n(&c->switches_done, __ATOMIC_ACQUIRE);
	uint64_t unsent = ops->unsent ? ops->unsent(c) : 0, held, file;

	*pending = pending_bytes(c, &held);
	file = __atomic_load_n(&c->file_written, __ATOMIC_RELAXED);
	if (c->switches_asked != done) {
		/* no less than none: an ftrace chunk thrown away (salvaged) shrinks queued_raw */
		uint64_t since = c->queued_raw + unsent > c->switch_raw
					 ? c->queued_raw + unsent - c->switch_raw
					 : 0;

		return (uint64_t)(since * written_ratio(c));
	}
	return file + held + (uint64_t)(unsent * written_ratio(c));
}

int rc_capture__batch_caps(struct rc_capture *c, const struct rc_backend_ops *ops)
{
	uint64_t cap = switch_cap(c), pending, size;

	/*
	 * Not while stopping: the stop writes what is left, whatever the
	 * estimate; and a perf ring's lost records are written after the
	 * stop's drain, and belong in the file its counters end.
	 */
	if (!c->has_file || c->stopped)
		return 0;
	size = newest_file(c, ops, &pending);
	__atomic_store_n(&c->pending_est, pending, __ATOMIC_RELAXED);
	/*
	 * --max-size without rotation here too, not only after the read: a
	 * read of a storm goes on batch after batch, while the programs refill
	 * what it frees, and all of that would pass the cap.
	 */
	if (!rotating(c) && c->opts.max_size && c->started)
		return check_max_size(c, ops, __atomic_load_n(&c->file_written, __ATOMIC_RELAXED),
				      pending);
	if (!cap || !c->rotor_on || !rotating(c) || !ops->switch_file || !c->started)
		return 0;
	return size >= cap ? ask_switch(c, ops) : 0;
}

/*
 * --switch-output=TIME: whether a timed switch is due at @now, and if so
 * the next one moved to the first point of the grid after @now. The grid
 * (start + k * TIME, rc_capture__fill_meta()) never moves: a late switch
 * delays no later one, and the points missed while late are skipped, not
 * made up by switches back to back. Switches of other causes (a size, a
 * signal) leave it alone.
 */
static bool timed_switch_due(struct rc_capture *c, uint64_t now)
{
	uint64_t period = c->opts.switch_ns;

	if (!period || now < c->next_switch)
		return false;
	c->next_switch = sat_add(c->next_switch, ((now - c->next_switch) / period + 1) * period);
	return true;
}

/* Rotation by size or time, and --max-size without it: on the drain's thread. */
static int drain_caps(struct rc_capture *c, const struct rc_backend_ops *ops, uint64_t now)
{
	uint64_t size, pending, cap;
	bool timed;

	if (!c->has_file)
		return 0;
	size = newest_file(c, ops, &pending);
	/* for --min-free, checked on the thread that writes (rc_capture__check_space()) */
	__atomic_store_n(&c->pending_est, pending, __ATOMIC_RELAXED);
	if (!rotating(c)) {
		uint64_t file = __atomic_load_n(&c->file_written, __ATOMIC_RELAXED);

		return c->opts.max_size ? check_max_size(c, ops, file, pending) : 0;
	}
	cap = switch_cap(c);
	/* whatever the size says: one switch for both; the grid's clock (fill_meta()) */
	timed = timed_switch_due(c, rc_now_ns(CLOCK_BOOTTIME));
	if ((cap && size >= cap) || timed)
		return rc_capture__switch(c, ops);
	return 0;
}

/*
 * The next flush, or the next timed switch when sooner: the drain wakes for
 * both. @now is CLOCK_MONOTONIC, the grid CLOCK_BOOTTIME: the switch's
 * distance is taken in the grid's clock and added to @now.
 */
static uint64_t next_deadline(const struct rc_capture *c, uint64_t now)
{
	uint64_t flush = c->last_flush + c->flush_ns, boot, sw;

	if (!c->opts.switch_ns || !c->has_file)
		return flush;
	boot = rc_now_ns(CLOCK_BOOTTIME);
	if (c->next_switch <= boot)
		return now; /* due since drain_caps() looked: at once, not at the flush */
	sw = sat_add(now, c->next_switch - boot);
	return sw < flush ? sw : flush;
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
		if (busy && ++spins % c->clock_every && !rc_capture__cut_read(c))
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
		err = drain_caps(c, ops, now);
		if (err)
			return err;
		if (now >= end || __atomic_load_n(&c->limit, __ATOMIC_ACQUIRE) ||
		    __atomic_exchange_n(&c->interrupted, 0, __ATOMIC_RELAXED))
			break;
		if (!busy) {
			err = ops->wait(c, rc_wait_ms(&c->opts, now, next_deadline(c, now), end));
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
	rc_rotor__free(&c->rot);
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

void rc_capture__publish(struct rc_capture *c)
{
	const struct rc_trailer *tr = rc_writer__totals(c->w);
	uint64_t bytes = rc_writer__bytes(c->w);

	__atomic_store_n(&c->nrec_written, c->nrec_base + tr->nrec, __ATOMIC_RELAXED);
	__atomic_store_n(&c->written, c->bytes_base + bytes, __ATOMIC_RELAXED);
	__atomic_store_n(&c->file_written, bytes, __ATOMIC_RELAXED);
	/* last (release): the drain that sees these records written sees their bytes */
	__atomic_store_n(&c->raw_written, c->raw_base + tr->raw_bytes, __ATOMIC_RELEASE);
}

void rc_capture__set_limit(struct rc_capture *c, int why, const char *fmt, ...)
{
	int unclaimed = 0;
	va_list ap;

	/* the drain and the writer both set limits: the first to claim it writes the message */
	if (!__atomic_compare_exchange_n(&c->limit_claim, &unclaimed, 1, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return;
	va_start(ap, fmt);
	vsnprintf(c->limit_msg, sizeof(c->limit_msg), fmt, ap);
	va_end(ap);
	__atomic_store_n(&c->limit, why, __ATOMIC_RELEASE);
}

int rc_capture__open_file(struct rc_capture *c, int fd)
{
	int err;

	c->wopts = (struct rc_writer_opts){ .sz = sizeof(c->wopts),
					    .compress_level = c->opts.compress_level,
					    .no_compress = c->opts.no_compress };
	c->fmeta = c->meta;
	if (rotating(c) && !c->opts.output) {
		pr_warn("rotating files needs a path to name them by (-o), not stdout\n");
		return -EINVAL;
	}
	if (fd < 0 && !rotating(c))
		return 0; /* counting only */
	if (c->opts.output) {
		c->rot = (struct rc_rotor){ .path = c->opts.output,
					    .rotating = rotating(c),
					    .max_files = c->opts.switch_max_files,
					    .max_size = rotating(c) ? c->opts.max_size : 0,
					    .file_cb = c->opts.file_cb,
					    .file_ctx = c->opts.file_ctx,
					    .fd = -1 };
		err =
		    rc_rotor__start(&c->rot, rotating(c) ? -1 : fd,
				    (uint64_t)((int64_t)c->meta.start_ts + c->meta.wall_offset_ns));
		if (err)
			return err;
		c->rotor_on = true;
		fd = c->rot.fd;
	}
	c->w = rc_writer__new(fd, &c->fmeta, &c->wopts);
	if (!c->w)
		return -errno;
	c->has_file = true;
	rc_capture__publish(c);
	return 0;
}

/*
 * The next file could not be begun: the one that ended is complete, and
 * the run ends with it, cleanly; nothing more is written (as after a full
 * disk's salvage), and the message says so.
 */
static int no_next_file(struct rc_capture *c, int err, const char *ended)
{
	rc_capture__set_limit(c, RC_LIMIT_NO_FILE,
			      "the next file could not be made (%s): '%s' is complete, "
			      "and the capture stops there",
			      strerror(-err), ended);
	c->salvaged = true;
	return 0;
}

int rc_capture__next_file(struct rc_capture *c, const struct rc_stats *base)
{
	char ended[PATH_MAX];
	const struct rc_trailer *tr;
	uint64_t boot, wall, bytes;
	struct rc_writer *w;
	int err;

	/*
	 * A switch asked for before a limit was reached: the file ends as it
	 * is, the one the limit's message names.
	 */
	if (__atomic_load_n(&c->limit, __ATOMIC_ACQUIRE)) {
		__atomic_add_fetch(&c->switches_done, 1, __ATOMIC_RELEASE);
		return 0;
	}
	err = rc_writer__finish(c->w);
	if (err)
		return err;
	tr = rc_writer__totals(c->w);
	bytes = rc_writer__bytes(c->w);
	boot = rc_now_ns(CLOCK_BOOTTIME);
	wall = rc_now_ns(CLOCK_REALTIME);
	snprintf(ended, sizeof(ended), "%s", c->rot.cur);
	err = rc_rotor__next(&c->rot, bytes, wall);
	if (err)
		return no_next_file(c, err, ended);
	c->nrec_base += tr->nrec;
	c->raw_base += tr->raw_bytes;
	c->bytes_base += bytes;
	c->fmeta.start_ts = boot;
	c->fmeta.wall_offset_ns = (int64_t)(wall - boot);
	c->fmeta.run.seq = c->rot.seq;
	c->fmeta.run.flags |= RC_RUN_F_ROTATING;
	w = rc_writer__new(c->rot.fd, &c->fmeta, &c->wopts);
	if (!w) {
		/* a header cut short by a full disk: no such file left */
		err = -errno;
		rc_rotor__abandon(&c->rot, ended);
		c->fmeta.run.seq = c->rot.seq;
		return no_next_file(c, err, ended);
	}
	rc_writer__free(c->w);
	c->w = w;
	err = rc_writer__add_base(w, base);
	if (c->stacks)
		rc_stacks__new_file(c->stacks);
	/* the new file's size, then the switch counted: drain_caps() reads them the other way */
	rc_capture__publish(c);
	__atomic_add_fetch(&c->switched, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&c->switches_done, 1, __ATOMIC_RELEASE);
	return err;
}

void rc_capture__check_space(struct rc_capture *c)
{
	uint64_t avail, want;
	char fs[PATH_MAX];

	if (!c->rotor_on || __atomic_load_n(&c->limit, __ATOMIC_ACQUIRE))
		return;
	if (c->rot.rotating && c->opts.max_size)
		rc_rotor__prune(&c->rot, rc_writer__bytes(c->w));
	if (!c->opts.min_free || rc_rotor__free_bytes(&c->rot, &avail, NULL, 0))
		return;
	/* what the file is still to get, a stop included, must fit above the floor */
	want = c->opts.min_free + __atomic_load_n(&c->pending_est, __ATOMIC_RELAXED);
	if (avail >= want)
		return;
	/*
	 * A rotated run deletes its oldest file, one a check (before each
	 * batch): no more than it needs. When the deletion freed nothing (the
	 * file is open elsewhere, or a snapshot holds its blocks), deleting
	 * more would not help either: stop.
	 */
	if (c->rot.rotating && c->rot.nfiles) {
		uint64_t before = avail;

		rc_rotor__drop_oldest(&c->rot, "--min-free");
		if (rc_rotor__free_bytes(&c->rot, &avail, NULL, 0) || avail > before)
			return;
	}
	rc_rotor__free_bytes(&c->rot, &avail, fs, sizeof(fs));
	rc_capture__set_limit(c, RC_LIMIT_MIN_FREE,
			      "%s has %.1f MiB free and %.1f MiB still to write, which would "
			      "leave less than --min-free=%llu MiB: stopping, with '%s' complete",
			      fs, avail / 1048576.0, (want - c->opts.min_free) / 1048576.0,
			      (unsigned long long)(c->opts.min_free >> 20), c->rot.cur);
}

void rc_stats__set_in_flight(struct rc_stats *st)
{
	uint32_t i;

	for (i = 0; i < st->nentries; i++) {
		struct rc_stat_entry *e = &st->entries[i];
		uint64_t out = e->dropped + e->paused + e->captured;

		/*
		 * made can lag what was read (ftrace's meta page is updated at
		 * the reader ioctl and at wake-ups only; a per-CPU map is copied
		 * made[] before dropped[]): what was dropped or read was made.
		 */
		if (e->made < out)
			e->made = out;
		e->in_flight = e->made - out;
	}
}

int rc_capture__write_failed(struct rc_capture *c, int err)
{
	if (c->salvaged)
		return 0;
	if (!err || !c->w || rc_writer__cut(c->w) != err)
		return err;
	pr_warn("writing '%s' failed: %s: nothing more is written, and the file will end with "
		"its last complete chunk and the counters of the whole recording\n",
		c->rotor_on ? c->rot.cur : "the capture", strerror(-err));
	/* a rotated run's next file would find no room either: stop there */
	if (c->rot.rotating)
		rc_capture__set_limit(c, RC_LIMIT_NO_SPACE,
				      "writing failed: %s: '%s' ends with its last complete chunk "
				      "and the counters as they stood at the stop",
				      strerror(-err), c->rot.cur);
	rc_capture__publish(c);
	return 0;
}
