/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ftrace-page chunk codec (RC_CODEC_FTRACE, ringcap-file(5)): walking
 * the events of the kernel's ftrace ring buffer (include/linux/ring_buffer.h,
 * events/header_event), building a chunk from ranges of those events as
 * they lie in the ring, and decoding such a chunk into ringcap records.
 * Its code: ftwalk.c (the walker, the id map), ftenc.c (the encoder) and
 * ftdec.c (the decoder); ftpage_int.h holds what they share.
 *
 * Pure data: no kernel, no file. A sub-buffer of the ring is
 *
 *   u64 time_stamp; u64 commit (low 30 bits: bytes of data); u8 data[]
 *
 * and its data is a sequence of 4-byte aligned events, each a u32 header
 * (type_len: low 5 bits; time_delta: high 27) then u32 array[] words:
 * data events (type_len 1..28: a payload of type_len * 4 bytes; 0: a
 * payload of array[0] - 4 bytes from offset 8), padding (29: the end when
 * time_delta is 0, else a discarded event of 4 + array[0] bytes), time
 * extends (30) and absolute time stamps (31). A data event's payload is
 * the tracepoint's raw record: u16 common_type, u8 common_flags, u8
 * common_preempt_count, s32 common_pid, then the event's fields.
 */
#ifndef RINGCAP_FTPAGE_H
#define RINGCAP_FTPAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/format.h"
#include "util/strbuf.h"

/* A range of events being walked. */
struct rc_ft_cursor {
	const unsigned char *buf; /* a range of events: a sub-buffer's data, or a fragment */
	uint32_t len;
	uint32_t pos; /* the next event header */
	uint64_t ts;  /* the time the next event's delta adds to */
};

/* A data event: its payload lies within the cursor's range. */
struct rc_ft_event {
	const unsigned char *data; /* the payload: the raw record, common_type first */
	uint32_t len;		   /* its bytes, at least 8, a multiple of 4 */
	uint64_t ts;
};

/**
 * rc_ft_next() - the next data event of a range
 * @c: the cursor; c->ts starts as the sub-buffer's time_stamp
 * @ev: set to the event
 *
 * Time extends, absolute time stamps and discarded events are applied or
 * skipped on the way. Every length is checked against the range first.
 *
 * Return: 1 and *@ev, with @c moved past the event; 0 at the end (pos ==
 * len, or end padding; c->pos is then len); -EBADMSG for a malformed event
 * (a header or array word past the end, a bad length, a payload under 8
 * bytes), with @c left at it.
 */
int rc_ft_next(struct rc_ft_cursor *c, struct rc_ft_event *ev);

/**
 * rc_ft_peek() - count the data events left in a range
 * @c: the cursor, not moved (a copy is walked)
 * @last: set to the time of the last data event; unchanged if there is none
 *
 * Return: the number of data events to the end, or -EBADMSG as rc_ft_next().
 */
long rc_ft_peek(const struct rc_ft_cursor *c, uint64_t *last);

/* ftrace event id -> ringcap event id, for the decoder */
struct rc_ft_id {
	uint32_t ftrace_id;
	uint16_t rc_id;
};

/* sorted by ftrace_id, each at most once */
struct rc_ft_idmap {
	const struct rc_ft_id *ids;
	uint32_t n;
};

/* The rc id of ftrace event @ftrace_id, or 0 when @ids does not describe it. */
uint16_t rc_ft_idmap__lookup(const struct rc_ft_idmap *ids, uint32_t ftrace_id);

/*
 * Fill @t->tgid and @t->comm for thread @tid (t->tid is set): 0, or a
 * negative errno when the task is unknown (its records then get pid = tid
 * and comm "<...>").
 */
typedef int (*rc_ft_task_fn)(void *ctx, uint32_t tid, struct rc_disk_task *t);

/* Builds FTRACE chunks, one at a time. */
struct rc_ftenc;

/**
 * rc_ftenc__new() - an encoder
 * @level: zstd level; 0: 1, as the writer's default
 * @no_compress: frames of stored blocks (as ringcap record --no-compress)
 * @fn: looks up each thread once a chunk (may be NULL: every task unknown)
 * @ctx: passed to @fn
 *
 * Return: the encoder, or NULL with errno set.
 */
struct rc_ftenc *rc_ftenc__new(int level, bool no_compress, rc_ft_task_fn fn, void *ctx);

