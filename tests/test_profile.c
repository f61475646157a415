// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sampling with stacks (record -F -g): real cpu-clock samples of
 * rc_prof, whose functions burn known shares of its CPU time and time
 * themselves; the shares the samples give must match. Also: kernel frames
 * under a syscall-heavy function, a process that exits before the capture
 * ends named all the same, each stack stored once, and the ledger exact.
 * Off-CPU (--off-cpu): the time rc_prof blocks in two functions, as it
 * times it, from the records with those functions on their stacks.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "run_util.h"
#include "test_progs.h"
#include "ringcap.h"

#define SAMPLE_ID 7 /* RC_SAMPLE_ID */
#define OFFCPU_ID 8 /* RC_OFFCPU_ID */
#define STACK_ID  9 /* RC_STACK_ID */

/* What a capture's samples say. */
struct prof_facts {
	uint64_t samples, with_stack, stacks;
	uint64_t in[3];		/* samples of rc_prof with burn_a, burn_b, burn_c on their stack */
	uint64_t kernel_under;	/* samples with sys_heavy and kernel frames */
	uint64_t sys_heavy;	/* samples with sys_heavy */
	uint64_t unnamed_user;	/* frames in rc_prof's own file without a name */
	uint64_t called;	/* of in[], samples with main and burn on their stack too */
	const char *comm;	/* the workload's task name: "rc_prof" when NULL */
	uint64_t made, dropped, captured;
	uint32_t max_id;
	bool truncated;
};

static unsigned long max_rate(void)
{
	FILE *fp = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	unsigned long max = 0;

	if (fp) {
		if (fscanf(fp, "%lu", &max) != 1)
			max = 0;
		fclose(fp);
	}
	return max;
}

/*
 * -F for the tests: 499, or half the kernel's limit where it is lower (it
 * lowers the limit itself when samples take long, as under emulation).
 */
static char *rate(void)
{
	static char buf[32];
	unsigned long max = max_rate();

	snprintf(buf, sizeof(buf), "%lu", max && max / 2 < 499 ? (max / 2 ?: 1) : 499);
	return buf;
}

static bool has_frame(const struct rc_stack *st, const char *name, bool user)
{
	size_t i, from = user ? st->nkernel : 0, to = user ? (size_t)st->nkernel + st->nuser : st->nkernel;

	for (i = from; i < to; i++)
		if (st->frames[i].sym && !strcmp(st->frames[i].sym, name))
			return true;
	return false;
}

static int gather(const char *path, struct prof_facts *f)
{
	static const char *const burns[3] = { "burn_a", "burn_b", "burn_c" };
	struct rc_reader *r = rc_reader__open(path);
	const struct rc_rec_hdr *rec;
	const struct rc_stats *st;
	uint32_t i;
	int err, k;

	if (!r)
		return -errno;
	while ((err = rc_reader__next(r, &rec)) > 0) {
		const struct rc_stack *s;
		uint32_t id;

		if (rec->type != SAMPLE_ID)
			continue;
		f->samples++;
		memcpy(&id, (const char *)rec + 56, sizeof(id)); /* rc_ev_sample.stack_id */
		s = rc_reader__stack(r, id);
		if (!s)
			continue;
		f->with_stack++;
		if (id > f->max_id)
			f->max_id = id;
		if (strncmp(rec->comm, f->comm ? f->comm : "rc_prof", 16))
			continue;
		for (k = 0; k < 3; k++)
			f->in[k] += has_frame(s, burns[k], true);
		for (k = 0; k < 3; k++)
			if (has_frame(s, burns[k], true)) {
				f->called +=
				    has_frame(s, "burn", true) && has_frame(s, "main", true);
				break;
			}
		if (has_frame(s, "sys_heavy", true)) {
			f->sys_heavy++;
			f->kernel_under += s->nkernel > 0;
		}
		/* libc may have no symbol table here: its frames are the file and offset */
		for (i = s->nkernel; i < (uint32_t)s->nkernel + s->nuser; i++)
			f->unnamed_user += !s->frames[i].sym &&
					   (!s->frames[i].dso || strstr(s->frames[i].dso, "rc_prof"));
	}
	st = rc_reader__stats(r);
	for (i = 0; st && i < st->nentries; i++) {
		if (st->entries[i].type != SAMPLE_ID)
			continue;
		f->made += st->entries[i].made;
		f->dropped += st->entries[i].dropped;
		f->captured += st->entries[i].captured;
	}
	f->truncated = rc_reader__truncated(r);
	rc_reader__free(r);
	return err;
}

