// SPDX-License-Identifier: GPL-2.0-only
/*
 * The perf buffer transport, in the real kernel: exact counts, order
 * across CPUs, losses accounted exactly, and the flight recorder.
 */
#include <errno.h>
#include <linux/types.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "events.h"
#include "ringcap.h"
#include "run_util.h"
#include "test_progs.h"

#define MAX_CPUS 64
#define MAX_SNAP 8

/* What a capture holds. */
struct pfacts {
	pid_t pid; /* the workload's, when known */
	uint32_t transport, flags;
	long nrec, getppid, getppid_bad, backwards;
	long getppid_cpu[MAX_CPUS];
	uint64_t late;
	bool truncated;
	/* counters */
	uint64_t made, dropped, captured;
	uint64_t dropped_cpu[MAX_CPUS];
	/* ringcap:lost records */
	uint64_t lost, lost_at_end, lost_cpu[MAX_CPUS];
	long lost_recs;
	/* the flight recorder: lseek(-1, i) numbers, by snapshot */
	int nsnap;
	struct rc_rec_snapshot snap[MAX_SNAP];
	long in_snap[MAX_SNAP]; /* records after each marker */
	long seq_first[MAX_SNAP], seq_last[MAX_SNAP], seq_gaps[MAX_SNAP];
	long exit_groups;
};

static void take_seq(struct pfacts *f, const struct rc_ev_syscall *e)
{
	int k = f->nsnap - 1;
	long v = (long)e->args[1];

	if (k < 0 || k >= MAX_SNAP)
		return;
	if (f->seq_first[k] < 0)
		f->seq_first[k] = v;
	else if (v != f->seq_last[k] + 1)
		f->seq_gaps[k]++;
	f->seq_last[k] = v;
}

static void take(struct pfacts *f, const struct rc_rec_hdr *rec)
{
	const struct rc_ev_syscall *e = (const void *)rec;

	if (rec->type == RC_REC_LOST) {
		const struct rc_rec_lost *l = (const void *)rec;

		f->lost += l->lost;
		f->lost_recs++;
		if (l->flags & RC_LOST_F_AT_END)
			f->lost_at_end += l->lost;
		if (rec->cpu < MAX_CPUS)
			f->lost_cpu[rec->cpu] += l->lost;
		return;
	}
	if (rec->type == RC_REC_SNAPSHOT) {
		if (f->nsnap < MAX_SNAP) {
			memcpy(&f->snap[f->nsnap], rec, sizeof(f->snap[0]));
			f->seq_first[f->nsnap] = -1;
		}
		f->nsnap++;
		return;
	}
	if (f->nsnap > 0 && f->nsnap <= MAX_SNAP)
		f->in_snap[f->nsnap - 1]++;
	if (rec->type != RC_EV_SYSCALL)
		return;
	if (e->nr == __NR_getppid && (!f->pid || (pid_t)rec->pid == f->pid)) {
		f->getppid++;
		if (strcmp(rec->comm, "rc_workload"))
			f->getppid_bad++;
		if (rec->cpu < MAX_CPUS)
			f->getppid_cpu[rec->cpu]++;
	}
	if (e->nr == __NR_lseek && !strcmp(rec->comm, "rc_workload"))
		take_seq(f, e);
	if (e->nr == __NR_exit_group && !strcmp(rec->comm, "rc_workload"))
		f->exit_groups++;
}

