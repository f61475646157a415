// SPDX-License-Identifier: GPL-2.0-only
/*
 * The reader of a perf event's data ring: mapping, data_head and data_tail
 * (tools/include/linux/ring_buffer.h), and the records between them, a
 * record that runs past the ring's end made whole in a side buffer as
 * perf_mmap__read_event() does (tools/lib/perf/mmap.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "capture/perf/ring.h"

#define HDR_SZ	 sizeof(struct perf_event_header)
#define WRAP_MAX 65536 /* a perf record's size is a u16 */

int rc_perf_ring__init(struct rc_perf_ring *r, void *base, size_t size)
{
	struct perf_event_mmap_page *meta = base;
	size_t off = meta->data_offset ?: (size_t)sysconf(_SC_PAGESIZE);

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (size < HDR_SZ || (size & (size - 1)))
		return -EINVAL;
	/* no record is larger than the ring, nor than a u16 */
	r->wrap = malloc(size < WRAP_MAX ? size : WRAP_MAX);
	if (!r->wrap)
		return -ENOMEM;
	r->meta = meta;
	r->data = (unsigned char *)base + off;
	r->size = size;
	r->mask = size - 1;
	return 0;
}

int rc_perf_ring__map(struct rc_perf_ring *r, int fd, size_t size, bool overwrite)
{
	size_t page = sysconf(_SC_PAGESIZE);
	void *p;
	int err;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (size < page || (size & (size - 1)))
		return -EINVAL;
	p = mmap(NULL, page + size, overwrite ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 0);
	if (p == MAP_FAILED)
		return -errno;
	err = rc_perf_ring__init(r, p, size);
	if (err) {
		munmap(p, page + size);
		return err;
	}
	r->fd = fd;
	r->map_len = page + size;
	return 0;
}

void rc_perf_ring__unmap(struct rc_perf_ring *r)
{
	if (r->map_len)
		munmap(r->meta, r->map_len);
	free(r->wrap);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

uint64_t rc_perf_ring__head(const struct rc_perf_ring *r)
{
	return __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
}

void rc_perf_ring__store_tail(struct rc_perf_ring *r, uint64_t tail)
{
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
}

void rc_perf_ring__copy(const struct rc_perf_ring *r, uint64_t pos, void *dst, size_t len)
{
	size_t off = pos & r->mask, first = r->size - off < len ? r->size - off : len;

	memcpy(dst, r->data + off, first);
	memcpy((unsigned char *)dst + first, r->data, len - first);
}

/* A header's size, checked against the @avail bytes there are from it. */
static bool size_ok(const struct perf_event_header *h, uint64_t avail)
{
	return h->size >= HDR_SZ && h->size % 8 == 0 && h->size <= avail;
}

static void fill(struct rc_perf_rec *rec, const struct perf_event_header *h, const void *data)
{
	rec->type = h->type;
	rec->misc = h->misc;
	rec->size = h->size;
	rec->data = data;
}

int rc_perf_ring__peek(struct rc_perf_ring *r, uint64_t pos, uint64_t head, struct rc_perf_rec *rec)
{
	uint64_t avail = head - pos, off = pos & r->mask;
	struct perf_event_header h;

	if (!avail)
		return 0;
	if (avail < HDR_SZ || avail > r->size)
		return -EBADMSG;
	rc_perf_ring__copy(r, pos, &h, sizeof(h));
	if (!size_ok(&h, avail))
		return -EBADMSG;
	if (off + h.size <= r->size) {
		fill(rec, &h, r->data + off);
	} else {
		rc_perf_ring__copy(r, pos, r->wrap, h.size);
		fill(rec, &h, r->wrap);
	}
	return 1;
}

int rc_perf_ring__next(struct rc_perf_ring *r, uint64_t *pos, uint64_t head,
		       struct rc_perf_rec *rec)
{
	int ret = rc_perf_ring__peek(r, *pos, head, rec);

	if (ret > 0)
		*pos += rec->size;
	else if (ret < 0)
		*pos = head;
	return ret;
}

size_t rc_perf_ring__copy_newest(const struct rc_perf_ring *r, uint64_t since, void *dst,
				 uint64_t *head, bool *wrapped)
{
	uint64_t now = rc_perf_ring__head(r), avail = since - now;

	*wrapped = avail > r->size;
	if (*wrapped)
		avail = r->size;
	rc_perf_ring__copy(r, now, dst, avail);
	*head = now;
	return avail;
}

int rc_perf_rec__parse(const void *buf, size_t len, struct rc_perf_rec *rec)
{
	struct perf_event_header h;

	if (!len)
		return 0;
	if (len < HDR_SZ)
		return -EBADMSG;
	memcpy(&h, buf, sizeof(h));
	if (!size_ok(&h, len))
		return -EBADMSG;
	fill(rec, &h, buf);
	return 1;
}
