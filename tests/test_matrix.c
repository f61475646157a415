// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel matrix's cases: every source on both BPF transports, with a
 * ground-truth count, exact. They run on this machine's kernel in
 * `make check` and in every guest kernel of `make vmtest`, so each name
 * here is a row of the matrix (README, Kernels).
 *
 * Each case records a workload that makes a known number of calls and
 * checks: the records of the event from the workload are exactly that
 * number, the file's counters add up (made = captured + dropped, captured
 * = records in the file, none dropped at this rate), the file is complete
 * and in time order.
 */
#include <errno.h>
#include <linux/types.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include "capture_util.h"
#include "events.h"
#include "run_util.h"
#include "tracefs/tpformat.h"
#include "test_progs.h"

#define N 2000

static const char *const transports[] = { "ringbuf", "perfbuf" };

/* What a capture holds of one event. */
struct tally {
	long nrec;	/* records of the event, of the pid (or comm) asked for */
	long all;	/* records of every event */
	long bad;	/* records of the event that fail the case's check */
	long args_shown; /* with no_args: records that show an argument */
	bool ordered;	/* timestamps never go backwards */
	long back;	/* records older than the one before */
	uint64_t most_back, late; /* the largest step back (ns); the trailer's late */
	bool truncated; /* the file says it was cut short */
	uint64_t made, captured, dropped;
};

struct want {
	const char *event; /* its name in the schema */
	pid_t pid;	   /* 0: any pid */
	const char *comm;  /* NULL: any comm */
	int nr;		   /* syscall records: this number only; -1: any */
	/* uprobe records: the first argument must equal the tid */
	bool arg_is_tid;
	/* exit records: of single-threaded processes, so the group is dead */
	bool group_dead;
	/* syscalls:sys_enter_getppid records: the raw record whole, its padding zeroes */
	bool raw_getppid;
	/*
	 * Preemptible programs: a record may come past the writer's reorder
	 * window, and be written late, counted so (README, ORDER)
	 */
	bool may_be_late;
	/* syscall records: the capture says the call takes no argument, none shown */
	bool no_args;
};

static bool matches(const struct want *w, const struct rc_rec_hdr *rec)
{
	if (w->pid && (pid_t)rec->pid != w->pid)
		return false;
	if (w->comm && strncmp(rec->comm, w->comm, sizeof(rec->comm)))
		return false;
	if (w->nr >= 0 && rec->type == RC_EV_SYSCALL &&
	    ((const struct rc_ev_syscall *)rec)->nr != (uint32_t)w->nr)
		return false;
	return true;
}

/*
 * A sys_enter_getppid record: the 40-byte header, then the tracepoint's
 * common fields, __syscall_nr where its format (@ev) says (8, or 12 where
 * PREEMPT_RT's 6.1 adds common_preempt_lazy_count), and zeroes up to 16;
 * common_pid is the thread's, put back by the program.
 */
static bool raw_getppid_ok(const struct rc_event_desc *ev, const struct rc_rec_hdr *rec)
{
	const unsigned char *raw = (const unsigned char *)rec + sizeof(*rec);
	const struct rc_field *f = rc_event__field(ev, "__syscall_nr");
	unsigned int off, i;
	int32_t pid, nr;

	if (!f || rec->size != sizeof(*rec) + 16)
		return false;
	off = f->offset - sizeof(*rec);
	if (off != 8 && off != 12)
		return false;
	memcpy(&pid, raw + 4, sizeof(pid));
	memcpy(&nr, raw + off, sizeof(nr));
	for (i = 8; i < 16; i++)
		if ((i < off || i >= off + 4) && raw[i])
			return false;
	return pid == (int32_t)rec->tid && nr == SYS_getppid;
}