/* burn_a, burn_b and burn_c's CPU time as rc_prof measured it. */
static bool read_truth(const char *path, double share[3])
{
	unsigned long long ns[3];
	FILE *fp = fopen(path, "r");
	bool ok;

	if (!fp)
		return false;
	ok = fscanf(fp, "burn_a %llu burn_b %llu burn_c %llu", &ns[0], &ns[1], &ns[2]) == 3;
	fclose(fp);
	if (!ok || !(ns[0] + ns[1] + ns[2]))
		return false;
	for (int k = 0; k < 3; k++)
		share[k] = (double)ns[k] / (ns[0] + ns[1] + ns[2]);
	return true;
}

static void assert_shares(const struct prof_facts *f, const double truth[3])
{
	uint64_t all = f->in[0] + f->in[1] + f->in[2];
	char what[64];
	int k;

	if (!ASSERT_TRUE(all >= 200, "at least 200 samples in burn_*"))
		return;
	for (k = 0; k < 3; k++) {
		double got = (double)f->in[k] / all, diff = got - truth[k];

		snprintf(what, sizeof(what), "burn_%c: %.1f%% sampled, %.1f%% timed", 'a' + k,
			 got * 100, truth[k] * 100);
		ASSERT_TRUE(diff < 0.05 && diff > -0.05, what);
	}
}

static void assert_ledger(const struct prof_facts *f)
{
	ASSERT_TRUE(!f->truncated, "complete file");
	ASSERT_EQ(f->captured, f->samples, "samples read = captured in the ledger");
	ASSERT_EQ(f->made, f->captured + f->dropped, "made = captured + dropped");
	ASSERT_EQ(f->with_stack, f->samples, "every sample has its stack");
}

static void profile_shares(void)
{
	const char *out = tmpfile_path("prof.rcap"), *truth = tmpfile_path("truth");
	struct prof_facts f = {};
	struct run r = {}, rep = {};
	double share[3];
	struct stat sb;

	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-q", "-F", rate(), "-g",
					    "-o", (char *)out, "--", (char *)bin("rc_prof"),
					    "burn", "2000", (char *)truth, NULL },
				120000),
		       0, "record"))
		goto out;
	if (!ASSERT_TRUE(read_truth(truth, share), "the workload's own times") ||
	    !ASSERT_OK(gather(out, &f), "read capture"))
		goto out;
	assert_ledger(&f);
	assert_shares(&f, share);
	/* a sample in a prologue can give a frame-pointer walk one bogus caller: allow a few */
	ASSERT_LT(f.unnamed_user * 100, f.samples, "rc_prof's user frames named, all but 1%");
	/* each stack once: far fewer stacks than samples, and few bytes a sample */
	ASSERT_LT(f.max_id * 4, f.samples, "distinct stacks well below samples");
	if (ASSERT_OK(stat(out, &sb), "stat"))
		ASSERT_LT((uint64_t)sb.st_size / (f.samples ? f.samples : 1), 64,
			  "bytes a sample, all in");
	/* folded: "comm;outer;...;inner COUNT", the same samples */
	if (ASSERT_EQ(run_sync(&rep,
			       (char *[]){ (char *)bin("ringcap"), "report", "--format", "folded",
					   (char *)out, NULL },
			       60000),
		      0, "report --format folded")) {
		ASSERT_HAS(rep.out, "rc_prof;", "a folded line of rc_prof");
		ASSERT_HAS(rep.out, ";main;burn;burn_a ",
			   "main calls burn calls burn_a, outermost first");
	}
	run_free(&rep);
	/* --stacks: the frames under each sample, innermost first, as perf script */
	if (ASSERT_EQ(run_sync(&rep,
			       (char *[]){ (char *)bin("ringcap"), "report", "--stacks", (char *)out,
					   NULL },
			       60000),
		      0, "report --stacks")) {
		ASSERT_HAS(rep.out, " burn_a+0x", "a frame with its offset");
		ASSERT_HAS(rep.out, "rc_prof)\n", "and its file");
	}
	run_free(&rep);
	/*
	 * --summary: the top functions, with and without callees (60 rows: in
	 * the emulated arm64 guest, the clock's system call is most of the time)
	 */
	if (ASSERT_EQ(run_sync(&rep,
			       (char *[]){ (char *)bin("ringcap"), "report", "--summary", "-t", "60",
					   (char *)out, NULL },
			       60000),
		      0, "report --summary")) {
		ASSERT_HAS(rep.out, "CHILDREN     SELF  FUNCTION", "the functions table");
		ASSERT_HAS(rep.out, "%  burn_a\n", "burn_a in it");
	}
