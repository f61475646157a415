// SPDX-License-Identifier: GPL-2.0-only
/*
 * A BPF ring buffer consumer that reads the mmapped ring directly and
 * copies whole batches of records into a caller's buffer, advancing the
 * consumer position once per batch (no per-record callback).
 *
 * Layout (kernel/bpf/ringbuf.c): page 0 holds consumer_pos (writable by
 * us), page 1 producer_pos, then the data area mapped twice in a row, so a
 * record that wraps around the end is still contiguous in our mapping.
 * Each record has an 8-byte header: u32 len (with BUSY and DISCARD bits),
 * u32 page offset; records are 8-byte aligned.
 *
 * Wakeups, when the programs choose them (a reader map): they submit with
 * BPF_RB_NO_WAKEUP, and force a wakeup only when we sleep and the mark's
 * worth is pending (rc_wakeup_flags() in common.bpf.h). We say when we
 * sleep in the word of the reader map, mapped here: set before
 * epoll_wait(), cleared after it. And we wait edge-triggered: the ring's
 * poll is ready whenever a byte is pending, so a level-triggered wait
 * returned at once all through a storm, and we read the ring a few
 * records at a time, bouncing producer_pos's cache line with the
 * producers on every record (with a 256K mark, twice the programs' cost).
 * Edge-triggered, we sleep until a wakeup, or the timeout.
 *
 * The word and the ring's positions are a store and a load on each side:
 * we set the word and then look at the positions; a program reserves
 * (moving producer_pos) and later reads the word. A full fence on our
 * side; on the programs' side nothing forces the order, and a program
 * that reads the word stale only leaves the wakeup to the next check, a
 * sixteenth of the mark later, or to our timeout.
 */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/bpf.h>
#include "capture/bpf/ringbuf.h"

#define RB_HDR_SZ 8u

/*
 * A record's copy: a small one (most are) a word at a time, inline, where
 * memcpy() of a length known only here is a call and its dispatch.
 */
static inline void copy_rec(unsigned char *dst, const unsigned char *src, uint32_t len)
{
	uint32_t i;

	if (len > 128 || len % 8) {
		memcpy(dst, src, len);
		return;
	}
	for (i = 0; i < len; i += 8)
		memcpy(dst + i, src + i, 8);
}

int rc_ringbuf__init(struct rc_ringbuf *rb, int map_fd, size_t size, int reader_fd,
		     size_t mark)
{
	struct epoll_event ev = { .events = reader_fd >= 0 ? EPOLLIN | EPOLLET : EPOLLIN };
	long page = sysconf(_SC_PAGESIZE);
	void *p;
	int err;

	memset(rb, 0, sizeof(*rb));
	rb->epfd = -1;
	rb->page = page;
	rb->mask = size - 1;
	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	rb->cons = p;
	/* producer page and twice the data, read-only */
	p = mmap(NULL, page + 2 * size, PROT_READ, MAP_SHARED, map_fd, page);
	if (p == MAP_FAILED) {
		err = -errno;
		goto err_out;
	}
	rb->prod = p;
	rb->data = (unsigned char *)p + page;
	rb->size = size;
	rb->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (rb->epfd < 0) {
		err = -errno;
		goto err_out;
	}
	if (epoll_ctl(rb->epfd, EPOLL_CTL_ADD, map_fd, &ev) < 0) {
		err = -errno;
		goto err_out;
	}
	if (reader_fd >= 0) {
		p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, reader_fd, 0);
		if (p == MAP_FAILED) {
			err = -errno;
			goto err_out;
		}
		rb->asleep = p;
		rb->mark = mark;
	}
	return 0;

err_out:
	rc_ringbuf__destroy(rb);
	return err;
}

void rc_ringbuf__destroy(struct rc_ringbuf *rb)
{
	if (rb->cons)
		munmap(rb->cons, rb->page);
	if (rb->prod)
		munmap((void *)rb->prod, rb->page + 2 * rb->size);
	if (rb->asleep)
		munmap(rb->asleep, rb->page);
	if (rb->epfd >= 0)
		close(rb->epfd);
	memset(rb, 0, sizeof(*rb));
	rb->epfd = -1;
}

int rc_ringbuf__wait(struct rc_ringbuf *rb, int timeout_ms)
{
	bool say = rb->asleep && timeout_ms;
	struct epoll_event ev;
	int n, err;

	if (say) {
		__atomic_store_n(rb->asleep, 1, __ATOMIC_SEQ_CST);
		if (rc_ringbuf__pending(rb) >= rb->mark) {
			__atomic_store_n(rb->asleep, 0, __ATOMIC_RELAXED);
			rb->found++;
			return 1; /* no program may look again before our timeout */
		}
	}
	n = epoll_wait(rb->epfd, &ev, 1, timeout_ms);
	err = errno;
	if (say)
		__atomic_store_n(rb->asleep, 0, __ATOMIC_RELAXED);
	if (n < 0)
		return err == EINTR ? 0 : -err;
	/* counted for the log (rc_bpf's stop): a reader never woken reads only at its timeouts */
	if (n > 0)
		rb->woken++;
	else if (timeout_ms)
		rb->timeouts++;
	return n;
}

size_t rc_ringbuf__pending(const struct rc_ringbuf *rb)
{
	unsigned long cons = __atomic_load_n(rb->cons, __ATOMIC_ACQUIRE);
	unsigned long prod = __atomic_load_n(rb->prod, __ATOMIC_ACQUIRE);

	return prod - cons;
}

long rc_ringbuf__read(struct rc_ringbuf *rb, void *buf, size_t cap, size_t *used,
		      rc_ringbuf_count_fn count, void *ctx)
{
	unsigned long cons = __atomic_load_n(rb->cons, __ATOMIC_ACQUIRE);
	unsigned long prod = __atomic_load_n(rb->prod, __ATOMIC_ACQUIRE);
	unsigned char *out = buf;
	size_t pos = *used;
	long n = 0;

	while (cons < prod) {
		const unsigned char *rec = rb->data + (cons & rb->mask);
		uint32_t len = __atomic_load_n((const uint32_t *)rec, __ATOMIC_ACQUIRE);
		uint32_t sz;

		if (len & BPF_RINGBUF_BUSY_BIT)
			break;
		sz = ((len & ~BPF_RINGBUF_DISCARD_BIT) + RB_HDR_SZ + 7) & ~7u;
		if (!(len & BPF_RINGBUF_DISCARD_BIT)) {
			uint32_t dlen = len & ~BPF_RINGBUF_DISCARD_BIT;

			/* full buffer: stop, unless the record could never fit */
			if (dlen > cap - pos && dlen <= cap)
				break;
			if (count(ctx, rec + RB_HDR_SZ, dlen) && dlen <= cap - pos) {
				copy_rec(out + pos, rec + RB_HDR_SZ, dlen);
				pos += dlen;
				n++;
			}
		}
		cons += sz;
		/* let the kernel reuse space as soon as a batch is taken */
		if (n % 256 == 0)
			__atomic_store_n(rb->cons, cons, __ATOMIC_RELEASE);
		if (cons >= prod)
			prod = __atomic_load_n(rb->prod, __ATOMIC_ACQUIRE);
	}
	__atomic_store_n(rb->cons, cons, __ATOMIC_RELEASE);
	*used = pos;
	return n;
}
