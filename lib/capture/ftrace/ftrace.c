// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ftrace transport: tracepoints recorded by the kernel's own event
 * tracer into a tracefs instance of ringcap's own (tracefs/instance.h),
 * whose per-CPU ring buffers are spliced from trace_pipe_raw, or mapped
 * into user space (Linux 6.10), and written to the capture as the kernel
 * wrote them (ftpage.h), without BPF. A backend of the capture engine
 * (capture/backend.h): rc_ftrace_ops.
 *
 * ringcap makes a tracefs instance of its own, instances/ringcap-PID, and
 * sets everything there: buffer size, clock, pid filter, comm filters,
 * event enables. Nothing outside it is written. Each CPU's trace_pipe_raw
 * is read by one of two readers (struct rc_ftrace_reader), chosen at open
 * (instance.c says why splice is the default):
 *
 * splice (the default; splice.c): whole sub-buffers spliced into a pipe
 * and read from it, the last one, which the kernel is still writing,
 * read() instead. Their bytes go to zstd as the kernel wrote them
 * (ftpage.h).
 *
 * mmap (--ftrace-read=mmap, Linux 6.10; rings.c): it is mapped
 * (Documentation/trace/ring-buffer-map.rst), a meta page, then the ring's
 * sub-buffers. TRACE_MMAP_IOCTL_GET_READER hands user space the next
 * sub-buffer, the reader page, which the kernel no longer writes once its
 * events are all committed; the kernel counts what it hands out as read.
 * Events are taken from the reader page in place, with no copy of ours:
 * the same capture.
 *
 * Order: a pass takes every CPU's events up to a watermark (order.h). A
 * chunk ends only between passes, so chunks follow each other in time, and
 * the reader merges the CPUs' events within each chunk.
 *
 * Losses: the instance overwrites its oldest events when a ring is full,
 * as ftrace does by default; the kernel counts them per CPU (the meta
 * page's overrun, per_cpu/cpuN/stats), and each increase becomes a
 * ringcap:lost record at the sub-buffer that follows the gap.
 */
#include <ctype.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "capture/ftrace/ft.h"
#include "format/writer_int.h"
#include "util/sysfs.h"
#include "util/util.h"

/* The hold of a pass: RC_FT_HOLD_NS, or less when a ring fills faster (order.h). */
static uint64_t hold_ns(const struct rc_ftrace *f)
{
	uint64_t hold = RC_FT_HOLD_NS;
	int i;

	for (i = 0; i < f->ncpus; i++)
		hold = rc_ftrace__hold(hold, f->cpus[i].ring_ns);
	return hold;
}

/* The rest of a sub-buffer that is not events: skipped, and said once. */
static void skip_malformed(struct rc_ftrace *f, struct rc_ftrace_cpu *c)
{
	if (!f->malformed++)
		pr_warn("cpu %d: a ring sub-buffer holds bytes that are not events: skipped\n",
			c->cpu);
	c->cur.pos = c->cur.len;
}

static int put_lost(struct rc_ftrace *f, struct rc_ftrace_cpu *c)
{
	struct rc_rec_lost l = {
		.hdr = { .ts = c->lost_ts > f->order.written_ts ? c->lost_ts : f->order.written_ts,
			 .type = RC_REC_LOST,
			 .size = sizeof(l),
			 .cpu = c->cpu },
		.lost = c->lost_pending,
	};
	int err = rc_ftenc__records(f->enc, &l, sizeof(l));

	if (err)
		return err;
	c->overrun += c->lost_pending;
	c->lost_pending = 0;
	return 0;
}

/* Where this CPU stands: the earliest time it may still produce an event at. */
static int look(struct rc_ftrace *f, struct rc_ftrace_cpu *c, uint64_t now, bool final)
{
	/* with nothing waiting, it may still be committing an event up to the hold old */
	uint64_t idle = rc_ftrace__idle_bound(&f->order, now, final), last;
	long n;
	int r;

	if (c->dry)
		return 0; /* empty at its last look in this process(): bound as then */
	r = f->rd->refill(f, c);
	if (r < 0)
		return r;
	last = c->cur.ts;
	if (r == 0) {
		/* no more ioctls for it until the next process() */
		c->dry = !final;
		c->bound = idle;
		return 0;
	}
	n = rc_ft_peek(&c->cur, &last);
	if (n < 0) {
		skip_malformed(f, c);
		return look(f, c, now, final);
	}
	c->bound = n ? last : idle;
	return 1;
}

static int end_chunk(struct rc_ftrace *f);

/*
 * Events about to be taken that are earlier than a record of a chunk
 * already written: more than the hold between their time and their commit.
 * They land out of order; counted, as the trailer's late.
 */
static void count_late(struct rc_ftrace *f, const struct rc_ftrace_cpu *c, uint64_t w)
{
	struct rc_ft_cursor k = c->cur;
	struct rc_ft_event ev;

	while (rc_ft_next(&k, &ev) > 0 && rc_ftrace__is_late(&f->order, ev.ts, w))
		f->order.late++;
}

/*
 * One pass: every CPU's events up to the watermark into the chunk. Returns
 * the events taken, or -errno.
 */
static long pass(struct rc_ftrace *f, bool final, bool *moved)
{
	uint64_t now = rc_now_ns(CLOCK_BOOTTIME), w = UINT64_MAX;
	long total = 0;
	int i, r;

	f->passes++;
	f->order.hold = hold_ns(f);
	for (i = 0; i < f->ncpus; i++) {
		struct rc_ftrace_cpu *c = &f->cpus[i];
		uint64_t taken = c->taken;
		uint32_t pos = c->cur.pos;

		r = look(f, c, now, final);
		/* a sub-buffer swapped in, or padding passed: progress without events */
		*moved |= c->taken != taken || c->cur.pos != pos;
		if (r < 0)
			return r;
		if (f->cpus[i].bound < w)
			w = f->cpus[i].bound;
	}
	w = rc_ftrace__advance(&f->order, w);
	for (i = 0; i < f->ncpus; i++) {
		struct rc_ftrace_cpu *c = &f->cpus[i];
		uint64_t skipped;
		uint32_t pos;
		long n;

		if (c->lost_pending && c->lost_ts <= w) {
			r = put_lost(f, c);
			if (r)
				return r;
		}
		count_late(f, c, w);
		skipped = rc_ftenc__skipped(f->enc);
		pos = c->cur.pos;
		n = rc_ftenc__take(f->enc, c->cpu, &c->cur, w);
		*moved |= c->cur.pos != pos;
		c->skipped += rc_ftenc__skipped(f->enc) - skipped;
		if (n == 0 && rc_ftenc__raw_size(f->enc) >= RC_MAX_CHUNK_RAW / 2) {
			/* the chunk is full (not with sub-buffers of the usual size) */
			r = end_chunk(f);
			n = r ? r : rc_ftenc__take(f->enc, c->cpu, &c->cur, w);
		}
		if (n == -EBADMSG) {
			skip_malformed(f, c);
			continue;
		}
		if (n < 0)
			return n;
		c->captured += n;
		total += n;
	}
	return total;
}

/* ---- the file ---------------------------------------------------------- */

/* Write the chunk being built, if it holds anything. */
static int end_chunk(struct rc_ftrace *f)
{
	struct rc_disk_chunk dc;
	const void *data;
	int err;

	if (!rc_ftenc__nrec(f->enc))
		return 0;
	err = rc_ftenc__end(f->enc, &dc, &data);
	if (err)
		return err;
	if (!f->c.w || f->c.salvaged) {
		rc_ftrace__written(&f->order, dc.last_ts);
		return 0; /* counting only, or the disk was full */
	}
	if (f->werr)
		return f->werr;
	rc_capture__check_space(&f->c);
	err = rc_capture__write_failed(&f->c, rc_writer__add_chunk(f->c.w, &dc, data));
	if (err) {
		f->werr = err;
		return err;
	}
	rc_ftrace__written(&f->order, dc.last_ts);
	rc_capture__publish(&f->c);
	return 0;
}

/*
 * What every CPU's ring holds unread (per_cpu/cpuN/stats' bytes): the stop
 * writes them all, not only the fullest (the counters' ring_pending).
 */
static uint64_t rings_pending(struct rc_ftrace *f)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < f->ncpus; i++) {
		struct rc_ftrace_kstats k;

		if (!rc_ftrace__read_kstats(f, &f->cpus[i], &k))
			sum += k.pending;
	}
	return sum;
}