out:
	run_free(&r);
	run_free(&rep);
	tmpdir_cleanup();
}

/*
 * The numbers of record -v's "dwarf unwinding:" line: user stacks, to
 * the outermost frame, stopped at the copy's end, short copies.
 */
static bool dwarf_line(const char *err, uint64_t v[4])
{
	const char *p = err ? strstr(err, "dwarf unwinding: ") : NULL;
	unsigned long long a, b, c, d, e, h, g;

	if (!p || sscanf(p,
			 "dwarf unwinding: %llu user stacks: %llu to the outermost frame, %llu "
			 "stopped at the copy's end, %llu stopped early, %llu without CFI, %llu "
			 "of processes gone before their files were read; %llu short copies;",
			 &a, &b, &c, &d, &e, &h, &g) != 7)
		return false;
	v[0] = a;
	v[1] = b;
	v[2] = c;
	v[3] = g;
	return true;
}

/*
 * --call-graph=dwarf: rc_prof_nofp, the same workload built without frame
 * pointers, unwound from stack copies by its CFI: main calls burn calls
 * burn_*, in the shares it timed. The frame-pointer walk of the same
 * binary cannot find those callers, so they are dwarf's work. Also: the
 * perf buffer carries the big records too; the largest copy runs past the
 * stack's top and comes back short, counted; a copy too small to reach
 * main stops at its end, and says so.
 */