static int tally(const char *path, const struct want *w, struct tally *t)
{
	const struct rc_event_desc *ev;
	const struct rc_field *args;
	const struct rc_rec_hdr *rec;
	const struct rc_stats *st;
	struct rc_reader *r;
	uint64_t prev = 0;
	uint32_t i;
	int err;

	memset(t, 0, sizeof(*t));
	t->ordered = true;
	r = rc_reader__open(path);
	if (!r)
		return -errno;
	ev = rc_schema__event_by_name(rc_reader__meta(r)->schema, w->event);
	if (!ev) {
		rc_reader__free(r);
		return -ENOENT;
	}
	args = rc_event__field(ev, "args");
	while ((err = rc_reader__next(r, &rec)) > 0) {
		t->all++;
		if (rec->ts < prev) {
			t->ordered = false;
			t->back++;
			if (prev - rec->ts > t->most_back)
				t->most_back = prev - rec->ts;
		}
		prev = rec->ts;
		if (rec->type == RC_REC_LOST || rec->type == RC_REC_SNAPSHOT)
			t->all--; /* the ledger's own records, not events */
		if (rec->type != ev->id || !matches(w, rec))
			continue;
		t->nrec++;
		if (w->arg_is_tid &&
		    ((const struct rc_ev_uprobe *)rec)->args[0] != (uint64_t)rec->tid)
			t->bad++;
		if (w->group_dead && ((const struct rc_ev_exit *)rec)->group_dead != 1)
			t->bad++;
		if (w->raw_getppid && !raw_getppid_ok(ev, rec))
			t->bad++;
		if (w->no_args &&
		    (!args || rc_field__count(rc_reader__meta(r)->schema, args, rec) != 0))
			t->args_shown++;
	}
	t->truncated = rc_reader__truncated(r);
	if (rc_reader__trailer(r))
		t->late = rc_reader__trailer(r)->late;
	if (rc_reader__corrupt(r, NULL)) /* a recorder's file is never damaged */
		test__fail(__FILE__, __LINE__, "read", "%s", rc_reader__error(r));
	st = rc_reader__stats(r);
	for (i = 0; st && i < st->nentries; i++) {
		t->made += st->entries[i].made;
		t->captured += st->entries[i].captured;
		t->dropped += st->entries[i].dropped;
	}
	rc_reader__free(r);
	return err;
}

/* The ledger of the whole file, and its order. */
static void assert_file(const struct tally *t, const struct want *w)
{
	ASSERT_EQ(t->made, t->captured + t->dropped, "made = captured + dropped");
	ASSERT_EQ(t->captured, t->all, "captured = records in the file");
	ASSERT_EQ(t->dropped, 0, "dropped");
	ASSERT_TRUE(!t->truncated, "complete file");
	if (w && w->may_be_late)
		ASSERT_TRUE(t->back <= (long)t->late, "every record out of order counted late");
	else
		ASSERT_TRUE(t->ordered, "timestamps never go backwards");
	if (!t->ordered)
		printf("    %ld records older than the one before, by %llu ns at most; %llu late "
		       "by the trailer\n",
		       t->back, (unsigned long long)t->most_back, (unsigned long long)t->late);
}

/*
 * ringcap record -q --transport T ARGS... -o OUT -- CMD...: its exit status
 * is 0, and the event @w has @expect records in the file.
 */
static void run_case(const char *transport, char *const *args, char *const *cmd,
		     const struct want *w, long expect)
{
	const char *out = tmpfile_path("m.rcap");
	char *argv[40] = { (char *)bin("ringcap"), "record", "-q",	 "--transport",
			   (char *)transport,	   "-o",     (char *)out };
	struct tally t;
	struct run r = {};
	int n = 7;

	while (*args && n < 30)
		argv[n++] = *args++;
	argv[n++] = "--";
	while (*cmd && n < 39)
		argv[n++] = *cmd++;
	argv[n] = NULL;
	if (!ASSERT_EQ(run_sync(&r, argv, 300000), 0, "record")) {
		fprintf(stderr, "%s", r.err ?: "");
		goto out;
	}
	if (!ASSERT_OK(tally(out, w, &t), "read capture"))
		goto out;
	ASSERT_EQ(t.nrec, expect, w->event);
	ASSERT_EQ(t.bad, 0, "records with another task's values");
	ASSERT_EQ(t.args_shown, 0, "records that show an argument the call does not take");
	assert_file(&t, w);
out:
	run_free(&r);
	tmpdir_cleanup();
}

