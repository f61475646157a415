/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One reader of a perf event's data ring, for every perf event ringcap
 * maps: a metadata page (struct perf_event_mmap_page) and 2^n data pages
 * holding records that each begin with a struct perf_event_header.
 *
 * The contract with the kernel is tools/include/linux/ring_buffer.h's: load
 * data_head with acquire semantics before reading the records below it, and
 * store data_tail with release semantics once done with them, so the kernel
 * does not overwrite what is still being read.
 */
#ifndef RINGCAP_PERF_RING_H
#define RINGCAP_PERF_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* A mapped perf ring (or one built in memory, for tests). */
struct rc_perf_ring {
	int fd; /* the perf event's; -1 for a ring in memory. Not owned */
	struct perf_event_mmap_page *meta;
	unsigned char *data; /* the data area: size bytes */
	uint64_t size, mask;
	size_t map_len;	     /* bytes mapped; 0 for a ring in memory */
	unsigned char *wrap; /* a record that runs past the ring's end, made whole */
};

/* One record of a ring. */
struct rc_perf_rec {
	uint32_t type; /* PERF_RECORD_* */
	uint16_t misc;
	uint16_t size;	  /* the whole record's, header included: the step to the next */
	const void *data; /* the record from its header: in the ring, or whole in its wrap buffer */
};

/**
 * rc_perf_ring__init() - set up a reader over a ring already in memory
 * @r: the reader
 * @base: the metadata page; the data area follows at its data_offset
 *	(a page, when data_offset is 0: kernels before 4.1)
 * @size: the data area's size, a power of two of at least 8 bytes
 *
 * Used by rc_perf_ring__map(), and by tests on a ring built by hand.
 * @r->fd is set to -1. Release with rc_perf_ring__unmap().
 *
 * Return: 0; -EINVAL for a bad @size; -ENOMEM.
 */
int rc_perf_ring__init(struct rc_perf_ring *r, void *base, size_t size);

/**
 * rc_perf_ring__map() - map a perf event's ring
 * @r: the reader
 * @fd: the perf event, from perf_event_open(); stays the caller's to close
 * @size: the data area's size: a power of two pages
 * @overwrite: the event has attr.write_backward: map it read-only, so that
 *	the kernel overwrites the oldest records instead of dropping new ones
 *
 * Maps 1 + 2^n pages: read-write for a forward ring (the reader stores
 * data_tail), read-only for an overwrite ring. On error @r is left unmapped
 * (fd -1, meta NULL) and @fd open.
 *
 * Return: 0; -EINVAL for a bad @size; -errno from mmap(); -ENOMEM.
 */
int rc_perf_ring__map(struct rc_perf_ring *r, int fd, size_t size, bool overwrite);

/**
 * rc_perf_ring__unmap() - unmap a ring and free the reader's buffer
 * @r: the reader; may be zeroed or already unmapped
 *
 * A ring in memory (rc_perf_ring__init()) stays the caller's. The perf event's
 * fd is not closed. Leaves @r zeroed with fd -1.
 */
void rc_perf_ring__unmap(struct rc_perf_ring *r);

/**
 * rc_perf_ring__head() - load data_head, with acquire semantics
 * @r: the ring
 *
 * Records below the returned position are whole and may be read.
 *
 * Return: the kernel's write position (decreasing, for an overwrite ring).
 */
uint64_t rc_perf_ring__head(const struct rc_perf_ring *r);

/**
 * rc_perf_ring__store_tail() - store data_tail, with release semantics
 * @r: a forward ring
 * @tail: the position up to which the records were read and are done with
 *
 * The kernel may overwrite everything below @tail from then on.
 */
void rc_perf_ring__store_tail(struct rc_perf_ring *r, uint64_t tail);

/**
 * rc_perf_ring__copy() - copy bytes out of the ring, across its end if need be
 * @r: the ring
 * @pos: the ring position (any u64: it is masked)
 * @dst: where to copy
 * @len: at most the ring's size
 */
void rc_perf_ring__copy(const struct rc_perf_ring *r, uint64_t pos, void *dst, size_t len);

/**
 * rc_perf_ring__peek() - the record at a position of a forward ring
 * @r: the ring
 * @pos: the record's position: the tail, or the end of the previous record
 * @head: data_head, from rc_perf_ring__head()
 * @rec: set to the record when one is there
 *
 * Every size read from the ring is checked: @head - @pos within the ring's
 * size, and the header's size at least the header's, a multiple of 8 and
 * not past @head. A record that runs past the ring's end is copied whole
 * into the reader's wrap buffer: @rec->data is valid until the next peek.
 *
 * Return: 1 with @rec set; 0 when @pos is @head; -EBADMSG for a bad size
 * (the kernel never writes one: the caller counts it and resyncs at @head).
 */
int rc_perf_ring__peek(struct rc_perf_ring *r, uint64_t pos, uint64_t head,
		       struct rc_perf_rec *rec);

/**
 * rc_perf_ring__next() - iterate over the records between the tail and the head
 * @r: the ring
 * @pos: the iterator: start it at the tail; advanced past each record yielded,
 *	and to @head on a bad size
 * @head: data_head, from rc_perf_ring__head()
 * @rec: set to each record, as rc_perf_ring__peek() does
 *
 * Return: 1 with @rec set; 0 at @head; -EBADMSG for a bad size (the walk
 * may go on: *@pos is @head, so the next call returns 0).
 */
int rc_perf_ring__next(struct rc_perf_ring *r, uint64_t *pos, uint64_t head,
		       struct rc_perf_rec *rec);

/**
 * rc_perf_ring__copy_newest() - copy an overwrite ring out, newest record first
 * @r: a ring mapped with @overwrite, its output paused (PERF_EVENT_IOC_PAUSE_OUTPUT)
 * @since: data_head at the previous copy (0 at the first)
 * @dst: room for the ring's size
 * @head: set to data_head now: the next copy's @since
 * @wrapped: set when the kernel wrote more than the ring holds since @since:
 *	the last (oldest) record copied is then likely cut by an overwrite
 *
 * The kernel writes a backward ring from data_head downwards: the records
 * since the last copy lie from data_head up to @since, at most a ring's
 * worth. Walk the copy with rc_perf_rec__parse().
 *
 * Return: the bytes copied.
 */
size_t rc_perf_ring__copy_newest(const struct rc_perf_ring *r, uint64_t since, void *dst,
				 uint64_t *head, bool *wrapped);

/**
 * rc_perf_rec__parse() - the record at the start of a copied-out run of records
 * @buf: the record's header
 * @len: the bytes from @buf to the end of the run
 * @rec: set to the record (@rec->data is @buf)
 *
 * The size checks of rc_perf_ring__peek(), against @len.
 *
 * Return: 1 with @rec set; 0 when @len is 0; -EBADMSG for a bad size, or
 * fewer than a header's bytes left.
 */
int rc_perf_rec__parse(const void *buf, size_t len, struct rc_perf_rec *rec);

#endif
