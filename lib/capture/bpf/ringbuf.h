/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RINGCAP_RINGBUF_H
#define RINGCAP_RINGBUF_H

#include <stddef.h>
#include <stdint.h>
#include "internal.h"

struct rc_ringbuf {
	unsigned long *cons;	   /* consumer_pos page */
	const unsigned long *prod; /* producer_pos page, then data */
	const unsigned char *data;
	size_t size, mask, page;
	int epfd;
};

/*
 * Called for each record before it is copied: returns true to keep it.
 * A record the caller rejects (malformed) is consumed and not copied.
 */
typedef bool (*rc_ringbuf_count_fn)(void *ctx, const void *rec, uint32_t len);

int rc_ringbuf__init(struct rc_ringbuf *rb, int map_fd, size_t size);
void rc_ringbuf__destroy(struct rc_ringbuf *rb);
/* Wait for a wakeup: 1 woken, 0 timed out or interrupted, -errno. */
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