/*
 * The caps between two chunks of one read: a spliced storm is read for as
 * long as the drain allows, many chunks, and a file rotated by size (or
 * capped by --max-size) is switched among them, not after all of them.
 */
static int chunk_caps(struct rc_ftrace *f)
{
	/* the chunk being built too: a pass's own full one leaves the rest there */
	f->c.queued_raw =
	    __atomic_load_n(&f->c.raw_written, __ATOMIC_RELAXED) + rc_ftenc__raw_size(f->enc);
	if (f->c.opts.max_size || f->c.opts.min_free)
		f->c.ring_pending = rings_pending(f);
	return rc_capture__batch_caps(&f->c, &rc_ftrace_ops);
}

/*
 * Passes until nothing more is ready, or until @until (CLOCK_MONOTONIC):
 * under a load it cannot keep up with, the drain still gets back to its
 * clock. A chunk ends between passes once full, and the caps are looked
 * at there, never within a pass: a pass's events, up to one watermark,
 * go to one file.
 */
static long process(struct rc_ftrace *f, bool final, uint64_t until)
{
	long total = 0, n;
	int err, i;

	for (i = 0; i < f->ncpus; i++)
		f->cpus[i].dry = false;
	do {
		uint64_t written = __atomic_load_n(&f->c.raw_written, __ATOMIC_RELAXED);
		bool moved = false;

		n = pass(f, final, &moved);
		if (n < 0)
			return n;
		total += n;
		err = rc_ftenc__raw_size(f->enc) >= CHUNK_RAW ? end_chunk(f) : 0;
		/* a chunk written, here or by the pass (a full one): between passes */
		if (!err && __atomic_load_n(&f->c.raw_written, __ATOMIC_RELAXED) != written)
			err = chunk_caps(f);
		if (err)
			return err;
		if (!n && !moved)
			break;
	} while (final || (rc_now_ns(CLOCK_MONOTONIC) < until && !rc_capture__cut_read(&f->c)));
	return total;
}

