// SPDX-License-Identifier: GPL-2.0-only
/*
 * The flight recorder under a storm of snapshots (record --overwrite,
 * SIGUSR2 every ~15 ms, --switch-output=signal, --snapshot-on): a storm of
 * numbered lseek() calls (rc_workload seq) is the ground truth. No call is
 * in two snapshots; each snapshot holds a run of calls newer than the one
 * before, with no gap but what the drops explain; and the ledger adds up:
 * made = in the snapshots + dropped + overwritten, overwritten >= 0.
 * Rotating, that holds for each file's own span too (its last counters
 * less its BASE ones), and no event in a file is older than the counters
 * that ended the file before: the counters are taken with the snapshot's
 * rings paused (rc_bpf__hold_stats()), not after they resumed.
 *
 * In one file the snapshots' markers each head exactly their records: a
 * record reserved before a pause and committed after it would have the
 * time of the snapshot before and sort into it (rc_perfbuf__snapshot()
 * waits for such writers; without that wait this test fails now and then).
 */
#include <errno.h>
#include <glob.h>
#include <linux/types.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "events.h"
#include "capture_util.h"
#include "run_util.h"
#include "test_progs.h"

#define ASSERT_GE(a, b, name) ASSERT_TRUE((a) >= (b), name)
#define ASSERT_LE(a, b, name) ASSERT_TRUE((a) <= (b), name)

#define FL_CALLS 1500000L

/*
 * The storm's calls: 1.5M natively; a fifteenth of that in make vmtest's
 * TCG guests, where each call costs tens of times more (a fifth there took
 * 4.6 to 9.6 s a subtest in the 6.1-rt guest, for 128 to 184 snapshots).
 * Either way the signals come apart many times over (snapshots: at least 5
 * asserted), and the assertions are about every call, not about the
 * storm's size.
 */
static long fl_calls(void)
{
	return getenv("RINGCAP_VMTEST") ? FL_CALLS / 15 : FL_CALLS;
}

/* What the files of a run hold, snapshot by snapshot. */
struct flight {
	uint32_t *seen; /* [FL_CALLS]: in how many records each call is */
	long nsnap, nrec, calls, dup, gaps, overlaps, short_snaps;
	long announced; /* every marker's nrec, summed */
	long max_short; /* the most records a snapshot held fewer than announced */
	long last_max;		/* the newest call of the snapshot before */
	long lo, hi, in_snap;	/* the current snapshot's calls */
	long marker_nrec;	/* what its marker announces */
	uint64_t m_ts, m_last, m_taken; /* its marker's times */
	uint64_t r_min, r_max;		/* its records' */
	long since_marker;	/* records read since it */
	uint64_t made, dropped; /* the last counters of the run: dropped counts paused too */
	uint64_t kdropped;	/* of them, dropped for a full ring, in every file */
	bool stats;
	long nfiles, nlost;
	long file_short; /* files holding more than their span made, less its drops */
	long file_late;	 /* records older than the counters ending the file before */
	uint64_t end_ts; /* the time of the counters that ended the file before */
};

/* The snapshot just read: its calls a run after the last one's. */
static void end_snapshot(struct flight *fl)
{
	if (!fl->nsnap)
		return;
	if (fl->since_marker != fl->marker_nrec) {
		long miss = fl->marker_nrec - fl->since_marker;

		if (fl->short_snaps++ < 5)
			fprintf(stderr,
				"    snapshot %ld: %ld records after its marker, %ld announced; "
				"marker ts %llu last_ts %llu taken_ts %llu, records' ts %llu..%llu\n",
				fl->nsnap, fl->since_marker, fl->marker_nrec,
				(unsigned long long)fl->m_ts, (unsigned long long)fl->m_last,
				(unsigned long long)fl->m_taken, (unsigned long long)fl->r_min,
				(unsigned long long)fl->r_max);
		fl->max_short = miss > fl->max_short ? miss : fl->max_short;
	}
	if (fl->in_snap) {
		fl->gaps += (fl->hi - fl->lo + 1) - fl->in_snap;
		if (fl->lo <= fl->last_max) {
			fl->overlaps++;
			fprintf(stderr,
				"    snapshot %ld: calls %ld..%ld, the one before ended at %ld\n",
				fl->nsnap, fl->lo, fl->hi, fl->last_max);
		}
		fl->last_max = fl->hi > fl->last_max ? fl->hi : fl->last_max;
	}
	fl->in_snap = 0;
}