static void profile_dwarf(void)
{
	const char *out = tmpfile_path("dwarf.rcap"), *truth = tmpfile_path("truth");
	struct prof_facts f = { .comm = "rc_prof_nofp" }, g = { .comm = "rc_prof_nofp" };
	uint64_t all, v[4];
	struct run r = {}, rep = {};
	double share[3];
	char what[128];
	struct stat sb;

	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-q", "-v", "-F",
					    rate(), "--call-graph=dwarf", "-o", (char *)out, "--",
					    (char *)bin("rc_prof_nofp"), "burn", "2000",
					    (char *)truth, NULL },
				120000),
		       0, "record --call-graph=dwarf"))
		goto out;
	if (!ASSERT_TRUE(read_truth(truth, share), "the workload's own times") ||
	    !ASSERT_OK(gather(out, &f), "read capture"))
		goto out;
	assert_ledger(&f);
	assert_shares(&f, share);
	all = f.in[0] + f.in[1] + f.in[2];
	snprintf(what, sizeof(what), "main and burn above burn_*: %llu of %llu samples",
		 (unsigned long long)f.called, (unsigned long long)all);
	ASSERT_TRUE(f.called * 100 >= all * 95, what);
	if (ASSERT_TRUE(dwarf_line(r.err, v), "record -v says how the unwinding went")) {
		snprintf(what, sizeof(what), "%llu of %llu unwound to the outermost frame",
			 (unsigned long long)v[1], (unsigned long long)v[0]);
		ASSERT_TRUE(v[0] >= all && v[1] * 100 >= v[0] * 95, what);
		ASSERT_TRUE(v[3] <= v[0], "short copies at most one a stack");
	}
	/* the copies never reach the file: as small as with -g */
	if (ASSERT_OK(stat(out, &sb), "stat"))
		ASSERT_LT((uint64_t)sb.st_size / (f.samples ? f.samples : 1), 64,
			  "bytes a sample, all in");
	if (ASSERT_EQ(run_sync(&rep,
			       (char *[]){ (char *)bin("ringcap"), "report", "--format", "folded",
					   (char *)out, NULL },
			       60000),
		      0, "report --format folded"))
		ASSERT_HAS(rep.out, ";main;burn;burn_a ", "main calls burn calls burn_a");
	run_free(&rep);
	run_free(&r);

	/* the same binary by frame pointers: burn_* without their callers */
	if (!ASSERT_EQ(
		run_sync(&r,
			 (char *[]){ (char *)bin("ringcap"), "record", "-q", "-F", rate(), "-g",
				     "-o", (char *)out, "--", (char *)bin("rc_prof_nofp"), "burn",
				     "1000", (char *)truth, NULL },
			 120000),
		0, "record -g") ||
	    !ASSERT_OK(gather(out, &g), "read capture"))
		goto out;
	all = g.in[0] + g.in[1] + g.in[2];
	snprintf(what, sizeof(what), "fp: main and burn above burn_* in %llu of %llu samples",
		 (unsigned long long)g.called, (unsigned long long)all);
	ASSERT_TRUE(all >= 100 && g.called * 2 < all, what);
	run_free(&r);

	/* the perf buffer: records up to 64 KiB through each CPU's ring */
	if (ASSERT_EQ(run_sync(&r,
			       (char *[]){ (char *)bin("ringcap"), "record", "-q", "-F", rate(),
					   "--call-graph=dwarf", "--transport", "perfbuf", "-o",
					   (char *)out, "--", (char *)bin("rc_prof_nofp"), "burn",
					   "500", (char *)truth, NULL },
			       120000),
		      0, "record --call-graph=dwarf --transport perfbuf") &&
	    ASSERT_EQ(run_sync(&rep,
			       (char *[]){ (char *)bin("ringcap"), "report", "--format", "folded",
					   (char *)out, NULL },
			       60000),
		      0, "report --format folded"))
		ASSERT_HAS(rep.out, ";main;burn;burn_a ", "perfbuf: main calls burn calls burn_a");
	run_free(&rep);
	run_free(&r);

	/*
	 * The most a sample copies, 64000 bytes: past the top of the main
	 * thread's stack (its arguments and environment, above main), so the
	 * copies come back short, counted, and unwind all the same.
	 */
	if (ASSERT_EQ(run_sync(&r,
			       (char *[]){ (char *)bin("ringcap"), "record", "-q", "-v", "-F",
					   rate(), "--call-graph=dwarf,64000", "-o", (char *)out,
					   "--", (char *)bin("rc_prof_nofp"), "burn", "500",
					   (char *)truth, NULL },
			       120000),
		      0, "record --call-graph=dwarf,64000") &&
	    ASSERT_TRUE(dwarf_line(r.err, v), "record -v says how the unwinding went")) {
		snprintf(what, sizeof(what), "%llu of %llu copies short, %llu unwound to the end",
			 (unsigned long long)v[3], (unsigned long long)v[0],
			 (unsigned long long)v[1]);
		ASSERT_TRUE(v[0] > 0 && v[3] * 100 >= v[0] * 90 && v[1] * 100 >= v[0] * 90, what);
	}
	run_free(&r);

	/* 64 bytes reach burn's frame, not main's: the copy's end stops them, counted */
	if (ASSERT_EQ(run_sync(&r,
			       (char *[]){ (char *)bin("ringcap"), "record", "-q", "-v", "-F",
					   rate(), "--call-graph=dwarf,64", "-o", (char *)out, "--",
					   (char *)bin("rc_prof_nofp"), "burn", "500",
					   (char *)truth, NULL },
			       120000),
		      0, "record --call-graph=dwarf,64") &&
	    ASSERT_TRUE(dwarf_line(r.err, v), "record -v says how the unwinding went")) {
		snprintf(what, sizeof(what), "%llu of %llu stopped at the copy's end",
			 (unsigned long long)v[2], (unsigned long long)v[0]);
		ASSERT_TRUE(v[0] > 0 && v[2] * 100 >= v[0] * 90, what);
	}
out:
	run_free(&r);
	run_free(&rep);
	tmpdir_cleanup();
}

