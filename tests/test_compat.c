// SPDX-License-Identifier: GPL-2.0-only
/*
 * The compat programs (ringcap-record(1), KERNELS), on this machine's
 * kernel: the matrix's cases with the features they make up for masked
 * (RINGCAP_FEATURES_OFF), the same exact counts. In the 5.10 guest, which
 * has none of those features, the matrix's own cases run them unmasked.
 */
#include <errno.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include "events.h"
#include "ringcap.h"
#include "run_util.h"
#include "test_progs.h"

/* What the 5.10 guest lacks, and every compat program makes up for */
#define ALL_OFF "current_task_btf,task_storage,atomics,sched_switch_prev_state"

/* The matrix's and profile's cases, run here with features masked */
void test_matrix_syscalls(void);
void test_matrix_sched(void);
void test_matrix_syscalls_sched(void);
void test_matrix_tracepoint(void);
void test_matrix_uprobe(void);
void test_matrix_children(void);
void test_matrix_children_tp(void);
void test_matrix_overwrite(void);
void test_matrix_pid(void);
void test_profile_offcpu(void);
void test_profile_shares(void);
void test_profile_event_stacks(void);

/* Run @test with @off taken as missing; record runs from it inherit the mask. */
static void masked(const char *off, void (*test)(void))
{
	if (!ASSERT_OK(setenv("RINGCAP_FEATURES_OFF", off, 1), "setenv"))
		return;
	test();
	unsetenv("RINGCAP_FEATURES_OFF");
}

void test_compat_syscalls(void)
{
	masked(ALL_OFF, test_matrix_syscalls);
}

/* Each fallback alone, too: a kernel can lack one (5.15 has all but prev_state). */
void test_compat_syscalls_one(void)
{
	masked("current_task_btf", test_matrix_syscalls);
	masked("task_storage", test_matrix_syscalls);
}

void test_compat_sched(void)
{
	masked(ALL_OFF, test_matrix_sched);
	masked("sched_switch_prev_state", test_matrix_sched);
}

void test_compat_syscalls_sched(void)
{
	masked(ALL_OFF, test_matrix_syscalls_sched);
}

/* -e SYSTEM:NAME and uprobes: dyn.bpf.c's compat object, with cookies and without (slots) */
void test_compat_dyn(void)
{
	masked("current_task_btf", test_matrix_tracepoint);
	masked("current_task_btf", test_matrix_uprobe);
	masked("current_task_btf,attach_cookie", test_matrix_tracepoint);
	masked("current_task_btf,attach_cookie", test_matrix_uprobe);
}

void test_compat_children(void)
{
	masked(ALL_OFF, test_matrix_children);
	masked("atomics", test_matrix_children);
	/* the tracepoint programs' object carries follow's: compat both, or one (follow's own) */
	masked(ALL_OFF, test_matrix_children_tp);
	masked("atomics", test_matrix_children_tp);
	masked("current_task_btf", test_matrix_children_tp);
}

void test_compat_pid(void)
{
	masked(ALL_OFF, test_matrix_pid);
}

void test_compat_overwrite(void)
{
	masked(ALL_OFF, test_matrix_overwrite);
}

void test_compat_offcpu(void)
{
	masked(ALL_OFF, test_profile_offcpu);
}

/* Samples, and the stacks of -g's events (rc_emit_stack()'s image of the current task) */
void test_compat_profile(void)
{
	masked(ALL_OFF, test_profile_shares);
	masked(ALL_OFF, test_profile_event_stacks);
}

/* A capture's syscall records of @nr, and its ledger's counts of every event */
struct pending_facts {
	long nrec, all;
	uint64_t made, captured, dropped;
	bool truncated;
};

static int gather_pending(const char *path, uint32_t nr, struct pending_facts *f)
{
	struct rc_reader *r = rc_reader__open(path);
	const struct rc_rec_hdr *rec;
	const struct rc_stats *st;
	uint32_t i;
	int err;

	if (!r)
		return -errno;
	while ((err = rc_reader__next(r, &rec)) > 0) {
		if (rec->type == RC_REC_LOST || rec->type == RC_REC_SNAPSHOT)
			continue;
		f->all++;
		f->nrec += rec->type == RC_EV_SYSCALL &&
			   ((const struct rc_ev_syscall *)rec)->nr == nr &&
			   !strncmp(rec->comm, "rc_workload", sizeof(rec->comm));
	}
	f->truncated = rc_reader__truncated(r);
	st = rc_reader__stats(r);
	for (i = 0; st && i < st->nentries; i++) {
		f->made += st->entries[i].made;
		f->captured += st->entries[i].captured;
		f->dropped += st->entries[i].dropped;
	}
	rc_reader__free(r);
	return err;
}

#define SLEEPERS 16