static int read_one(const char *path, struct flight *fl)
{
	const struct rc_rec_hdr *rec;
	const struct rc_stats *st, *base;
	struct rc_reader *r = rc_reader__open(path);
	long nev = 0, late = 0;
	int err;

	if (!r)
		return -errno;
	while ((err = rc_reader__next(r, &rec)) > 0) {
		if (rec->type == RC_REC_LOST) {
			fl->nlost++;
			continue;
		}
		if (rec->type != RC_REC_SNAPSHOT) {
			nev++;
			late += fl->nfiles && rec->ts <= fl->end_ts;
		}
		if (rec->type == RC_REC_SNAPSHOT) {
			const struct rc_rec_snapshot *m = (const void *)rec;

			end_snapshot(fl);
			fl->nsnap++;
			fl->marker_nrec = (long)m->nrec;
			fl->m_ts = m->hdr.ts;
			fl->m_last = m->last_ts;
			fl->m_taken = m->taken_ts;
			fl->r_min = UINT64_MAX;
			fl->r_max = 0;
			fl->announced += (long)m->nrec;
			fl->since_marker = 0;
			continue;
		}
		fl->nrec++;
		fl->since_marker++;
		fl->r_min = rec->ts < fl->r_min ? rec->ts : fl->r_min;
		fl->r_max = rec->ts > fl->r_max ? rec->ts : fl->r_max;
		if (rec->type == RC_EV_SYSCALL) {
			const struct rc_ev_syscall *e = (const void *)rec;
			long off = (long)e->args[1];

			if (e->nr != __NR_lseek || off < 0 || off >= FL_CALLS)
				continue;
			fl->calls++;
			fl->dup += fl->seen[off]++ > 0;
			if (!fl->in_snap++) {
				fl->lo = off;
				fl->hi = off;
			}
			fl->lo = off < fl->lo ? off : fl->lo;
			fl->hi = off > fl->hi ? off : fl->hi;
		}
	}
	st = rc_reader__stats(r);
	if (st) {
		struct rc_stats_point pt;

		rc_stats__totals(st, &pt);
		fl->made = pt.made;
		/* refused by the kernel: by a ring paused for a snapshot, or a full one */
		fl->dropped = pt.dropped + pt.paused;
		fl->kdropped += pt.dropped;
		fl->stats = true;
		/*
		 * This file's span: the counters it ends with less those it
		 * began with. Its events were all made in it, so they and its
		 * drops are at most what it made (overwritten >= 0); and none
		 * of them is older than the counters ending the file before.
		 * But for one event a CPU: the counters are read while the
		 * programs run on (each event made while paused is dropped),
		 * and one between its made and its dropped count may be read
		 * half (made in one file's span, dropped in the next's).
		 * Taken after the rings resumed, as before, the excess was
		 * thousands of events a file.
		 */
		base = rc_reader__base(r);
		if (base) {
			struct rc_stats_point b;

			rc_stats__totals(base, &b);
			pt.made -= b.made;
			pt.dropped -= b.dropped;
			pt.paused -= b.paused;
		}
		pt.dropped += pt.paused;
		if ((uint64_t)nev + pt.dropped >
		    pt.made + (uint64_t)sysconf(_SC_NPROCESSORS_CONF)) {
			fl->file_short++;
			fprintf(stderr, "    %s: %ld events + %llu dropped > %llu made\n", path,
				nev, (unsigned long long)pt.dropped, (unsigned long long)pt.made);
		}
		/*
		 * As for made and dropped, one event a CPU: a program that
		 * took its time while the rings were paused, before the
		 * counters, and wrote after the resume (seen in the 6.12
		 * guests under TCG: 1 event in a file, 5 files of 25).
		 */
		if (late > sysconf(_SC_NPROCESSORS_CONF)) {
			fl->file_late++;
			fprintf(stderr, "    %s: %ld events older than the last counters before\n",
				path, late);
		}
		fl->end_ts = st->ts;
	}
	fl->nfiles++;
	rc_reader__free(r);
	return err;
}