static bool mapped(const struct rc_ftrace *f, int cpu)
{
	int i;

	for (i = 0; i < f->ncpus; i++)
		if (f->cpus[i].cpu == cpu)
			return true;
	return false;
}

/*
 * A possible CPU without a mapped ring: offline when the capture started,
 * online since. What the kernel wrote there is not read: made, and lost
 * (per_cpu/cpuN/stats: what it holds, and what it overwrote).
 */
static bool unread_cpu(const struct rc_ftrace *f, int cpu, struct rc_stat_entry *e)
{
	char file[64], path[PATH_MAX], *text = NULL;
	uint64_t n;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	if (rc_tracefs_instance__path(&f->inst, path, sizeof(path), file) ||
	    rc_sysfs__read(path, SIZE_MAX, &text, NULL))
		return false;
	n = rc_ftrace__stat_value(text, "entries") + rc_ftrace__stat_value(text, "overrun") +
	    rc_ftrace__stat_value(text, "commit overrun") +
	    rc_ftrace__stat_value(text, "dropped events");
	free(text);
	if (!n)
		return false;
	*e = (struct rc_stat_entry){ .cpu = cpu, .type = RC_TYPE_ALL, .made = n, .dropped = n };
	return true;
}

static int take_stats(struct rc_ftrace *f)
{
	struct rc_stats *st = &f->c.last;
	uint64_t all = 0;
	int i;

	if (!st->entries) {
		st->entries =
		    calloc(f->c.ncpus > f->ncpus ? f->c.ncpus : f->ncpus, sizeof(*st->entries));
		if (!st->entries)
			return -ENOMEM;
	}
	st->ts = rc_now_ns(CLOCK_BOOTTIME);
	st->ring_size = f->buf_size;
	st->ring_pending = 0;
	st->nentries = f->ncpus;
	for (i = 0; i < f->ncpus; i++) {
		struct rc_ftrace_cpu *c = &f->cpus[i];
		struct rc_ftrace_kstats k;

		rc_ftrace__read_kstats(f, c, &k);
		/* as for the perf buffer: the fullest ring's; the stop reads them all */
		if (k.pending > st->ring_pending)
			st->ring_pending = k.pending;
		all += k.pending;
		if (k.pending > st->ring_hwm)
			st->ring_hwm = k.pending;
		st->entries[i] = (struct rc_stat_entry){
			.cpu = c->cpu,
			.type = RC_TYPE_ALL,
			.made = k.written + c->extra_lost - c->skipped,
			.filtered = c->skipped,
			.dropped = k.overrun + c->extra_lost,
			.captured = c->captured,
		};
	}
	for (i = 0; i < f->c.ncpus; i++) {
		if (!mapped(f, i) && unread_cpu(f, i, &st->entries[st->nentries]))
			st->nentries++;
	}
	rc_stats__set_in_flight(st);
	f->c.ring_pending = all; /* for --max-size and --min-free (pending_bytes()) */
	return 0;
}

