/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RINGCAP_PERFBUF_H
#define RINGCAP_PERFBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "capture/bpf/ringbuf.h"
#include "capture/perf/ring.h"

/* One CPU's perf ring, and the record at its read position (the merge cursor). */
struct rc_pring {
	struct rc_perf_ring ring;
	uint32_t cpu;
	uint64_t tail;	/* forward: read up to here (data_tail once stored) */
	uint64_t head;	/* forward: data_head when last loaded */
	uint64_t lost;	/* PERF_RECORD_LOST counts seen */
	uint64_t owed;	/* lost counts not yet written: they go before the next record */
	uint64_t taken; /* records copied out */
	bool have;	/* the cursor holds a record */
	uint64_t ts;
	const unsigned char *rec; /* in the ring, or in its wrap buffer */
	uint32_t len;		  /* the record's own size */
	uint32_t step;		  /* the perf record's size */
	uint32_t pid, tid;	  /* user samples: the kernel's, of the task that wrote it */
	bool lost_readable;	  /* user samples: read() gives the kernel's lost count */
	/* overwrite: the head at the last snapshot, and the bytes copied out at this one */
	uint64_t snap_head;
	unsigned char *copy;
	size_t copy_len;
	bool wrapped;
};

struct rc_perfbuf_opts {
	size_t size;		/* per CPU: a power of two pages */
	uint32_t wakeup_events; /* wake the reader every this many records, or */
	uint32_t wakeup_bytes;	/* ... when this many bytes are pending (0, 0: half the ring) */
	bool overwrite;		/* flight recorder: the ring keeps the newest data */
	bool user_samples;	/* the samples hold another's records: stamp them (below) */
};

struct rc_perfbuf {
	struct rc_pring *rings;
	uint32_t nrings;
	int epfd;
	bool overwrite;
	bool no_hold_under_pressure; /* a ring over half full: merge all it holds */
	bool user_samples;
	uint64_t ts_fix;	     /* user samples: CLOCK_BOOTTIME - CLOCK_MONOTONIC */
	size_t size;
	uint64_t malformed;
};

/* Open a perf ring on every CPU, put them in @map_fd (a perf event array). */
int rc_perfbuf__init(struct rc_perfbuf *pb, int map_fd, uint32_t ncpus,
		     const struct rc_perfbuf_opts *opts);
void rc_perfbuf__destroy(struct rc_perfbuf *pb);
/* Wait for a wakeup: 1 woken, 0 timed out or interrupted, -errno. */
int rc_perfbuf__wait(struct rc_perfbuf *pb, int timeout_ms);
/*
 * The most bytes pending in any one CPU's ring (forward rings), or with
 * @sum, in all of them.
 */
size_t rc_perfbuf__pending(const struct rc_perfbuf *pb, bool sum);
/*
 * A record this recent may still have an older one in flight on another
 * CPU (its time taken, not yet in its ring): reads hold it back.
 */
#define RC_PERF_HOLD_NS 1000000ull

/*
 * Copy records with a timestamp up to @until - RC_PERF_HOLD_NS (under
 * pressure, a ring more than half full: up to @until; UINT64_MAX: all)
 * from every CPU into buf[*used..cap), merged in time order, advancing
 * each ring's tail only past what was copied. Before the first record
 * after a loss, a RC_REC_LOST record. Returns the number of ring records
 * copied. @until is the time the drain began reading: a bound that keeps
 * a read of rings filling faster than they are read from going on forever.
 */
long rc_perfbuf__read(struct rc_perfbuf *pb, void *buf, size_t cap, size_t *used, uint64_t until,
		      rc_ringbuf_count_fn count, void *ctx);

/*
 * User samples (record --bpf, a perf event array of the user's object): the
 * records carry no ringcap header, so the kernel stamps each sample with
 * its time, pid, tid and CPU as it writes it, and the rings are merged by
 * that time. The time is CLOCK_MONOTONIC's, which the kernel reads safely
 * in any context (its CLOCK_BOOTTIME is not NMI-safe, and a user's
 * program may run in an NMI); the reader adds the boot offset.
 */
struct rc_perf_sample {
	uint64_t ts;
	uint32_t cpu, pid, tid;
	const void *data; /* the raw data, valid during the call */
	uint32_t len;	  /* as the kernel padded it: a u32 size and data end on 8 bytes */
};

/* One sample; -errno stops the read. */
typedef int (*rc_perf_sample_fn)(void *ctx, const struct rc_perf_sample *s);
/* @n records lost on @cpu's ring, before one stamped @ts; -errno stops the read. */
typedef int (*rc_perf_lost_fn)(void *ctx, uint32_t cpu, uint64_t n, uint64_t ts);

/*
 * As rc_perfbuf__read(), for rings opened with user_samples: each sample
 * with a time up to @until, merged in time order, handed to @sample; the
 * losses before it first to @lost. Returns samples read, or the first
 * -errno of a callback.
 */
long rc_perfbuf__read_samples(struct rc_perfbuf *pb, uint64_t until, rc_perf_sample_fn sample,
			      rc_perf_lost_fn lost, void *ctx);
/*
 * At the end, the losses no sample followed, stamped @ts: those seen in
 * PERF_RECORD_LOST, and with PERF_FORMAT_LOST (Linux 6.0) those the kernel
 * counted but never got to write, as @lost's @at_end calls.
 */
int rc_perfbuf__put_owed(struct rc_perfbuf *pb, uint64_t ts, rc_perf_lost_fn lost,
			 rc_perf_lost_fn lost_at_end, void *ctx);

/* A record of a snapshot: where it is, in a ring's copy. */
struct rc_snap_ref {
	uint64_t ts;
	const unsigned char *rec;
	uint32_t len;
	uint32_t cpu;
};

struct rc_snapshot {
	struct rc_snap_ref *refs; /* in time order */
	size_t nrefs, cap;
	uint64_t taken_ts;
	uint64_t cut_ts; /* older records were dropped: a ring had overwritten its part */
	uint64_t cut;	 /* records dropped for that */
};

/* Called with the rings paused, their records copied: 0 or a negative errno. */
typedef int (*rc_perfbuf_paused_fn)(void *ctx);

/*
 * Overwrite rings: pause them, copy out what each holds that is newer than
 * the last snapshot, call @paused (if not NULL) with @ctx, resume, and list
 * the records in time order. Records older than the newest oldest-record
 * of a ring that wrapped are left out, so the snapshot has no gap. Valid
 * until the next call.
 */
int rc_perfbuf__snapshot(struct rc_perfbuf *pb, struct rc_snapshot *snap, rc_ringbuf_count_fn count,
			 rc_perfbuf_paused_fn paused, void *ctx);
void rc_snapshot__free(struct rc_snapshot *snap);

/* Wait on the --snapshot-on rings; 1 when a trigger fired (and consume it). */
int rc_notify__init(struct rc_perfbuf *nb, int map_fd, uint32_t ncpus);
int rc_notify__poll(struct rc_perfbuf *nb, int timeout_ms);

#endif