/* Every file of the run whose -o was @out, in name order (@many) or @out alone. */
static int read_run(const char *out, bool many, struct flight *fl)
{
	glob_t g = {};
	char pat[4096];
	size_t i;
	int err = 0;

	fl->last_max = -1;
	if (!many) {
		err = read_one(out, fl);
		end_snapshot(fl);
		return err;
	}
	snprintf(pat, sizeof(pat), "%s.*", out);
	if (glob(pat, 0, NULL, &g))
		return -ENOENT;
	for (i = 0; !err && i < g.gl_pathc; i++)
		err = read_one(g.gl_pathv[i], fl);
	globfree(&g);
	end_snapshot(fl);
	return err;
}

static bool output_there(const char *out, bool many)
{
	glob_t g = {};
	char pat[4096];
	bool there;

	if (!many)
		return access(out, F_OK) == 0;
	snprintf(pat, sizeof(pat), "%s.*", out);
	there = !glob(pat, 0, NULL, &g);
	globfree(&g);
	return there;
}

static long long json_num(const char *json, const char *key)
{
	char pat[64];
	const char *p;
	long long v;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = json ? strstr(json, pat) : NULL;
	if (!p || sscanf(p + strlen(pat), "%lld", &v) != 1)
		return -1;
	return v;
}

/*
 * ringcap stat counts events, as the ledger does: not ringcap's own
 * snapshot markers and lost records, which it counts in "records".
 */
static void stat_counts(const char *out, bool many, const struct flight *fl)
{
	struct run r = {};
	char arg[4096], want[64];

	snprintf(arg, sizeof(arg), many ? "%s.*" : "%s", out);
	if (many) {
		glob_t g = {};

		if (!ASSERT_OK(glob(arg, 0, NULL, &g), "glob"))
			return;
		snprintf(arg, sizeof(arg), "%s", g.gl_pathv[0]);
		globfree(&g);
		/* a directory of them: the run's files */
		*strrchr(arg, '/') = '\0';
	}
	if (ASSERT_EQ(run_sync(&r,
			       (char *[]){ (char *)bin("ringcap"), "stat", "--json", arg, NULL },
			       60000),
		      0, "stat --json")) {
		ASSERT_EQ(json_num(r.out, "events"), fl->nrec, "stat: events, not markers");
		ASSERT_EQ(json_num(r.out, "records"), fl->nrec + fl->nsnap + fl->nlost,
			  "stat: records, with markers and lost");
	}
	run_free(&r);
	if (!ASSERT_EQ(run_sync(&r, (char *[]){ (char *)bin("ringcap"), "stat", arg, NULL }, 60000),
		       0, "stat"))
		goto out;
	snprintf(want, sizeof(want), " %ld events in", fl->nrec);
	ASSERT_TRUE(r.out && strstr(r.out, want), "stat's header: events");
	if (many)
		ASSERT_TRUE(r.out && strstr(r.out, " EVENTS "), "stat's files: EVENTS");
out:
	run_free(&r);
}

