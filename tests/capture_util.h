/* SPDX-License-Identifier: GPL-2.0-only */
/* Building and reading captures in memory, for the tests. */
#ifndef RINGCAP_CAPTURE_UTIL_H
#define RINGCAP_CAPTURE_UTIL_H

#include <stdint.h>
#include <stddef.h>
#include "ringcap.h"

struct mem_capture {
	unsigned char *buf;
	size_t len;
};

/* The meta every synthetic capture uses. */
void test_meta(struct rc_meta *m);
/*
 * Write a capture of @n syscall records (nr = 39, ret = i, duration = i,
 * ts = 1000 + 10 * i) in chunks of @chunk raw bytes, with one stats block.
 */
int make_capture(struct mem_capture *mc, unsigned int n, size_t chunk);
/* Write @len bytes of records, and @st when not NULL, as a capture in memory. */
int write_mem_capture(struct mem_capture *mc, const struct rc_writer_opts *wo, const void *recs,
		      size_t len, const struct rc_stats *st);
/* The same with the header @m (its schema describing every record). */
int write_meta_capture(struct mem_capture *mc, const struct rc_meta *m,
		       const struct rc_writer_opts *wo, const void *recs, size_t len,
		       const struct rc_stats *st);
/*
 * What the tests' readers return for a read that passed over damaged
 * blocks (rc_reader__corrupt()): the file was not read whole, though
 * nothing failed.
 */
#define READ_DAMAGED (-100000L)

/*
 * Read every record; returns the count, READ_DAMAGED, or -errno on error;
 * *truncated set, and *crc (when not NULL) the crc32 of every record read.
 */
long read_all_crc(const void *buf, size_t len, bool *truncated, uint32_t *crc);
long read_all(const void *buf, size_t len, bool *truncated);
/* Read a whole file into memory. */
int slurp(const char *path, struct mem_capture *mc);

#endif
