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
#include <glob.h>
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

/*
 * A rotated run's empty first file (nothing happened before its first
 * switch): read, it counts in the span; passed over by a range (--until),
 * it does not, and the span starts with the files read
 * (ringcap-report(1), --summary).
 */
void test_set_span_empty_first(void)
{
	char p[2][4096];
	struct rc_set *s = NULL;
	const char *paths[2];
	struct merged mg;

	/* [1 s, nothing), then 1000 records from 3 s, 1 ms apart: 3.000 ... 3.999 s */
	snprintf(p[0], sizeof(p[0]), "%s/capture1.rcap", tmpdir());
	snprintf(p[1], sizeof(p[1]), "%s/capture2.rcap", tmpdir());
	if (!ASSERT_TRUE(write_file(p[0], "h1", 0, 1000000000ull, 1000000, 0, 1000000l, 0),
			 "write empty") ||
	    !ASSERT_TRUE(write_file(p[1], "h1", 0, 3000000000ull, 1000000, 1000, 2000000l, 0),
			 "write"))
		goto out;
	paths[0] = p[0];
	paths[1] = p[1];

	/* no range: both read, from the empty file's start to the last record */
	s = rc_set__open(paths, 2);
	if (!ASSERT_OK_PTR(s, "open"))
		goto out;
	ASSERT_EQ(rc_set__start(s), 1000000000ull, "start: the empty file's");
	ASSERT_OK(read_set(s, &mg, 0, UINT64_MAX), "read");
	ASSERT_EQ(mg.nrec, 1000, "records");
	ASSERT_EQ(rc_set__span(s), 2999000000ull, "span: both files");
	rc_set__free(s);

	/* --until 3.5 s: the empty file passed over; from file 2's start to 3.5 s */
	s = rc_set__open(paths, 2);
	if (!ASSERT_OK_PTR(s, "reopen"))
		goto out;
	rc_set__set_range(s, 0, 3500000000ull);
	ASSERT_TRUE(rc_set__skipped(s, 0), "empty file passed over");
	ASSERT_EQ(rc_set__start(s), 1000000000ull, "times still count from the first file");
	ASSERT_OK(read_set(s, &mg, 0, 3500000000ull), "read until");
	ASSERT_EQ(mg.nrec, 501, "records up to 3.5 s");
	ASSERT_EQ(rc_set__span(s), 500000000ull, "span: the file read, up to --until");
	rc_set__free(s);

	/* --since 3.2 s --until 3.5 s */
	s = rc_set__open(paths, 2);
	if (!ASSERT_OK_PTR(s, "reopen 2"))
		goto out;
	rc_set__set_range(s, 3200000000ull, 3500000000ull);
	ASSERT_OK(read_set(s, &mg, 3200000000ull, 3500000000ull), "read window");
	ASSERT_EQ(mg.nrec, 301, "records in the window");
	ASSERT_EQ(rc_set__span(s), 300000000ull, "span: the window");
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

/* ---- ringcap report and stat over several files ----------------------- */

#define RUN_FILES 5

/*
 * File @k (1 to 5) of a synthetic rotated run: 100 * k records from k s,
 * k dropped in it, k events in flight at its end (none at the run's end),
 * its BASE the counters the file before ended with.
 */
static struct rc_stat_entry run_end(unsigned int k)
{
	struct rc_stat_entry e = { .cpu = 0, .type = RC_EV_SYSCALL };
	unsigned int j;

	for (j = 1; j <= k; j++) {
		e.captured += 100 * j;
		e.dropped += j;
	}
	e.in_flight = k == RUN_FILES ? 0 : k;
	e.made = e.captured + e.dropped + e.in_flight;
	return e;
}

static bool write_run_file(const char *dir, unsigned int k)
{
	struct rc_writer_opts wo = { .sz = sizeof(wo), .chunk_size = 4096 };
	struct rc_stat_entry be = run_end(k - 1), ee = run_end(k);
	struct rc_stats base = { .ts = k * 1000000000ull, .nentries = 1, .entries = &be };
	struct rc_stats end = { .ts = k * 1000000000ull + 500000000,
				.nentries = 1,
				.entries = &ee };
	struct rc_ev_syscall e = {};
	struct rc_writer *w;
	struct rc_meta m;
	char path[4096];
	unsigned int i;
	int fd, err;

	test_meta(&m);
	for (i = 0; i < 16; i++) {
		m.run.id[i] = 0xc0 + i;
		m.run.boot_id[i] = 0x20 + i;
	}
	m.run.seq = k;
	m.run.flags = RC_RUN_F_ROTATING;
	m.run.start_ts = 1000000000ull;
	m.start_ts = k * 1000000000ull;
	snprintf(path, sizeof(path), "%s/run.rcap.%06u", dir, k);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return false;
	w = rc_writer__new(fd, &m, &wo);
	err = w ? 0 : -errno;
	err = err ?: k > 1 ? rc_writer__add_base(w, &base) : 0;
	for (i = 0; !err && i < 100 * k; i++) {
		e.hdr = (struct rc_rec_hdr){ .ts = k * 1000000000ull + i * 1000000ull,
					     .pid = 100,
					     .tid = 100,
					     .type = RC_EV_SYSCALL,
					     .size = sizeof(e) };
		e.nr = 110;
		err = rc_writer__add(w, &e, sizeof(e));
	}
	err = err ?: rc_writer__add_stats(w, &end);
	err = err ?: rc_writer__finish(w);
	rc_writer__free(w);
	close(fd);
	return !err;
}

/* A number after "key": in ringcap's compact JSON, after @obj when given. */
static long long json_num(const char *json, const char *obj, const char *key)
{
	const char *p = obj ? strstr(json, obj) : json;
	char pat[64];
	long long v;

	if (!p)
		return -1;
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(p, pat);
	if (!p || sscanf(p + strlen(pat), "%lld", &v) != 1)
		return -1;
	return v;
}

/*
 * stat --json read strictly, in C (the kernel matrix's guests have no
 * python): a value's end found by its shape, an object's member by its
 * name at the object's own level, anything unexpected a failure.
 */

static const char *jws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* Past the string at @p (its opening quote), escapes passed over; NULL when not one. */
static const char *jstr_end(const char *p)
{
	if (*p != '"')
		return NULL;
	for (p++; *p && *p != '"'; p++)
		if (*p == '\\' && !*++p)
			return NULL;
	return *p == '"' ? p + 1 : NULL;
}

/*
 * Past the value at @p: a string, a number or word, or an object or array
 * with its brackets matched (strings inside passed over). NULL when none.
 */
static const char *jval_end(const char *p)
{
	char open[64];
	int depth = 0;
	const char *s;

	p = jws(p);
	if (*p == '"')
		return jstr_end(p);
	if (*p != '{' && *p != '[') {
		for (s = p; *p == '-' || *p == '+' || *p == '.' || (*p >= '0' && *p <= '9') ||
			    (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z');
		     p++)
			;
		return p > s ? p : NULL;
	}
	do {
		if (*p == '"') {
			p = jstr_end(p);
			if (!p)
				return NULL;
			continue;
		}
		if (*p == '{' || *p == '[') {
			if (depth == (int)sizeof(open))
				return NULL;
			open[depth++] = *p;
		} else if (*p == '}' || *p == ']') {
			if (open[--depth] != (*p == '}' ? '{' : '['))
				return NULL;
		} else if (!*p) {
			return NULL;
		}
		p++;
	} while (depth > 0);
	return p;
}

/*
 * The value of member @key of the object at @p, found at that object's own
 * level. NULL when @p is not an object, has no such member, has it twice,
 * or does not parse to its closing brace.
 */
static const char *jmember(const char *p, const char *key)
{
	const char *k, *v, *found = NULL;
	size_t klen = strlen(key);
	bool twice = false;

	p = jws(p);
	if (*p != '{')
		return NULL;
	p = jws(p + 1);
	if (*p == '}')
		return NULL;
	for (;;) {
		k = p;
		p = jstr_end(k);
		if (!p)
			return NULL;
		if ((size_t)(p - k) == klen + 2 && !memcmp(k + 1, key, klen)) {
			twice |= found != NULL;
			found = jws(jws(p) + 1);
		}
		p = jws(p);
		if (*p != ':')
			return NULL;
		v = jval_end(p + 1);
		if (!v)
			return NULL;
		p = jws(v);
		if (*p == '}')
			break;
		if (*p != ',')
			return NULL;
		p = jws(p + 1);
	}
	return twice ? NULL : found;
}

/* Counter @key of the object at @obj into *@v: false when absent or not a whole number. */
static bool jcount(const char *obj, const char *key, unsigned long long *v)
{
	const char *p = jmember(obj, key);
	char *end;

	if (!p || *p < '0' || *p > '9')
		return false;
	errno = 0;
	*v = strtoull(p, &end, 10);
	return !errno && (*jws(end) == ',' || *jws(end) == '}');
}

/*
 * @json (stat --json of several files) lists @nfiles files, and their
 * "total" objects' made, in_file, dropped and captured add up to the
 * top-level "total"'s, each of them.
 */
static bool files_add_up(const char *json, size_t nfiles)
{
	static const char *const keys[] = { "made", "in_file", "dropped", "captured" };
	unsigned long long sum[4] = {}, v;
	const char *files, *total, *p, *ft;
	bool ok = true;
	size_t n = 0, k;

	p = jval_end(json);
	if (!ASSERT_TRUE(p && !*jws(p), "stat --json: one object, whole"))
		return false;
	files = jmember(json, "files");
	total = jmember(json, "total");
	if (!ASSERT_OK_PTR(files, "stat --json: \"files\"") ||
	    !ASSERT_OK_PTR(total, "stat --json: \"total\"") ||
	    !ASSERT_EQ(*files, '[', "\"files\": an array"))
		return false;
	p = jws(files + 1);
	while (*p != ']') {
		ft = jmember(p, "total");
		if (!ASSERT_OK_PTR(ft, "a file's \"total\""))
			return false;
		for (k = 0; k < 4; k++) {
			if (!jcount(ft, keys[k], &v)) {
				test__fail(__FILE__, __LINE__, "a file's counters",
					   "file %zu: no \"%s\" count in its \"total\"", n,
					   keys[k]);
				return false;
			}
			sum[k] += v;
		}
		n++;
		p = jval_end(p);
		if (!ASSERT_OK_PTR(p, "a file's object"))
			return false;
		p = jws(p);
		if (*p == ',')
			p = jws(p + 1);
		else if (!ASSERT_EQ(*p, ']', "\"files\": ',' or ']' after a file"))
			return false;
	}
	ok &= ASSERT_EQ(n, nfiles, "stat --json: the files listed");
	for (k = 0; k < 4; k++) {
		if (!jcount(total, keys[k], &v)) {
			test__fail(__FILE__, __LINE__, "the total's counters",
				   "no \"%s\" count in the top-level \"total\"", keys[k]);
			return false;
		}
		if (sum[k] != v) {
			test__fail(__FILE__, __LINE__, "the files add up",
				   "%s: the files' sum %llu, the total %llu", keys[k], sum[k], v);
			ok = false;
		}
	}
	return ok;
}

void test_set_cli_run(void)
{
	char *rc = (char *)bin("ringcap");
	char dir[1024], p1[4096], p3[4096];
	struct run r = {};
	unsigned int k;
	const char *sp;

	snprintf(dir, sizeof(dir), "%s/run", tmpdir());
	if (!ASSERT_OK(mkdir(dir, 0755), "mkdir"))
		goto out;
	for (k = 1; k <= RUN_FILES; k++)
		if (!ASSERT_TRUE(write_run_file(dir, k), "write run"))
			goto out;

	/* the whole run: the files sum to its totals, each adds up, nothing missing */
	if (!ASSERT_EQ(run_sync(&r, (char *[]){ rc, "stat", "--json", dir, NULL }, 60000), 0,
		       "stat run"))
		goto out;
	ASSERT_EQ(json_num(r.out, "\"total\":{", "made"), 1515, "run: made");
	ASSERT_EQ(json_num(r.out, "\"total\":{", "in_file"), 1500, "run: in files");
	ASSERT_EQ(json_num(r.out, "\"total\":{", "dropped"), 15, "run: dropped");
	ASSERT_EQ(json_num(r.out, "\"total\":{", "missing"), 0, "run: nothing missing");
	ASSERT_EQ(json_num(r.out, NULL, "lost"), 15, "run: lost = dropped");
	ASSERT_HAS(r.out, "\"missing_spans\":[]", "no span missing");
	ASSERT_TRUE(files_add_up(r.out, RUN_FILES), "the files add up");
	run_free(&r);

	/* the first file and the third deleted: two spans named, with their events */
	snprintf(p1, sizeof(p1), "%s/run.rcap.000001", dir);
	snprintf(p3, sizeof(p3), "%s/run.rcap.000003", dir);
	if (!ASSERT_OK(unlink(p1), "rm 1") || !ASSERT_OK(unlink(p3), "rm 3"))
		goto out;
	if (!ASSERT_EQ(run_sync(&r, (char *[]){ rc, "stat", "--json", dir, NULL }, 60000), 0,
		       "stat gaps"))
		goto out;
	ASSERT_EQ(json_num(r.out, "\"total\":{", "made"), 202 + 404 + 505, "present: made");
	ASSERT_EQ(json_num(r.out, "\"total\":{", "in_file"), 1100, "present: in files");
	ASSERT_EQ(json_num(r.out, "\"total\":{", "missing"), 0, "no false mismatch");
	ASSERT_TRUE(files_add_up(r.out, 3), "the files still add up");
	sp = strstr(r.out, "\"missing_spans\":[");
	if (ASSERT_OK_PTR(sp, "spans")) {
		ASSERT_EQ(json_num(sp, NULL, "seq_from"), 1, "span 1 from");
		ASSERT_EQ(json_num(sp, NULL, "seq_to"), 1, "span 1 to");
		ASSERT_EQ(json_num(sp, NULL, "made"), 101, "span 1: made");
		ASSERT_EQ(json_num(sp, NULL, "dropped"), 1, "span 1: dropped");
		sp = strstr(sp, "},{");
		if (ASSERT_OK_PTR(sp, "span 2")) {
			ASSERT_EQ(json_num(sp, NULL, "seq_from"), 3, "span 2 from");
			ASSERT_EQ(json_num(sp, NULL, "seq_to"), 3, "span 2 to");
			ASSERT_EQ(json_num(sp, NULL, "made"), 303, "span 2: made");
			ASSERT_EQ(json_num(sp, NULL, "dropped"), 3, "span 2: dropped");
		}
	}
	run_free(&r);
	if (!ASSERT_EQ(run_sync(&r, (char *[]){ rc, "stat", dir, NULL }, 60000), 0, "stat text"))
		goto out;
	ASSERT_HAS(r.out, "# missing: run c0c1c2c3, file 1 ", "span 1 named");
	ASSERT_HAS(r.out, "101 events made, 1 dropped", "span 1 counted");
	ASSERT_HAS(r.out, "# missing: run c0c1c2c3, file 3 ", "span 3 named");
	ASSERT_HAS(r.out, "303 events made, 3 dropped", "span 3 counted");
	ASSERT_HAS(r.out, "# 3 files: complete, 1100 events", "summed");
	run_free(&r);

	/* report: the 1100 records, in order, times from the earliest file given */
	if (!ASSERT_EQ(
		run_sync(&r, (char *[]){ rc, "report", "--format", "csv", dir, NULL }, 60000), 0,
		"report"))
		goto out;
	ASSERT_HAS(r.out, "\n0.000000000,2000000000,",
		   "times from the earliest file given (file 2 at 0 s, file 1 missing)");
	{
		unsigned long lines = 0;
		double prev = -1, t;
		bool ordered = true;
		const char *l;

		for (l = strchr(r.out, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
			if (sscanf(l + 1, "%lf,", &t) != 1)
				continue;
			ordered &= t >= prev;
			prev = t;
			lines++;
		}
		ASSERT_EQ(lines, 1100, "report: every record");
		ASSERT_TRUE(ordered, "report: in time order");
	}
out:
	run_free(&r);
	tmpdir_cleanup();
}

void test_set_cli_range(void)
{
	char *rc = (char *)bin("ringcap");
	char p[3][4096], dir[1024], glob[4096];
	struct run r = {};
	unsigned int i;

	snprintf(dir, sizeof(dir), "%s/r", tmpdir());
	if (!ASSERT_OK(mkdir(dir, 0755), "mkdir"))
		goto out;
	/* [0 s, 1 s), [2 s, 3 s), [4 s, 5 s) from the first file's start, 1 ms a record */
	for (i = 0; i < 3; i++) {
		snprintf(p[i], sizeof(p[i]), "%s/capture%u.rcap", dir, i + 1);
		if (!ASSERT_TRUE(write_file(p[i], "h1", 0, (1 + 2ull * i) * 1000000000ull, 1000000,
					    1000, (i + 1) * 1000000l, 0),
				 "write"))
			goto out;
	}
	snprintf(glob, sizeof(glob), "%s/capture*.rcap", dir);
	/* 2.2 s to 2.5 s: 301 records, file 2's; files 1 and 3 not read past their trailers */
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ rc, "report", "-v", "--format", "json", "--since",
					    "2.2", "--until", "2.5", glob, NULL },
				60000),
		       0, "report window"))
		goto out;
	{
		ASSERT_EQ(count_lines_with(r.out, "{\"time\":"), 301, "events in the window");
	}
	ASSERT_HAS(r.err, "capture1.rcap' is outside the range", "file 1 passed over");
	ASSERT_HAS(r.err, "capture3.rcap' is outside the range", "file 3 passed over");
	ASSERT_TRUE(!strstr(r.err, "capture2.rcap' is outside"), "file 2 read");
	ASSERT_HAS(r.out, "{\"time\":2.200000000,", "first in the window");
	ASSERT_HAS(r.out, "{\"time\":2.500000000,", "last in the window");
	run_free(&r);
	/* across the files: 0.9 s to 4.05 s, 100 + 1000 + 51 */
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ rc, "report", "--format", "csv", "--since", "0.9",
					    "--until", "4.05", p[2], p[0], p[1], NULL },
				60000),
		       0, "report across"))
		goto out;
	{
		unsigned long n = 0;
		const char *l;

		for (l = strchr(r.out, '\n'); l && l[1]; l = strchr(l + 1, '\n'))
			n++;
		ASSERT_EQ(n, 1151, "events across the files");
	}