static int pgather(const char *path, struct pfacts *f)
{
	const struct rc_rec_hdr *rec;
	const struct rc_stats *st;
	const struct rc_trailer *tr;
	struct rc_reader *r;
	uint64_t prev = 0;
	uint32_t i;
	int err;

	r = rc_reader__open(path);
	if (!r)
		return -errno;
	f->transport = rc_reader__meta(r)->transport;
	f->flags = rc_reader__meta(r)->flags;
	while ((err = rc_reader__next(r, &rec)) > 0) {
		f->nrec++;
		f->backwards += rec->ts < prev;
		prev = rec->ts;
		take(f, rec);
	}
	f->truncated = rc_reader__truncated(r);
	if (rc_reader__corrupt(r, NULL)) /* a recorder's file is never damaged */
		test__fail(__FILE__, __LINE__, "read", "%s", rc_reader__error(r));
	tr = rc_reader__trailer(r);
	f->late = tr ? tr->late : 0;
	st = rc_reader__stats(r);
	for (i = 0; st && i < st->nentries; i++) {
		const struct rc_stat_entry *e = &st->entries[i];

		f->made += e->made;
		f->dropped += e->dropped;
		f->captured += e->captured;
		if (e->cpu < MAX_CPUS)
			f->dropped_cpu[e->cpu] += e->dropped;
	}
	rc_reader__free(r);
	return err;
}

/* record ARGS... -o OUT -- rc_workload WORKLOAD...; then read OUT into @f. */
static int record(struct pfacts *f, char *const *args, char *const *workload)
{
	const char *out = tmpfile_path("p.rcap");
	char *argv[32];
	struct run r = {};
	int n = 0, i, err = -1;

	argv[n++] = (char *)bin("ringcap");
	argv[n++] = "record";
	argv[n++] = "-q";
	for (i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n++] = "-o";
	argv[n++] = (char *)out;
	argv[n++] = "--";
	argv[n++] = (char *)bin("rc_workload");
	for (i = 0; workload[i]; i++)
		argv[n++] = workload[i];
	argv[n] = NULL;
	memset(f, 0, sizeof(*f));
	if (ASSERT_EQ(run_sync(&r, argv, 120000), 0, "record")) {
		f->pid = read_pidfile(tmpfile_path("pid"));
		if (f->pid < 0)
			f->pid = 0; /* no pidfile: any process */
		err = pgather(out, f);
		ASSERT_OK(err, "read capture");
	}
	run_free(&r);
	unlink(out);
	return err;
}

#define N_EXACT 20000

static void exact(const char *drain)
{
	const char *pidf = tmpfile_path("pid");
	struct pfacts f;

	if (record(&f,
		   (char *[]){ "--transport", "perfbuf", "-e", "syscalls", "--drain", (char *)drain,
			       NULL },
		   (char *[]){ "getppid", "20000", (char *)pidf, NULL }))
		return;
	ASSERT_EQ(f.transport, 2, "perfbuf in the file");
	ASSERT_EQ(f.getppid, N_EXACT, "getppid records");
	ASSERT_EQ(f.getppid_bad, 0, "getppid records with a wrong comm");
	ASSERT_EQ(f.dropped, 0, "dropped");
	ASSERT_EQ(f.made, f.captured, "made = captured");
	ASSERT_EQ(f.captured, f.nrec, "captured = records in the file");
	ASSERT_EQ(f.lost, 0, "no lost records");
	ASSERT_EQ(f.backwards, 0, "timestamps never go backwards");
	ASSERT_TRUE(!f.truncated, "complete");
}

void test_perfbuf_exact(void)
{
	if (test__start_subtest("poll") && need_root())
		exact("poll");
	if (test__start_subtest("busy") && need_root())
		exact("busy");
	tmpdir_cleanup();
}

/*
 * The workload moves itself to the next CPU before each call, so the CPUs'
 * rings interleave call by call: the merged file is in time order, and
 * each CPU holds exactly its share. 40,000 calls natively; a quarter in
 * make vmtest's TCG guests, where each move (a migration, and its sched
 * records) costs tens of times more: 10,000 interleavings still.
 */