static void profile_kernel(void)
{
	const char *out = tmpfile_path("sys.rcap");
	struct prof_facts f = {};
	struct run r = {};
	char what[96];

	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-q", "-F", rate(), "-g",
					    "-o", (char *)out, "--", (char *)bin("rc_prof"),
					    "sys", "1000", NULL },
				120000),
		       0, "record") ||
	    !ASSERT_OK(gather(out, &f), "read capture"))
		goto out;
	assert_ledger(&f);
	ASSERT_TRUE(f.sys_heavy >= 100, "samples in sys_heavy");
	/*
	 * The kernel's share of a getppid() loop's samples depends on the
	 * CPU's mitigations and on where a timer interrupt can land (cpu-clock
	 * is no NMI: a sample waits for interrupts to be enabled, often on the
	 * return to user mode): most of them on this machine (SRSO), 8 to 20%
	 * in the emulated guests; some on every kernel.
	 */
	snprintf(what, sizeof(what), "kernel frames above sys_heavy: %llu of %llu samples",
		 (unsigned long long)f.kernel_under, (unsigned long long)f.sys_heavy);
	ASSERT_TRUE(f.kernel_under >= 5 && f.kernel_under * 50 >= f.sys_heavy, what);
out:
	run_free(&r);
	tmpdir_cleanup();
}

static void profile_exited(void)
{
	const char *out = tmpfile_path("child.rcap"), *truth = tmpfile_path("truth");
	struct prof_facts f = {};
	struct run r = {};
	double share[3];

	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-q", "-F", rate(), "-g",
					    "-o", (char *)out, "--", (char *)bin("rc_prof"),
					    "child", "2000", (char *)truth, NULL },
				120000),
		       0, "record"))
		goto out;
	if (!ASSERT_TRUE(read_truth(truth, share), "the child's own times") ||
	    !ASSERT_OK(gather(out, &f), "read capture"))
		goto out;
	assert_ledger(&f);
	/* the child had exited 300 ms before the capture ended: named all the same */
	assert_shares(&f, share);
	ASSERT_LT(f.unnamed_user * 100, f.samples, "the exited child's frames named, all but 1%");
out:
	run_free(&r);
	tmpdir_cleanup();
}

/*
 * A program exec'd by the command, that burns 400 ms and exits while the
 * capture goes on: its frames named (the writer meets it within about
 * 100 ms: RC_STACKS_HANDOFF_NS).
 */
static void profile_short_lived(void)
{
	const char *out = tmpfile_path("short.rcap"), *truth = tmpfile_path("truth");
	struct prof_facts f = {};
	struct run r = {};
	char script[PATH_MAX + 128];

	snprintf(script, sizeof(script), "%s burn 400 %s; sleep 0.5", bin("rc_prof"), truth);
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-q", "-F", rate(), "-g",
					    "-o", (char *)out, "--", "/bin/sh", "-c", script, NULL },
				120000),
		       0, "record") ||
	    !ASSERT_OK(gather(out, &f), "read capture"))
		goto out;
	assert_ledger(&f);
	ASSERT_TRUE(f.in[0] + f.in[1] + f.in[2] >= 20, "samples in burn_* named");
	ASSERT_LT(f.unnamed_user * 100, f.samples, "its frames named, all but 1%");
out:
	run_free(&r);
	tmpdir_cleanup();
}

/* Off-CPU records of rc_prof: ns blocked with blk_a and blk_b on the stack, and the ledger. */
struct offcpu_facts {
	uint64_t records, blocked[2], made, dropped, captured;
	bool truncated;
};

static int gather_offcpu(const char *path, struct offcpu_facts *f)
{
	struct rc_reader *r = rc_reader__open(path);
	const struct rc_rec_hdr *rec;
	const struct rc_stats *st;
	uint32_t i;
	int err;

	if (!r)
		return -errno;
	while ((err = rc_reader__next(r, &rec)) > 0) {
		const struct rc_stack *s;
		uint64_t blocked;
		uint32_t id;

		if (rec->type != OFFCPU_ID)
			continue;
		f->records++;
		memcpy(&blocked, (const char *)rec + 48, sizeof(blocked)); /* rc_ev_offcpu.blocked */
		memcpy(&id, (const char *)rec + 56, sizeof(id));
		s = rc_reader__stack(r, id);
		if (!s || strncmp(rec->comm, "rc_prof", 16))
			continue;
		if (has_frame(s, "blk_a", true))
			f->blocked[0] += blocked;
		if (has_frame(s, "blk_b", true))
			f->blocked[1] += blocked;
	}
	st = rc_reader__stats(r);
	for (i = 0; st && i < st->nentries; i++) {
		if (st->entries[i].type != OFFCPU_ID)
			continue;
		f->made += st->entries[i].made;
		f->dropped += st->entries[i].dropped;
		f->captured += st->entries[i].captured;
	}
	f->truncated = rc_reader__truncated(r);
	rc_reader__free(r);
	return err;
}