out:
	run_free(&r);
	tmpdir_cleanup();
}

void test_set_cli_hosts(void)
{
	char *rc = (char *)bin("ringcap");
	char a[4096], b[4096];
	struct run r = {};
	const char *l;
	int alt = 0;

	/* as test_set_hosts: B's records 0.5 ms after A's on the wall clock */
	snprintf(a, sizeof(a), "%s/capture1.rcap", tmpdir());
	snprintf(b, sizeof(b), "%s/capture2.rcap", tmpdir());
	if (!ASSERT_TRUE(write_file(a, "hostA", 1700000000000000000ll, 9000000000000ull, 1000000,
				    20, 1000000, 0),
			 "a") ||
	    !ASSERT_TRUE(write_file(b, "hostB",
				    1700000000000000000ll + 9000000000000ll - 5000000000ll + 500000,
				    5000000000ull, 1000000, 20, 2000000, 0),
			 "b"))
		goto out;
	if (!ASSERT_EQ(run_sync(&r, (char *[]){ rc, "report", b, a, NULL }, 60000), 0, "text"))
		goto out;
	/* a host column; A, B, A, B... */
	for (l = r.out; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		alt += !strncmp(l, alt % 2 ? "hostB " : "hostA ", 6);
	ASSERT_EQ(alt, 40, "hosts alternate, shown");
	ASSERT_HAS(r.out, "hostB            ", "host column");
	ASSERT_HAS(r.out, "0.000500000: syscall", "B's first at 0.5 ms on the wall clock");
	run_free(&r);
	if (!ASSERT_EQ(
		run_sync(&r, (char *[]){ rc, "report", "--format", "json", a, b, NULL }, 60000), 0,
		"json"))
		goto out;
	ASSERT_HAS(r.out, "{\"time\":0.000000000,\"ts\":9000000000000,\"host\":\"hostA\"",
		   "json: A's host");
	ASSERT_HAS(r.out, "{\"time\":0.000500000,\"ts\":5000000000,\"host\":\"hostB\"",
		   "json: B's host");
	run_free(&r);
	if (!ASSERT_EQ(
		run_sync(&r, (char *[]){ rc, "report", "--format", "csv", a, b, NULL }, 60000), 0,
		"csv"))
		goto out;
	ASSERT_HAS(r.out, "time,ts,cpu,pid,tid,comm,event,host,", "csv: a host column");
	ASSERT_HAS(r.out, ",syscall,hostB,", "csv: B's host");
	run_free(&r);
	/* one host: no host column */
	if (!ASSERT_EQ(run_sync(&r, (char *[]){ rc, "report", "--format", "csv", a, NULL }, 60000),
		       0, "csv one"))
		goto out;
	ASSERT_TRUE(!strstr(r.out, ",host,"), "one host: none shown");
out:
	run_free(&r);
	tmpdir_cleanup();
}

void test_set_cli_bad(void)
{
	char *rc = (char *)bin("ringcap");
	char dir[1024], txt[4096], good[4096], glob[4096];
	struct run r = {};

	snprintf(dir, sizeof(dir), "%s/b", tmpdir());
	snprintf(txt, sizeof(txt), "%s/notes.txt", dir);
	snprintf(good, sizeof(good), "%s/capture1.rcap", dir);
	snprintf(glob, sizeof(glob), "%s/none*.rcap", dir);
	if (!ASSERT_OK(mkdir(dir, 0755), "mkdir"))
		goto out;
	/* an empty directory: an error naming it, for report and stat */
	ASSERT_EQ(run_sync(&r, (char *[]){ rc, "report", dir, NULL }, 60000), 1, "report empty");
	ASSERT_HAS(r.err, "no capture files in directory", "empty said");
	run_free(&r);
	ASSERT_EQ(run_sync(&r, (char *[]){ rc, "stat", dir, NULL }, 60000), 1, "stat empty");
	ASSERT_HAS(r.err, "no capture files in directory", "stat: empty said");
	run_free(&r);
	/* a glob of nothing */
	ASSERT_EQ(run_sync(&r, (char *[]){ rc, "report", glob, NULL }, 60000), 1, "glob");
	ASSERT_HAS(r.err, "no file matches", "glob said");
	run_free(&r);
	/* a file that is not a capture, named */
	if (!ASSERT_TRUE(save_text(txt, "these are notes, not a capture: long enough\n"), "txt"))
		goto out;
	ASSERT_EQ(run_sync(&r, (char *[]){ rc, "stat", txt, NULL }, 60000), 1, "not a capture");
	ASSERT_HAS(r.err, "notes.txt", "named");
	run_free(&r);
	/* a directory with a capture and the notes: the notes passed over */
	if (!ASSERT_TRUE(write_file(good, "h1", 0, 1000, 10, 50, 1000000, 0), "good"))
		goto out;
	ASSERT_EQ(run_sync(&r, (char *[]){ rc, "report", "-v", dir, NULL }, 60000), 0, "dir");
	ASSERT_HAS(r.err, "notes.txt' is not a capture file: passed over", "note");
	run_free(&r);
	ASSERT_EQ(run_sync(&r, (char *[]){ rc, "stat", "--json", dir, NULL }, 60000), 0,
		  "stat dir");
	ASSERT_EQ(json_num(r.out, "\"total\":{", "in_file"), 50, "stat dir: its events");
out:
	run_free(&r);
	tmpdir_cleanup();
}

#define N_CALLS	  20000
#define N_CALLS_S "20000"

/* Lines of @out (report --format json) of getppid calls; their "time"s into @t (or not). */
static unsigned long getppid_lines(const char *out, double *t, size_t cap, bool *ordered)
{
	unsigned long n = 0;
	double prev = -1e18, x;
	char line[4096];

	*ordered = true;
	while (next_line(&out, line, sizeof(line))) {
		if (sscanf(line, "{\"time\":%lf,", &x) != 1)
			continue;
		*ordered &= x >= prev;
		prev = x;
		if (!strstr(line, "\"nr\":\"getppid\""))
			continue;
		if (t && n < cap)
			t[n] = x;
		n++;
	}
	return n;
}

/*
 * A copy of the capture @from as if from another host: its records as
 * they are, its header's host, boot id and wall-clock offset changed
 * (@shift ns added to the offset), through the writer API.
 */
static bool copy_as_host(const char *from, const char *to, const char *host, int64_t shift)
{
	const struct rc_rec_hdr *rec;
	struct rc_reader *r = rc_reader__open(from);
	struct rc_writer *w = NULL;
	struct rc_meta m;
	int fd = -1, err;

	if (!r)
		return false;
	m = *rc_reader__meta(r);
	m.host = host;
	m.wall_offset_ns += shift;
	memset(m.run.boot_id, 0x77, sizeof(m.run.boot_id));
	m.run.id[0] ^= 0xff;
	fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	w = fd >= 0 ? rc_writer__new(fd, &m, NULL) : NULL;
	err = w ? 0 : -EIO;
	while (!err && (err = rc_reader__next(r, &rec)) > 0)
		err = rc_writer__add(w, rec, rec->size);
	err = err ?: rc_writer__add_stats(w, rc_reader__stats(r));
	err = err ?: rc_writer__finish(w);
	rc_writer__free(w);
	if (fd >= 0)
		close(fd);
	rc_reader__free(r);
	return !err;
}

void test_set_record(void)
{
	char *rc = (char *)bin("ringcap"), *wl = (char *)bin("rc_workload");
	char dir[1024], p[3][4096], glob[4096], since[32], until[32];
	double *t = calloc(3 * N_CALLS + 16, sizeof(*t));
	long long in_file = 0, made = 0;
	unsigned long n, want, i;
	struct run r = {};
	bool ordered;

	if (!ASSERT_OK_PTR(t, "alloc") || !need_root())
		goto out;
	snprintf(dir, sizeof(dir), "%s/rec", tmpdir());
	if (!ASSERT_OK(mkdir(dir, 0755), "mkdir"))
		goto out;
	/* three separate captures of N getppid() calls each, one after another */
	for (i = 0; i < 3; i++) {
		snprintf(p[i], sizeof(p[i]), "%s/c%lu.rcap", dir, i + 1);
		if (!ASSERT_EQ(run_sync(&r,
					(char *[]){ rc, "record", "-q", "-e", "syscalls", "-o",
						    p[i], "--", wl, "getppid", N_CALLS_S, NULL },
					120000),
			       0, "record"))
			goto out;
		run_free(&r);
		if (!ASSERT_EQ(run_sync(&r, (char *[]){ rc, "stat", "--json", p[i], NULL }, 60000),
			       0, "stat one"))
			goto out;
		in_file += json_num(r.out, "\"total\":{", "in_file");
		made += json_num(r.out, "\"total\":{", "made");
		run_free(&r);
	}

	/* the directory: 3N calls, every event in time order */
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ rc, "report", "--event", "syscalls", "--format", "json",
					    dir, NULL },
				120000),
		       0, "report dir"))
		goto out;
	n = getppid_lines(r.out, t, 3 * N_CALLS + 16, &ordered);
	ASSERT_EQ(n, 3 * N_CALLS, "3N getppid calls");
	ASSERT_TRUE(ordered, "in time order across the files");
	run_free(&r);

	/* a window from a call in the first file to one in the third, by the records' own times */
	snprintf(since, sizeof(since), "%.9f", t[N_CALLS / 2]);
	snprintf(until, sizeof(until), "%.9f", t[2 * N_CALLS + N_CALLS / 3]);
	for (i = 0, want = 0; i < n; i++)
		want += t[i] >= t[N_CALLS / 2] && t[i] <= t[2 * N_CALLS + N_CALLS / 3];
	snprintf(glob, sizeof(glob), "%s/c*.rcap", dir);
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ rc, "report", "--event", "syscalls", "--format", "json",
					    "--since", since, "--until", until, glob, NULL },
				120000),
		       0, "report window"))
		goto out;
	n = getppid_lines(r.out, NULL, 0, &ordered);
	ASSERT_EQ(n, want, "the window's calls");
	ASSERT_TRUE(want > N_CALLS * 3 / 2, "a window across the files");
	run_free(&r);

	/* stat of the three: the ledgers summed, each file adding up */
	if (!ASSERT_EQ(
		run_sync(&r, (char *[]){ rc, "stat", "--json", p[2], p[0], p[1], NULL }, 60000), 0,
		"stat three"))
		goto out;
	ASSERT_EQ(json_num(r.out, "\"total\":{", "in_file"), in_file, "summed: in files");
	ASSERT_EQ(json_num(r.out, "\"total\":{", "made"), made, "summed: made");
	ASSERT_TRUE(in_file >= 3 * N_CALLS, "at least the calls");
	ASSERT_EQ(json_num(r.out, "\"total\":{", "missing"), 0, "nothing missing");
	ASSERT_TRUE(files_add_up(r.out, 3), "the files add up");
	ASSERT_HAS(r.out, "\"source\":\"3 files\"", "three files");
	run_free(&r);

	/*
	 * Two hosts: the first capture copied as from "otherhost", its wall
	 * offset moved so that on the wall clock it starts with the third.
	 * Merged by wall clock, each event's host shown.
	 */
	{
		const struct rc_meta *m1, *m3;
		struct rc_reader *r1 = rc_reader__open(p[0]), *r3 = rc_reader__open(p[2]);
		char other[4096];
		int64_t shift = 0;
		unsigned long other_n = 0, here_n = 0;

		if (r1 && r3) {
			m1 = rc_reader__meta(r1);
			m3 = rc_reader__meta(r3);
			/* wall(start1) + shift = wall(start3) */
			shift = ((int64_t)m3->start_ts + m3->wall_offset_ns) -
				((int64_t)m1->start_ts + m1->wall_offset_ns);
		}
		rc_reader__free(r1);
		rc_reader__free(r3);
		snprintf(other, sizeof(other), "%s/other.rcap", tmpdir());
		if (!ASSERT_TRUE(shift > 0, "wall offsets") ||
		    !ASSERT_TRUE(copy_as_host(p[0], other, "otherhost", shift), "copy as a host"))
			goto out;
		if (!ASSERT_EQ(run_sync(&r,
					(char *[]){ rc, "report", "--event", "syscalls", "--format",
						    "json", p[2], other, NULL },
					120000),
			       0, "report two hosts"))
			goto out;
		n = getppid_lines(r.out, NULL, 0, &ordered);
		ASSERT_EQ(n, 2 * N_CALLS, "two hosts: 2N calls");
		ASSERT_TRUE(ordered, "two hosts: in wall-clock order");
		other_n = count_lines_with(r.out, "\"host\":\"otherhost\"");
		here_n = count_lines_with(r.out, "\"host\":\"");
		ASSERT_TRUE(other_n >= N_CALLS, "the other host's events named");
		ASSERT_TRUE(here_n > other_n + N_CALLS - 1, "every event's host shown");
		ASSERT_HAS(r.out, "{\"time\":0.0", "times from the start on the wall clock");
	}
