/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The capture engine's interface to its backends.
 *
 * A backend gets events from the kernel into the capture: bpf/ loads BPF
 * programs around a ring buffer or per-CPU perf rings; ftrace/ maps the
 * kernel's own event tracer's rings. Each embeds a struct rc_capture, the
 * state every backend shares, as its first member, and fills a struct
 * rc_backend_ops. rc_session (session.c) holds the two and runs what is
 * the same for all: opening the backend whose @transports hold the one
 * asked for, the one drain loop, the header's
 * meta, the counters' accessors and the one free path.
 */
#ifndef RINGCAP_CAPTURE_BACKEND_H
#define RINGCAP_CAPTURE_BACKEND_H

#include <linux/types.h>
#include <sys/utsname.h>
#include "events.h"
#include "capture/session.h"
#include "capture/dyn.h"
#include "capture/rotate.h"
#include "capture/stacks.h"

/* How often a drain writes what it read: --flush-ms, or --wakeup-ms alone, or 1 s. */
static inline uint64_t rc_flush_ns(const struct rc_record_opts *o)
{
	/* --wakeup-ms without --flush-ms: what was read is written as often */
	if (o->wakeup_ms && !o->flush_ms)
		return o->wakeup_ms * 1000000ull;
	return (o->flush_ms ? o->flush_ms : 1000) * 1000000ull;
}

/*
 * How long a drain may sleep at @now, in ms rounded up: until the next
 * flush or @end, whichever comes first, and --wakeup-ms at most (read at
 * least this often, woken or not).
 */
static inline int rc_wait_ms(const struct rc_record_opts *o, uint64_t now, uint64_t next_flush,
			     uint64_t end)
{
	uint64_t until = next_flush < end ? next_flush : end;

	if (o->wakeup_ms && now + o->wakeup_ms * 1000000ull < until)
		until = now + o->wakeup_ms * 1000000ull;
	return (until - now + 999999) / 1000000;
}

#define RC_STATS_NS 1000000000ull /* the counters go to the file once a second */
#define RC_SCHED_EVENTS                                                                            \
	(RC_EVENT_BIT(RC_EV_SCHED_SWITCH) | RC_EVENT_BIT(RC_EV_SCHED_WAKEUP) |                     \
	 RC_EVENT_BIT(RC_EV_SCHED_FORK) | RC_EVENT_BIT(RC_EV_SCHED_EXEC) |                         \
	 RC_EVENT_BIT(RC_EV_SCHED_EXIT))

