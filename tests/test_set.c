// SPDX-License-Identifier: GPL-2.0-only
/*
 * A set of capture files read as one (lib/format/set.c): files, a
 * directory and a glob merged in time order, each record with its file;
 * --since/--until passing whole files over by their trailers; files of two
 * hosts merged by wall-clock time; a file cut short read as far as it
 * goes; bad inputs refused, naming them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "events.h"
#include "capture_util.h"
#include "run_util.h"
#include "test_progs.h"

#define PER_FILE 300

/*
 * A capture at @path: @n syscall records from @t0, one every @step ns,
 * ret = @tag + i (to tell files apart), in small chunks, host @host, its
 * wall-clock offset @wall, its start @t0.
 */
static bool write_file_boot(const char *path, const char *host, int64_t wall, uint64_t t0,
			    uint64_t step, unsigned int n, long tag, size_t cut, uint8_t boot)
{
	struct rc_writer_opts wo = { .sz = sizeof(wo), .chunk_size = 2048 };
	struct rc_ev_syscall *recs = calloc(n ? n : 1, sizeof(*recs));
	struct mem_capture mc = {};
	struct rc_meta m;
	unsigned int i;
	bool ok = false;
	int fd;

	if (!recs)
		return false;
	test_meta(&m);
	m.host = host;
	m.wall_offset_ns = wall;
	m.start_ts = t0;
	m.run.seq = 1;
	m.run.start_ts = t0;
	memset(m.run.boot_id, boot, sizeof(m.run.boot_id));
	for (i = 0; i < n; i++) {
		recs[i].hdr.ts = t0 + step * i;
		recs[i].hdr.pid = recs[i].hdr.tid = 100;
		recs[i].hdr.type = RC_EV_SYSCALL;
		recs[i].hdr.size = sizeof(recs[i]);
		recs[i].hdr.cpu = i % 2;
		recs[i].nr = 110;
		recs[i].ret = tag + i;
	}
	if (write_meta_capture(&mc, &m, &wo, recs, (size_t)n * sizeof(*recs), NULL))
		goto out;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		goto out;
	ok = write(fd, mc.buf, mc.len - cut) == (ssize_t)(mc.len - cut);
	close(fd);
out:
	free(mc.buf);
	free(recs);
	return ok;
}

static bool write_file(const char *path, const char *host, int64_t wall, uint64_t t0, uint64_t step,
		       unsigned int n, long tag, size_t cut)
{
	return write_file_boot(path, host, wall, t0, step, n, tag, cut, 0);
}

struct merged {
	unsigned long nrec, per_file[8];
	bool ordered, tagged;
	unsigned long chunks;
};

static long file_number(const char *path)
{
	const char *p = strrchr(path, '/');

	return p && !strncmp(p, "/capture", 8) ? strtol(p + 8, NULL, 10) : -1;
}

/* Read a set whole: records in order of the set's time, each from the file its tag says. */
static int read_set(struct rc_set *s, struct merged *mg, uint64_t since, uint64_t until)
{
	const struct rc_rec_hdr *rec;
	uint64_t prev = 0, t;
	size_t f, i;
	int err;

	memset(mg, 0, sizeof(*mg));
	mg->ordered = mg->tagged = true;
	while ((err = rc_set__next(s, &rec, &f)) > 0) {
		const struct rc_ev_syscall *e = (const void *)rec;

		t = rc_set__time(s, f, rec->ts);
		if (t < since || t > until)
			continue;
		if (t < prev)
			mg->ordered = false;
		prev = t;
		if (f < 8)
			mg->per_file[f]++;
		/* each file's tag is its ret / 1000000: the N of its name's captureN */
		if (e->ret / 1000000 != file_number(rc_set__path(s, f)))
			mg->tagged = false;
		mg->nrec++;
	}
	for (i = 0; i < rc_set__nfiles(s); i++)
		mg->chunks += rc_reader__chunks(rc_set__reader(s, i));
	return err;
}

static struct rc_set *open1(const char *path)
{
	const char *p[] = { path };

	return rc_set__open(p, 1);
}