/* The workload's path, kept: bin() reuses its buffers. */
static char *workload(void)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s", bin("rc_workload"));
	return path;
}

#define NSTR_(x) #x
#define NSTR(x)	 NSTR_(x)

/* Each case on each transport, as a subtest named after it. */
#define FOR_TRANSPORTS(t)                                                                          \
	for (size_t _i = 0; _i < 2 && ((t) = transports[_i]); _i++)                                \
		if (test__start_subtest(t) && need_root())

/*
 * -e syscalls: N getppid() of a command, paired entry and exit; the
 * capture says getppid takes no argument (its sys_enter format's, read
 * where tracefs is mounted: mounted here), so none is shown
 */
void test_matrix_syscalls(void)
{
	struct want w = { "syscall", .comm = "rc_workload", .nr = SYS_getppid, .no_args = true };
	const char *t;

	if (geteuid() == 0 && !ASSERT_OK_PTR(rc_tracefs(), "tracefs"))
		return;
	FOR_TRANSPORTS(t)
	run_case(t, (char *[]){ "-e", "syscalls", NULL },
		 (char *[]){ workload(), "getppid", NSTR(N), NULL }, &w, N);
}

/*
 * -e sched: a fork and two exits (the command's and its child's), each of a
 * whole process: group_dead, from the tracepoint's argument or, before it
 * had one, from the thread group's live count.
 */
void test_matrix_sched(void)
{
	struct want fork = { "sched:sched_process_fork", .comm = "rc_workload", .nr = -1 };
	struct want exits = { "sched:sched_process_exit", .comm = "rc_workload", .nr = -1,
			      .group_dead = true };
	const char *t;

	FOR_TRANSPORTS(t)
	{
		char *cmd[] = { workload(), "forkexec", workload(), NULL };

		run_case(t, (char *[]){ "-e", "sched", NULL }, cmd, &fork, 1);
		run_case(t, (char *[]){ "-e", "sched", NULL }, cmd, &exits, 2);
	}
}

/* -e syscalls,sched: both sources into one ring. */
void test_matrix_syscalls_sched(void)
{
	struct want w = { "syscall", .comm = "rc_workload", .nr = SYS_getppid };
	struct want exec = { "sched:sched_process_exec", .comm = "rc_workload", .nr = -1 };
	char *cmd[] = { workload(), "getppid", NSTR(N), NULL };
	const char *t;

	FOR_TRANSPORTS(t)
	{
		run_case(t, (char *[]){ "-e", "syscalls,sched", NULL }, cmd, &w, N);
		run_case(t, (char *[]){ "-e", "syscalls,sched", NULL }, cmd, &exec, 1);
	}
}

/* -e syscalls:sys_enter_getppid: a tracepoint by name, its raw record, byte for byte. */
void test_matrix_tracepoint(void)
{
	struct want w = { "syscalls:sys_enter_getppid", .comm = "rc_workload", .nr = -1,
			  .raw_getppid = true };
	const char *t;

	FOR_TRANSPORTS(t)
	run_case(t, (char *[]){ "-e", "syscalls:sys_enter_getppid", NULL },
		 (char *[]){ workload(), "getppid", NSTR(N), NULL }, &w, N);
}

/* -e uprobe: and uretprobe: on a function of the workload. */
void test_matrix_uprobe(void)
{
	char up[4200], uret[4200];
	struct want w = { "uprobe:rc_workload:rc_probe_target", .nr = -1 };
	struct want wr = { "uretprobe:rc_workload:rc_probe_target", .nr = -1 };
	char *cmd[] = { workload(), "probe", NSTR(N), NULL };
	const char *t;

	snprintf(up, sizeof(up), "uprobe:%s:rc_probe_target", bin("rc_workload"));
	snprintf(uret, sizeof(uret), "uretprobe:%s:rc_probe_target", bin("rc_workload"));
	FOR_TRANSPORTS(t)
	{
		run_case(t, (char *[]){ "-e", up, NULL }, cmd, &w, N);
		run_case(t, (char *[]){ "-e", uret, NULL }, cmd, &wr, N);
	}
}