/**
 * struct rc_capture - the state every backend shares
 * @opts: what record asked for (the backend may fill in defaults)
 * @transport: the transport in use (never RC_TRANSPORT_AUTO)
 * @ncpus: possible CPUs, rc_meta.ncpus
 * @schema: every event the capture can hold
 * @dset: the events described at record time (tracepoints, uprobes, --bpf)
 * @meta: the header, filled by rc_capture__fill_meta() at start
 * @uts: uname(), which @meta points into
 * @w: the capture file's writer; NULL when counting only
 * @last_stats: CLOCK_MONOTONIC of the last counters sent to the file
 * @last_flush: CLOCK_MONOTONIC of the last flush
 * @flush_ns: how often what was read is written (rc_flush_ns())
 * @clock_every: --drain busy: reads between two looks at the clock
 * @last: the counters last taken
 * @nrec_written: records in complete chunks (atomic: a writer thread may set it)
 * @written: bytes written (atomic)
 * @raw_written: bytes of records before compression (atomic)
 * @taken_written: bytes taken off records handed before they were
 *	written (samples' stack frames, written as a table): handed, so
 *	never to be written (atomic; the writing thread's)
 * @stacks: the stacks samples carry, taken off on the writer's thread (NULL: none)
 * @started: rc_session__start() succeeded
 * @stopped: rc_session__stop() ran
 * @has_file: records go to a file (@w is set); the drain's test, never @w,
 *	which the writing thread replaces at a switch
 * @wopts: every file's writer options
 * @fmeta: the header of the file being written (the writing thread's):
 *	@meta, with the file's own start, wall-clock offset and seq
 * @rot: the run's files (rotate.h), when @rotor_on: the writing thread's
 * @rotor_on: the files are named by a path (-o), so that they can switch
 * @next_switch: CLOCK_BOOTTIME of the next timed switch (--switch-output=TIME):
 *	the run's start plus a whole number of TIME, whatever the switches made
 * @switches_asked: switches the drain asked for
 * @switches_done: switches the writing thread made (atomic)
 * @switched: of those, the ones that began a new file (atomic)
 * @interrupted: rc_session__interrupt() was called, from a signal handler
 *	(atomic): the drain returns after its read
 * @switch_raw: @queued_raw when the last switch was asked: what the drain
 *	handed since went to the newest file
 * @limit: RC_LIMIT_* (capture/session.h; atomic): a cap was reached, the capture is to stop;
 *	@limit_msg says which, written before @limit is set
 * @limit_claim: 1 once a thread won the right to write @limit_msg (atomic)
 * @nrec_base: records of the files ended (the writing thread's)
 * @bytes_base: their bytes
 * @raw_base: their bytes of records before compression
 * @late_base: ftrace: late records counted in the files ended
 * @file_written: bytes of the current file (atomic)
 * @queued_raw: bytes of records the drain handed to be written, in all
 *	(the drain's): less @raw_written, what is still to be written
 * @ring_pending: bytes the rings held at the drain's last read, which a
 *	stop reads and writes too (--max-size; 0: the last counters' say)
 * @pending_est: bytes the file is still to get, a stop included (atomic:
 *	the drain's estimate, for --min-free on the thread that writes)
 * @salvaged: a write met a full disk, and the file was ended at its last
 *	complete chunk (rc_capture__write_failed()): nothing more is written
 */
struct rc_capture {
	struct rc_record_opts opts;
	enum rc_transport transport;
	int ncpus;
	struct rc_schema *schema;
	struct rc_dyn_set dset;
	struct rc_meta meta;
	struct utsname uts;
	struct rc_writer *w;
	uint64_t last_stats, last_flush, flush_ns;
	unsigned int clock_every;
	struct rc_stats last;
	uint64_t nrec_written, written, raw_written, taken_written;
	struct rc_stacks *stacks;
	bool started, stopped;
	bool has_file;
	struct rc_writer_opts wopts;
	struct rc_meta fmeta;
	struct rc_rotor rot;
	bool rotor_on;
	uint64_t next_switch;
	uint64_t switches_asked, switches_done, switched;
	uint64_t switch_raw;
	int interrupted;
	int limit, limit_claim;
	char limit_msg[768];
	uint64_t nrec_base, bytes_base, raw_base, late_base;
	uint64_t file_written;
	uint64_t queued_raw;
	uint64_t ring_pending;
	uint64_t pending_est;
	bool salvaged;
};

/* Bytes a file takes besides its records' chunks: counters, trailer, end. */
#define RC_STATS_ROOM (64u << 10)

/**
 * struct rc_backend_ops - what a backend does, called by the engine
 * @name: for messages
 * @transports: the transports it serves, a bit each (1u << enum rc_transport)
 * @open: make the capture (its first member the struct rc_capture),
 *	nothing traced yet; NULL and errno on error
 * @add_target: trace process @pid (and its threads) too
 * @start: turn tracing on and make @c->w (rc_capture__open_file()); @c->meta is filled
 * @read: read what is ready, up to a pass's worth; records read, or -errno
 * @wait: sleep until the rings have data or @ms pass; < 0 on error
 * @push_stats: take the counters and send them to the file
 * @flush: hand what was read to the file
 * @drained: the end of a drain call (optional)
 * @unsent: bytes of records read and not yet handed to be written (the
 *	batch being filled), which a file's size counts before it gets them
 *	(optional: none)
 * @sample: take the counters now into @c->last
 * @snapshot: flight recorder: write what the rings hold (optional: -EINVAL)
 * @stop: turn tracing off, read the rest, write the ledger, finish the file
 * @switch_file: end the file and go on in the next (rotation, SIGHUP): the
 *	counters to the file, then the switch, on the thread that writes
 * @emit_state: write what a reader needs beyond the header to stand on a
 *	file of its own (tasks, mappings, stacks); called for each new file
 *	and each snapshot (optional: nothing beyond the header yet)
 * @teardown: release the backend's own resources; the engine then frees
 *	the shared ones (rc_capture__release()) and the backend's struct,
 *	whose first member is its struct rc_capture
 */