void test_set_merge(void)
{
	char a[4096], b[4096], c[4096], dir[1024], glob[4096], txt[4096];
	struct rc_set *s = NULL;
	struct merged mg;
	const char *paths[3];

	snprintf(dir, sizeof(dir), "%s/d", tmpdir());
	if (!ASSERT_OK(mkdir(dir, 0755), "mkdir"))
		goto out;
	snprintf(a, sizeof(a), "%s/capture1.rcap", dir);
	snprintf(b, sizeof(b), "%s/capture2.rcap", dir);
	snprintf(c, sizeof(c), "%s/capture3.rcap", dir);
	snprintf(txt, sizeof(txt), "%s/notes.txt", dir);
	/* interleaved in time: 1000, 1010, 1020, 1030, ... across the three */
	if (!ASSERT_TRUE(write_file(c, "h1", 5, 1020, 30, PER_FILE, 3000000, 0), "c") ||
	    !ASSERT_TRUE(write_file(a, "h1", 5, 1000, 30, PER_FILE, 1000000, 0), "a") ||
	    !ASSERT_TRUE(write_file(b, "h1", 5, 1010, 30, PER_FILE, 2000000, 0), "b") ||
	    !ASSERT_TRUE(save_text(txt, "not a capture\n"), "txt"))
		goto out;

	/* three files named, out of order: sorted by start, merged in time */
	paths[0] = c, paths[1] = a, paths[2] = b;
	s = rc_set__open(paths, 3);
	if (!ASSERT_OK_PTR(s, "open files") || !ASSERT_EQ(rc_set__nfiles(s), 3, "files"))
		goto out;
	ASSERT_TRUE(!rc_set__by_wall(s), "one host: the capture clock");
	ASSERT_STREQ(rc_set__path(s, 0), a, "first by start");
	ASSERT_EQ(rc_set__start(s), 1000, "start");
	ASSERT_OK(read_set(s, &mg, 0, UINT64_MAX), "read");
	ASSERT_EQ(mg.nrec, 3 * PER_FILE, "every record");
	ASSERT_TRUE(mg.ordered, "in time order");
	ASSERT_TRUE(mg.tagged, "each with its file");
	ASSERT_EQ(mg.per_file[0] + mg.per_file[1] + mg.per_file[2], 3 * PER_FILE, "per file");
	ASSERT_EQ(mg.per_file[1], PER_FILE, "file 1");
	rc_set__free(s);

	/* the directory: its captures, notes.txt passed over */
	s = open1(dir);
	if (ASSERT_OK_PTR(s, "open dir") && ASSERT_EQ(rc_set__nfiles(s), 3, "dir files")) {
		ASSERT_OK(read_set(s, &mg, 0, UINT64_MAX), "read dir");
		ASSERT_EQ(mg.nrec, 3 * PER_FILE, "dir records");
		ASSERT_TRUE(mg.ordered, "dir in order");
	}
	rc_set__free(s);

	/* a glob the shell did not expand, and a file named twice */
	snprintf(glob, sizeof(glob), "%s/capture*.rcap", dir);
	paths[0] = glob, paths[1] = a;
	s = rc_set__open(paths, 2);
	if (ASSERT_OK_PTR(s, "open glob") && ASSERT_EQ(rc_set__nfiles(s), 3, "glob files, once")) {
		ASSERT_OK(read_set(s, &mg, 0, UINT64_MAX), "read glob");
		ASSERT_EQ(mg.nrec, 3 * PER_FILE, "glob records");
	}
	rc_set__free(s);
	s = NULL;
out:
	rc_set__free(s);
	tmpdir_cleanup();
}