/*
 * -e syscalls without task storage, its map of calls in progress cut to 4
 * entries (RINGCAP_PENDING_MAX), and 16 threads in nanosleep() at once:
 * each call is recorded or, the map full, counted made and dropped, and
 * the ledger adds up.
 */
static void pending_full(const char *transport)
{
	const char *out = tmpfile_path("full.rcap");
	char *argv[] = { (char *)bin("ringcap"),
			 "record",
			 "-q",
			 "--transport",
			 (char *)transport,
			 "-e",
			 "syscalls",
			 "-o",
			 (char *)out,
			 "--",
			 (char *)bin("rc_workload"),
			 "sleepers",
			 "16",
			 "200",
			 NULL };
	struct pending_facts f = {};
	struct run r = {};

	if (!ASSERT_OK(setenv("RINGCAP_FEATURES_OFF", ALL_OFF, 1), "setenv") ||
	    !ASSERT_OK(setenv("RINGCAP_PENDING_MAX", "4", 1), "setenv"))
		goto out;
	if (!ASSERT_EQ(run_sync(&r, argv, 120000), 0, "record") ||
	    !ASSERT_OK(gather_pending(out, SYS_nanosleep, &f), "read capture"))
		goto out;
	ASSERT_TRUE(!f.truncated, "complete file");
	ASSERT_EQ(f.made, f.captured + f.dropped, "made = captured + dropped");
	ASSERT_EQ(f.captured, f.all, "captured = records in the file");
	ASSERT_TRUE(f.dropped >= SLEEPERS - 4, "the calls the full map lost, counted dropped");
	ASSERT_TRUE(f.nrec <= SLEEPERS && f.nrec + (long)f.dropped >= SLEEPERS,
		    "each nanosleep() recorded or counted dropped");
	printf("    %ld of %d nanosleep() recorded, %llu calls dropped\n", f.nrec, SLEEPERS,
	       (unsigned long long)f.dropped);
out:
	unsetenv("RINGCAP_FEATURES_OFF");
	unsetenv("RINGCAP_PENDING_MAX");
	run_free(&r);
	tmpdir_cleanup();
}

void test_compat_pending_full(void)
{
	const char *t[] = { "ringbuf", "perfbuf" };
	size_t i;

	for (i = 0; i < 2; i++)
		if (test__start_subtest(t[i]) && need_root())
			pending_full(t[i]);
}

/*
 * Following children without atomic and/or, the map of followed processes
 * cut to 2 (RINGCAP_FOLLOW_MAX): the shell and its first child; its two
 * other children, alive at the same time, are not followed, and record
 * says so.
 */
void test_compat_follow_full(void)
{
	char sh[13000], wl[4096];
	char *argv[] = { (char *)bin("ringcap"),
			 "record",
			 "-q",
			 "-e",
			 "syscalls",
			 "-o",
			 (char *)tmpfile_path("follow.rcap"),
			 "--",
			 "/bin/sh",
			 "-c",
			 sh,
			 NULL };
	struct run r = {};

	if (!need_root())
		return;
	snprintf(wl, sizeof(wl), "%s", bin("rc_workload")); /* bin()'s buffers are reused */
	snprintf(sh, sizeof(sh), "%s sleep 300 & %s sleep 300 & %s sleep 300 & wait", wl, wl, wl);
	if (!ASSERT_OK(setenv("RINGCAP_FEATURES_OFF", "atomics", 1), "setenv") ||
	    !ASSERT_OK(setenv("RINGCAP_FOLLOW_MAX", "2", 1), "setenv"))
		goto out;
	if (ASSERT_EQ(run_sync(&r, argv, 60000), 0, "record"))
		ASSERT_HAS(r.err, "2 children of targets were not followed", "said at the end");
out:
	unsetenv("RINGCAP_FEATURES_OFF");
	unsetenv("RINGCAP_FOLLOW_MAX");
	run_free(&r);
	tmpdir_cleanup();
}

/* record --check's line for @source, up to its end; "" when there is none */
static const char *check_line(const char *out, const char *source, char *buf, size_t len)
{
	const char *p = out;

	while (next_line(&p, buf, len))
		if (!strncmp(buf, "  ", 2) && !strncmp(buf + 2, source, strlen(source)))
			return buf;
	buf[0] = '\0';
	return buf;
}

