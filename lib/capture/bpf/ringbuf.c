// SPDX-License-Identifier: GPL-2.0-only
/*
 * A BPF ring buffer consumer that reads the mmapped ring directly and
 * copies whole batches of records into a caller's buffer, advancing the
 * consumer position once per batch (no per-record callback).
 *
 * Layout (kernel/bpf/ringbuf.c): page 0 holds consumer_pos (writable by
 * us), page 1 producer_pos, then the data area mapped twice in a row, so a
 * record that wraps around the end is still contiguous in our mapping.
 * The data is mapped once a ring has a record (rc_ringbuf__map_data()):
 * the kernel maps a mapping's every page when it is made, and a
 * recording that sees no event need not pay for twice its rings.
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
 * A ring per CPU (bpf/common.bpf.h, RC_KNOB_RINGBUF_PCPU): each is read
 * in place, as perfbuf.c reads perf rings: every ring's next committed
 * record is looked at where it lies, the oldest copied out, and a ring's
 * consumer position moves only past what was copied, so the records leave
 * merged in time order. A program takes a record's time after reserving
 * it, so a record in flight is in its ring already, marked busy, and
 * holds back the records behind it in that ring. Nothing newer is held
 * back, as perf rings are (RC_PERF_HOLD_NS): a record whose time was taken
 * just before another CPU's committed one, and is committed after our
 * read (bpf_ringbuf_output(), or a reserve preempted between the two),
 * comes microseconds out of order, which the writer's reorder window
 * sorts, as it does within one shared ring. A hold would leave those
 * bytes pending: the wakeup mark, counted over them, would find itself
 * reached at every wait, and the reader would spin on small rings (a
 * reviewer's 1M over two CPUs: about a million waits that did not sleep,
 * and twice one ring's drops). The wakeup mark is each ring's: a program asks its own
 * ring, and wakes us through it; all the rings are in one epoll set.
 *
 * The word and the ring's positions are a store and a load on each side:
 * we set the word and then look at the positions; a program reserves
 * (moving producer_pos) and later reads the word. A full fence on our
 * side; on the programs' side nothing forces the order, and a program
 * that reads the word stale only leaves the wakeup to the next check, a
 * sixteenth of the mark later, or to our timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include "capture/bpf/perfbuf.h"
#include "capture/bpf/ringbuf.h"
#include "capture/bpf/ringbuf_read.h"
#include "util/util.h"

/*
 * Map ring @r of map @map_fd (rb->size bytes), its position pages, and add
 * it to the epoll set. Its data is mapped when it has some
 * (rc_ringbuf__map_data()), through a copy of @map_fd kept until then:
 * the caller's may be closed first.
 */
static int map_ring(struct rc_ringbuf *rb, struct rc_bring *r, int map_fd, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.u32 = r - rb->rings };
	void *p;

	p = mmap(NULL, rb->page, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->cons = p;
	p = mmap(NULL, rb->page, PROT_READ, MAP_SHARED, map_fd, rb->page);
	if (p == MAP_FAILED)
		return -errno;
	r->prod = p;
	r->dfd = fcntl(map_fd, F_DUPFD_CLOEXEC, 3); /* never 0-2, were they closed */
	if (r->dfd < 0)
		return -errno;
	r->pos = r->end = __atomic_load_n(r->cons, __ATOMIC_ACQUIRE);
	if (epoll_ctl(rb->epfd, EPOLL_CTL_ADD, map_fd, &ev) < 0)
		return -errno;
	return 0;
}

int rc_ringbuf__map_data(struct rc_ringbuf *rb)
{
	uint32_t i;
	void *p;

	if (rb->mapped)
		return 0;
	if (!rc_ringbuf__pending(rb, true))
		return 0;
	for (i = 0; i < rb->nrings; i++) {
		struct rc_bring *r = &rb->rings[i];

		if (r->dmap)
			continue;
		/* the producer page and twice the data, read-only: a record that wraps is whole */
		p = mmap(NULL, rb->page + 2 * rb->size, PROT_READ, MAP_SHARED, r->dfd, rb->page);
		if (p == MAP_FAILED) {
			int err = -errno;

			pr_warn("failed to map BPF ring %u's data (%zu bytes): %s\n", i,
				rb->page + 2 * rb->size, strerror(-err));
			return err;
		}
		r->dmap = p;
		close(r->dfd);
		r->dfd = -1;
	}
	/* the reads see data only once every ring's is mapped: none taken out of its turn */
	for (i = 0; i < rb->nrings; i++)
		rb->rings[i].data = (const unsigned char *)rb->rings[i].dmap + rb->page;
	rb->mapped = true;
	return 0;
}