struct rc_backend_ops {
	const char *name;
	uint32_t transports;
	struct rc_capture *(*open)(const struct rc_record_opts *opts);
	int (*add_target)(struct rc_capture *c, pid_t pid);
	int (*start)(struct rc_capture *c, int fd);
	long (*read)(struct rc_capture *c, uint64_t end);
	int (*wait)(struct rc_capture *c, int ms);
	int (*push_stats)(struct rc_capture *c);
	int (*flush)(struct rc_capture *c);
	int (*drained)(struct rc_capture *c);
	size_t (*unsent)(struct rc_capture *c);
	int (*sample)(struct rc_capture *c);
	long (*snapshot)(struct rc_capture *c, enum rc_snapshot_why why);
	int (*stop)(struct rc_capture *c);
	/* no more events made, at once (the stop reads what the rings hold): --max-size */
	int (*halt)(struct rc_capture *c);
	int (*switch_file)(struct rc_capture *c);
	int (*emit_state)(struct rc_capture *c);
	void (*teardown)(struct rc_capture *c);
};

/**
 * rc_capture__init() - the shared state's defaults
 * @c: zeroed, with the backend's struct
 * @opts: what record asked for, copied (up to its @sz)
 */
void rc_capture__init(struct rc_capture *c, const struct rc_record_opts *opts);

/**
 * rc_capture__fill_meta() - the header every backend writes
 * @c: the capture, with @transport, @ncpus, @schema and @dset set
 */
void rc_capture__fill_meta(struct rc_capture *c);

/**
 * rc_capture__switch() - switch files now (rc_session__switch())
 * @c: a started capture
 * @ops: its backend
 *
 * Return: 0, -EINVAL without files of a path, or the backend's error.
 */
int rc_capture__switch(struct rc_capture *c, const struct rc_backend_ops *ops);

/* Whether rc_session__interrupt() asked the drain to return (not cleared). */
static inline bool rc_capture__interrupted(const struct rc_capture *c)
{
	return __atomic_load_n(&c->interrupted, __ATOMIC_RELAXED);
}

/*
 * Whether a read is to return after its batch, before the stop: a signal
 * asked for it, or a cap was reached. The drain then returns, and the
 * caller stops the capture without a full ring's read more.
 */
static inline bool rc_capture__cut_read(const struct rc_capture *c)
{
	return !c->stopped &&
	       (rc_capture__interrupted(c) || __atomic_load_n(&c->limit, __ATOMIC_ACQUIRE));
}

/**
 * rc_capture__batch_caps() - the caps between two batches of a read
 * @c: a started capture, @ring_pending set to what the rings hold now
 *	(0: the last counters' figure), @queued_raw to what was handed to
 *	be written
 * @ops: its backend
 *
 * For a backend's read, between two batches it hands to be written: a
 * read of a full ring brings many. The estimate --min-free is checked
 * against on the writing thread is brought up to date, and a file rotated
 * by size switches among them, not after all of them. On the drain's
 * thread; no switch once stopping (the stop's backlog goes to the last
 * file, with the lost records a perf ring owes).
 *
 * Return: 0, or the backend's error.
 */