static int write_stats(struct rc_ftrace *f)
{
	int err = take_stats(f);

	f->c.last_stats = rc_now_ns(CLOCK_MONOTONIC);
	if (err || !f->c.w || f->c.salvaged)
		return err;
	rc_capture__check_space(&f->c);
	err = f->werr ?: rc_capture__write_failed(&f->c, rc_writer__add_stats(f->c.w, &f->c.last));
	if (err)
		f->werr = err;
	rc_capture__publish(&f->c);
	return err;
}

/*
 * A switch, on the drain's thread, which writes here: the chunk being
 * built, the counters (every event they count as read is written), then
 * the next file with them as its BASE. The late events counted so far are
 * the file's.
 */
static int ft_switch(struct rc_capture *c)
{
	struct rc_ftrace *f = (struct rc_ftrace *)c;
	int err;

	if (!f->c.w || f->c.salvaged)
		return f->c.w ? 0 : -EINVAL;
	err = end_chunk(f) ?: write_stats(f);
	if (err)
		return err;
	rc_writer__add_late(f->c.w, f->order.late - f->c.late_base);
	f->c.late_base = f->order.late;
	err = rc_capture__next_file(&f->c, &f->c.last);
	if (err)
		f->werr = err;
	return err;
}

/* ---- the session ------------------------------------------------------- */

static int cmp_id(const void *a, const void *b)
{
	const struct rc_ft_id *x = a, *y = b;

	return x->ftrace_id < y->ftrace_id ? -1 : x->ftrace_id > y->ftrace_id;
}

/* The events' ftrace ids: what the encoder takes, and nothing else. */
static int make_idmap(struct rc_ftrace *f)
{
	size_t i;

	f->ids = calloc(f->c.dset.n, sizeof(*f->ids));
	if (!f->ids)
		return -ENOMEM;
	for (i = 0; i < f->c.dset.n; i++)
		f->ids[i] = (struct rc_ft_id){ .ftrace_id = f->c.dset.ev[i].tp.id,
					       .rc_id = f->c.dset.ev[i].id };
	qsort(f->ids, f->c.dset.n, sizeof(*f->ids), cmp_id);
	f->idmap = (struct rc_ft_idmap){ .ids = f->ids, .n = f->c.dset.n };
	return 0;
}

static void ft_teardown(struct rc_capture *c);

/*
 * One past the highest id in /sys/devices/system/cpu/possible ("0-3,8-11":
 * 12), so that every per_cpu/cpuN is looked at. libbpf's count of the
 * possible CPUs (8 there) is not an id.
 */
static int possible_cpus(void)
{
	char *text = NULL, *p;
	long hi = -1;

	if (!rc_sysfs__read("/sys/devices/system/cpu/possible", SIZE_MAX, &text, NULL)) {
		for (p = text; *p;) {
			char *end;
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			if (v > hi)
				hi = v;
			p = *end ? end + 1 : end;
		}
		free(text);
	}
	return hi >= 0 && hi < 65536 ? (int)hi + 1 : (int)sysconf(_SC_NPROCESSORS_CONF);
}

static struct rc_capture *ft_open(const struct rc_record_opts *opts)
{
	struct rc_ftrace *f;
	int err;

