// SPDX-License-Identifier: GPL-2.0-only
/*
 * The perf event array transport: one perf ring per CPU, each a metadata
 * page (struct perf_event_mmap_page: data_head, data_tail) and 2^n data
 * pages. BPF programs write records with bpf_perf_event_output(); the
 * kernel wraps each in a PERF_RECORD_SAMPLE (header, u32 size, data), and
 * when a ring is full it counts the loss and writes a PERF_RECORD_LOST
 * before the next record that fits.
 *
 * The rings are opened here and mapped by capture/perf/ring.c rather than
 * by libbpf's perf_buffer: libbpf maps them writable, and the kernel never
 * overwrites a writable ring, which the flight recorder needs.
 *
 * Forward rings are read in place (as perf_buffer__buffer() allows): every
 * CPU's next record is decoded where it lies, the oldest is copied out,
 * and a ring's tail moves only past what was copied, so the stream leaves
 * merged in time order without an intermediate copy, under pressure too. Only a record that
 * runs past the ring's end is first made whole in a side buffer (the ring
 * reader's).
 *
 * Overwrite rings (write_backward, mapped read-only) always hold the newest
 * data: the kernel writes from data_head downwards. A snapshot pauses
 * them, copies each out from data_head up to where the last snapshot
 * began (at most the ring's size), resumes them, and sorts what it copied.
 */
#include <linux/membarrier.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "events.h"
#include "capture/bpf/perfbuf.h"
#include "util/mem.h"
#include "util/util.h"

#define PERF_HDR_SZ sizeof(struct perf_event_header)