static bool exited(pid_t pid)
{
	siginfo_t si = {};

	return waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/*
 * A storm recorded with --overwrite -m @pages and SIGUSR2 every ~15 ms.
 * @wraps: the rings are too small for what comes between two snapshots,
 * so that records are overwritten (made > in the snapshots + dropped).
 */
static void storm(bool many, const char *snapshot_on, const char *pages, bool wraps)
{
	const char *out = tmpfile_path("fl.rcap");
	char *argv[24];
	struct flight fl = { .seen = calloc(FL_CALLS, sizeof(uint32_t)) };
	struct run r = {};
	long sent = 0, i, calls = fl_calls();
	char calls_s[24];
	int a = 0;

	snprintf(calls_s, sizeof(calls_s), "%ld", calls);
	if (!ASSERT_OK_PTR(fl.seen, "calloc"))
		return;
	argv[a++] = (char *)bin("ringcap");
	argv[a++] = "record";
	argv[a++] = "-q";
	argv[a++] = "--overwrite";
	argv[a++] = "-m";
	argv[a++] = (char *)pages;
	argv[a++] = "-e";
	argv[a++] = "syscalls";
	if (many)
		argv[a++] = "--switch-output=signal";
	if (snapshot_on) {
		argv[a++] = "--snapshot-on";
		argv[a++] = (char *)snapshot_on;
	}
	argv[a++] = "-o";
	argv[a++] = (char *)out;
	argv[a++] = "--";
	argv[a++] = (char *)bin("rc_workload");
	argv[a++] = "seq";
	argv[a++] = calls_s;
	argv[a] = NULL;
	if (!ASSERT_OK(run_start(&r, argv), "start"))
		goto out;
	/* the handlers are in place once the output is there */
	for (i = 0; i < 1000 && !output_there(out, many); i++)
		usleep(10000);
	while (!exited(r.pid)) {
		kill(r.pid, SIGUSR2);
		sent++;
		usleep(10000 + (sent % 11) * 1000);
	}
	run_wait(&r, 120000);
	if (!ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "record exits 0")) {
		fprintf(stderr, "%s", r.err ? r.err : "");
		goto out;
	}
	if (!ASSERT_OK(read_run(out, many, &fl), "read the run") ||
	    !ASSERT_TRUE(fl.stats, "counters"))
		goto out;
	printf("    %ld signals, %ld snapshots, %ld records (%ld calls), made %llu, dropped %llu, "
	       "gaps %ld, overwritten %lld\n",
	       sent, fl.nsnap, fl.nrec, fl.calls, (unsigned long long)fl.made,
	       (unsigned long long)fl.dropped, fl.gaps,
	       (long long)fl.made - (long long)fl.nrec - (long long)fl.dropped);
	/*
	 * Signals that come while a snapshot is taken are one snapshot. In
	 * the TCG guests, where a snapshot takes longer and the storm is a
	 * fifteenth, two CI runs' guests took 4 to 52 snapshots of 25 to 68
	 * signals: more than one there, five on the host.
	 */
	ASSERT_GE(fl.nsnap, getenv("RINGCAP_VMTEST") ? 2 : 5,
		  "snapshots: signals that came apart took one each");
	ASSERT_EQ(fl.dup, 0, "no call in two records");
	ASSERT_EQ(fl.overlaps, 0, "each snapshot's calls newer than the one before's");
	/*
	 * Every record a marker announces is in the files. A marker is
	 * never older than the records of the snapshots before it
	 * (ringcap-file(5)), so a record of a snapshot older than the one
	 * before's newest (a program that took its time stamp before that
	 * snapshot paused the rings, and wrote after the resume) sorts
	 * before its marker, with that one: a snapshot may show a few
	 * records fewer than its marker says and the one before as many
	 * more. At most one a CPU.
	 */
	ASSERT_EQ(fl.announced, fl.nrec, "the snapshots hold every record their markers announce");
	ASSERT_LE(fl.max_short, sysconf(_SC_NPROCESSORS_CONF),
		  "a snapshot short of its marker by at most a record a CPU");
	ASSERT_LE(fl.gaps, (long)fl.dropped, "no gap in a snapshot but the drops");
	/*
	 * An overwrite ring refuses records only while a snapshot pauses it,
	 * counted paused by the counters read around the pause; a refusal
	 * just outside that window (the pause and the reads are not one
	 * step) counts dropped: none on the host, up to 732 of 1.5M in a
	 * TCG guest, where the steps are far apart. Said, not asserted.
	 */
	printf("    %ld refused outside the pauses' counted windows\n", (long)fl.kdropped);
	ASSERT_LE(fl.nrec + (long)fl.dropped, (long)fl.made,
		  "made = in the snapshots + dropped + overwritten, overwritten >= 0");
	/*
	 * Natively the 256K rings wrap between two signals (169k and 213k
	 * records overwritten here). Under TCG (make vmtest) the storm runs
	 * several times slower against the same signals, and whether they wrap
	 * depends on the guest's speed: said there (the line above), not
	 * asserted.
	 */
	if (wraps && !getenv("RINGCAP_VMTEST"))
		ASSERT_TRUE(fl.nrec + (long)fl.dropped < (long)fl.made,
			    "the small rings wrapped: records were overwritten");
	ASSERT_EQ(fl.file_short, 0, "per file: events + dropped <= made, overwritten >= 0");
	ASSERT_EQ(fl.file_late, 0, "per file: no event made before the file before ended");
	stat_counts(out, many, &fl);
	/* the last calls may come while a signal's snapshot has the rings paused */
	ASSERT_LE(calls - 1 - fl.last_max, (long)fl.dropped,
		  "the end's snapshot holds the last calls, or they were dropped");
out:
	free(fl.seen);
	run_free(&r);
	tmpdir_cleanup();
}

