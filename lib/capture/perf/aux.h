/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The consumer of a perf event's AUX area: a second ring in the event's
 * mmap, for raw hardware streams (Intel PT, ARM SPE, CoreSight), beside the
 * data ring that carries the records describing it.
 *
 * The contract (include/uapi/linux/perf_event.h, kernel/events/ring_buffer.c):
 * user space maps the data area (1 + 2^n pages) first, then writes
 * aux_offset (page-aligned, at or past the data area's end) and aux_size
 * (a power-of-two number of pages) into the metadata page and maps that
 * many bytes at that offset. aux_head and aux_tail follow the rules of
 * data_head and data_tail: load aux_head with acquire semantics before
 * reading the bytes below it, store aux_tail with release semantics once
 * done with them. Mapping the AUX area read-only selects overwrite mode:
 * the kernel ignores aux_tail and writes on over the oldest bytes, and the
 * event must be stopped while the area is read (a snapshot).
 *
 * The kernel describes each stretch of AUX bytes it wrote with a
 * PERF_RECORD_AUX in the data ring (offset, size, flags); those records can
 * be lost (PERF_RECORD_LOST) while the bytes are not, and the reverse.
 */
#ifndef RINGCAP_PERF_AUX_H
#define RINGCAP_PERF_AUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "capture/perf/ring.h"

/* The sample_id every AUX event's records carry (attr.sample_id_all): pid, tid, time, cpu. */
#define RC_AUX_SAMPLE_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

/**
 * struct rc_aux_ring - a perf event's data ring and AUX area, as read
 * @data: the data ring's reader: the metadata page is @data.meta
 * @aux: the AUX area: @aux_size bytes
 * @aux_size: a power of two
 * @aux_map_len: bytes mapped at @aux; 0 for an area in memory
 * @overwrite: overwrite mode (the area mapped read-only): read by snapshots
 * @tail: forward mode: the next byte to copy, aux_tail as last stored;
 *	overwrite mode: the bytes taken by the snapshots so far (a count of
 *	ringcap's: the kernel's head is an offset then)
 * @snap_off: overwrite mode: the area's write offset at the last snapshot
 * @wrapped: overwrite mode: the area has wrapped (bytes after the offset
 *	were written): each snapshot takes all of it
 */
struct rc_aux_ring {
	struct rc_perf_ring data;
	unsigned char *aux;
	uint64_t aux_size;
	size_t aux_map_len;
	bool overwrite;
	uint64_t tail;
	uint64_t snap_off;
	bool wrapped;
};

/**
 * struct rc_aux_span - the AUX bytes one read takes, in at most two pieces
 * @pos: the AUX position (a running byte count, as aux_head) of the first byte
 * @len: the bytes: @n[0] + @n[1]
 * @p: the pieces, in the area: the second is its start, after a wrap
 * @n: their lengths
 * @lost: forward mode: bytes of a head more than the area ahead of the
 *	tail, which the kernel never gives: counted, not read
 * @wrapped: overwrite mode: the whole area, which had wrapped: bytes
 *	before it were overwritten, how many is not known
 */
struct rc_aux_span {
	uint64_t pos;
	uint64_t len;
	const unsigned char *p[2];
	uint64_t n[2];
	uint64_t lost;
	bool wrapped;
};

/**
 * struct rc_aux_clock - the hardware clock's conversion to perf time
 * @time_zero: perf time (ns) at hardware count 0
 * @time_mult: with @time_shift: ns = count * @time_mult >> @time_shift
 * @time_shift: see @time_mult
 * @valid: the kernel set cap_user_time_zero: the fields mean something
 */
struct rc_aux_clock {
	uint64_t time_zero;
	uint32_t time_mult;
	uint16_t time_shift;
	bool valid;
};

/**
 * struct rc_aux_meta - a data-ring record of an AUX event, decoded
 * @type: PERF_RECORD_AUX, _ITRACE_START, _AUX_OUTPUT_HW_ID or _LOST
 * @offset: AUX: the AUX position of the first byte described
 * @size: AUX: bytes described
 * @flags: AUX: PERF_AUX_FLAG_*, the PMU-specific bits included
 * @hw_id: AUX_OUTPUT_HW_ID: the hardware's id for the event's trace
 * @lost: LOST: data-ring records the kernel lost
 * @pid: ITRACE_START: the task whose trace starts; else the sample_id's
 * @tid: as @pid
 * @time: the sample_id's time (the event's clock)
 * @cpu: the sample_id's CPU
 */
struct rc_aux_meta {
	uint32_t type;
	uint64_t offset, size, flags;
	uint64_t hw_id;
	uint64_t lost;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
};

/**
 * rc_aux_ring__init() - set up a reader over rings already in memory
 * @a: the reader
 * @base: the metadata page, the data area after it (rc_perf_ring__init())
 * @data_size: the data area's size, a power of two
 * @aux: the AUX area
 * @aux_size: its size, a power of two
 * @overwrite: read it in overwrite mode
 *
 * Used by rc_aux_ring__map(), and by tests on rings built in memory, where
 * a thread plays the kernel. Release with rc_aux_ring__unmap().
 *
 * Return: 0; -EINVAL for a bad size; -ENOMEM.
 */
int rc_aux_ring__init(struct rc_aux_ring *a, void *base, size_t data_size, void *aux,
		      size_t aux_size, bool overwrite);

/**
 * rc_aux_ring__map() - map a perf event's data area, then its AUX area
 * @a: the reader
 * @fd: the perf event; stays the caller's to close
 * @data_size: the data area's bytes: a power-of-two number of pages
 * @aux_size: the AUX area's bytes: a power-of-two number of pages
 * @overwrite: map the AUX area read-only: overwrite mode
 *
 * Return: 0; -EINVAL for a bad size; -errno from mmap() (the PMU's driver
 * says EOPNOTSUPP when it has no AUX area, ENOMEM when it cannot have one
 * that large); on error nothing stays mapped.
 */
int rc_aux_ring__map(struct rc_aux_ring *a, int fd, size_t data_size, size_t aux_size,
		     bool overwrite);

/**
 * rc_aux_ring__unmap() - unmap both areas and free the reader's buffers
 * @a: the reader; may be zeroed or already unmapped
 */
void rc_aux_ring__unmap(struct rc_aux_ring *a);

/**
 * rc_aux_ring__head() - load aux_head, with acquire semantics
 * @a: the reader
 *
 * Return: the kernel's AUX write position.
 */
uint64_t rc_aux_ring__head(const struct rc_aux_ring *a);

/**
 * rc_aux_ring__take() - the AUX bytes there are to read, in place
 * @a: the reader
 * @sp: set to the bytes; valid until rc_aux_ring__release()
 *
 * Forward mode: the bytes from the last release (aux_tail) up to aux_head,
 * as perf's auxtrace_mmap__read() takes them. Overwrite mode, with the event
 * stopped: aux_head is the drivers' offset into the area (Intel PT, BTS,
 * ARM SPE and CoreSight all give one in snapshot mode), as perf's
 * intel_pt_find_snapshot() takes it: the bytes since the last snapshot's
 * offset until the area wraps, then the whole area, oldest first from the
 * offset (@sp->wrapped; the area's bytes are zero until written, which
 * says whether it has).
 *
 * Return: 1 with @sp set, 0 when there is nothing new.
 */
int rc_aux_ring__take(struct rc_aux_ring *a, struct rc_aux_span *sp);

/**
 * rc_aux_ring__release() - done with the bytes of a take
 * @a: the reader
 * @sp: what rc_aux_ring__take() gave
 *
 * Forward mode: stores aux_tail past them with release semantics: the
 * kernel may write there from then on. Overwrite mode: remembers aux_head,
 * the next snapshot's start.
 */
void rc_aux_ring__release(struct rc_aux_ring *a, const struct rc_aux_span *sp);

/**
 * rc_aux_ring__clock() - the hardware clock's conversion, from the metadata page
 * @a: a mapped reader
 * @clk: set, under the page's seqlock
 */
void rc_aux_ring__clock(const struct rc_aux_ring *a, struct rc_aux_clock *clk);

/**
 * rc_aux_clock__to_perf() - a hardware count (a TSC packet's) to perf time
 * @clk: the conversion
 * @count: the count
 *
 * Return: perf time in ns; 0 when @clk is not valid.
 */
uint64_t rc_aux_clock__to_perf(const struct rc_aux_clock *clk, uint64_t count);

/**
 * rc_aux__parse_meta() - decode a data-ring record of an AUX event
 * @rec: the record (rc_perf_ring__next())
 * @m: set to what it says
 *
 * The record's sample_id is RC_AUX_SAMPLE_TYPE's. Every length is checked.
 *
 * Return: 1 for a record of the four types, with @m set; 0 for another
 * type (the caller skips it); -EBADMSG for a record too short for its type.
 */
int rc_aux__parse_meta(const struct rc_perf_rec *rec, struct rc_aux_meta *m);

/**
 * struct rc_aux_counts - what one CPU's AUX event did, as read (the ledger's)
 * @made: AUX bytes the kernel wrote, as far as known: those captured, and
 *	lost (overwrite mode cannot know what it overwrote: @wraps says when)
 * @captured: AUX bytes handed to the sink
 * @lost: AUX bytes of a bad head (forward mode): never from the kernel
 * @wraps: snapshots of a wrapped area: bytes before it overwritten
 * @records: PERF_RECORD_AUX records read
 * @truncated: of those, flagged TRUNCATED: the area was full and the PMU
 *	stopped; the kernel then disables the event, which the reader enables
 *	again once it has made room (@enables): its trace has a gap there
 * @partial: flagged PARTIAL: the stretch has gaps
 * @collision: flagged COLLISION: a sample collided with another
 * @meta_lost: data-ring records the kernel lost (PERF_RECORD_LOST)
 * @bad: data-ring records with a bad size: the reader skipped to the head
 * @enables: times the event was enabled (forward mode: at each read, for
 *	the kernel may have disabled it since)
 */
struct rc_aux_counts {
	uint64_t made, captured, lost, wraps;
	uint64_t records, truncated, partial, collision;
	uint64_t meta_lost, bad, enables;
};

/**
 * struct rc_aux_sink - where a CPU's AUX reads go
 * @bytes: AUX bytes, in place: copy them out; 0 or -errno
 * @meta: a data-ring record of the four types; 0 or -errno
 * @enable: enable the event (PERF_EVENT_IOC_ENABLE); NULL: leave it
 * @ctx: the sink's own
 */
struct rc_aux_sink {
	int (*bytes)(void *ctx, int cpu, const struct rc_aux_span *sp);
	int (*meta)(void *ctx, int cpu, const struct rc_aux_meta *m);
	int (*enable)(void *ctx, int cpu);
	void *ctx;
};

/**
 * struct rc_aux_cpu - one CPU's AUX event and what was read of it
 * @cpu: the CPU
 * @ring: its rings
 * @n: its counts
 */
struct rc_aux_cpu {
	int cpu;
	struct rc_aux_ring ring;
	struct rc_aux_counts n;
};

/**
 * rc_aux_cpu__read() - read one CPU's data ring and then its AUX area
 * @ac: the CPU; its ring in forward mode, or in overwrite mode with the
 *	event stopped (a snapshot)
 * @sink: where it goes
 *
 * The data ring's records first, up to data_head (data_tail stored after
 * them), then the AUX bytes up to aux_head, released once the sink has
 * them; then, in forward mode, the event is enabled through
 * @sink->enable (NULL: not), since the kernel disables it when a stretch
 * is cut or finds no room, and an enabled event's PERF_EVENT_IOC_ENABLE
 * does nothing. The kernel
 * writes a PERF_RECORD_AUX before it publishes aux_head: a record may
 * describe bytes the next read takes.
 *
 * Return: records and byte spans handed to the sink, or the sink's -errno.
 */
long rc_aux_cpu__read(struct rc_aux_cpu *ac, const struct rc_aux_sink *sink);

#endif /* RINGCAP_PERF_AUX_H */