int rc_capture__batch_caps(struct rc_capture *c, const struct rc_backend_ops *ops);

/**
 * rc_capture__open_file() - the first file's writer, at start
 * @c: the capture, @meta filled
 * @fd: the caller's file; < 0: rotating, the file is made here from
 *	opts.output, else nothing is written
 *
 * Return: 0, or -errno (said).
 */
int rc_capture__open_file(struct rc_capture *c, int fd);

/**
 * rc_capture__next_file() - end the current file, start the next
 * @c: a capture writing to a file; called on the thread that writes
 * @base: the counters just written to the current file: the next one's BASE
 *
 * Finishes the file (every record held written, then the trailer), opens
 * the next (rotate.h), writes its header and @base, and has the stacks
 * defined again there.
 *
 * Return: 0, or -errno; on failure the capture has no file to go on in.
 */
int rc_capture__next_file(struct rc_capture *c, const struct rc_stats *base);

/**
 * rc_capture__check_space() - the caps, before writing: --min-free, --max-size
 * @c: a capture writing to a file; called on the thread that writes
 *
 * Deletes the run's oldest files for space when rotating; else, or when
 * that is not enough, sets @c->limit for the drain to stop.
 */
void rc_capture__check_space(struct rc_capture *c);

/**
 * rc_capture__write_failed() - a write of the file failed: end it complete if it can be
 * @c: the capture; called on the thread that writes
 * @err: the error
 *
 * On a full disk or the file size limit (ENOSPC, EDQUOT, EFBIG) the writer
 * is cut (rc_writer__cut()): nothing more is written, but the capture goes
 * on counting, and the file ends at its last complete chunk with the
 * counters of the whole recording. A rotated run stops there
 * (RC_LIMIT_NO_SPACE).
 *
 * Return: 0 when the writer was cut (or the file already ended); else @err.
 */
int rc_capture__write_failed(struct rc_capture *c, int err);

/**
 * rc_capture__set_limit() - stop the capture for a cap: @why, and the message
 * @c: the capture
 * @why: RC_LIMIT_*
 * @fmt: the message, printf-style, without newline
 */
void rc_capture__set_limit(struct rc_capture *c, int why, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/**
 * rc_capture__publish() - what the writing thread has written, for the drain
 * @c: the capture
 */
void rc_capture__publish(struct rc_capture *c);

/**
 * rc_stats__set_in_flight() - each entry's events made and neither dropped nor read yet
 * @st: counters just taken
 */
void rc_stats__set_in_flight(struct rc_stats *st);

/**
 * rc_capture__drain() - the one drain loop
 * @c: a started capture
 * @ops: its backend
 * @ms: how long
 *
 * Reads until @ms have passed, sending the counters once a second and
 * what was read every @c->flush_ns; between reads it waits on the rings
 * (--drain poll, and the flight recorder) or reads again (--drain busy).
 *
 * Return: records read (at most INT32_MAX), or -errno.
 */
int rc_capture__drain(struct rc_capture *c, const struct rc_backend_ops *ops, int ms);

/**
 * rc_capture__release() - free what every backend shares
 * @c: the capture; its backend's own resources are gone (@teardown)
 */
void rc_capture__release(struct rc_capture *c);

/* The backends, which the engine picks among by @transports. */
extern const struct rc_backend_ops rc_bpf_ops;
extern const struct rc_backend_ops rc_ftrace_ops;

/**
 * rc_features__probe_ftrace() - what --transport ftrace needs of the kernel, alone
 * @f: release, tracefs and ftrace_mmap filled in as rc_features__probe()
 *	fills them, the rest left as it is
 *
 * Without the BPF probes, which the ftrace transport does not need:
 * @f->ftrace_mmap says whether --ftrace-read=mmap can map its rings, as
 * record --check says.
 */
void rc_features__probe_ftrace(struct rc_features *f);

#endif /* RINGCAP_CAPTURE_BACKEND_H */
