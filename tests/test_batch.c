// SPDX-License-Identifier: GPL-2.0-only
/*
 * The batches and writer thread (lib/capture/batch.h) over a real writer
 * into a memory file: a stop that failed must not leave a file that reads
 * as complete.
 */
#include <errno.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "capture/batch.h"
#include "capture_util.h"
#include "test_progs.h"

#define N_RECS 3000

/* @n syscall records through a batcher, finished with @stop_err; the file read back. */
static int batch_capture(int stop_err, struct mem_capture *mc)
{
	struct rc_writer_opts wo = { .sz = sizeof(wo) };
	struct rc_capture c = {};
	struct rc_batcher b = {};
	struct rc_ev_syscall e = {};
	char path[64];
	int fd, err, i;

	test_meta(&c.meta);
	fd = memfd_create("batch", 0);
	if (fd < 0)
		return -errno;
	c.w = rc_writer__new(fd, &c.meta, &wo);
	c.has_file = c.w != NULL;
	err = c.w ? rc_batcher__init(&b, &c) : -errno;
	err = err ?: rc_batcher__start(&b);
	for (i = 0; !err && i < N_RECS; i++) {
		e.hdr =
		    (struct rc_rec_hdr){ .ts = 2000 + i, .type = RC_EV_SYSCALL, .size = sizeof(e) };
		e.nr = 39;
		err = rc_batcher__put(&b, &e, sizeof(e));
	}
	if (!err)
		err = rc_batcher__finish(&b, stop_err) == stop_err ? 0 : -EPROTO;
	rc_batcher__destroy(&b);
	rc_writer__free(c.w);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

	err = err ?: slurp(path, mc);
	close(fd);
	return err;
}

void test_batch_finish(void)
{
	struct mem_capture mc = {};
	bool truncated;

	if (test__start_subtest("complete") && ASSERT_OK(batch_capture(0, &mc), "capture")) {
		ASSERT_EQ(read_all(mc.buf, mc.len, &truncated), N_RECS, "every record");
		ASSERT_TRUE(!truncated, "complete, with its trailer");
	}
	free(mc.buf);
	mc = (struct mem_capture){};
	/*
	 * A stop that failed: what was read is there, and the file says it is
	 * cut short. (It said complete, with none of its records: the current
	 * batch was dropped and the trailer written.)
	 */
	if (test__start_subtest("failed_stop") && ASSERT_OK(batch_capture(-EIO, &mc), "capture")) {
		ASSERT_EQ(read_all(mc.buf, mc.len, &truncated), N_RECS, "every record read");
		ASSERT_TRUE(truncated, "cut short: no trailer");
	}
	free(mc.buf);
}