/* record --check names the compat programs, and why, with every fallback's feature masked */
static void check_masked(void)
{
	struct run r = {};
	char line[512];

	if (!ASSERT_OK(setenv("RINGCAP_FEATURES_OFF", ALL_OFF ",bogus", 1), "setenv"))
		return;
	if (!ASSERT_EQ(run_sync(&r, (char *[]){ (char *)bin("ringcap"), "record", "--check", NULL },
				60000),
		       0, "record --check"))
		goto out;
	ASSERT_HAS(r.out, "RINGCAP_FEATURES_OFF: taken as missing: " ALL_OFF ")", "the mask, said");
	ASSERT_HAS(r.err, "no feature named 'bogus' (ignored)", "an unknown name, said");
	ASSERT_HAS(check_line(r.out, "-e syscalls ", line, sizeof(line)),
		   "yes: compat programs (no bpf_get_current_task_btf: bpf_get_current_task and "
		   "CO-RE reads; no task storage: a hash map of 16384 calls in progress)",
		   "-e syscalls");
	ASSERT_HAS(check_line(r.out, "-e sched ", line, sizeof(line)),
		   "yes: compat programs (no bpf_get_current_task_btf: bpf_get_current_task and "
		   "CO-RE reads; no sched_switch prev_state: the task's state by CO-RE)",
		   "-e sched");
	ASSERT_HAS(check_line(r.out, "a command's children", line, sizeof(line)),
		   "yes: compat programs (no BPF atomic and/or: atomic adds and a hash map of "
		   "16384 processes)",
		   "children");
	ASSERT_HAS(check_line(r.out, "--off-cpu", line, sizeof(line)),
		   "yes: compat programs (no sched_switch prev_state", "--off-cpu");
	ASSERT_HAS(check_line(r.out, "-F / -c", line, sizeof(line)),
		   "yes: compat programs (no bpf_get_current_task_btf", "sampling");
	ASSERT_HAS(check_line(r.out, "-F --call-graph dwarf", line, sizeof(line)), "no: needs ",
		   "dwarf refused");
out:
	unsetenv("RINGCAP_FEATURES_OFF");
	run_free(&r);
}

/* Unmasked: the default programs where this kernel has what they use, as probed here */
static void check_unmasked(void)
{
	struct rc_features f;
	struct run r = {};
	char line[512];
	bool sys, sched;

	if (!ASSERT_OK(rc_features__probe(&f), "probe"))
		return;
	sys = f.current_task_btf && f.task_storage;
	sched = f.current_task_btf && f.switch_prev_state;
	if (!ASSERT_EQ(run_sync(&r, (char *[]){ (char *)bin("ringcap"), "record", "--check", NULL },
				60000),
		       0, "record --check"))
		goto out;
	ASSERT_HAS(check_line(r.out, "-e syscalls ", line, sizeof(line)),
		   sys ? "yes: default programs" : "yes: compat programs", "-e syscalls");
	ASSERT_HAS(check_line(r.out, "-e sched ", line, sizeof(line)),
		   sched ? "yes: default programs" : "yes: compat programs", "-e sched");
	ASSERT_HAS(check_line(r.out, "a command's children", line, sizeof(line)),
		   f.atomics ? "yes: default programs" : "yes: compat programs", "children");
out:
	run_free(&r);
}

/* ringcap record OPTS -o OUT -- /bin/true with @off masked: refused in one line saying @says */
static void refused(const char *off, char *const *opts, const char *says)
{
	char *argv[16] = { (char *)bin("ringcap"), "record", "-q", "-o",
			   (char *)tmpfile_path("r.rcap") };
	struct run r = {};
	int n = 5;

	while (*opts && n < 13)
		argv[n++] = *opts++;
	argv[n++] = "--";
	argv[n++] = "/bin/true";
	argv[n] = NULL;
	if (!ASSERT_OK(setenv("RINGCAP_FEATURES_OFF", off, 1), "setenv"))
		return;
	ASSERT_TRUE(run_sync(&r, argv, 60000) != 0, off);
	ASSERT_HAS(r.err, says, off);
	ASSERT_EQ(count_lines_with(r.err, says), 1, "said in one line");
	ASSERT_EQ(count_lines_with(r.err, "failed"), 0, "refused before loading");
	unsetenv("RINGCAP_FEATURES_OFF");
	run_free(&r);
	tmpdir_cleanup();
}

/* What the compat programs do not cover stays a one-line refusal. */
static void check_refusals(void)
{
	struct rc_features f;

	if (!ASSERT_OK(rc_features__probe(&f), "probe"))
		return;
	refused("task_pt_regs", (char *[]){ "-F", "99", "--call-graph=dwarf", NULL },
		"needs the BPF helper bpf_task_pt_regs");
	/* where the kernel has bpf_task_pt_regs, else that is what is said */
	if (f.task_pt_regs)
		refused("current_task_btf", (char *[]){ "-F", "99", "--call-graph=dwarf", NULL },
			"needs the BPF helper bpf_get_current_task_btf");
}

void test_compat_check(void)
{
	if (test__start_subtest("masked") && need_root())
		check_masked();
	if (test__start_subtest("unmasked") && need_root())
		check_unmasked();
	if (test__start_subtest("refusals") && need_root())
		check_refusals();
}