#define N_THREADS 8
#define N_EACH	  20000

/*
 * Whether this kernel preempts a task in kernel code, where a uprobe's
 * program can be preempted halfway: PREEMPT_RT, CONFIG_PREEMPT ("PREEMPT"
 * in uname -v), or PREEMPT_DYNAMIC in its full (or lazy) mode, which
 * debugfs's sched/preempt shows in parentheses, else preempt= on the
 * command line. A dynamic kernel whose mode cannot be read counts as
 * preemptible. @mode gets what was found, for the test's line.
 */
static bool kernel_preempts(char *mode, size_t len)
{
	char buf[512] = "";
	struct utsname u;
	FILE *f;

	if (uname(&u)) {
		snprintf(mode, len, "uname failed: taken as preemptible");
		return true;
	}
	if (strstr(u.version, "PREEMPT_RT") || strstr(u.version, " PREEMPT ")) {
		snprintf(mode, len, "%s",
			 strstr(u.version, "PREEMPT_RT") ? "PREEMPT_RT" : "PREEMPT");
		return true;
	}
	if (!strstr(u.version, "PREEMPT_DYNAMIC")) {
		snprintf(mode, len, "not preemptible (uname -v: %.200s)", u.version);
		return false;
	}
	f = fopen("/sys/kernel/debug/sched/preempt", "r");
	if (f) {
		bool got = fgets(buf, sizeof(buf), f);

		fclose(f);
		buf[strcspn(buf, "\n")] = '\0';
		while (*buf && buf[strlen(buf) - 1] == ' ')
			buf[strlen(buf) - 1] = '\0';
		if (got && strchr(buf, '(')) {
			snprintf(mode, len, "PREEMPT_DYNAMIC, sched/preempt: %s", buf);
			return !strstr(buf, "(none)") && !strstr(buf, "(voluntary)");
		}
	}
	f = fopen("/proc/cmdline", "r");
	if (f) {
		bool got = fgets(buf, sizeof(buf), f);

		fclose(f);
		if (got && (strstr(buf, "preempt=none") || strstr(buf, "preempt=voluntary"))) {
			snprintf(mode, len,
				 "PREEMPT_DYNAMIC, none or voluntary on the command line");
			return false;
		}
	}
	snprintf(mode, len, "PREEMPT_DYNAMIC, its mode unknown: taken as preemptible");
	return true;
}

/*
 * Eight threads on one CPU calling a probed function with their tid as the
 * argument: every record carries its own task's tid. Uprobe programs run
 * preemptible on PREEMPT_RT and with preempt=full; a record built in a
 * per-CPU buffer could be finished by another task. (With perfbuf records
 * built in a per-CPU slot, 16 of 160,000 records carried another thread's
 * tid in the 6.12 preempt=full guest.) A task preempted inside the program
 * writes its record after later ones of other tasks: a ring's own order is
 * only nearly sorted, and the file is in time order but for a record that
 * comes past the writer's 20 ms window, which the trailer counts as late
 * (README, ORDER: the known exception; seen once in the 6.12 preempt=full
 * guest under TCG).
 */