	f = calloc(1, sizeof(*f));
	if (!f)
		return rc_err_ptr(-ENOMEM);
	rc_capture__init(&f->c, opts);
	f->c.transport = RC_TRANSPORT_FTRACE;
	f->buf_size = f->c.opts.ringbuf_size ?: DEFAULT_BUF;
	f->c.opts.ringbuf_size = f->buf_size; /* the header says it */
	/* one past the highest possible CPU id: the ids may be sparse */
	f->c.ncpus = possible_cpus();
	err = rc_ftrace__choose_reader(f);
	if (err)
		goto err_out;
	if (f->c.opts.nuprobes || f->c.opts.bpf_object || f->c.opts.events || f->c.opts.overwrite) {
		pr_warn("--transport ftrace records tracepoints by name (-e SYSTEM:NAME), "
			"without BPF: ringcap's own events, uprobes, --bpf and --overwrite need "
			"--transport ringbuf or perfbuf\n");
		err = -EINVAL;
		goto err_out;
	}
	err = rc_ftrace__describe_events(f);
	if (err)
		goto err_out;
	rc_tracefs__clean_instances();
	err = rc_tracefs_instance__make(&f->inst);
	err = err ?: rc_ftrace__configure(f);
	err = err ?: rc_ftrace__open_cpus(f);
	if (err)
		goto err_out;
	/*
	 * zstd's level 1 by default, as the BPF transports': on ftrace's
	 * events it writes less than level 3, for about the same CPU
	 */
	f->enc = rc_ftenc__new(f->c.opts.compress_level, f->c.opts.no_compress,
			       rc_ftrace__task_lookup, f);
	if (!f->enc) {
		err = -errno;
		goto err_out;
	}
	err = make_idmap(f);
	if (err)
		goto err_out;
	rc_ftenc__set_ids(f->enc, &f->idmap);
	return &f->c;

err_out:
	ft_teardown(&f->c);
	rc_capture__release(&f->c);
	free(f);
	return rc_err_ptr(err);
}

/* A process's threads, all: set_event_pid matches threads, not processes. */
static struct rc_ftrace *to_ft(struct rc_capture *c)
{
	return (struct rc_ftrace *)c;
}

static int ft_add_target(struct rc_capture *c, pid_t pid)
{
	struct rc_ftrace *f = to_ft(c);
	char dir[64], v[32];
	struct dirent *de;
	int err = 0;
	DIR *d;

	snprintf(v, sizeof(v), "%d", (int)pid);
	err = rc_tracefs_instance__write(&f->inst, "set_event_pid", v, true);
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	if (!d)
		return err;
	while (!err && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]) || atoi(de->d_name) == pid)
			continue;
		err = rc_tracefs_instance__write(&f->inst, "set_event_pid", de->d_name, true);
	}
	closedir(d);
	return err;
}

static int ft_start(struct rc_capture *c, int fd)
{
	struct rc_ftrace *f = to_ft(c);
	int err;

	err = rc_tracefs_instance__write(&f->inst, "tracing_on", "1", false);
	if (err)
		return err;
	f->tracing = true;
	return rc_capture__open_file(&f->c, fd);
}

static int wait_rings(struct rc_ftrace *f, int ms)
{
	int i, n = poll(f->pfds, f->ncpus, ms);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (i = 0; i < f->ncpus; i++) {
		if (f->pfds[i].revents & (POLLERR | POLLNVAL))
			return -EIO;
	}
	return n;
}

static long ft_read(struct rc_capture *c, uint64_t end)
{
	struct rc_ftrace *f = to_ft(c);
	long n = process(f, false, end);

	/* what is taken and not written yet: the chunk being built */
	f->c.queued_raw =
	    __atomic_load_n(&f->c.raw_written, __ATOMIC_RELAXED) + rc_ftenc__raw_size(f->enc);
	return n;
}

static int ft_wait(struct rc_capture *c, int ms)
{
	return wait_rings(to_ft(c), ms);
}

static int ft_push_stats(struct rc_capture *c)
{
	return write_stats(to_ft(c));
}

static int ft_flush(struct rc_capture *c)
{
	return end_chunk(to_ft(c));
}

static int ft_sample(struct rc_capture *c)
{
	return take_stats(to_ft(c));
}

/*
 * tracing_on=0 stops new events, but not a writer already inside the ring
 * buffer: an event reserved before it and committed after the last look
 * would be neither read nor counted. Ring-buffer writers run with
 * preemption off, so an RCU grace period waits for them, and
 * MEMBARRIER_CMD_GLOBAL is one (synchronize_rcu(); the _EXPEDITED
 * commands are not). nohz_full kernels refuse it with EINVAL: said, once.
 */