void test_perfbuf_order(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), i;
	const long n = getenv("RINGCAP_VMTEST") ? 10000 : 40000;
	char n_s[24];
	struct pfacts f;

	if (!need_root())
		return;
	if (ncpu < 2 || ncpu > MAX_CPUS) {
		test__skip("needs 2 to 64 online CPUs");
		return;
	}
	snprintf(n_s, sizeof(n_s), "%ld", n);
	if (record(&f, (char *[]){ "--transport", "perfbuf", "-e", "syscalls,sched", NULL },
		   (char *[]){ "bounce", n_s, NULL }))
		goto out;
	ASSERT_EQ(f.getppid, n, "getppid records");
	for (i = 0; i < ncpu; i++)
		ASSERT_EQ(f.getppid_cpu[i], n / ncpu + (i < n % ncpu), "getppid records on a CPU");
	ASSERT_EQ(f.backwards, 0, "timestamps never go backwards");
	ASSERT_EQ(f.late, 0, "no record written late");
	ASSERT_EQ(f.dropped, 0, "dropped");
	ASSERT_EQ(f.made, f.captured, "made = captured");
out:
	tmpdir_cleanup();
}

/*
 * One-page rings lose most of a storm: every loss is in the file as lost
 * records, per CPU, adding up to the drops the programs counted.
 */
void test_perfbuf_lost(void)
{
	struct pfacts big, tiny;
	int cpu;

	if (!need_root())
		return;
	if (record(&big,
		   (char *[]){ "--transport", "perfbuf", "-m", "64M", "-e", "syscalls", NULL },
		   (char *[]){ "getppid", "200000", NULL }) ||
	    record(&tiny, (char *[]){ "--transport", "perfbuf", "-m", "1", "-e", "syscalls", NULL },
		   (char *[]){ "getppid", "200000", NULL }))
		goto out;
	ASSERT_EQ(big.dropped, 0, "nothing dropped from big rings");
	ASSERT_TRUE(tiny.dropped > 0, "one-page rings drop");
	/*
	 * The workload's own start-up syscalls vary by a few from run to run,
	 * so the two runs' totals are not compared; its calls are.
	 */
	ASSERT_EQ(big.getppid, 200000, "every getppid call in the big rings");
	ASSERT_TRUE(tiny.made > 200000, "the tiny rings' programs saw every call");
	ASSERT_EQ(tiny.made, tiny.captured + tiny.dropped, "made = captured + dropped");
	ASSERT_EQ(tiny.captured, tiny.nrec - tiny.lost_recs, "captured = events in the file");
	ASSERT_EQ(tiny.lost, tiny.dropped, "lost records add up to the drops");
	for (cpu = 0; cpu < MAX_CPUS; cpu++)
		if (tiny.lost_cpu[cpu] != tiny.dropped_cpu[cpu])
			ASSERT_EQ(tiny.lost_cpu[cpu], tiny.dropped_cpu[cpu], "lost on a CPU");
	ASSERT_EQ(tiny.backwards, 0, "timestamps never go backwards");
out:
	tmpdir_cleanup();
}

/* Copy @in to @out at about @rate bytes a second, until @in ends. */
static void slow_copy(int in, int out, long rate)
{
	struct timespec t0, now;
	char buf[65536];
	long long got = 0;
	ssize_t n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		long long ahead_ns;

		if (write(out, buf, n) != n)
			break;
		got += n;
		clock_gettime(CLOCK_MONOTONIC, &now);
		ahead_ns = got * 1000000000ll / rate - ((now.tv_sec - t0.tv_sec) * 1000000000ll +
							 now.tv_nsec - t0.tv_nsec);
		if (ahead_ns > 0)
			nanosleep(&(struct timespec){ ahead_ns / 1000000000, ahead_ns % 1000000000 },
				  NULL);
	}
}

/*
 * Back-pressure on perf rings: two uneven workloads, one on each CPU, and
 * the capture streamed into a pipe read slowly (the case: 81,653
 * records late before the fix). The writer falls behind,
 * the rings fill, and the fuller one must still be read in time order with
 * the other: nothing late, nothing backwards, every loss counted.
 */