void test_matrix_uprobe_threads(void)
{
	char up[4200], mode[320];
	struct want w = { "uprobe:rc_workload:rc_probe_target",
			  .nr = -1,
			  .arg_is_tid = true,
			  .may_be_late = true };
	long each = N_EACH;
	char each_s[24];
	const char *t;

	/*
	 * The load is what catches a record finished by another task: a
	 * preemptible kernel keeps all of it, here and in every guest. A
	 * guest whose kernel never preempts a task in kernel code (5.10, and
	 * 6.1 and 6.12 in their default voluntary mode) cannot interleave two
	 * programs on a CPU: there the same checks (every record's tid, the
	 * count, the order) run on an eighth of the calls, each one a trap
	 * emulated under TCG (23 s in the 5.10 guest for the whole load).
	 */
	if (!kernel_preempts(mode, sizeof(mode)) && getenv("RINGCAP_VMTEST"))
		each = N_EACH / 8;
	printf("    %s: %d threads, %ld calls each\n", mode, N_THREADS, each);
	snprintf(up, sizeof(up), "uprobe:%s:rc_probe_target", bin("rc_workload"));
	snprintf(each_s, sizeof(each_s), "%ld", each);
	/*
	 * Rings that hold the whole run (12.8 MB; 1.6 MB for an eighth):
	 * what is tested is each record's tid and the file's order, not
	 * whether an emulated CPU's reader keeps up (arm64 under TCG once
	 * lost 18% with 8M a CPU).
	 */
	FOR_TRANSPORTS(t)
	{
		run_case(t,
			 (char *[]){ "-e", up, strcmp(t, "perfbuf") ? "--ringbuf-size" : "-m",
				     each < N_EACH ? "4M" : "32M", NULL },
		    (char *[]){ workload(), "probethreads", NSTR(N_THREADS), each_s, NULL }, &w,
		    N_THREADS * each);
	}
}

/* A command and its children: two workloads started by a shell. */
void test_matrix_children(void)
{
	char sh[4200];
	struct want w = { "syscall", .comm = "rc_workload", .nr = SYS_getppid };
	const char *t;

	snprintf(sh, sizeof(sh), "%s getppid %d & %s getppid %d; wait", bin("rc_workload"), N,
		 bin("rc_workload"), N);
	FOR_TRANSPORTS(t)
	run_case(t, (char *[]){ "-e", "syscalls,sched", NULL },
		 (char *[]){ "/bin/sh", "-c", sh, NULL }, &w, 2 * N);
}

/*
 * A command's children with a tracepoint only: the tracepoint programs'
 * object carries the follow programs (bpf/follow.bpf.h), and follows them.
 */
void test_matrix_children_tp(void)
{
	struct want w = { "syscalls:sys_enter_getppid", .comm = "rc_workload", .nr = -1,
			  .raw_getppid = true };
	char sh[4200];
	const char *t;

	snprintf(sh, sizeof(sh), "%s getppid %d & %s getppid %d; wait", bin("rc_workload"), N,
		 bin("rc_workload"), N);
	FOR_TRANSPORTS(t)
	run_case(t, (char *[]){ "-e", "syscalls:sys_enter_getppid", NULL },
		 (char *[]){ "/bin/sh", "-c", sh, NULL }, &w, 2 * N);
}

/* --overwrite: the flight recorder's snapshot at exit holds every call. */
void test_matrix_overwrite(void)
{
	struct want w = { "syscall", .comm = "rc_workload", .nr = SYS_getppid };

	if (!test__start_subtest("perfbuf") || !need_root())
		return;
	run_case("perfbuf", (char *[]){ "--overwrite", "-e", "syscalls", NULL },
		 (char *[]){ workload(), "getppid", NSTR(N), NULL }, &w, N);
}

/* --bpf: a user's object, with a BPF ring buffer and with a perf event array. */
void test_matrix_bpf_object(void)
{
	static const struct {
		const char *name, *obj, *type, *event;
	} objs[] = {
		{ "ringbuf", "tests/bpf/roundtrip.bpf.o", "rt_event", "bpf:rt_event" },
		{ "perfbuf", "tests/bpf/perfarray.bpf.o", "pa_event", "bpf:pa_event" },
	};
	size_t i;

	for (i = 0; i < 2; i++) {
		char obj[4200];
		struct want w = { objs[i].event, .nr = -1 };

		if (!test__start_subtest(objs[i].name) || !need_root())
			continue;
		snprintf(obj, sizeof(obj), "%s", bin(objs[i].obj));
		/* the transport is the object's: --transport stays auto */
		run_case("auto",
			 (char *[]){ "--bpf", obj, "--event-type", (char *)objs[i].type, "--set",
				     "target_comm=rc_workload", NULL },
			 (char *[]){ workload(), "getppid", NSTR(N), NULL }, &w, N);
	}
}