out:
	free(t);
	run_free(&r);
	tmpdir_cleanup();
}

/* The sum of "made" (or another key) of every object of the missing_spans array. */
static long long spans_sum(const char *json, const char *key, int *nspans)
{
	const char *p = strstr(json, "\"missing_spans\":[");
	long long sum = 0;

	*nspans = 0;
	while (p && (p = strstr(p, "\"seq_from\":"))) {
		sum += json_num(p, NULL, key);
		(*nspans)++;
		p++;
	}
	return sum;
}

/*
 * A rotated run with files deleted: --switch-max-files deletes the oldest,
 * and the test the middle one of those left. stat names the spans, and
 * they and the files present add up to what the run made.
 */
void test_set_rotated_gaps(void)
{
	char *rc = (char *)bin("ringcap"), *wl = (char *)bin("rc_workload");
	char dir[1024], prefix[4096], pat[4096];
	unsigned long long captured = 0, dropped = 0;
	unsigned int nfiles = 0;
	int nspans = 0;
	glob_t g = {};
	struct run r = {};
	const char *p;

	if (!need_root())
		goto out;
	snprintf(dir, sizeof(dir), "%s/rot", tmpdir());
	snprintf(prefix, sizeof(prefix), "%s/run.rcap", dir);
	snprintf(pat, sizeof(pat), "%s/run.rcap.*", dir);
	if (!ASSERT_OK(mkdir(dir, 0755), "mkdir"))
		goto out;
	/*
	 * Uncompressed, to make many files quickly (about 16 of 1M; 2 once
	 * with 2M under ASan, whose drain drops more); the newest 3 kept.
	 */
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ rc, "record", "-e", "syscalls", "--no-compress",
					    "--switch-output=1M", "--switch-max-files=3", "-o",
					    prefix, "--", wl, "getppid", "300000", NULL },
				120000),
		       0, "record"))
		goto out;
	p = strstr(r.err, " events captured, ");
	while (p && p > r.err && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (!ASSERT_OK_PTR(p, "the summary") ||
	    !ASSERT_EQ(sscanf(p, "%llu events captured, %llu dropped", &captured, &dropped), 2,
		       "its counts"))
		goto out;
	p = strstr(r.err, " files of this run");
	while (p && p > r.err && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (!ASSERT_OK_PTR(p, "files made") || !ASSERT_EQ(sscanf(p, "%u", &nfiles), 1, "count"))
		goto out;
	printf("    %u files made, %llu events captured, %llu dropped\n", nfiles, captured,
	       dropped);
	run_free(&r);
	if (!ASSERT_OK(glob(pat, 0, NULL, &g), "glob") || !ASSERT_EQ(g.gl_pathc, 3, "3 files left"))
		goto out;
	if (!ASSERT_OK(unlink(g.gl_pathv[1]), "delete the middle one"))
		goto out;

	if (!ASSERT_EQ(run_sync(&r, (char *[]){ rc, "stat", "--json", dir, NULL }, 60000), 0,
		       "stat"))
		goto out;
	/* what the run made: in the files present, and in the spans named */
	ASSERT_EQ(json_num(r.out, "\"total\":{", "made") + spans_sum(r.out, "made", &nspans),
		  captured + dropped, "files and spans add up to the run");
	ASSERT_EQ(json_num(r.out, "\"total\":{", "dropped") + spans_sum(r.out, "dropped", &nspans),
		  dropped, "drops too");
	ASSERT_EQ(nspans, (nfiles > 3) + 1, "a span for the deleted oldest, one for the middle");
	ASSERT_TRUE(captured + dropped >= 300000, "the calls, at least");
	ASSERT_EQ(json_num(r.out, "\"total\":{", "missing"), 0, "no false mismatch");
	ASSERT_TRUE(files_add_up(r.out, 2), "the files add up");
	run_free(&r);
	if (!ASSERT_EQ(run_sync(&r, (char *[]){ rc, "stat", pat, NULL }, 60000), 0, "stat text"))
		goto out;
	ASSERT_HAS(r.out, "# missing: run ", "spans named");
	ASSERT_HAS(r.out, "not in these files", "as missing");
out:
	globfree(&g);
	run_free(&r);
	tmpdir_cleanup();
}

/* A line of report --format folded: a stack and how many samples it had. */
struct folded {
	char *stack;
	unsigned long long n;
};

struct folds {
	struct folded *v;
	size_t n, cap;
};

static void folds_free(struct folds *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->v[i].stack);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

/*
 * The "stack count" lines of @text (report --format folded) added to @f,
 * each of them: false, said, on a line of another shape (no space, an
 * empty stack, a count not a whole number above 0) or out of memory.
 */
static bool folds_add(struct folds *f, const char *text, const char *what)
{
	const char *l, *e, *sp;
	unsigned long long n;
	struct folded *v;
	char *end = NULL;

	for (l = text; *l; l = *e ? e + 1 : e) {
		e = strchrnul(l, '\n');
		for (sp = e; sp > l && sp[-1] != ' '; sp--)
			;
		errno = 0;
		n = sp > l + 1 && *sp >= '0' && *sp <= '9' ? strtoull(sp, &end, 10) : 0;
		if (!n || errno || end != e) {
			test__fail(__FILE__, __LINE__, what, "not a folded line: '%.*s'",
				   (int)(e - l), l);
			return false;
		}
		if (f->n == f->cap) {
			v = realloc(f->v, (f->cap * 2 + 64) * sizeof(*v));
			if (!ASSERT_OK_PTR(v, "alloc folded"))
				return false;
			f->v = v;
			f->cap = f->cap * 2 + 64;
		}
		f->v[f->n].stack = strndup(l, sp - 1 - l);
		if (!ASSERT_OK_PTR(f->v[f->n].stack, "alloc a stack"))
			return false;
		f->v[f->n++].n = n;
	}
	return true;
}

static int folded_cmp(const void *a, const void *b)
{
	return strcmp(((const struct folded *)a)->stack, ((const struct folded *)b)->stack);
}

/* @f sorted by stack, a stack's lines merged into one with their counts summed. */
static void folds_sum(struct folds *f)
{
	size_t i, o = 0;

	if (!f->n)
		return;
	qsort(f->v, f->n, sizeof(*f->v), folded_cmp);
	for (i = 1; i < f->n; i++) {
		if (!strcmp(f->v[o].stack, f->v[i].stack)) {
			f->v[o].n += f->v[i].n;
			free(f->v[i].stack);
		} else {
			f->v[++o] = f->v[i];
		}
	}
	f->n = o + 1;
}

/* @a and @b, both summed, the same stacks with the same counts; the first difference said. */
static bool folds_equal(const struct folds *a, const struct folds *b)
{
	const char *name = "the files' folded stacks, summed";
	size_t i = 0, j = 0;
	int c;

	for (; i < a->n || j < b->n; i++, j++) {
		c = i == a->n ? 1 : j == b->n ? -1 : strcmp(a->v[i].stack, b->v[j].stack);
		if (c < 0) {
			test__fail(__FILE__, __LINE__, name, "'%s': %llu in the files, not as one",
				   a->v[i].stack, a->v[i].n);
			return false;
		}
		if (c > 0) {
			test__fail(__FILE__, __LINE__, name, "'%s': %llu as one, not in the files",
				   b->v[j].stack, b->v[j].n);
			return false;
		}
		if (a->v[i].n != b->v[j].n) {
			test__fail(__FILE__, __LINE__, name, "'%s': %llu in the files, %llu as one",
				   a->v[i].stack, a->v[i].n, b->v[j].n);
			return false;
		}
	}
	return true;
}

/*
 * Profiles across files: each file's stack ids are its own, so the folded
 * stacks of two captures read as one are those of each, summed by line.
 * The second program's 200 rounds of work are about 1.5 s of CPU, some 700
 * samples at -F 499 (2000 rounds took 13 s of the test's 17 in CI).
 */
void test_set_profile(void)
{
	char *rc = (char *)bin("ringcap"), *prof = (char *)bin("rc_prof");
	const char *p1 = tmpfile_path("p1.rcap"), *p2 = tmpfile_path("p2.rcap");
	struct folds each = {}, one = {};
	unsigned long long samples = 0;
	struct run r = {};
	size_t i;

	if (!need_root())
		goto out;
	if (!ASSERT_EQ(
		run_sync(&r,
			 (char *[]){ rc, "record", "-q", "-F", rate(), "-g", "-o", (char *)p1, "--",
				     prof, "burn", "300", "/dev/null", NULL },
			 120000),
		0, "record 1"))
		goto out;
	run_free(&r);
	if (!ASSERT_EQ(
		run_sync(&r,
			 (char *[]){ rc, "record", "-q", "-F", rate(), "-g", "-o", (char *)p2, "--",
				     prof, "work", "200", "/dev/null", NULL },
			 120000),
		0, "record 2"))
		goto out;
	run_free(&r);
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ rc, "report", "--format", "folded", (char *)p1, NULL },
				60000),
		       0, "folded 1") ||
	    !folds_add(&each, r.out, "folded 1"))
		goto out;
	run_free(&r);
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ rc, "report", "--format", "folded", (char *)p2, NULL },
				60000),
		       0, "folded 2") ||
	    !folds_add(&each, r.out, "folded 2"))
		goto out;
	run_free(&r);
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ rc, "report", "--format", "folded", (char *)p2,
					    (char *)p1, NULL },
				60000),
		       0, "folded both") ||
	    !folds_add(&one, r.out, "folded both"))
		goto out;
	/* line by line: each file's stacks summed are those of the two read as one */
	folds_sum(&each);
	folds_sum(&one);
	ASSERT_TRUE(folds_equal(&each, &one), "the files' folded stacks, summed");
	for (i = 0; i < one.n; i++)
		samples += one.v[i].n;
	ASSERT_TRUE(samples > 100, "samples folded");
	run_free(&r);
	/* the summary's functions: both programs' */
	if (!ASSERT_EQ(
		run_sync(&r, (char *[]){ rc, "report", "--summary", (char *)p1, (char *)p2, NULL },
			 60000),
		0, "summary"))
		goto out;
	ASSERT_HAS(r.out, "burn_a", "the first's functions");
	ASSERT_HAS(r.out, "work_a", "the second's functions");
out:
	folds_free(&each);
	folds_free(&one);
	run_free(&r);
	tmpdir_cleanup();
}