/* The set's common part: @n rings of @size bytes, not mapped yet. */
static int init_set(struct rc_ringbuf *rb, uint32_t n, size_t size, int reader_fd, size_t mark)
{
	uint32_t i;
	void *p;

	memset(rb, 0, sizeof(*rb));
	rb->epfd = -1;
	rb->page = sysconf(_SC_PAGESIZE);
	rb->size = size;
	rb->mask = size - 1;
	rb->rings = calloc(n, sizeof(*rb->rings));
	if (!rb->rings)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		rb->rings[i].fd = rb->rings[i].dfd = -1;
	rb->nrings = n;
	rb->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (rb->epfd < 0)
		return -errno;
	if (reader_fd >= 0) {
		p = mmap(NULL, rb->page, PROT_READ | PROT_WRITE, MAP_SHARED, reader_fd, 0);
		if (p == MAP_FAILED)
			return -errno;
		rb->asleep = p;
		rb->mark = mark;
	}
	return 0;
}

int rc_ringbuf__init(struct rc_ringbuf *rb, int map_fd, size_t size, int reader_fd,
		     size_t mark)
{
	uint32_t events = reader_fd >= 0 ? EPOLLIN | EPOLLET : EPOLLIN;
	int err;

	err = init_set(rb, 1, size, reader_fd, mark);
	err = err ?: map_ring(rb, &rb->rings[0], map_fd, events);
	if (err)
		rc_ringbuf__destroy(rb);
	return err;
}

/*
 * The rings into the array of maps. Each update of a map of maps waits a
 * grace period (the kernel's maybe_wait_bpf_programs(): 10-14 ms each
 * here); a batch waits once for all from Linux 6.8 (once per element
 * from 5.19, where arrays of maps took batches). A kernel without them
 * (5.10: ENOTSUPP) gets the rings one by one.
 */
static int put_rings(struct rc_ringbuf *rb, int outer_fd)
{
	uint32_t *keys, *fds, n = rb->nrings, i;
	int err = 0;

	keys = calloc(n, sizeof(*keys));
	fds = calloc(n, sizeof(*fds));
	if (!keys || !fds) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		keys[i] = rb->rings[i].cpu;
		fds[i] = (uint32_t)rb->rings[i].fd;
	}
	if (!bpf_map_update_batch(outer_fd, keys, fds, &n, NULL) && n == rb->nrings)
		goto out;
	for (i = 0; i < rb->nrings; i++)
		if (bpf_map_update_elem(outer_fd, &keys[i], &fds[i], BPF_ANY) < 0) {
			err = -errno;
			break;
		}
out:
	free(keys);
	free(fds);
	return err;
}

int rc_ringbuf__init_percpu(struct rc_ringbuf *rb, int outer_fd, const uint32_t *cpus,
			    uint32_t ncpus, size_t size, int reader_fd, size_t mark)
{
	uint32_t events = reader_fd >= 0 ? EPOLLIN | EPOLLET : EPOLLIN, i;
	int err;

	err = init_set(rb, ncpus, size, reader_fd, mark);
	for (i = 0; !err && i < ncpus; i++) {
		struct rc_bring *r = &rb->rings[i];

		r->cpu = cpus[i];
		r->fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "rc_ring", 0, 0, size, NULL);
		if (r->fd < 0) {
			err = -errno;
			break;
		}
		err = map_ring(rb, r, r->fd, events);
	}
	err = err ?: put_rings(rb, outer_fd);
	if (err)
		rc_ringbuf__destroy(rb);
	return err;
}

void rc_ringbuf__destroy(struct rc_ringbuf *rb)
{
	uint32_t i;

	for (i = 0; i < rb->nrings; i++) {
		struct rc_bring *r = &rb->rings[i];

		if (r->cons)
			munmap(r->cons, rb->page);
		if (r->prod)
			munmap((void *)r->prod, rb->page);
		if (r->dmap)
			munmap(r->dmap, rb->page + 2 * rb->size);
		if (r->dfd >= 0)
			close(r->dfd);
		if (r->fd >= 0)
			close(r->fd);
	}
	free(rb->rings);
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
	struct epoll_event ev[8];
	int n, err;

	if (say) {
		__atomic_store_n(rb->asleep, 1, __ATOMIC_SEQ_CST);
		if (rc_ringbuf__pending(rb, false) >= rb->mark) {
			__atomic_store_n(rb->asleep, 0, __ATOMIC_RELAXED);
			rb->found++;
			return 1; /* no program may look again before our timeout */
		}
	}
	n = epoll_wait(rb->epfd, ev, 8, timeout_ms);
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
	return n > 0;
}

static size_t ring_pending(const struct rc_bring *r)
{
	unsigned long cons = __atomic_load_n(r->cons, __ATOMIC_ACQUIRE);
	unsigned long prod = __atomic_load_n(r->prod, __ATOMIC_ACQUIRE);

	return prod - cons;
}

size_t rc_ringbuf__pending(const struct rc_ringbuf *rb, bool sum)
{
	size_t most = 0, all = 0, n;
	uint32_t i;

	for (i = 0; i < rb->nrings; i++) {
		n = ring_pending(&rb->rings[i]);
		most = n > most ? n : most;
		all += n;
	}
	return sum ? all : most;
}