void test_set_range(void)
{
	const struct rc_trailer *tr;
	char p[3][4096];
	struct rc_set *s = NULL;
	const char *paths[3];
	struct merged mg;
	uint64_t since, until;
	unsigned int i;

	/* three files apart in time: [1 s, 2 s), [3 s, 4 s), [5 s, 6 s), 1 ms a record */
	for (i = 0; i < 3; i++) {
		snprintf(p[i], sizeof(p[i]), "%s/capture%u.rcap", tmpdir(), i + 1);
		if (!ASSERT_TRUE(write_file(p[i], "h1", 0, (1 + 2ull * i) * 1000000000ull, 1000000,
					    1000, (i + 1) * 1000000l, 0),
				 "write"))
			goto out;
		paths[i] = p[i];
	}
	s = rc_set__open(paths, 3);
	if (!ASSERT_OK_PTR(s, "open"))
		goto out;
	/* 3.2 s to 3.5 s: records at 3.200 ... 3.500 s, 301 of them, all in file 2 */
	since = 3200000000ull;
	until = 3500000000ull;
	rc_set__set_range(s, since, until);
	ASSERT_TRUE(rc_set__skipped(s, 0), "file 1 passed over");
	ASSERT_TRUE(!rc_set__skipped(s, 1), "file 2 read");
	ASSERT_TRUE(rc_set__skipped(s, 2), "file 3 passed over");
	ASSERT_OK(read_set(s, &mg, since, until), "read");
	ASSERT_EQ(mg.nrec, 301, "records in the window");
	ASSERT_EQ(mg.per_file[1], 301, "all of file 2");
	ASSERT_EQ(rc_reader__chunks(rc_set__reader(s, 0)), 0, "file 1: no chunk read");
	ASSERT_EQ(rc_reader__chunks(rc_set__reader(s, 2)), 0, "file 3: no chunk read");
	/*
	 * Small chunks of 2048 bytes: the window's 301 records fill some 15 of
	 * file 2's 45 or so; the others were passed over undecompressed.
	 */
	tr = rc_reader__trailer(rc_set__reader(s, 1));
	if (ASSERT_OK_PTR(tr, "file 2 trailer")) {
		ASSERT_TRUE(tr->nchunks > 40, "file 2: many chunks");
		ASSERT_LT(rc_reader__chunks(rc_set__reader(s, 1)), tr->nchunks * 4 / 10,
			  "file 2: the window's chunks only");
		ASSERT_TRUE(rc_reader__chunks(rc_set__reader(s, 1)) >= tr->nchunks * 3 / 10 - 1,
			    "file 2: the window's chunks read");
	}
	rc_set__free(s);

	/* across files: 1.9 s to 5.05 s: 100 + 1000 + 51 */
	s = rc_set__open(paths, 3);
	if (!ASSERT_OK_PTR(s, "reopen"))
		goto out;
	rc_set__set_range(s, 1900000000ull, 5050000000ull);
	ASSERT_OK(read_set(s, &mg, 1900000000ull, 5050000000ull), "read across");
	ASSERT_EQ(mg.nrec, 1151, "records across the files");
	ASSERT_TRUE(mg.ordered, "in order across");
out:
	rc_set__free(s);
	tmpdir_cleanup();
}

void test_set_hosts(void)
{
	char a[4096], b[4096];
	const struct rc_rec_hdr *rec;
	struct rc_set *s = NULL;
	const char *paths[2];
	uint64_t prev = 0, t;
	unsigned long n = 0, switches = 0;
	size_t f, last = SIZE_MAX;
	int err;

	/*
	 * Host A booted long before B: the same wall-clock moment is a later
	 * capture time on A. Records 1 ms apart on each, B's 0.5 ms after A's
	 * on the wall clock though their capture times are far apart.
	 */
	snprintf(a, sizeof(a), "%s/capture1.rcap", tmpdir());
	snprintf(b, sizeof(b), "%s/capture2.rcap", tmpdir());
	if (!ASSERT_TRUE(write_file(a, "hostA", 1700000000000000000ll, 9000000000000ull, 1000000,
				    100, 1000000, 0),
			 "a") ||
	    !ASSERT_TRUE(write_file(b, "hostB",
				    1700000000000000000ll + 9000000000000ll - 5000000000ll + 500000,
				    5000000000ull, 1000000, 100, 2000000, 0),
			 "b"))
		goto out;
	paths[0] = b, paths[1] = a;
	s = rc_set__open(paths, 2);
	if (!ASSERT_OK_PTR(s, "open"))
		goto out;
	ASSERT_TRUE(rc_set__by_wall(s), "two hosts: the wall clock");
	ASSERT_STREQ(rc_set__meta(s, 0)->host, "hostA", "A starts first");
	ASSERT_EQ(rc_set__start(s), 1700000000000000000ull + 9000000000000ull, "start on the wall");
	while ((err = rc_set__next(s, &rec, &f)) > 0) {
		t = rc_set__time(s, f, rec->ts);
		if (!ASSERT_TRUE(t >= prev, "wall order"))
			break;
		prev = t;
		switches += last != SIZE_MAX && f != last;
		last = f;
		n++;
	}
	ASSERT_OK(err, "read");
	ASSERT_EQ(n, 200, "records");
	/* A, B, A, B...: they alternate on the wall clock, which the capture clocks do not */
	ASSERT_EQ(switches, 199, "interleaved");
	rc_set__free(s);

	/* one host name, two boots (a reboot between): the wall clock */
	if (!ASSERT_TRUE(write_file_boot(a, "same", 1000, 1000, 10, 10, 1000000, 0, 1), "boot 1") ||
	    !ASSERT_TRUE(write_file_boot(b, "same", 1000, 1000, 10, 10, 2000000, 0, 2), "boot 2"))
		goto out;
	s = rc_set__open(paths, 2);
	if (ASSERT_OK_PTR(s, "open boots"))
		ASSERT_TRUE(rc_set__by_wall(s), "two boots: the wall clock");
	rc_set__free(s);
	/* one boot id, the host renamed: one clock */
	if (!ASSERT_TRUE(write_file_boot(b, "renamed", 1000, 1000, 10, 10, 2000000, 0, 1),
			 "renamed"))
		goto out;
	s = rc_set__open(paths, 2);
	if (ASSERT_OK_PTR(s, "open renamed"))
		ASSERT_TRUE(!rc_set__by_wall(s), "one boot: the capture clock");
out:
	rc_set__free(s);
	tmpdir_cleanup();
}

