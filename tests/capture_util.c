// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <linux/types.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "events.h"
#include "capture_util.h"

void test_meta(struct rc_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->clock_id = 7;
	m->ncpus = 2;
	m->page_size = 4096;
	m->recorder_pid = 4242;
	m->transport = RC_TRANSPORT_RINGBUF;
	m->start_ts = 1000;
	m->wall_offset_ns = 1700000000000000000ll;
	m->ringbuf_size = 1 << 20;
	m->host = "testhost";
	m->kernel = "6.18.0-test";
	m->arch = "x86_64";
	m->cmdline = "ringcap record -- test";
	m->schema = rc_builtin_schema();
}

int slurp(const char *path, struct mem_capture *mc)
{
	struct stat sb;
	int fd = open(path, O_RDONLY), err = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) < 0) {
		err = -errno;
		goto out;
	}
	mc->len = sb.st_size;
	mc->buf = malloc(mc->len ? mc->len : 1);
	if (!mc->buf) {
		err = -ENOMEM;
		goto out;
	}
	if (pread(fd, mc->buf, mc->len, 0) != (ssize_t)mc->len)
		err = -EIO;
out:
	close(fd);
	return err;
}

int write_mem_capture(struct mem_capture *mc, const struct rc_writer_opts *wo, const void *recs,
		      size_t len, const struct rc_stats *st)
{
	struct rc_meta m;

	test_meta(&m);
	return write_meta_capture(mc, &m, wo, recs, len, st);
}

int write_meta_capture(struct mem_capture *mc, const struct rc_meta *m,
		       const struct rc_writer_opts *wo, const void *recs, size_t len,
		       const struct rc_stats *st)
{
	struct rc_writer *w;
	char path[64];
	int fd, err;

	fd = memfd_create("capture", 0);
	if (fd < 0)
		return -errno;
	w = rc_writer__new(fd, m, wo);
	if (!w) {
		err = -errno;
		close(fd);
		return err;
	}
	err = len ? rc_writer__add(w, recs, len) : 0;
	err = err ?: st ? rc_writer__add_stats(w, st) : 0;
	err = err ?: rc_writer__finish(w);
	rc_writer__free(w);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	err = err ?: slurp(path, mc);
	close(fd);
	return err;
}

int make_capture(struct mem_capture *mc, unsigned int n, size_t chunk)
{
	struct rc_writer_opts wo = { .sz = sizeof(wo), .chunk_size = chunk };
	struct rc_stat_entry se = { .cpu = 1,
				    .type = RC_EV_SYSCALL,
				    .made = n + 5,
				    .dropped = 5,
				    .filtered = 7,
				    .captured = n };
	struct rc_stats st = { .ts = 99,
			       .ring_size = 1 << 20,
			       .ring_hwm = 4096,
			       .ring_pending = 64,
			       .user_dropped = 0,
			       .writer_wait_ns = 1234,
			       .nentries = 1,
			       .entries = &se };
	struct rc_strbuf recs = {};
	unsigned int i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		struct rc_ev_syscall e = {};

		e.hdr.ts = 1000 + 10ull * i;
		e.hdr.pid = 100;
		e.hdr.tid = 101;
		e.hdr.type = RC_EV_SYSCALL;
		e.hdr.size = sizeof(e);
		e.hdr.cpu = i % 2;
		strcpy(e.hdr.comm, "unit");
		e.nr = 39;
		e.ret = i;
		e.duration = i;
		e.args[0] = i;
		err = rc_strbuf__append(&recs, &e, sizeof(e));
	}
	err = err ?: write_mem_capture(mc, &wo, recs.buf, recs.len, &st);
	rc_strbuf__free(&recs);
	return err;
}

long read_all_crc(const void *buf, size_t len, bool *truncated, uint32_t *crc)
{
	const struct rc_rec_hdr *rec;
	struct rc_reader *r;
	uLong c = 0;
	long n = 0;
	int err;

	*truncated = false;
	r = rc_reader__open_mem(buf, len);
	if (!r)
		return -errno;
	while ((err = rc_reader__next(r, &rec)) > 0) {
		if (crc)
			c = crc32(c, (const Bytef *)rec, rec->size);
		n++;
	}
	*truncated = rc_reader__truncated(r);
	if (!err && rc_reader__corrupt(r, NULL))
		n = READ_DAMAGED;
	rc_reader__free(r);
	if (crc)
		*crc = c;
	return err < 0 ? err : n;
}

long read_all(const void *buf, size_t len, bool *truncated)
{
	return read_all_crc(buf, len, truncated, NULL);
}
