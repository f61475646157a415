/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RINGCAP_RINGBUF_H
#define RINGCAP_RINGBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One BPF ring buffer, mapped, and the merge's cursor in it. */
struct rc_bring {
	unsigned long *cons;	   /* consumer_pos page */
	const unsigned long *prod; /* producer_pos page */
	/*
	 * the data, mapped twice in a row, once a ring has any (NULL before:
	 * rc_ringbuf__map_data()); @dmap its mapping, the producer page
	 * first, and @dfd the ring's map until then
	 */
	const unsigned char *data;
	void *dmap;
	int dfd;
	unsigned long pos; /* a merged read: consumed up to here (cons once stored) */
	unsigned long end; /* ... and producer_pos when last loaded */
	/* a merged read's look at the ring's next committed record, at pos (peek()) */
	const unsigned char *hrec;
	uint64_t hts;
	uint32_t hlen;
	bool has; /* hrec, hlen, hts hold it */
	int fd;		   /* the ring's map, when the set made it; else -1 */
	uint32_t cpu;
};

/*
 * The BPF ring buffers the programs write to: the one ring, or one a CPU
 * (bpf/common.bpf.h, RC_KNOB_RINGBUF_PCPU), read merged in time order.
 */
struct rc_ringbuf {
	struct rc_bring *rings;
	uint32_t nrings;
	uint64_t *asleep; /* the reader map's word (common.bpf.h), or NULL */
	size_t mark;	  /* with asleep: the programs wake us at this much pending in a ring */
	size_t size, mask, page; /* each ring's */
	int epfd;
	uint64_t woken;	   /* waits a wakeup ended (with asleep: the programs') */
	uint64_t timeouts; /* waits that ran to their timeout */
	uint64_t found;	   /* waits that found the mark already reached, and did not sleep */
	bool mapped;	   /* every ring's data (rc_ringbuf__map_data()) */
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
/*
 * As rc_ringbuf__init(), with a ring of @size bytes for each CPU of
 * @cpus (@ncpus of them, ascending), made here and put in the map of maps
 * @outer_fd at its CPU's index. Returns 0 or -errno.
 */
int rc_ringbuf__init_percpu(struct rc_ringbuf *rb, int outer_fd, const uint32_t *cpus,
			    uint32_t ncpus, size_t size, int reader_fd, size_t mark);
void rc_ringbuf__destroy(struct rc_ringbuf *rb);
/*
 * Map the rings' data, all of them, once any ring has a record: until
 * then only their position pages are. A recording that sees no event
 * never maps them (the kernel maps a mapping's every page at mmap() time,
 * twice the ring's size). The
 * reads find no record in a ring whose data is not mapped yet. 0, or
 * -errno when a ring's data cannot be mapped.
 */
int rc_ringbuf__map_data(struct rc_ringbuf *rb);
/*
 * Wait for a wakeup: 1 woken, 0 timed out or interrupted, -errno. The
 * reader map's word says we sleep for as long as we do.
 */
int rc_ringbuf__wait(struct rc_ringbuf *rb, int timeout_ms);
/* Bytes produced and not yet consumed: in the fullest ring, or with @sum in all. */
size_t rc_ringbuf__pending(const struct rc_ringbuf *rb, bool sum);

#endif