void test_flight_storm(void)
{
	if (!need_root())
		return;
	/* 256 KiB rings: each snapshot wraps them, most calls are overwritten */
	if (test__start_subtest("switch"))
		storm(true, NULL, "64", true);
	if (test__start_subtest("one_file"))
		storm(false, NULL, "64", true);
	/* 32 MiB rings hold what comes between two snapshots: overwritten is 0, as a rule */
	if (test__start_subtest("switch_big"))
		storm(true, NULL, "8192", false);
	/* a snapshot on every call: back to back, the rings paused most of the time */
	if (test__start_subtest("snapshot_on"))
		storm(false, "syscall:lseek", "16", false);
}

/*
 * One snapshot of a storm with --overwrite -m 256K: the records the
 * programs made while the snapshot paused the rings to copy them are
 * counted paused, not dropped (an overwrite ring is never full), and
 * record's summary does not advise a larger -m.
 */
static void paused_case(const char *events, long long calls)
{
	const char *out = tmpfile_path("paused.rcap");
	long long made = -1, dropped = -1, paused = -1;
	struct run r = {}, st = {};
	const char *p;
	int i;

	if (!ASSERT_OK(
		run_start(&r, (char *[]){ (char *)bin("ringcap"), "record", "--overwrite", "-m",
					  "256K", "-e", (char *)events, "-o", (char *)out, "--",
					  (char *)bin("rc_workload"), "getppid", "3000000", NULL }),
		"start"))
		return;
	for (i = 0; i < 1000 && !output_there(out, false); i++)
		usleep(10000);
	usleep(200000);
	kill(r.pid, SIGUSR2);
	run_wait(&r, 120000);
	ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "record exits 0");
	ASSERT_TRUE(r.err && !strstr(r.err, "rings full"), "no advice of a larger -m");
	if (ASSERT_EQ(
		run_sync(&st,
			 (char *[]){ (char *)bin("ringcap"), "stat", "--json", (char *)out, NULL },
			 60000),
		0, "stat --json")) {
		p = strstr(st.out, "\"total\":");
		if (p)
			sscanf(p, "\"total\":{\"made\":%lld", &made);
		if (p && (p = strstr(p, "\"dropped\":")))
			sscanf(p, "\"dropped\":%lld,\"paused\":%lld", &dropped, &paused);
		if (calls)
			ASSERT_EQ(made, calls, "made: the workload's calls");
		ASSERT_EQ(dropped, 0, "nothing dropped for a full ring");
		ASSERT_TRUE(paused > 0, "the pause's refusals counted paused");
		if (paused > 0)
			ASSERT_HAS(r.err, "made while snapshots paused the rings", "said so");
	}
	run_free(&st);
	run_free(&r);
	tmpdir_cleanup();
}

/*
 * One snapshot of a storm with --overwrite -m 256K: the records the
 * programs made while the snapshot paused the rings to copy them are
 * counted paused, not dropped (an overwrite ring is never full), and
 * record's summary does not advise a larger -m. For ringcap's own events
 * and for a tracepoint recorded by name.
 */
void test_flight_paused(void)
{
	if (!need_root())
		return;
	if (test__start_subtest("builtin"))
		paused_case("syscalls", 0);
	if (test__start_subtest("tracepoint"))
		paused_case("syscalls:sys_enter_getppid", 3000000);
}