void test_perfbuf_backpressure(void)
{
	bool guest = getenv("RINGCAP_VMTEST"); /* TCG: ten times slower */
	const char *out = tmpfile_path("bp.rcap"), *n0 = guest ? "300000" : "3000000",
		   *n1 = guest ? "30000" : "300000";
	char *rc = (char *)bin("ringcap"), *wl = (char *)bin("rc_workload");
	int p[2], fd = -1, status;
	struct pfacts f;
	pid_t pid;

	memset(&f, 0, sizeof(f));
	if (!need_root())
		return;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		test__skip("needs 2 online CPUs");
		return;
	}
	if (!ASSERT_OK(pipe(p), "pipe"))
		return;
	wl = strdup(wl);
	pid = fork();
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		close(p[0]);
		close(p[1]);
		execl(rc, rc, "record", "-q", "--transport", "perfbuf", "-m", "8M", "-e",
		      "syscalls", "-o", "-", "--", wl, "uneven", n0, n1, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (ASSERT_TRUE(fd >= 0, "open"))
		slow_copy(p[0], fd, guest ? 100000 : 1000000);
	close(p[0]);
	if (fd >= 0)
		close(fd);
	if (!ASSERT_EQ(waitpid(pid, &status, 0), pid, "wait") ||
	    !ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0, "record succeeded") ||
	    !ASSERT_OK(pgather(out, &f), "read capture"))
		goto out;
	printf("    %llu made, %llu dropped, %llu late\n", (unsigned long long)f.made,
	       (unsigned long long)f.dropped, (unsigned long long)f.late);
	ASSERT_EQ(f.late, 0, "no record written late");
	ASSERT_EQ(f.backwards, 0, "timestamps never go backwards");
	ASSERT_EQ(f.made, f.captured + f.dropped, "made = captured + dropped");
	ASSERT_EQ(f.captured, f.nrec - f.lost_recs, "captured = events in the file");
	ASSERT_EQ(f.lost, f.dropped, "lost records add up to the drops");
	ASSERT_TRUE(!f.truncated, "complete");
out:
	free(wl);
	tmpdir_cleanup();
}

/* A snapshot's numbered calls: the newest, with no gap, up to the last one. */
static void assert_newest(const struct pfacts *f, int k, long last, const char *what)
{
	ASSERT_EQ(f->seq_gaps[k], 0, what);
	ASSERT_EQ(f->seq_last[k], last, "the snapshot ends with the newest call");
	ASSERT_TRUE(f->seq_first[k] > 0, "older calls were overwritten");
	ASSERT_EQ((long)f->snap[k].nrec, f->in_snap[k], "the records the marker announces");
}