static void profile_offcpu(void)
{
	const char *out = tmpfile_path("off.rcap"), *truth = tmpfile_path("truth");
	unsigned long long want[2] = {};
	struct offcpu_facts f = {};
	struct run r = {}, rep = {};
	char what[96];
	FILE *fp;
	int k;

	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-q", "--off-cpu", "-g",
					    "-o", (char *)out, "--", (char *)bin("rc_prof"),
					    "block", (char *)truth, NULL },
				120000),
		       0, "record"))
		goto out;
	fp = fopen(truth, "r");
	if (!ASSERT_OK_PTR(fp, "the workload's own times"))
		goto out;
	k = fscanf(fp, "blk_a %llu blk_b %llu", &want[0], &want[1]);
	fclose(fp);
	if (!ASSERT_EQ(k, 2, "two times") || !ASSERT_OK(gather_offcpu(out, &f), "read capture"))
		goto out;
	ASSERT_TRUE(!f.truncated, "complete file");
	ASSERT_EQ(f.made, f.captured + f.dropped, "made = captured + dropped");
	ASSERT_EQ(f.captured, f.records, "records read = captured in the ledger");
	for (k = 0; k < 2; k++) {
		double ratio = want[k] ? (double)f.blocked[k] / want[k] : 0;

		snprintf(what, sizeof(what), "blk_%c: %.1f ms blocked recorded, %.1f ms timed",
			 'a' + k, f.blocked[k] / 1e6, want[k] / 1e6);
		ASSERT_TRUE(ratio > 0.95 && ratio < 1.05, what);
	}
	/* folded: microseconds blocked, as offcputime -f */
	if (ASSERT_EQ(run_sync(&rep,
			       (char *[]){ (char *)bin("ringcap"), "report", "--format", "folded",
					   (char *)out, NULL },
			       60000),
		      0, "report --format folded"))
		ASSERT_HAS(rep.out, ";main;block;blk_a;", "blk_a's stack, outermost first");
	run_free(&rep);
	if (ASSERT_EQ(run_sync(&rep,
			       (char *[]){ (char *)bin("ringcap"), "report", "--format",
					   "flamegraph", (char *)out, NULL },
			       60000),
		      0, "report --format flamegraph")) {
		ASSERT_HAS(rep.out, "<svg", "an SVG");
		ASSERT_HAS(rep.out, " us, ", "weighed in microseconds");
	}
	run_free(&rep);
	/* perfetto: a slice on the thread over the time blocked, named by where */
	if (ASSERT_EQ(run_sync(&rep,
			       (char *[]){ (char *)bin("ringcap"), "report", "--format", "perfetto",
					   (char *)out, NULL },
			       60000),
		      0, "report --format perfetto")) {
		ASSERT_HAS(rep.out, "{\"ph\":\"X\"", "a slice");
		ASSERT_HAS(rep.out, "\"name\":\"off-CPU: blk_a\",\"args\":{\"stack\":[\"__schedule\"",
			   "named by the function, its stack innermost first");
	}
out:
	run_free(&r);
	run_free(&rep);
	tmpdir_cleanup();
}

/*
 * -e syscalls:sys_enter_getppid -g: each of rc_prof's getppid() calls
 * (from sys_heavy, with the syscall instruction in it) has a stack record
 * after it, naming sys_heavy; as many stacks as events, nothing lost.
 */