static int wait_writers(void)
{
	if (!syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		return 0;
	if (errno == EINVAL)
		pr_warn("this kernel refuses MEMBARRIER_CMD_GLOBAL (nohz_full?): an event being "
			"written at the stop may be neither in the file nor counted\n");
	else
		pr_warn("membarrier: %s\n", strerror(errno));
	return 0;
}

static int ft_halt(struct rc_capture *cap)
{
	struct rc_ftrace *f = to_ft(cap);

	f->tracing = false;
	return rc_tracefs_instance__write(&f->inst, "tracing_on", "0", false);
}

static int ft_stop(struct rc_capture *cap)
{
	struct rc_ftrace *f = to_ft(cap);
	long n;
	int err, i;

	err = rc_tracefs_instance__write(&f->inst, "tracing_on", "0", false);
	f->tracing = false;
	err = err ?: wait_writers();
	n = err ? err : process(f, true, 0);
	err = n < 0 ? (int)n : 0;
	for (i = 0; !err && i < f->ncpus; i++) {
		struct rc_ftrace_cpu *c = &f->cpus[i];
		struct rc_ftrace_kstats k;

		rc_ftrace__read_kstats(f, c, &k);
		rc_ftrace__owe_overrun(c, k.overrun, c->cur.ts);
		if (c->lost_pending)
			err = put_lost(f, c);
		if (!err && c->captured + c->overrun + c->skipped != k.written)
			pr_warn("cpu %d: the kernel wrote %llu events; %llu were read and %llu "
				"overwritten\n",
				c->cpu, (unsigned long long)k.written,
				(unsigned long long)c->captured, (unsigned long long)c->overrun);
	}
	err = err ?: end_chunk(f);
	err = err ?: write_stats(f);
	if (f->malformed)
		pr_warn("%llu ring sub-buffers held bytes that were not events\n",
			(unsigned long long)f->malformed);
	if (rc_ftenc__skipped(f->enc))
		pr_warn("%llu entries in the ring were of no event recorded (a write to the "
			"instance's trace_marker?): skipped, counted as filtered\n",
			(unsigned long long)rc_ftenc__skipped(f->enc));
	for (i = 0; i < f->c.ncpus; i++) {
		struct rc_stat_entry e;

		if (!mapped(f, i) && unread_cpu(f, i, &e))
			pr_warn(
			    "cpu %d came online during the capture: its ring was not mapped, and "
			    "its %llu events are counted as lost\n",
			    i, (unsigned long long)e.made);
	}
	if (f->order.late)
		pr_warn("%llu events reached their ring after events of a later time were "
			"written: they are out of order in the file\n",
			(unsigned long long)f->order.late);
	if (f->c.w && !f->c.salvaged)
		rc_writer__add_late(f->c.w, f->order.late - f->c.late_base);
	if (!f->c.w || f->c.salvaged)
		return err;
	if (!err && !f->werr)
		err = rc_writer__finish(f->c.w);
	rc_capture__publish(&f->c);
	return err ?: f->werr;
}

static void ft_teardown(struct rc_capture *cap)
{
	struct rc_ftrace *f = to_ft(cap);

	if (f->tracing)
		rc_tracefs_instance__write(&f->inst, "tracing_on", "0", false);
	if (f->rd)
		rc_ftrace__close_cpus(f);
	rc_tracefs_instance__remove(&f->inst);
	rc_ftenc__free(f->enc);
	free(f->cpus);
	free(f->pfds);
	free(f->tasks);
	rc_idmap__free(&f->task_ids);
	free(f->ids);
	free(f->cmdlines);
}

const struct rc_backend_ops rc_ftrace_ops = {
	.name = "ftrace",
	.transports = 1u << RC_TRANSPORT_FTRACE,
	.open = ft_open,
	.add_target = ft_add_target,
	.start = ft_start,
	.read = ft_read,
	.wait = ft_wait,
	.push_stats = ft_push_stats,
	.flush = ft_flush,
	.sample = ft_sample,
	.switch_file = ft_switch,
	.stop = ft_stop,
	.halt = ft_halt,
	.teardown = ft_teardown,
};
