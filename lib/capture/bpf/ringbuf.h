/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RINGCAP_RINGBUF_H
#define RINGCAP_RINGBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rc_ringbuf {
	unsigned long *cons;	   /* consumer_pos page */
	const unsigned long *prod; /* producer_pos page, then data */
	const unsigned char *data;
	uint64_t *asleep;	   /* the reader map's word (common.bpf.h), or NULL */
	size_t mark;		   /* with asleep: the programs wake us at this much pending */
	size_t size, mask, page;
	int epfd;
	uint64_t woken;	   /* waits a wakeup ended (with asleep: the programs') */
	uint64_t timeouts; /* waits that ran to their timeout */
	uint64_t found;	   /* waits that found the mark already reached, and did not sleep */
};

/*
 * Called for each record before it is copied: returns true to keep it.
 * A record the caller rejects (malformed) is consumed and not copied.
 */
typedef bool (*rc_ringbuf_count_fn)(void *ctx, const void *rec, uint32_t len);

/*
 * Map the ring of BPF ring buffer @map_fd, of @size bytes. @reader_fd: the
 * programs' reader map, whose word tells them when we sleep, and @mark the
 * bytes pending at which they wake us; or -1 when they leave wakeups to
 * the kernel.
 */
int rc_ringbuf__init(struct rc_ringbuf *rb, int map_fd, size_t size, int reader_fd,
		     size_t mark);
void rc_ringbuf__destroy(struct rc_ringbuf *rb);
/*
 * Wait for a wakeup: 1 woken, 0 timed out or interrupted, -errno. The
 * reader map's word says we sleep for as long as we do.
 */
int rc_ringbuf__wait(struct rc_ringbuf *rb, int timeout_ms);
/* Bytes produced and not yet consumed. */
size_t rc_ringbuf__pending(const struct rc_ringbuf *rb);
/*
 * Copy committed records into buf[*used..cap), advancing *used; stops at a
 * record still being written, at the end of the ring, or when buf is full.
 * Returns the number of records copied.
 */
long rc_ringbuf__read(struct rc_ringbuf *rb, void *buf, size_t cap, size_t *used,
		      rc_ringbuf_count_fn count, void *ctx);

#endif