static void profile_event_stacks(void)
{
	const char *out = tmpfile_path("ev.rcap");
	const struct rc_rec_hdr *rec, *prev = NULL;
	uint64_t events = 0, stacks = 0, paired = 0, named = 0;
	const struct rc_stack *s;
	struct rc_reader *r = NULL;
	struct run run = {}, rep = {};
	uint16_t tp = 0;
	struct rc_rec_hdr last = {};
	uint32_t id;
	int err;

	if (!ASSERT_EQ(run_sync(&run,
				(char *[]){ (char *)bin("ringcap"), "record", "-q", "-g", "-e",
					    "syscalls:sys_enter_getppid", "-o", (char *)out, "--",
					    (char *)bin("rc_prof"), "sys", "200", NULL },
				120000),
		       0, "record"))
		goto out;
	r = rc_reader__open(out);
	if (!ASSERT_OK_PTR(r, "reader"))
		goto out;
	tp = rc_schema__event_by_name(rc_reader__meta(r)->schema, "syscalls:sys_enter_getppid")->id;
	while ((err = rc_reader__next(r, &rec)) > 0) {
		if (rec->type == tp) {
			events++;
			last = *rec;
			prev = &last;
			continue;
		}
		if (rec->type != STACK_ID)
			continue;
		stacks++;
		if (prev && prev->ts == rec->ts && prev->tid == rec->tid && prev->cpu == rec->cpu)
			paired++;
		prev = NULL;
		memcpy(&id, (const char *)rec + 56, sizeof(id));
		s = rc_reader__stack(r, id);
		named += s && has_frame(s, "sys_heavy", true) && s->nkernel > 0;
	}
	ASSERT_EQ(err, 0, "read to the end");
	ASSERT_TRUE(events >= 1000, "getppid events");
	ASSERT_EQ(stacks, events, "a stack record for each event");
	ASSERT_EQ(paired, stacks, "each right after its event: same time, thread and CPU");
	ASSERT_EQ(named, stacks, "each with sys_heavy under the kernel's frames");
	/* --stacks prints them under the events; folded counts events by stack */
	if (ASSERT_EQ(run_sync(&rep,
			       (char *[]){ (char *)bin("ringcap"), "report", "--format", "folded",
					   (char *)out, NULL },
			       60000),
		      0, "report --format folded"))
		ASSERT_HAS(rep.out, ";main;sys_heavy;", "events by stack");
out:
	rc_reader__free(r);
	run_free(&run);
	run_free(&rep);
	tmpdir_cleanup();
}

static void profile_refusals(void)
{
	struct run r = {};
	unsigned long max = max_rate();
	char hz[32];

	if (!ASSERT_TRUE(max > 0, "kernel.perf_event_max_sample_rate"))
		return;
	snprintf(hz, sizeof(hz), "%lu", max + 1);
	ASSERT_EQ(run_sync(&r,
			   (char *[]){ (char *)bin("ringcap"), "record", "-q", "-F", hz, "-o",
				       (char *)tmpfile_path("x.rcap"), "--", "true", NULL },
			   60000),
		  1, "-F above the limit refused");
	ASSERT_HAS(r.err, "perf_event_max_sample_rate", "the limit named");
	run_free(&r);
	ASSERT_EQ(run_sync(&r,
			   (char *[]){ (char *)bin("ringcap"), "record", "-q", "-g", "--transport",
				       "ftrace", "-e", "sched:sched_switch", "-o",
				       (char *)tmpfile_path("x.rcap"), "--", "true", NULL },
			   60000),
		  64, "-g with ftrace refused");
	ASSERT_HAS(r.err, "BPF", "why");
	run_free(&r);
	/* --call-graph: fp, or dwarf with a size a multiple of 8, at most 64000 */
	for (int i = 0; i < 4; i++) {
		static const char *const bad[] = { "--call-graph=dwarf,12",
						   "--call-graph=dwarf,64008",
						   "--call-graph=dwarfx", "--call-graph=lbr" };

		ASSERT_EQ(run_sync(&r,
				   (char *[]){ (char *)bin("ringcap"), "record", "-q", "-F", "99",
					       (char *)bad[i], "-o", (char *)tmpfile_path("x.rcap"),
					       "--", "true", NULL },
				   60000),
			  64, bad[i]);
		ASSERT_HAS(r.err, "invalid --call-graph", "refused, and why");
		run_free(&r);
	}
	tmpdir_cleanup();
}

void test_profile_shares(void)
{
	if (need_root())
		profile_shares();
}

void test_profile_dwarf(void)
{
	if (need_root())
		profile_dwarf();
}

void test_profile_kernel(void)
{
	if (need_root())
		profile_kernel();
}

void test_profile_exited(void)
{
	if (need_root())
		profile_exited();
}

void test_profile_short_lived(void)
{
	if (need_root())
		profile_short_lived();
}

void test_profile_offcpu(void)
{
	if (need_root())
		profile_offcpu();
}

void test_profile_event_stacks(void)
{
	if (need_root())
		profile_event_stacks();
}

void test_profile_refusals(void)
{
	if (need_root())
		profile_refusals();
}
