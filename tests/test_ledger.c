// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ledgers of capture files, in-process (lib/decode/ledger.c): a
 * rotated run's files read one by one, each over its own span; the spans
 * of deleted files found, with the events made and dropped then; the files
 * summed. Folded stacks of several profiles merged (lib/decode/profile.c).
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

#define RUN_FILES 5

/*
 * File @k (1 to 5) of a synthetic rotated run: 100 * k records from k s,
 * k dropped in it, k events in flight at its end (none at the run's end),
 * k samples not run, 2k throttles and 2 malformed, its BASE the counters the file
 * before ended with.
 */
static struct rc_stat_entry run_end(unsigned int k)
{
	struct rc_stat_entry e = { .cpu = 0, .type = RC_EV_SYSCALL };
	unsigned int j;

	for (j = 1; j <= k; j++) {
		e.captured += 100 * j;
		e.dropped += j;
		e.not_run += j;
		e.throttles += 2 * j;
	}
	e.in_flight = k == RUN_FILES ? 0 : k;
	e.made = e.captured + e.dropped + e.in_flight;
	return e;
}

/* File @k's sampling event (its "sampling" note), NULL for none: write_run_file() */
static const char *run_sampling[RUN_FILES + 1];

static bool write_run_file(const char *dir, unsigned int k)
{
	struct rc_writer_opts wo = { .sz = sizeof(wo), .chunk_size = 4096 };
	struct rc_stat_entry be = run_end(k - 1), ee = run_end(k);
	struct rc_stats base = {
		.ts = k * 1000000000ull, .user_dropped = 2 * (k - 1), .nentries = 1, .entries = &be
	};
	struct rc_stats end = { .ts = k * 1000000000ull + 500000000,
				.ring_size = 1 << 20,
				.ring_hwm = k * 1000,
				.user_dropped = 2 * k,
				.nentries = 1,
				.entries = &ee };
	struct rc_ev_syscall e = {};
	struct rc_writer *w;
	struct rc_note note;
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
	if (run_sampling[k]) {
		note = (struct rc_note){ 0, "sampling", run_sampling[k], strlen(run_sampling[k]) };
		m.notes = &note;
		m.nnotes = 1;
	}
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

/* The files of @dir read as a set, each into its ledger; NULL on a failure (asserted). */
static struct rc_ledger_file *read_files(const char *dir, struct rc_set **set, size_t *n)
{
	const char *paths[] = { dir };
	struct rc_ledger_file *f;
	size_t i;

	*set = rc_set__open(paths, 1);
	if (!ASSERT_OK_PTR(*set, "set"))
		return NULL;
	*n = rc_set__nfiles(*set);
	f = calloc(*n, sizeof(*f));
	if (!ASSERT_OK_PTR(f, "files"))
		return NULL;
	for (i = 0; i < *n; i++)
		if (!ASSERT_OK(
			rc_ledger_file__read(&f[i], rc_set__reader(*set, i), rc_set__path(*set, i)),
			"read"))
			break;
	return f;
}

static void free_all(struct rc_ledger_file *f, size_t n, struct rc_set *set)
{
	size_t i;

	for (i = 0; f && i < n; i++)
		rc_ledger_file__free(&f[i]);
	free(f);
	rc_set__free(set);
}

void test_ledger_run(void)
{
	struct rc_ledger_file *f = NULL, sum = {};
	struct rc_ledger_gap *g = NULL;
	struct rc_set *set = NULL;
	char dir[1024], p[4096];
	size_t n = 0, ng = 9;
	struct rc_stats st;
	unsigned int k;

	snprintf(dir, sizeof(dir), "%s/run", tmpdir());
	if (!ASSERT_OK(mkdir(dir, 0755), "mkdir"))
		goto out;
	for (k = 1; k <= RUN_FILES; k++)
		if (!ASSERT_TRUE(write_run_file(dir, k), "write run"))
			goto out;

	/* the whole run: each file over its own span, nothing missing */
	f = read_files(dir, &set, &n);
	if (!f || !ASSERT_EQ(n, RUN_FILES, "files"))
		goto out;
	for (k = 0; k < n; k++) {
		const struct rc_ledger_row *t = &f[k].led.total;
		uint64_t j = k + 1;

		ASSERT_EQ(f[k].nev, 100 * j, "a file's events");
		ASSERT_EQ(t->in_file, 100 * j, "in the file");
		ASSERT_EQ(t->captured, 100 * j, "its span's captured");
		ASSERT_EQ(t->dropped, j, "its span's dropped");
		/* made in its span: those in flight at its start counted, at its end not */
		ASSERT_EQ(t->made, 101 * j, "its span's made");
		ASSERT_EQ(t->not_run, j, "its span's not run");
		ASSERT_EQ(t->throttles, 2 * j, "its span's throttles");
		ASSERT_EQ(rc_ledger__missing(&f[k].led, t), 0, "nothing missing");
		ASSERT_TRUE(f[k].base != NULL || !k, "a later file has its BASE");
		ASSERT_TRUE(!f[k].truncated && !f[k].damaged, "complete");
	}
	ASSERT_OK(rc_ledger__gaps(f, n, &g, &ng), "gaps");
	ASSERT_EQ(ng, 0, "no span missing");
	free(g);
	g = NULL;
	if (!ASSERT_OK(rc_ledger_file__sum(f, n, set, &sum, &st), "sum"))
		goto out;
	ASSERT_EQ(sum.led.total.made, 1515, "run: made");
	ASSERT_EQ(sum.led.total.in_file, 1500, "run: in files");
	ASSERT_EQ(sum.led.total.dropped, 15, "run: dropped");
	ASSERT_EQ(sum.led.total.not_run, 15, "run: not run");
	ASSERT_EQ(sum.led.total.throttles, 30, "run: throttles");
	ASSERT_EQ(sum.nev, 1500, "run: events");
	ASSERT_EQ(rc_ledger__missing(&sum.led, &sum.led.total), 0, "run: nothing missing");
	ASSERT_TRUE(sum.led.st == &st, "the sum's counters");
	ASSERT_EQ(st.user_dropped, 2 * 5, "user drops: each file's span's, added");
	ASSERT_EQ(st.ring_hwm, 5000, "the ring's high water: the most");
	ASSERT_EQ(rc_ledger__lost(&sum.led), 15 + 10, "run: lost");
	rc_ledger_file__free(&sum);
	sum = (struct rc_ledger_file){};
	free_all(f, n, set);
	f = NULL;
	set = NULL;

	/* the first file and the third deleted: two spans, with their events */
	snprintf(p, sizeof(p), "%s/run.rcap.000001", dir);
	if (!ASSERT_OK(unlink(p), "rm 1"))
		goto out;
	snprintf(p, sizeof(p), "%s/run.rcap.000003", dir);
	if (!ASSERT_OK(unlink(p), "rm 3"))
		goto out;
	f = read_files(dir, &set, &n);
	if (!f || !ASSERT_EQ(n, 3, "files left"))
		goto out;
	if (!ASSERT_OK(rc_ledger__gaps(f, n, &g, &ng), "gaps") || !ASSERT_EQ(ng, 2, "two spans"))
		goto out;
	ASSERT_EQ(g[0].seq_from, 1, "span 1 from");
	ASSERT_EQ(g[0].seq_to, 1, "span 1 to");
	ASSERT_TRUE(g[0].before == NULL, "span 1: the run's first file");
	ASSERT_TRUE(g[0].after == &f[0], "span 1: before file 2");
	ASSERT_TRUE(g[0].known, "span 1 known");
	ASSERT_EQ(g[0].made, 101, "span 1: made");
	ASSERT_EQ(g[0].dropped, 1, "span 1: dropped");
	ASSERT_EQ(g[0].from_ts, 1000000000ull, "span 1: from the run's start");
	ASSERT_EQ(g[0].to_ts, 2000000000ull, "span 1: to file 2's start");
	ASSERT_EQ(g[1].seq_from, 3, "span 2 from");
	ASSERT_EQ(g[1].seq_to, 3, "span 2 to");
	ASSERT_TRUE(g[1].before == &f[0] && g[1].after == &f[1], "span 2: between 2 and 4");
	ASSERT_EQ(g[1].made, 303, "span 2: made");
	ASSERT_EQ(g[1].dropped, 3, "span 2: dropped");
	ASSERT_EQ(g[1].from_ts, 2500000000ull, "span 2: from file 2's last counters");
	if (!ASSERT_OK(rc_ledger_file__sum(f, n, set, &sum, &st), "sum"))
		goto out;
	ASSERT_EQ(sum.led.total.made, 202 + 404 + 505, "present: made");
	ASSERT_EQ(sum.led.total.in_file, 1100, "present: in files");
	ASSERT_EQ(rc_ledger__missing(&sum.led, &sum.led.total), 0, "no false mismatch");
	ASSERT_EQ(sum.chunks, f[0].chunks + f[1].chunks + f[2].chunks, "chunks added");
out:
	rc_ledger_file__free(&sum);
	free(g);
	free_all(f, n, set);
	tmpdir_cleanup();
}

/* ringcap stat over files 1 cycles, 2 cpu-clock, 3 cycles: text and JSON say so */
static void check_stat_mixed(const char *dir)
{
	char *rc = (char *)bin("ringcap");
	const char *f2, *f3, *cc;
	struct run r = {};

	if (ASSERT_EQ(run_sync(&r, (char *[]){ rc, "stat", (char *)dir, NULL }, 60000), 0, "stat"))
		ASSERT_HAS(r.out,
			   "# sampling event: mixed, the files differ: cycles in 2 files, "
			   "cpu-clock in 1 file\n",
			   "stat: each event named");
	run_free(&r);
	if (!ASSERT_EQ(run_sync(&r, (char *[]){ rc, "stat", "--json", (char *)dir, NULL }, 60000),
		       0, "stat --json"))
		goto out;
	ASSERT_HAS(r.out, "\"sampling_event\":\"mixed\"", "json: the sum's, mixed");
	f2 = strstr(r.out, "\"seq\":2,");
	f3 = f2 ? strstr(f2, "\"seq\":3,") : NULL;
	cc = f2 ? strstr(f2, "\"sampling_event\":\"cpu-clock\"") : NULL;
	ASSERT_TRUE(f3 && cc && cc < f3, "json: file 2's own, cpu-clock");
	ASSERT_TRUE(f3 && strstr(f3, "\"sampling_event\":\"cycles\""),
		    "json: file 3's own, cycles");
out:
	run_free(&r);
}

/*
 * Files that sampled different events: the sum says "mixed", not the first
 * file's; files of one event, that event; a file without samples changes
 * neither.
 */
void test_ledger_sampling(void)
{
	static const char *const cases[][RUN_FILES + 1] = {
		{ NULL, "cycles", "cycles", NULL, "cycles", "cycles" },
		{ NULL, "cycles", "cpu-clock", "cycles", NULL, NULL },
		{ NULL, NULL, "cpu-clock", "cpu-clock", "cycles", NULL },
		{ NULL, NULL, NULL, NULL, NULL, NULL },
	};
	static const char *const want[] = { "cycles", "mixed", "mixed", "" };
	struct rc_ledger_file *f = NULL, sum = {};
	struct rc_set *set = NULL;
	char dir[1024];
	struct rc_stats st;
	unsigned int c, k;
	size_t n = 0;

	for (c = 0; c < 4; c++) {
		snprintf(dir, sizeof(dir), "%s/run%u", tmpdir(), c);
		if (!ASSERT_OK(mkdir(dir, 0755), "mkdir"))
			goto out;
		memcpy(run_sampling, cases[c], sizeof(run_sampling));
		for (k = 1; k <= RUN_FILES; k++)
			if (!ASSERT_TRUE(write_run_file(dir, k), "write run"))
				goto out;
		f = read_files(dir, &set, &n);
		if (!f || !ASSERT_EQ(n, RUN_FILES, "files"))
			goto out;
		for (k = 0; k < n; k++)
			ASSERT_STREQ(f[k].sampling, cases[c][k + 1] ? cases[c][k + 1] : "",
				     "a file's own");
		if (!ASSERT_OK(rc_ledger_file__sum(f, n, set, &sum, &st), "sum"))
			goto out;
		ASSERT_STREQ(sum.sampling, want[c], "the sum's");
		if (c == 1)
			check_stat_mixed(dir);
		rc_ledger_file__free(&sum);
		sum = (struct rc_ledger_file){};
		free_all(f, n, set);
		f = NULL;
		set = NULL;
	}
out:
	memset(run_sampling, 0, sizeof(run_sampling));
	rc_ledger_file__free(&sum);
	free_all(f, n, set);
	tmpdir_cleanup();
}

/* A file cut before its first counters: its records counted, no counters. */
void test_ledger_no_counters(void)
{
	struct rc_ledger_file f = {};
	struct rc_ledger_gap *g = NULL;
	struct mem_capture mc = {};
	struct rc_reader *r = NULL;
	struct rc_ev_syscall e[3] = {};
	size_t i, ng = 9;

	for (i = 0; i < 3; i++)
		e[i].hdr = (struct rc_rec_hdr){ .ts = 2000 + i,
						.pid = 1,
						.tid = 1,
						.type = RC_EV_SYSCALL,
						.size = sizeof(e[i]) };
	if (!ASSERT_OK(write_mem_capture(&mc, NULL, e, sizeof(e), NULL), "write"))
		goto out;
	r = rc_reader__open_mem(mc.buf, mc.len);
	if (!ASSERT_OK_PTR(r, "open"))
		goto out;
	if (!ASSERT_OK(rc_ledger_file__read(&f, r, "mem"), "read"))
		goto out;
	ASSERT_EQ(f.nev, 3, "events");
	ASSERT_EQ(f.nrec, 3, "records");
	ASSERT_EQ(f.led.total.in_file, 3, "in the file");
	ASSERT_TRUE(f.led.st == NULL, "no counters");
	ASSERT_TRUE(f.end == NULL && f.base == NULL, "no stats block");
	ASSERT_EQ(f.first, 2000, "first");
	ASSERT_EQ(f.last, 2002, "last");
	ASSERT_OK(rc_ledger__gaps(&f, 1, &g, &ng), "gaps");
	ASSERT_EQ(ng, 0, "not of a run: no span");
out:
	free(g);
	rc_ledger_file__free(&f);
	rc_reader__free(r);
	free(mc.buf);
}

/* Two files' profiles: folded lines merged across them, and their functions by name. */
void test_ledger_fold(void)
{
	struct rc_profile_row r1[] = {
		{ .comm = "b", .kind = RC_PROFILE_CPU, .samples = 2, .weight = 2 },
		{ .comm = "a", .kind = RC_PROFILE_CPU, .samples = 3, .weight = 3 },
	};
	struct rc_profile_row r2[] = {
		{ .comm = "a", .kind = RC_PROFILE_CPU, .samples = 4, .weight = 4 },
		{ .comm = "a", .kind = RC_PROFILE_OFFCPU, .samples = 1, .weight = 5000 },
	};
	struct rc_profile p1 = { .rows = r1, .nrows = 2, .samples = 5 };
	struct rc_profile p2 = { .rows = r2, .nrows = 2, .samples = 4, .offcpu = 1 };
	struct rc_profile p3 = {}; /* a file without samples: no functions */
	struct rc_profile_src ps[3] = { { .p = &p1 }, { .p = &p2 }, { .p = &p3 } };
	struct rc_func_count *fc = NULL;
	struct rc_folded *v = NULL;
	struct mem_capture mc = {};
	struct rc_reader *r = NULL;
	size_t n = 0, nf = 0;

	if (!ASSERT_OK(make_capture(&mc, 4, 4096), "capture"))
		goto out;
	r = rc_reader__open_mem(mc.buf, mc.len);
	if (!ASSERT_OK_PTR(r, "open"))
		goto out;
	ps[0].r = ps[1].r = ps[2].r = r; /* rows without a stack: "[unknown]" */
	if (!ASSERT_OK(rc_profile__fold(ps, 2, RC_PROFILE_CPU, false, &v, &n), "fold"))
		goto out;
	if (!ASSERT_EQ(n, 2, "two lines: \"a\" merged across the files"))
		goto out;
	ASSERT_STREQ(v[0].text, "a;[unknown]", "sorted: a first");
	ASSERT_EQ(v[0].count, 7, "a: 3 + 4");
	ASSERT_STREQ(v[1].text, "b;[unknown]", "then b");
	ASSERT_EQ(v[1].count, 2, "b");
	rc_folded__free(v, n);
	v = NULL;
	if (!ASSERT_OK(rc_profile__fold(ps, 2, RC_PROFILE_OFFCPU, false, &v, &n), "fold off-CPU") ||
	    !ASSERT_EQ(n, 1, "one off-CPU line"))
		goto out;
	ASSERT_EQ(v[0].count, 5000, "weighed in ns, as recorded");
	if (!ASSERT_OK(rc_profile__merge_functions(ps, 3, RC_PROFILE_CPU, &fc, &nf), "functions") ||
	    !ASSERT_EQ(nf, 1, "one function, merged by name"))
		goto out;
	ASSERT_STREQ(fc[0].name, "[unknown]", "no stack: [unknown]");
	ASSERT_EQ(fc[0].total, 9, "every sample of both files");
out:
	rc_func_counts__free(fc, nf);
	rc_folded__free(v, n);
	rc_reader__free(r);
	free(mc.buf);
}