void test_set_bad(void)
{
	char empty[4096], txt[4096], glob[4096], cut[4096], good[4096];
	const struct rc_rec_hdr *rec;
	struct rc_set *s;
	const char *paths[2];
	unsigned long n = 0;
	size_t f;
	int err;

	snprintf(empty, sizeof(empty), "%s/empty", tmpdir());
	snprintf(txt, sizeof(txt), "%s/empty/notes.txt", tmpdir());
	snprintf(glob, sizeof(glob), "%s/nothing*.rcap", tmpdir());
	if (!ASSERT_OK(mkdir(empty, 0755), "mkdir"))
		goto out;
	/* an empty directory, then one with no capture in it */
	s = open1(empty);
	ASSERT_TRUE(!s && errno == ENOENT, "empty directory");
	rc_set__free(s);
	if (!ASSERT_TRUE(save_text(txt, "not a capture, long enough to check its magic\n"), "txt"))
		goto out;
	s = open1(empty);
	ASSERT_TRUE(!s && errno == ENOENT, "no capture in the directory");
	rc_set__free(s);
	/* a glob of nothing; a file that is not a capture, named */
	s = open1(glob);
	ASSERT_TRUE(!s && errno == ENOENT, "glob of nothing");
	rc_set__free(s);
	s = open1(txt);
	ASSERT_TRUE(!s && errno == EBADMSG, "not a capture");
	rc_set__free(s);
	s = rc_set__open(NULL, 0);
	ASSERT_TRUE(!s && errno == ENOENT, "no path");
	rc_set__free(s);

	/* a file cut short (being written) with a complete one: read as far as it goes */
	snprintf(good, sizeof(good), "%s/capture1.rcap", tmpdir());
	snprintf(cut, sizeof(cut), "%s/capture2.rcap", tmpdir());
	if (!ASSERT_TRUE(write_file(good, "h1", 0, 1000, 10, 500, 1000000, 0), "good") ||
	    !ASSERT_TRUE(write_file(cut, "h1", 0, 1005, 10, 500, 2000000, 3000), "cut"))
		goto out;
	paths[0] = good, paths[1] = cut;
	s = rc_set__open(paths, 2);
	if (!ASSERT_OK_PTR(s, "open cut"))
		goto out;
	rc_set__set_range(s, 2000, UINT64_MAX); /* no trailer to skip by: read */
	while ((err = rc_set__next(s, &rec, &f)) > 0)
		n++;
	ASSERT_OK(err, "read cut");
	ASSERT_TRUE(!rc_reader__truncated(rc_set__reader(s, 0)), "good complete");
	ASSERT_TRUE(rc_reader__truncated(rc_set__reader(s, 1)), "cut truncated");
	ASSERT_TRUE(n > 500 && n < 1000, "the complete chunks of the cut file too");
	rc_set__free(s);
out:
	tmpdir_cleanup();
}