void test_perfbuf_flight(void)
{
	struct pfacts f;

	if (!need_root())
		return;
	/* 16 KiB rings keep about 128 of 100000 calls: the newest, in the end's snapshot */
	if (test__start_subtest("exit") &&
	    !record(&f, (char *[]){ "--overwrite", "-m", "4", "-e", "syscalls", NULL },
		    (char *[]){ "seq", "100000", NULL })) {
		ASSERT_EQ(f.transport, 2, "perfbuf");
		ASSERT_EQ(f.flags & 1, 1, "a flight recorder's file");
		if (ASSERT_EQ(f.nsnap, 1, "one snapshot")) {
			ASSERT_EQ(f.snap[0].reason, RC_SNAP_EXIT, "at the end");
			assert_newest(&f, 0, 99999, "no gap in the snapshot");
		}
		ASSERT_EQ(f.exit_groups, 1, "the exit is the newest event");
		ASSERT_EQ(f.captured, f.nrec - f.nsnap, "captured = the snapshot's records");
		ASSERT_TRUE(f.made > f.captured + f.dropped, "the rest was overwritten");
		ASSERT_EQ(f.backwards, 0, "timestamps never go backwards");
	}
	/* the trigger's snapshot holds what led to it; the end's, what came after */
	if (test__start_subtest("snapshot_on") &&
	    !record(&f,
		    (char *[]){ "--overwrite", "-m", "4", "-e", "syscalls", "--snapshot-on",
				"syscall:exit_group", NULL },
		    (char *[]){ "seq", "100000", NULL })) {
		if (ASSERT_EQ(f.nsnap, 2, "two snapshots")) {
			ASSERT_EQ(f.snap[0].reason, RC_SNAP_EVENT, "the first on the event");
			ASSERT_EQ(f.snap[1].reason, RC_SNAP_EXIT, "the second at the end");
			assert_newest(&f, 0, 99999, "no gap in the trigger's snapshot");
		}
		ASSERT_EQ(f.exit_groups, 1, "the trigger is in the snapshot");
	}
	/*
	 * A trigger early in a run that goes on a second: its snapshot is
	 * taken by the loop then, not by the stop's look at the trigger rings.
	 */
	if (test__start_subtest("snapshot_on_live") &&
	    !record(&f,
		    (char *[]){ "--overwrite", "-m", "4", "-e", "syscalls", "--snapshot-on",
				"syscall:getppid", NULL },
		    (char *[]){ "mark", "1000", NULL })) {
		if (ASSERT_EQ(f.nsnap, 2, "two snapshots")) {
			ASSERT_EQ(f.snap[0].reason, RC_SNAP_EVENT, "the first on the event");
			ASSERT_EQ(f.snap[1].reason, RC_SNAP_EXIT, "the second at the end");
			ASSERT_TRUE(f.snap[1].taken_ts > f.snap[0].taken_ts + 500000000ull,
				    "the trigger's snapshot taken during the run, not at its end");
		}
		ASSERT_EQ(f.getppid, 1, "the trigger is in the snapshot");
	}
	tmpdir_cleanup();
}

/* SIGUSR2 takes a snapshot while recording; each is complete in the file. */
void test_perfbuf_sigusr2(void)
{
	const char *out = tmpfile_path("usr2.rcap");
	struct run r = {};
	struct pfacts f = {};
	int i;

	if (!need_root())
		return;
	if (!ASSERT_OK(run_start(&r, (char *[]){ (char *)bin("ringcap"), "record", "-q",
						 "--overwrite", "-e", "syscalls", "-o", (char *)out,
						 "--", (char *)bin("rc_workload"), "steady",
						 "20000", "3", NULL }),
		       "start"))
		goto out;
	if (!ASSERT_TRUE(wait_nonempty(out, 60000), "recording"))
		goto out;
	for (i = 0; i < 2; i++) {
		usleep(500000);
		kill(r.pid, SIGUSR2);
	}
	if (!ASSERT_EQ(run_wait(&r, 60000), 0, "record ended"))
		goto out;
	/* run_wait() is 0 for any end: the status says how it ended */
	if (!ASSERT_TRUE(WIFEXITED(r.status), "record exited, not killed") ||
	    !ASSERT_EQ(WEXITSTATUS(r.status), 0, "record exits 0")) {
		fprintf(stderr, "%s", r.err ? r.err : "");
		goto out;
	}
	if (!ASSERT_OK(pgather(out, &f), "read capture"))
		goto out;
	if (ASSERT_EQ(f.nsnap, 3, "two signalled snapshots and the end's")) {
		ASSERT_EQ(f.snap[0].reason, RC_SNAP_SIGNAL, "signal");
		ASSERT_EQ(f.snap[1].reason, RC_SNAP_SIGNAL, "signal");
		ASSERT_EQ(f.snap[2].reason, RC_SNAP_EXIT, "exit");
		for (i = 0; i < 3; i++)
			ASSERT_EQ((long)f.snap[i].nrec, f.in_snap[i], "each snapshot complete");
		ASSERT_TRUE(f.snap[1].hdr.ts > f.snap[0].last_ts, "snapshots do not overlap");
	}
	ASSERT_EQ(f.backwards, 0, "timestamps never go backwards");
out:
	run_free(&r);
	tmpdir_cleanup();
}