/* -p PID: a running process, released once recording has started, until it exits. */
static void record_pid(const char *transport)
{
	const char *out = tmpfile_path("p.rcap");
	struct want w = { "syscall", .nr = SYS_getppid };
	char pidarg[16];
	struct tally t;
	struct run rec = {};
	int go[2], status;
	pid_t child;

	if (!ASSERT_OK(pipe(go), "pipe"))
		return;
	child = fork();
	if (child == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		execl(bin("rc_workload"), "rc_workload", "getppid", NSTR(N), (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	snprintf(pidarg, sizeof(pidarg), "%d", (int)child);
	w.pid = child;
	if (!ASSERT_OK(
		run_start(&rec, (char *[]){ (char *)bin("ringcap"), "record", "-q", "--transport",
					    (char *)transport, "-e", "syscalls", "-p", pidarg, "-o",
					    (char *)out, NULL }),
		"start record") ||
	    !ASSERT_TRUE(wait_nonempty(out, 60000), "recording started")) {
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		goto out;
	}
	ASSERT_EQ(write(go[1], "g", 1), 1, "release the workload");
	ASSERT_EQ(waitpid(child, &status, 0), child, "workload ended");
	/* record stops by itself once every -p process is gone */
	if (!ASSERT_OK(run_wait(&rec, 60000), "record stops") ||
	    !ASSERT_TRUE(WIFEXITED(rec.status) && WEXITSTATUS(rec.status) == 0, "record exit"))
		goto out;
	if (ASSERT_OK(tally(out, &w, &t), "read capture")) {
		ASSERT_EQ(t.nrec, N, "getppid of the process");
		assert_file(&t, NULL);
	}
out:
	close(go[1]);
	run_free(&rec);
	tmpdir_cleanup();
}

void test_matrix_pid(void)
{
	const char *t;

	FOR_TRANSPORTS(t)
	record_pid(t);
}

/*
 * A kernel without BPF attach cookies (before 5.15), as this one is told
 * to be (RINGCAP_FEATURES_OFF): each tracepoint and probe on a program of
 * its own, exact counts on both transports; more than the slots refused
 * in one line.
 */
void test_matrix_nocookie(void)
{
	char up[4200], uret[4200];
	struct want gen = { "signal:signal_generate", .comm = "rc_workload", .nr = -1 };
	struct want w = { "uprobe:rc_workload:rc_probe_target", .nr = -1 };
	struct want wr = { "uretprobe:rc_workload:rc_probe_target", .nr = -1 };
	char *probe[] = { workload(), "probe", NSTR(N), NULL };
	char *many[] = { (char *)bin("ringcap"),
			 "record",
			 "-q",
			 "-o",
			 (char *)tmpfile_path("x.rcap"),
			 "-e",
			 "writeback:*,block:*,timer:*,kmem:*,irq:*",
			 "--",
			 "true",
			 NULL };
	struct run r = {};
	const char *t;

	if (!need_root() ||
	    !ASSERT_OK(setenv("RINGCAP_FEATURES_OFF", "attach_cookie", 1), "setenv"))
		return;
	snprintf(up, sizeof(up), "uprobe:%s:rc_probe_target", bin("rc_workload"));
	snprintf(uret, sizeof(uret), "uretprobe:%s:rc_probe_target", bin("rc_workload"));
	FOR_TRANSPORTS(t)
	{
		run_case(t,
			 (char *[]){ "-e", "signal:signal_generate,signal:signal_deliver", NULL },
			 (char *[]){ workload(), "signal", NSTR(N), NULL }, &gen, N);
		run_case(t, (char *[]){ "-e", up, "-e", uret, NULL }, probe, &w, N);
		run_case(t, (char *[]){ "-e", up, "-e", uret, NULL }, probe, &wr, N);
	}
	test__start_subtest("over the slots");
	if (ASSERT_EQ(run_sync(&r, many, 60000), 1, "record refuses"))
		ASSERT_HAS(r.err, "ask for fewer", "the refusal says what to do");
	run_free(&r);
	tmpdir_cleanup();
	unsetenv("RINGCAP_FEATURES_OFF");
}