static int open_ring(struct rc_pring *r, uint32_t cpu, const struct rc_perfbuf_opts *o)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_type = PERF_SAMPLE_RAW,
		.sample_period = 1,
		.write_backward = o->overwrite,
	};
	int fd, err;

	if (o->user_samples) {
		attr.sample_type |= PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
		attr.use_clockid = 1;
		attr.clockid = CLOCK_MONOTONIC; /* NMI-safe: perfbuf.h */
		attr.read_format = PERF_FORMAT_LOST;
	}
	if (o->wakeup_bytes) {
		attr.watermark = 1;
		attr.wakeup_watermark = o->wakeup_bytes;
	} else {
		attr.wakeup_events = o->wakeup_events;
	}
	r->cpu = cpu;
	fd = syscall(SYS_perf_event_open, &attr, -1, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && errno == EINVAL && attr.read_format) {
		attr.read_format = 0; /* before Linux 6.0: losses after the last record unknown */
		fd = syscall(SYS_perf_event_open, &attr, -1, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	r->lost_readable = attr.read_format == PERF_FORMAT_LOST;
	err = rc_perf_ring__map(&r->ring, fd, o->size, o->overwrite);
	if (err) {
		close(fd);
		return err;
	}
	if (o->overwrite) {
		r->copy = malloc(o->size);
		if (!r->copy)
			return -ENOMEM;
	}
	return 0;
}

int rc_perfbuf__init(struct rc_perfbuf *pb, int map_fd, uint32_t ncpus,
		     const struct rc_perfbuf_opts *o)
{
	long page = sysconf(_SC_PAGESIZE);
	uint32_t cpu;
	int err;

	memset(pb, 0, sizeof(*pb));
	pb->epfd = -1;
	if (o->size < (size_t)page || (o->size & (o->size - 1)))
		return -EINVAL;
	pb->size = o->size;
	pb->overwrite = o->overwrite;
	pb->no_hold_under_pressure = true;
	pb->user_samples = o->user_samples;
	pb->rings = calloc(ncpus, sizeof(*pb->rings));
	if (!pb->rings)
		return -ENOMEM;
	pb->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (pb->epfd < 0) {
		err = -errno;
		goto err_out;
	}
	for (cpu = 0; cpu < ncpus; cpu++) {
		struct rc_pring *r = &pb->rings[pb->nrings];
		struct epoll_event ev = { .events = EPOLLIN };

		r->ring.fd = -1;
		err = open_ring(r, cpu, o);
		if (err == -ENODEV && !r->ring.meta) {
			pr_debug("perf ring: CPU %u is offline, skipped\n", cpu);
			continue;
		}
		pb->nrings++; /* destroy() cleans up what open_ring() got */
		if (err) {
			pr_warn("failed to open a perf ring on CPU %u: %s%s\n", cpu, strerror(-err),
				err == -EPERM || err == -ENOMEM
				    ? " (locked memory limit? try a smaller -m/--mmap-pages)"
				    : "");
			goto err_out;
		}
		if (bpf_map_update_elem(map_fd, &cpu, &r->ring.fd, BPF_ANY) < 0) {
			err = -errno;
			pr_warn("failed to put CPU %u's perf ring in the map: %s\n", cpu,
				strerror(errno));
			goto err_out;
		}
		ev.data.u32 = pb->nrings - 1;
		if (!o->overwrite && epoll_ctl(pb->epfd, EPOLL_CTL_ADD, r->ring.fd, &ev) < 0) {
			err = -errno;
			goto err_out;
		}
	}
	if (!pb->nrings) {
		err = -ENODEV;
		goto err_out;
	}
	return 0;

err_out:
	rc_perfbuf__destroy(pb);
	return err;
}

void rc_perfbuf__destroy(struct rc_perfbuf *pb)
{
	uint32_t i;

	for (i = 0; pb->rings && i < pb->nrings; i++) {
		struct rc_pring *r = &pb->rings[i];
		int fd = r->ring.fd;

		rc_perf_ring__unmap(&r->ring);
		if (fd >= 0)
			close(fd);
		free(r->copy);
	}
	free(pb->rings);
	if (pb->epfd >= 0)
		close(pb->epfd);
	memset(pb, 0, sizeof(*pb));
	pb->epfd = -1;
}

int rc_perfbuf__wait(struct rc_perfbuf *pb, int timeout_ms)
{
	struct epoll_event ev[8];
	int n = epoll_wait(pb->epfd, ev, 8, timeout_ms);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	return n > 0;
}

size_t rc_perfbuf__pending(const struct rc_perfbuf *pb, bool sum)
{
	size_t most = 0, all = 0;
	uint32_t i;

	for (i = 0; i < pb->nrings && !pb->overwrite; i++) {
		const struct rc_pring *r = &pb->rings[i];
		uint64_t n = rc_perf_ring__head(&r->ring) - r->tail;

		most = n > most ? n : most;
		all += n;
	}
	return sum ? all : most;
}

/*
 * A sample's data: our record, checked by @count. Returns its length, or 0
 * for one to skip (malformed, counted by @count).
 */
static uint32_t sample_record(const unsigned char *p, uint32_t step, rc_ringbuf_count_fn count,
			      void *ctx)
{
	struct rc_rec_hdr h;
	uint32_t raw;

	if (step < PERF_HDR_SZ + 4 + sizeof(h))
		return count(ctx, p, 0), 0;
	memcpy(&raw, p + PERF_HDR_SZ, sizeof(raw));
	if (raw > step - PERF_HDR_SZ - 4 || raw < sizeof(h))
		return count(ctx, p, 0), 0;
	memcpy(&h, p + PERF_HDR_SZ + 4, sizeof(h));
	/* the kernel pads the raw data to 8 bytes: the record says its own size */
	if (h.size > raw)
		return count(ctx, p, 0), 0;
	if (!count(ctx, p + PERF_HDR_SZ + 4, h.size))
		return 0;
	return h.size;
}

/* PERF_RECORD_LOST: header, u64 id, u64 lost; owed until written before a record. */
static void note_lost(struct rc_pring *r, const unsigned char *p, uint32_t size)
{
	uint64_t n;

	if (size < PERF_HDR_SZ + 16)
		return;
	memcpy(&n, p + PERF_HDR_SZ + 8, sizeof(n));
	r->lost += n;
	r->owed += n;
}

/*
 * A user sample: header, u32 pid, tid; u64 time; u32 cpu, res; u32 size,
 * then the raw data (perf_output_sample()'s order). Into @r's cursor;
 * false for one to skip (malformed, counted).
 */
static bool user_sample(struct rc_perfbuf *pb, struct rc_pring *r, const unsigned char *p,
			uint32_t step)
{
	const size_t fixed = PERF_HDR_SZ + 8 + 8 + 8 + 4;
	uint32_t raw;

	if (step < fixed) {
		pb->malformed++;
		return false;
	}
	memcpy(&r->pid, p + PERF_HDR_SZ, 4);
	memcpy(&r->tid, p + PERF_HDR_SZ + 4, 4);
	memcpy(&r->ts, p + PERF_HDR_SZ + 8, 8);
	r->ts += pb->ts_fix;
	memcpy(&raw, p + fixed - 4, 4);
	if (raw > step - fixed) {
		pb->malformed++;
		return false;
	}
	r->rec = p + fixed;
	r->len = raw;
	return true;
}

/* Decode the next record of a forward ring into its cursor; false when none is ready. */
static bool ring_peek(struct rc_perfbuf *pb, struct rc_pring *r, rc_ringbuf_count_fn count,
		      void *ctx)
{
	while (!r->have) {
		struct rc_perf_rec rec;
		const unsigned char *p;

		if (r->tail == r->head) {
			r->head = rc_perf_ring__head(&r->ring);
			if (r->tail == r->head)
				return false;
		}
		if (rc_perf_ring__peek(&r->ring, r->tail, r->head, &rec) < 0) {
			pb->malformed++; /* the kernel never writes this: resync at the head */
			r->tail = r->head;
			continue;
		}
		p = rec.data;
		if (rec.type == PERF_RECORD_SAMPLE && pb->user_samples) {
			if (user_sample(pb, r, p, rec.size)) {
				r->step = rec.size;
				r->have = true;
				return true;
			}
		} else if (rec.type == PERF_RECORD_SAMPLE) {
			r->len = sample_record(p, rec.size, count, ctx);
			if (r->len) {
				r->rec = p + PERF_HDR_SZ + 4;
				memcpy(&r->ts, r->rec, sizeof(r->ts));
				r->step = rec.size;
				r->have = true;
				return true;
			}
		} else if (rec.type == PERF_RECORD_LOST) {
			note_lost(r, p, rec.size);
		}
		r->tail += rec.size;
	}
	return true;
}

static void put_lost(unsigned char *dst, const struct rc_pring *r, uint64_t ts, uint64_t n,
		     uint32_t flags)
{
	struct rc_rec_lost l = {
		.hdr = { .ts = ts, .type = RC_REC_LOST, .size = sizeof(l), .cpu = r->cpu },
		.lost = n,
		.flags = flags,
	};

	memcpy(dst, &l, sizeof(l));
}

/* Copy the cursor's record (after the losses before it) if it fits. */
static bool take(struct rc_pring *r, unsigned char *out, size_t cap, size_t *pos)
{
	size_t need = r->len + (r->owed ? sizeof(struct rc_rec_lost) : 0);

	if (need > cap - *pos)
		return false;
	if (r->owed) {
		put_lost(out + *pos, r, r->ts, r->owed, 0);
		*pos += sizeof(struct rc_rec_lost);
		r->owed = 0;
	}
	memcpy(out + *pos, r->rec, r->len);
	*pos += r->len;
	r->tail += r->step;
	r->have = false;
	r->taken++;
	return true;
}

static void store_tails(struct rc_perfbuf *pb)
{
	uint32_t i;

	for (i = 0; i < pb->nrings; i++)
		rc_perf_ring__store_tail(&pb->rings[i].ring, pb->rings[i].tail);
}

/*
 * Under pressure: some ring more than half full. Holding back its newest
 * records for the in-flight ones of other CPUs would let it fill (a
 * 64 KiB ring fills in a fraction of the hold), so such a read merges
 * everything the rings hold, still in time order. A record still in
 * flight on another CPU (its time taken, not yet in its ring: the length
 * of a BPF program) then reaches the writer after later ones, well inside
 * its reorder window.
 */
static bool under_pressure(const struct rc_perfbuf *pb)
{
	uint32_t i;

	for (i = 0; i < pb->nrings; i++) {
		const struct rc_pring *r = &pb->rings[i];

		if (rc_perf_ring__head(&r->ring) - r->tail > r->ring.size / 2)
			return true;
	}
	return false;
}

/* What a read may take: up to @until, less the hold but under pressure. */
static uint64_t bound(const struct rc_perfbuf *pb, uint64_t until)
{
	if (until == UINT64_MAX || (pb->no_hold_under_pressure && under_pressure(pb)))
		return until;
	return until > RC_PERF_HOLD_NS ? until - RC_PERF_HOLD_NS : 0;
}

long rc_perfbuf__read(struct rc_perfbuf *pb, void *buf, size_t cap, size_t *used, uint64_t until,
		      rc_ringbuf_count_fn count, void *ctx)
{
	unsigned char *out = buf;
	size_t pos = *used;
	long n = 0;

	until = bound(pb, until);
	for (;;) {
		struct rc_pring *min = NULL;
		uint32_t i;

		/* a linear scan: the rings are few, and it is branch-predictable */
		for (i = 0; i < pb->nrings; i++) {
			struct rc_pring *r = &pb->rings[i];

			if (ring_peek(pb, r, count, ctx) && r->ts <= until &&
			    (!min || r->ts < min->ts))
				min = r;
		}
		if (!min || !take(min, out, cap, &pos))
			break;
		/* give space back as we go, not only at the end of a long read */
		if (++n % 1024 == 0)
			store_tails(pb);
	}
	store_tails(pb);
	*used = pos;
	return n;
}

/* Hand on the oldest sample of the rings (and the losses before it). */
static int give(struct rc_pring *r, rc_perf_sample_fn sample, rc_perf_lost_fn lost, void *ctx)
{
	struct rc_perf_sample smp = {
		.ts = r->ts, .cpu = r->cpu, .pid = r->pid, .tid = r->tid, .data = r->rec, .len = r->len
	};
	int err;

	if (r->owed) {
		err = lost(ctx, r->cpu, r->owed, r->ts);
		if (err)
			return err;
		r->owed = 0;
	}
	err = sample(ctx, &smp);
	if (err)
		return err;
	r->tail += r->step;
	r->have = false;
	r->taken++;
	return 0;
}

long rc_perfbuf__read_samples(struct rc_perfbuf *pb, uint64_t until, rc_perf_sample_fn sample,
			      rc_perf_lost_fn lost, void *ctx)
{
	long n = 0;
	int err = 0;

	/* the boot clock runs ahead of the monotonic one by the time suspended */
	pb->ts_fix = rc_now_ns(CLOCK_BOOTTIME) - rc_now_ns(CLOCK_MONOTONIC);
	until = bound(pb, until);
	while (!err) {
		struct rc_pring *min = NULL;
		uint32_t i;

		for (i = 0; i < pb->nrings; i++) {
			struct rc_pring *r = &pb->rings[i];

			if (ring_peek(pb, r, NULL, NULL) && r->ts <= until &&
			    (!min || r->ts < min->ts))
				min = r;
		}
		if (!min)
			break;
		err = give(min, sample, lost, ctx);
		if (!err && ++n % 1024 == 0)
			store_tails(pb);
	}
	store_tails(pb);
	return err ?: n;
}

/* The kernel's count of what a ring lost (PERF_FORMAT_LOST); false if unknown. */
static bool kernel_lost(const struct rc_pring *r, uint64_t *lost)
{
	uint64_t v[2];

	if (!r->lost_readable || read(r->ring.fd, v, sizeof(v)) != sizeof(v))
		return false;
	*lost = v[1];
	return true;
}

int rc_perfbuf__put_owed(struct rc_perfbuf *pb, uint64_t ts, rc_perf_lost_fn lost,
			 rc_perf_lost_fn lost_at_end, void *ctx)
{
	uint32_t i;
	int err = 0;

	for (i = 0; !err && i < pb->nrings; i++) {
		struct rc_pring *r = &pb->rings[i];
		uint64_t k;

		if (r->owed) {
			err = lost(ctx, r->cpu, r->owed, ts);
			r->owed = 0;
		}
		if (!err && kernel_lost(r, &k) && k > r->lost) {
			err = lost_at_end(ctx, r->cpu, k - r->lost, ts);
			r->lost = k;
		}
	}
	return err;
}

/* ---- overwrite rings: snapshots --------------------------------------- */

/* Every ring, even after one fails: a ring left paused would drop for good. */
static int pause_rings(struct rc_perfbuf *pb, int on)
{
	uint32_t i;
	int err = 0;

	for (i = 0; i < pb->nrings; i++)
		if (ioctl(pb->rings[i].ring.fd, PERF_EVENT_IOC_PAUSE_OUTPUT, on) < 0 && !err)
			err = -errno;
	return err;
}

/* Copy out what the ring got since the last snapshot: newest first. */
static void copy_out(struct rc_pring *r)
{
	r->copy_len =
	    rc_perf_ring__copy_newest(&r->ring, r->snap_head, r->copy, &r->snap_head, &r->wrapped);
}

static int add_ref(struct rc_snapshot *s, const struct rc_snap_ref *ref)
{
	int err = rc_ensure_arr(&s->refs, &s->cap, s->nrefs + 1, 4096);

	if (err)
		return err;
	s->refs[s->nrefs++] = *ref;
	return 0;
}

/*
 * List one ring's copied records (newest first). A ring that wrapped ends
 * in a record cut by the overwrite; its oldest whole record bounds the
 * snapshot. Returns that bound (0: none).
 */
static int list_ring(struct rc_perfbuf *pb, struct rc_pring *r, struct rc_snapshot *s,
		     rc_ringbuf_count_fn count, void *ctx, uint64_t *oldest)
{
	size_t pos = 0;
	int err;

	*oldest = 0;
	while (r->copy_len - pos >= PERF_HDR_SZ) {
		const unsigned char *p = r->copy + pos;
		struct rc_perf_rec h;

		if (rc_perf_rec__parse(p, r->copy_len - pos, &h) < 0) {
			if (!r->wrapped)
				pb->malformed++;
			break; /* wrapped: the oldest record, partly overwritten */
		}
		if (h.type == PERF_RECORD_SAMPLE) {
			uint32_t len = sample_record(p, h.size, count, ctx);
			struct rc_snap_ref ref = { .rec = p + PERF_HDR_SZ + 4,
						   .len = len,
						   .cpu = r->cpu };

			if (len) {
				memcpy(&ref.ts, ref.rec, sizeof(ref.ts));
				err = add_ref(s, &ref);
				if (err)
					return err;
				*oldest = ref.ts;
			}
		} else if (h.type == PERF_RECORD_LOST) {
			note_lost(r, p, h.size);
		}
		pos += h.size;
	}
	if (!r->wrapped)
		*oldest = 0;
	return 0;
}

static int cmp_ref(const void *a, const void *b)
{
	const struct rc_snap_ref *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	/* one ring's records: the copy holds them newest first */
	return x->rec < y->rec ? 1 : x->rec > y->rec ? -1 : 0;
}

int rc_perfbuf__snapshot(struct rc_perfbuf *pb, struct rc_snapshot *s, rc_ringbuf_count_fn count,
			 rc_perfbuf_paused_fn paused, void *ctx)
{
	uint64_t cut = 0, oldest;
	size_t i, k;
	int err;

	s->nrefs = 0;
	s->cut = 0;
	err = pause_rings(pb, 1);
	/*
	 * Pausing stops new writes, not one a program on another CPU has
	 * begun; on a wrapped ring it would tear the oldest record we copy.
	 * Programs run in RCU read-side sections: a grace period waits for it.
	 */
	if (!err && syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) < 0)
		usleep(10000);
	s->taken_ts = rc_now_ns(CLOCK_BOOTTIME);
	for (i = 0; !err && i < pb->nrings; i++)
		copy_out(&pb->rings[i]);
	/*
	 * Still paused: what the caller takes now (the counters) agrees with
	 * the copy, every event made by then in it or dropped.
	 */
	if (!err && paused)
		err = paused(ctx);
	/* resume before the slower work: what is lost while paused is counted */
	err = pause_rings(pb, 0) ?: err;
	if (err)
		return err;
	for (i = 0; i < pb->nrings; i++) {
		err = list_ring(pb, &pb->rings[i], s, count, ctx, &oldest);
		if (err)
			return err;
		cut = oldest > cut ? oldest : cut;
	}
	qsort(s->refs, s->nrefs, sizeof(*s->refs), cmp_ref);
	for (k = 0; k < s->nrefs && s->refs[k].ts < cut; k++)
		;
	s->cut = k;
	s->cut_ts = cut;
	memmove(s->refs, s->refs + k, (s->nrefs - k) * sizeof(*s->refs));
	s->nrefs -= k;
	return 0;
}

void rc_snapshot__free(struct rc_snapshot *s)
{
	free(s->refs);
	memset(s, 0, sizeof(*s));
}

/* ---- --snapshot-on: the trigger rings --------------------------------- */

int rc_notify__init(struct rc_perfbuf *nb, int map_fd, uint32_t ncpus)
{
	struct rc_perfbuf_opts o = { .size = sysconf(_SC_PAGESIZE), .wakeup_events = 1 };

	return rc_perfbuf__init(nb, map_fd, ncpus, &o);
}

int rc_notify__poll(struct rc_perfbuf *nb, int timeout_ms)
{
	int fired = 0, err = rc_perfbuf__wait(nb, timeout_ms);
	uint32_t i;

	if (err < 0)
		return err;
	for (i = 0; i < nb->nrings; i++) {
		struct rc_pring *r = &nb->rings[i];
		uint64_t head = rc_perf_ring__head(&r->ring);

		if (head != r->tail)
			fired = 1; /* any record: a trigger, or the loss of one */
		r->tail = head;
	}
	store_tails(nb);
	return fired;
}