/**
 * rc_ftenc__take() - take ftrace events into the chunk
 * @e: the encoder
 * @cpu: the CPU whose ring @c walks
 * @c: the events; moved past what was taken (pos and ts)
 * @until: take no event later than this
 *
 * The data events at @c with times up to @until go into the chunk as one
 * EVENTS fragment of @cpu. Their bytes are fed to zstd straight from
 * c->buf, with no copy of ours (none at all when compressing), so the
 * caller may reuse that memory as soon as this returns. Stops after a data
 * event (never between a TIME_EXTEND and its data event), before the
 * first later than @until, and before the chunk's decoded size or its
 * frame's content would pass RC_MAX_CHUNK_RAW. When every data event was
 * taken, @c moves to the end of the range. Each tid first seen in this
 * chunk is looked up with the task function once and written in a TASKS
 * fragment after the EVENTS fragment.
 *
 * A return of 0 with an event left at @c no later than @until means the
 * chunk is full: end it and take again.
 *
 * Return: the number of events taken (0: none); -EBADMSG for a malformed
 * event (those before it are taken, @c moved past them; nothing from it
 * on); -EIO when zstd fails (the chunk is lost: rc_ftenc__end() says so
 * and empties @e); -ENOMEM.
 */
long rc_ftenc__take(struct rc_ftenc *e, uint16_t cpu, struct rc_ft_cursor *c, uint64_t until);

/**
 * rc_ftenc__records() - add whole ringcap records as a RECORDS fragment
 * @e: the encoder
 * @recs: records, each starting with struct rc_rec_hdr (size checked)
 * @len: their bytes
 *
 * Return: 0; -EINVAL for a run of records that are not whole; -E2BIG when
 * they do not fit in the chunk (end it and add them to the next); -EIO,
 * -ENOMEM.
 */
int rc_ftenc__records(struct rc_ftenc *e, const void *recs, uint32_t len);

/*
 * Take only events of the ids in @ids (it must live as long as @e): others
 * (a write to the instance's trace_marker) are skipped and counted.
 */
void rc_ftenc__set_ids(struct rc_ftenc *e, const struct rc_ft_idmap *ids);
/* Events skipped so far for an id not in the map. */
uint64_t rc_ftenc__skipped(const struct rc_ftenc *e);

/* Records in the chunk so far. */
uint32_t rc_ftenc__nrec(const struct rc_ftenc *e);
/* Bytes of the records the chunk decodes to, so far. */
size_t rc_ftenc__raw_size(const struct rc_ftenc *e);

/**
 * rc_ftenc__end() - end the chunk
 * @e: the encoder; empty again afterwards, whatever the return
 * @dc: set to the chunk block's payload
 * @data: set to the frame, of dc->data_size bytes, valid until the next call on @e
 *
 * Return: 0; -ENODATA when the chunk holds no record; the error that lost
 * the chunk (-EIO, -ENOMEM).
 */
int rc_ftenc__end(struct rc_ftenc *e, struct rc_disk_chunk *dc, const void **data);
void rc_ftenc__free(struct rc_ftenc *e);

/**
 * rc_ftdec__chunk() - decode the content of an FTRACE chunk's frame
 * @buf: the fragments
 * @n: their bytes
 * @ids: the capture's ftrace ids
 * @ncpus: the capture's CPU count: EVENTS fragments of a CPU beyond are refused
 * @out: emptied, then the records, sorted by time, stable (ties keep
 *	fragment order, so each CPU's order holds)
 * @nrec: set to the number of records
 * @why: set to the reason on failure
 *
 * All the TASKS fragments are read before the events. A data event becomes
 * a record of its payload after struct rc_rec_hdr (ts; pid the task's
 * tgid, else tid; tid common_pid; type the rc id of common_type; size 40
 * plus the payload rounded up to 8; the fragment's cpu; comm the task's,
 * else "<...>" or for tid 0 "<idle>"), then zero padding. A RECORDS
 * fragment's records are copied as they are.
 *
 * Return: 0, -EBADMSG for anything malformed, -ENOMEM.
 */
int rc_ftdec__chunk(const void *buf, size_t n, const struct rc_ft_idmap *ids, uint32_t ncpus,
		    struct rc_strbuf *out, uint32_t *nrec, const char **why);

#endif /* RINGCAP_FTPAGE_H */
