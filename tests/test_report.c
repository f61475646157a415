// SPDX-License-Identifier: GPL-2.0-only
/*
 * ringcap report: every format and filter with exact expected output on a
 * capture kept as a fixture (tests/fixtures), and on a live capture with a
 * known count; bounded memory; a quiet end when stdout closes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>
#include "events.h"
#include "capture_util.h"
#include "run_util.h"
#include "tracefs/tpformat.h"
#include "test_progs.h"

static char *trim(char *s)
{
	char *e;

	while (*s == ' ')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

/* Each case of tests/fixtures/cases prints exactly its .out file. */
void test_report_fixture(void)
{
	const char *src = getenv("RINGCAP_SRCDIR");
	char path[4096], line[512], cmd[8192], bin_abs[4096];
	FILE *cases;

	if (!src || !realpath(bin("ringcap"), bin_abs)) {
		test__skip("RINGCAP_SRCDIR is not set: run through 'make check'");
		return;
	}
	snprintf(path, sizeof(path), "%s/tests/fixtures/cases", src);
	cases = fopen(path, "r");
	if (!ASSERT_OK_PTR(cases, "cases"))
		return;
	while (fgets(line, sizeof(line), cases)) {
		struct mem_capture want = {};
		struct run r = {};
		char *bar = strchr(line, '|'), *name, *args, *f;
		char expanded[1024] = "";

		if (line[0] == '#' || !bar)
			continue;
		*bar = '\0';
		name = trim(line);
		args = trim(bar + 1);
		/* FILE -> forkexec.rcap */
		while ((f = strstr(args, "FILE"))) {
			*f = '\0';
			strncat(expanded, args, sizeof(expanded) - strlen(expanded) - 1);
			strncat(expanded, "forkexec.rcap", sizeof(expanded) - strlen(expanded) - 1);
			args = f + 4;
		}
		strncat(expanded, args, sizeof(expanded) - strlen(expanded) - 1);
		if (!test__start_subtest(name))
			continue;
		snprintf(cmd, sizeof(cmd), "cd '%s/tests/fixtures' && TZ=UTC exec '%s' %s", src,
			 bin_abs, expanded);
		snprintf(path, sizeof(path), "%s/tests/fixtures/forkexec.%s.out", src, name);
		if (ASSERT_OK(slurp(path, &want), "expected output") &&
		    ASSERT_EQ(run_sync(&r, (char *[]){ "/bin/sh", "-c", cmd, NULL }, 30000), 0,
			      "exit status")) {
			ASSERT_EQ(strlen(r.out), want.len, "output length");
			ASSERT_TRUE(!memcmp(r.out, want.buf,
					    want.len < strlen(r.out) ? want.len : strlen(r.out)),
				    "output as expected (tests/fixtures/regen.sh rewrites it)");
		}
		free(want.buf);
		run_free(&r);
	}
	fclose(cases);
}

/* Lines of @text containing @needle. */
static long lines_with(const char *text, const char *needle)
{
	return count_lines_with(text, needle);
}

/* Newlines in @text. */
static long lines(const char *text)
{
	long n = 0;

	while (text && (text = strchr(text, '\n'))) {
		n++;
		text++;
	}
	return n;
}

#define N_LIVE 3000

void test_report_live(void)
{
	const char *cap = tmpfile_path("live.rcap"), *pidf = tmpfile_path("pid");
	const char *js = tmpfile_path("l.json"), *cs = tmpfile_path("l.csv");
	const char *pf = tmpfile_path("l.perfetto");
	char *rc = (char *)bin("ringcap"), n[16], pidarg[16], checker[4200], *res = NULL;
	struct run r = {};
	int wpid = -1;
	FILE *f;

	if (!need_root())
		return;
	/* record reads the calls' counts where tracefs is mounted (json_args): mounted here */
	if (!ASSERT_OK_PTR(rc_tracefs(), "tracefs"))
		return;
	snprintf(n, sizeof(n), "%d", N_LIVE);
	snprintf(checker, sizeof(checker), "%s/tests/check_perfetto.py",
		 getenv("RINGCAP_SRCDIR") ? getenv("RINGCAP_SRCDIR") : "..");
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ rc, "record", "-q", "-e", "syscalls,sched", "-o",
					    (char *)cap, "--", (char *)bin("rc_workload"),
					    "getppid", n, (char *)pidf, NULL },
				60000),
		       0, "record"))
		goto out;
	run_free(&r);
	f = fopen(pidf, "r");
	if (!f || fscanf(f, "%d", &wpid) != 1)
		wpid = -1;
	if (f)
		fclose(f);
	snprintf(pidarg, sizeof(pidarg), "%d", wpid);

	if (test__start_subtest("json") &&
	    ASSERT_EQ(run_sync(&r,
			       (char *[]){ rc, "report", "--format", "json", (char *)cap, NULL },
			       60000),
		      0, "report") &&
	    ASSERT_TRUE(save_text(js, r.out), "save") &&
	    !run_py(
		"import json,sys\n"
		"ev=[json.loads(l) for l in open(sys.argv[1])]\n"
		"print(sum(1 for e in ev if e['event']=='syscall' and e['fields']['nr']=='getppid'"
		" and e['pid']==int(sys.argv[2])))\n",
		(char *[]){ (char *)js, pidarg, NULL }, &res))
		ASSERT_EQ(atol(res), N_LIVE, "getppid objects");
	free(res);
	res = NULL;
	/*
	 * each call's args as many as it takes, by the kernel's ABI (the calls
	 * a static rc_workload and its exec make), not six registers: getppid
	 * none. Calls not in the table: as many as their entry event's format
	 * has 8-byte fields after __syscall_nr, counted here apart, or six
	 */
	if (test__start_subtest("json_args") &&
	    !run_py("import json,sys,os,re\n"
		    "abi={'getppid':0,'brk':1,'rt_sigaction':4,'set_tid_address':1,"
		    "'set_robust_list':2,'rseq':4,'prlimit64':4,'mprotect':3,'getrandom':3,"
		    "'exit_group':1,'execve':3,'readlink':3,'arch_prctl':2,'wait4':4,"
		    "'clone':5,'exit':1}\n"
		    "def want(nr):\n"
		    "  if nr in abi: return abi[nr]\n"
		    "  p=sys.argv[2]+'/events/syscalls/sys_enter_%s/format'%nr\n"
		    "  if not os.path.exists(p): return 6\n"
		    "  t=open(p).read().split('__syscall_nr;',1)[1]\n"
		    "  return len(re.findall(r'\\tsize:8;', t.split('print fmt:')[0]))\n"
		    "ev=[json.loads(l) for l in open(sys.argv[1])]\n"
		    "sc=[e['fields'] for e in ev if e['event']=='syscall']\n"
		    "bad=[(f['nr'],len(f['args'])) for f in sc if len(f['args'])!=want(f['nr'])]\n"
		    "names=set(f['nr'] for f in sc if f['nr'] in abi)\n"
		    "print(len(sc), len(bad), len(names), "
		    "sum(1 for f in sc if f['nr']=='getppid' and f['args']==[]), bad[:3])\n",
		    (char *[]){ (char *)js, (char *)rc_tracefs(), NULL }, &res)) {
		long nsc = 0, nbad = -1, nnames = 0, empty = 0;

		printf("    %s", res);
		ASSERT_EQ(sscanf(res, "%ld %ld %ld %ld", &nsc, &nbad, &nnames, &empty), 4, "parsed");
		ASSERT_EQ(nbad, 0, "every call's args: as many as it takes");
		ASSERT_TRUE(nnames >= 8, "calls of the table, of several counts");
		ASSERT_EQ(empty, N_LIVE, "getppid: no args");
	}
	free(res);
	res = NULL;
	run_free(&r);

	if (test__start_subtest("csv") &&
	    ASSERT_EQ(run_sync(&r, (char *[]){ rc, "report", "--format", "csv", (char *)cap, NULL },
			       60000),
		      0, "report") &&
	    ASSERT_TRUE(save_text(cs, r.out), "save") &&
	    !run_py("import csv,sys\n"
		    "rows=list(csv.DictReader(open(sys.argv[1])))\n"
		    "print(sum(1 for x in rows if x['event']=='syscall' and x['nr']=='getppid'))\n",
		    (char *[]){ (char *)cs, NULL }, &res))
		ASSERT_EQ(atol(res), N_LIVE, "getppid rows");
	free(res);
	res = NULL;
	run_free(&r);

	/* the timeline: slices nest on every track; N getppid slices on the workload's */
	if (test__start_subtest("perfetto-json") &&
	    ASSERT_EQ(
		run_sync(&r,
			 (char *[]){ rc, "report", "--format", "perfetto-json", (char *)cap, NULL },
			 60000),
		0, "report") &&
	    ASSERT_TRUE(save_text(pf, r.out), "save")) {
		struct run c = {};

		if (ASSERT_EQ(run_sync(&c,
				       (char *[]){ "/usr/bin/python3", checker, (char *)pf,
						   "getppid", pidarg, NULL },
				       60000),
			      0, "slices nest and never overlap"))
			ASSERT_HAS(c.out, " 3000 named", "getppid slices");
		if (c.err && *c.err)
			printf("    %s", c.err);
		run_free(&c);
	}
	run_free(&r);

	if (test__start_subtest("filters")) {
		long all, sys, mine;

		ASSERT_EQ(run_sync(&r, (char *[]){ rc, "report", (char *)cap, NULL }, 60000), 0,
			  "all");
		all = lines(r.out);
		run_free(&r);
		ASSERT_EQ(
		    run_sync(&r,
			     (char *[]){ rc, "report", "--event", "syscalls", (char *)cap, NULL },
			     60000),
		    0, "--event");
		sys = lines(r.out);
		ASSERT_EQ(lines_with(r.out, ": syscall: "), sys, "only syscalls");
		ASSERT_TRUE(sys >= N_LIVE && sys < all, "fewer");
		run_free(&r);
		ASSERT_EQ(run_sync(&r,
				   (char *[]){ rc, "report", "--pid", pidarg, "--event", "syscalls",
					       (char *)cap, NULL },
				   60000),
			  0, "--pid");
		mine = lines(r.out);
		ASSERT_EQ(lines_with(r.out, "nr=getppid"), N_LIVE, "the workload's getppid");
		ASSERT_TRUE(mine >= N_LIVE && mine <= sys, "its syscalls");
		run_free(&r);
		/* a time range: everything from 0 to the end is everything */
		ASSERT_EQ(run_sync(&r,
				   (char *[]){ rc, "report", "--since", "0", "--until", "100000",
					       (char *)cap, NULL },
				   60000),
			  0, "--since --until");
		ASSERT_EQ(lines(r.out), all, "the whole range");
		run_free(&r);
		/* and a range after the end holds nothing */
		ASSERT_EQ(
		    run_sync(&r, (char *[]){ rc, "report", "--since", "100000", (char *)cap, NULL },
			     60000),
		    0, "late --since");
		ASSERT_EQ(lines(r.out), 0, "nothing after the end");
		run_free(&r);
	}
out:
	run_free(&r);
	tmpdir_cleanup();
}

/*
 * Peak RSS of a command, in KiB: its VmHWM, sampled until it exits. Not
 * ru_maxrss, which keeps the forking process's pages across exec: a test
 * process grown large would be measured instead.
 */
static long peak_rss(const char *cmd, int *status)
{
	struct run r = {};
	long hwm = -1;

	if (run_start(&r, (char *[]){ "/bin/sh", "-c", (char *)cmd, NULL }))
		return -1;
	for (;;) {
		char path[64], line[256];
		bool report = false;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/status", r.pid);
		f = fopen(path, "r");
		/* Name: comes first; before the exec it is still this test's copy */
		while (f && fgets(line, sizeof(line), f)) {
			if (!strncmp(line, "Name:", 5))
				report = strstr(line, "ringcap") != NULL;
			if (report && !strncmp(line, "VmHWM:", 6) && atol(line + 6) > hwm)
				hwm = atol(line + 6);
		}
		if (f)
			fclose(f);
		if (waitpid(r.pid, status, WNOHANG) == r.pid)
			break;
		usleep(5000);
	}
	run_free(&r);
	return hwm;
}

/*
 * report reads chunk by chunk: on a capture of 2M events (about 220 MB of
 * records) its peak RSS stays small, in every format and in the summary.
 */
void test_report_bounded_memory(void)
{
	static const char *const modes[][2] = { { "--format", "text" },
						{ "--format", "json" },
						{ "--summary", "--top=5" } };
	const char *cap = tmpfile_path("big.rcap");
	char *rc = (char *)bin("ringcap");
	struct run r = {};
	size_t i;

	if (!need_root())
		return;
	if (!ASSERT_EQ(
		run_sync(&r,
			 (char *[]){ rc, "record", "-q", "-e", "syscalls", "-o", (char *)cap, "--",
				     (char *)bin("rc_workload"), "getppid", "2000000", NULL },
			 120000),
		0, "record"))
		goto out;
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		char cmd[4500];
		int status = -1;
		long kb;

		/* exec: the shell becomes report, and VmHWM is report's own */
		snprintf(cmd, sizeof(cmd), "exec '%s' report %s %s '%s' > /dev/null", rc,
			 modes[i][0], modes[i][1], cap);
		kb = peak_rss(cmd, &status);

		if (ASSERT_TRUE(kb > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0, "report"))
			ASSERT_LT(kb, 64 * 1024, "peak RSS (KiB)");
		if (getenv("RC_DEBUG_RSS"))
			printf("    %s %s: %ld KiB\n", modes[i][0], modes[i][1], kb);
	}
out:
	run_free(&r);
	tmpdir_cleanup();
}

/* '| head' closes report's stdout: it stops without a word. */
void test_report_pipe(void)
{
	const char *cap = tmpfile_path("p.rcap");
	struct mem_capture mc = {};
	struct run r = {};
	char cmd[4500];
	FILE *f;

	if (!ASSERT_OK(make_capture(&mc, 20000, 65536), "capture"))
		return;
	f = fopen(cap, "w");
	if (!ASSERT_OK_PTR(f, "create") ||
	    !ASSERT_EQ(fwrite(mc.buf, 1, mc.len, f), mc.len, "write"))
		goto out;
	fclose(f);
	f = NULL;
	snprintf(cmd, sizeof(cmd), "'%s' report -i - < '%s' | head -n 2", bin("ringcap"), cap);
	if (ASSERT_EQ(run_sync(&r, (char *[]){ "/bin/sh", "-c", cmd, NULL }, 30000), 0,
		      "pipeline")) {
		ASSERT_EQ(lines(r.out), 2, "two lines");
		ASSERT_STREQ(r.err, "", "nothing on stderr");
	}
out:
	if (f)
		fclose(f);
	run_free(&r);
	free(mc.buf);
	tmpdir_cleanup();
}

/* ---- what a record does not know -------------------------------------- */

#define NP_ID 256 /* bpf:np: no pid, tid, cpu or comm (a BPF ring buffer's struct) */
#define PC_ID 257 /* bpf:pc: no pid, tid or comm (a perf event array's) */

struct np_rec {
	struct rc_rec_hdr h;
	uint64_t seq;
};

/*
 * A capture like record --bpf makes of a struct without pid, tid and comm,
 * beside a built-in syscall that knows them all, written to @path.
 */
static int unknown_capture(const char *path)
{
	static const struct rc_field fields[] = {
		{ .name = "seq", .offset = 40, .size = 8, .count = 1, .kind = RC_FIELD_UINT },
	};
	const struct rc_event_desc evs[] = {
		{ NP_ID, sizeof(struct np_rec), "bpf:np", 1, fields,
		  RC_EVENT_NO_PID | RC_EVENT_NO_TID | RC_EVENT_NO_CPU | RC_EVENT_NO_COMM },
		{ PC_ID, sizeof(struct np_rec), "bpf:pc", 1, fields,
		  RC_EVENT_NO_PID | RC_EVENT_NO_TID | RC_EVENT_NO_COMM },
	};
	struct {
		struct rc_ev_syscall sc;
		struct np_rec np, pc;
	} recs = {};
	struct rc_schema *s = rc_schema__new(rc_builtin_schema());
	struct mem_capture mc = {};
	struct rc_meta m;
	FILE *f;
	int err;

	if (!s)
		return -errno;
	recs.sc.hdr = (struct rc_rec_hdr){ .ts = 1000,
					   .pid = 100,
					   .tid = 101,
					   .type = RC_EV_SYSCALL,
					   .size = sizeof(recs.sc),
					   .cpu = 1,
					   .comm = "unit" };
	recs.sc.nr = 39;
	recs.np.h = (struct rc_rec_hdr){ .ts = 1010, .type = NP_ID, .size = sizeof(recs.np) };
	recs.np.seq = 7;
	recs.pc.h =
	    (struct rc_rec_hdr){ .ts = 1020, .type = PC_ID, .size = sizeof(recs.pc), .cpu = 1 };
	recs.pc.seq = 8;
	test_meta(&m);
	m.schema = s;
	m.ncpus = 4;
	err = rc_schema__add_event(s, &evs[0]) ?: rc_schema__add_event(s, &evs[1]);
	err = err ?: write_meta_capture(&mc, &m, NULL, &recs, sizeof(recs), NULL);
	rc_schema__free(s);
	f = err ? NULL : fopen(path, "w");
	if (!err && (!f || fwrite(mc.buf, 1, mc.len, f) != mc.len))
		err = -EIO;
	if (f && fclose(f))
		err = -EIO;
	free(mc.buf);
	return err;
}

/* ringcap @args... on @cap; its stdout (free it), or NULL when it fails. */
static char *report_of(const char *cap, const char *a1, const char *a2, const char *a3)
{
	char *argv[] = {
		(char *)bin("ringcap"), (char *)a1, (char *)cap, (char *)a2, (char *)a3, NULL
	};
	struct run r = {};
	char *out = NULL;

	if (ASSERT_EQ(run_sync(&r, argv, 30000), 0, a1)) {
		out = r.out;
		r.out = NULL;
	}
	run_free(&r);
	return out;
}

/*
 * A pid, tid, cpu or comm the records of an event do not know is shown
 * as unknown in every format, matches no filter, and counts for no process
 * or CPU; a built-in event in the same file shows its own.
 */
void test_report_unknown(void)
{
	const char *cap = tmpfile_path("u.rcap"), *js = tmpfile_path("u.json");
	const char *cs = tmpfile_path("u.csv"), *pf = tmpfile_path("u.perfetto");
	const char *st = tmpfile_path("u.stat");
	char *out = NULL, *res = NULL;

	if (!ASSERT_OK(unknown_capture(cap), "capture"))
		goto out;
	if (test__start_subtest("text") && (out = report_of(cap, "report", NULL, NULL))) {
		ASSERT_STREQ(
		    out,
		    "            unit     100/101     [001] 0.000000000: syscall: nr=getpid "
		    "ret=0 duration=0ns args=[0x0,0x0,0x0,0x0,0x0,0x0]\n"
		    "                       -/-       [  -] 0.000000010: bpf:np: seq=7\n"
		    "                       -/-       [001] 0.000000020: bpf:pc: seq=8\n",
		    "unknown as -, columns aligned");
	}
	free(out);
	out = NULL;
	if (test__start_subtest("json") && (out = report_of(cap, "report", "--format", "json")) &&
	    ASSERT_TRUE(save_text(js, out), "save") &&
	    !run_py("import json,sys\n"
		    "e=[json.loads(l) for l in open(sys.argv[1])]\n"
		    "k=('cpu','pid','tid','comm')\n"
		    "print([[x[i] for i in k] for x in e])\n",
		    (char *[]){ (char *)js, NULL }, &res))
		ASSERT_STREQ(res,
			     "[[1, 100, 101, 'unit'], [None, None, None, None], [1, None, None, "
			     "None]]\n",
			     "null for unknown");
	free(out);
	free(res);
	out = res = NULL;
	if (test__start_subtest("csv") && (out = report_of(cap, "report", "--format", "csv")) &&
	    ASSERT_TRUE(save_text(cs, out), "save") &&
	    !run_py("import csv,sys\n"
		    "k=('cpu','pid','tid','comm')\n"
		    "print([[x[i] for i in k] for x in csv.DictReader(open(sys.argv[1]))])\n",
		    (char *[]){ (char *)cs, NULL }, &res))
		ASSERT_STREQ(res,
			     "[['1', '100', '101', 'unit'], ['', '', '', ''], ['1', '', '', '']]\n",
			     "empty cells for unknown");
	free(out);
	free(res);
	out = res = NULL;
	if (test__start_subtest("filters")) {
		static const char *const cases[][3] = {
			/* option, value, the events shown */
			{ "--pid", "0", "" },		{ "--tid", "0", "" },
			{ "--cpu", "0", "" },		{ "--cpu", "1", "syscall,bpf:pc," },
			{ "--pid", "100", "syscall," }, { "--event", "bpf", "bpf:np,bpf:pc," },
		};
		size_t i;

		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			char got[256] = "", *line, *save_p = NULL;

			out = report_of(cap, "report", cases[i][0], cases[i][1]);
			for (line = out ? strtok_r(out, "\n", &save_p) : NULL; line;
			     line = strtok_r(NULL, "\n", &save_p)) {
				/* "COMM PID/TID [CPU] TIME: EVENT: FIELDS" */
				char *ev = strstr(line, "] "), *end;

				ev = ev ? strstr(ev, ": ") : NULL;
				end = ev ? strstr(ev + 2, ": ") : NULL;
				if (end)
					snprintf(got + strlen(got), sizeof(got) - strlen(got),
						 "%.*s,", (int)(end - ev - 2), ev + 2);
			}
			ASSERT_STREQ(got, cases[i][2], cases[i][0]);
			free(out);
			out = NULL;
		}
	}
	if (test__start_subtest("summary") && (out = report_of(cap, "report", "--summary", NULL))) {
		ASSERT_HAS(out, "\nunit                  100            1\n",
			   "the syscall's process");
		ASSERT_HAS(out, "\n                        -            2\n", "unknown: not pid 0");
	}
	free(out);
	out = NULL;
	if (test__start_subtest("perfetto-json") &&
	    (out = report_of(cap, "report", "--format", "perfetto-json")) &&
	    ASSERT_TRUE(save_text(pf, out), "save") &&
	    !run_py("import json,sys\n"
		    "e=json.load(open(sys.argv[1]))['traceEvents']\n"
		    "print(sorted((x['name'],x['pid'],x['tid']) for x in e if x['ph']!='M'))\n",
		    (char *[]){ (char *)pf, NULL }, &res))
		ASSERT_STREQ(res,
			     "[('bpf:np', 2147482999, 2147482999), ('bpf:pc', 2147482999, "
			     "2147482999), ('getpid', 100, 101)]\n",
			     "a track of unknown tasks, not pid 0");
	free(out);
	free(res);
	out = res = NULL;
	if (test__start_subtest("stat") && (out = report_of(cap, "stat", "--json", NULL)) &&
	    ASSERT_TRUE(save_text(st, out), "save") &&
	    !run_py("import json,sys\n"
		    "d=json.load(open(sys.argv[1]))\n"
		    "print([(r['cpu'],r['in_file']) for r in d['by_cpu']])\n",
		    (char *[]){ (char *)st, NULL }, &res))
		ASSERT_STREQ(res, "[(1, 2)]\n", "no CPU 0: the unknown one is not counted there");
out:
	free(out);
	free(res);
	tmpdir_cleanup();
}

/* ---- nested structs in JSON ------------------------------------------- */

#define U(nm, off, sz)                                                                             \
	{                                                                                          \
		.name = nm, .offset = off, .size = sz, .count = 1, .kind = RC_FIELD_UINT           \
	}

/*
 * Events named as btfdesc.c flattens a struct: a nested struct, an array
 * of structs, one of two dimensions, an array of strings, bitfields
 * sharing a byte; and two whose names make no tree.
 */
static int nested_capture(const char *path)
{
	static const struct rc_field nest[] = {
		U("seq", 40, 8),
		U("inner.a", 48, 4),
		{ .name = "inner.b", .offset = 52, .size = 2, .count = 1, .kind = RC_FIELD_SINT },
		U("inner.deep.x", 54, 1),
		{ .name = "inner.a|b",
		  .offset = 55,
		  .size = 1,
		  .count = 1,
		  .kind = RC_FIELD_UINT,
		  .hint = RC_HINT_HEX },
		U("pairs[0].x", 56, 2),
		U("pairs[0].y", 58, 2),
		U("pairs[1].x", 60, 2),
		U("pairs[1].y", 62, 2),
		U("m[0][0].v", 64, 1),
		U("m[0][1].v", 65, 1),
		U("m[1][0].v", 66, 1),
		U("m[1][1].v", 67, 1),
		{ .name = "names[0]", .offset = 68, .size = 4, .count = 1, .kind = RC_FIELD_STR },
		{ .name = "names[1]", .offset = 72, .size = 4, .count = 1, .kind = RC_FIELD_STR },
	};
	static const struct rc_field clash[] = { U("x", 40, 4), U("x.y", 44, 4) };
	static const struct rc_field gap[] = { U("g[1].v", 40, 8) };
	const struct rc_event_desc evs[] = {
		{ 256, 80, "bpf:nest", 15, nest, RC_EVENT_NO_CPU },
		{ 257, 48, "bpf:clash", 2, clash, RC_EVENT_NO_CPU },
		{ 258, 48, "bpf:gap", 1, gap, RC_EVENT_NO_CPU },
	};
	struct {
		struct rc_rec_hdr h;
		uint64_t seq;
		uint32_t a;
		int16_t b;
		uint8_t x, ab;
		uint16_t pairs[4];
		uint8_t m[4];
		char names[2][4];
		struct rc_rec_hdr h2;
		uint32_t cx, cxy;
		struct rc_rec_hdr h3;
		uint64_t g;
	} r = { .h = { .ts = 1000, .pid = 9, .tid = 9, .type = 256, .size = 80, .comm = "nest" },
		.seq = 1,
		.a = 513,
		.b = -2,
		.x = 3,
		.ab = 5,
		.pairs = { 10, 11, 12, 13 },
		.m = { 1, 2, 3, 4 },
		.names = { "ab", "cd" },
		.h2 = { .ts = 1001, .type = 257, .size = 48 },
		.cx = 1,
		.cxy = 2,
		.h3 = { .ts = 1002, .type = 258, .size = 48 },
		.g = 7 };
	_Static_assert(sizeof(r) == 80 + 48 + 48, "records back to back");
	struct rc_schema *s = rc_schema__new(rc_builtin_schema());
	struct mem_capture mc = {};
	struct rc_meta m;
	size_t i;
	FILE *f;
	int err = 0;

	if (!s)
		return -errno;
	test_meta(&m);
	m.schema = s;
	for (i = 0; i < sizeof(evs) / sizeof(evs[0]) && !err; i++)
		err = rc_schema__add_event(s, &evs[i]);
	err = err ?: write_meta_capture(&mc, &m, NULL, &r, sizeof(r), NULL);
	rc_schema__free(s);
	f = err ? NULL : fopen(path, "w");
	if (!err && (!f || fwrite(mc.buf, 1, mc.len, f) != mc.len))
		err = -EIO;
	if (f && fclose(f))
		err = -EIO;
	free(mc.buf);
	return err;
}

/* JSON nests a struct's fields as bpftool prints them; CSV and text keep the dotted names. */
void test_report_json_nested(void)
{
	const char *cap = tmpfile_path("n.rcap"), *js = tmpfile_path("n.json");
	const char *cs = tmpfile_path("n.csv");
	char *out = NULL, *res = NULL;

	if (!ASSERT_OK(nested_capture(cap), "capture"))
		goto out;
	if (test__start_subtest("json") && (out = report_of(cap, "report", "--format", "json"))) {
		ASSERT_HAS(
		    out,
		    "\"event\":\"bpf:nest\",\"fields\":{\"seq\":1,\"inner\":{\"a\":513,"
		    "\"b\":-2,\"deep\":{\"x\":3},\"a|b\":5},\"pairs\":[{\"x\":10,\"y\":11},"
		    "{\"x\":12,\"y\":13}],\"m\":[[{\"v\":1},{\"v\":2}],[{\"v\":3},{\"v\":4}]],"
		    "\"names\":[\"ab\",\"cd\"]}}\n",
		    "objects and arrays of objects");
		ASSERT_HAS(out, "\"event\":\"bpf:clash\",\"fields\":{\"x\":1,\"x.y\":2}}\n",
			   "a field and an object of one name: flat");
		ASSERT_HAS(out, "\"event\":\"bpf:gap\",\"fields\":{\"g[1].v\":7}}\n",
			   "an array with a gap: flat");
		if (ASSERT_TRUE(save_text(js, out), "save") &&
		    !run_py(
			"import json,sys\n"
			"e=[json.loads(l) for l in open(sys.argv[1])]\n"
			"print(e[0]['fields']['pairs'][1]['y'], e[0]['fields']['inner']['deep'])\n",
			(char *[]){ (char *)js, NULL }, &res))
			ASSERT_STREQ(res, "13 {'x': 3}\n", "python3 reads it");
	}
	free(out);
	free(res);
	out = res = NULL;
	if (test__start_subtest("csv") && (out = report_of(cap, "report", "--format", "csv")) &&
	    ASSERT_TRUE(save_text(cs, out), "save") &&
	    !run_py(
		"import csv,sys\n"
		"x=next(csv.DictReader(open(sys.argv[1])))\n"
		"print(x['inner.a'],x['inner.deep.x'],x['pairs[1].y'],x['m[1][0].v'],x['names[1]'])"
		"\n",
		(char *[]){ (char *)cs, NULL }, &res))
		ASSERT_STREQ(res, "513 3 13 3 cd\n", "flat, dotted columns");
	free(out);
	free(res);
	out = res = NULL;
	if (test__start_subtest("text") && (out = report_of(cap, "report", NULL, NULL)))
		ASSERT_HAS(out,
			   "bpf:nest: seq=1 inner.a=513 inner.b=-2 inner.deep.x=3 inner.a|b=0x5 "
			   "pairs[0].x=10 pairs[0].y=11 pairs[1].x=12 pairs[1].y=13 m[0][0].v=1 "
			   "m[0][1].v=2 m[1][0].v=3 m[1][1].v=4 names[0]=ab names[1]=cd\n",
			   "text as before");
out:
	free(out);
	free(res);
	tmpdir_cleanup();
}

/* ---- a live pipe ------------------------------------------------------ */

#define LIVE_WAKEUP_MS	50  /* --wakeup-ms: the drain's period, and the flush's */
#define LIVE_REORDER_MS 20  /* the writer holds records this long to sort them */
#define LIVE_MARGIN_MS	500 /* scheduling on a shared, loaded machine: two processes, a pipe */

static uint64_t boot_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * record -o - | report -i -: the workload makes one call and sleeps; its
 * event's line must come out of report within the drain's period, the
 * writer's reorder window and a flush (--wakeup-ms sets both periods),
 * plus a margin, while the workload still sleeps: not at the end. The
 * delay is from the event's own time (CLOCK_BOOTTIME, "ts" in JSON) to
 * the line read here.
 */
void test_report_live_pipe(void)
{
	uint64_t bound_ns = (2 * LIVE_WAKEUP_MS + LIVE_REORDER_MS + LIVE_MARGIN_MS) * 1000000ull;
	unsigned long long ts = 0;
	char cmd[8192], line[4096];
	bool seen = false;
	uint64_t got = 0;
	FILE *p;

	if (!need_root())
		return;
	snprintf(cmd, sizeof(cmd),
		 "'%s' record -q --wakeup-ms %d -e syscalls:sys_enter_getppid -o - -- /bin/sh -c "
		 "\"'%s' getppid 1; exec '%s' sleep 3000\" | '%s' report -i - --format json",
		 bin("ringcap"), LIVE_WAKEUP_MS, bin("rc_workload"), bin("rc_workload"),
		 bin("ringcap"));
	p = popen(cmd, "r");
	if (!ASSERT_OK_PTR(p, "popen"))
		return;
	while (fgets(line, sizeof(line), p)) {
		const char *t = strstr(line, "\"ts\":");

		if (seen || !strstr(line, "\"comm\":\"rc_workload\"") || !t)
			continue;
		got = boot_now_ns();
		seen = sscanf(t + 5, "%llu", &ts) == 1;
	}
	ASSERT_EQ(pclose(p), 0, "pipeline");
	if (ASSERT_TRUE(seen, "the event's line")) {
		printf("    the line came %.1f ms after the event\n", (got - ts) / 1e6);
		ASSERT_LT(got - ts, bound_ns, "line within 2 x wakeup + reorder + margin (ns)");
		ASSERT_LT(got - ts, 2500000000ull, "before the workload's 3 s sleep ends (ns)");
	}
}

/* ---- every kind of value, against the formats' stored output ---------- */

#define VF(nm, off, sz, cnt, knd, hnt, en)                                                         \
	{                                                                                          \
		.name = nm, .offset = off, .size = sz, .count = cnt, .kind = RC_FIELD_##knd,       \
		.hint = RC_HINT_##hnt, .enum_id = en                                               \
	}

#define VALUES_ENUM_SYSCALL 1 /* the built-in schema's enums */
#define VALUES_ENUM_ERRNO   2
#define VALUES_ENUM_STATE   3

/*
 * A capture of values at their edges: each integer size and sign at its
 * limits, hex, enums named and not, errnos, durations of each unit (and a
 * millisecond half-way case), arrays, strings with bytes to escape and to
 * quote, data found through DATA_LOC and REL_LOC (and a location outside
 * its record), a field named as a fixed column, a time before the start,
 * unprintable comms, and records that know no task. The formats' output of
 * it is tests/fixtures/values.FORMAT.out, as the ringcap before the
 * formatters were hand-written (7602b25) printed it: to write them again,
 * RC_VALUES_RCAP=/tmp/v.rcap test_progs -t report_values keeps the capture.
 */
static int values_capture(const char *path)
{
	static const struct rc_field vals[] = {
		VF("u8", 40, 1, 1, UINT, NONE, 0),
		VF("s8", 41, 1, 1, SINT, NONE, 0),
		VF("u16", 42, 2, 1, UINT, NONE, 0),
		VF("s16", 44, 2, 1, SINT, NONE, 0),
		VF("x16", 46, 2, 1, UINT, HEX, 0),
		VF("u32", 48, 4, 1, UINT, NONE, 0),
		VF("s32", 52, 4, 1, SINT, NONE, 0),
		VF("u64", 56, 8, 1, UINT, NONE, 0),
		VF("s64", 64, 8, 1, SINT, NONE, 0),
		VF("ret", 72, 8, 1, SINT, ERRNO, VALUES_ENUM_ERRNO),
		VF("ret2", 80, 8, 1, SINT, ERRNO, VALUES_ENUM_ERRNO),
		VF("nr", 88, 4, 1, UINT, ENUM, VALUES_ENUM_SYSCALL),
		VF("state", 92, 4, 1, UINT, ENUM, VALUES_ENUM_STATE),
		VF("d_ns", 96, 8, 1, UINT, NSEC, 0),
		VF("d_us", 104, 8, 1, UINT, NSEC, 0),
		VF("d_ms", 112, 8, 1, UINT, NSEC, 0),
		VF("d_s", 120, 8, 1, UINT, NSEC, 0),
		VF("xs", 128, 4, 3, UINT, HEX, 0),
		VF("ss", 140, 2, 2, SINT, NONE, 0),
		VF("str", 144, 16, 1, STR, NONE, 0),
		VF("lead", 160, 8, 1, STR, NONE, 0),
		VF("dstr", 168, 1, 1, DATA_LOC, NONE, 0),
		VF("darr", 172, 4, 1, DATA_LOC, NONE, 0),
		VF("dbad", 176, 1, 1, DATA_LOC, NONE, 0),
		VF("rstr", 180, 1, 1, REL_LOC, NONE, 0),
		VF("pid", 184, 8, 1, UINT, NONE, 0),
	};
	static const struct rc_field seq[] = { VF("seq", 40, 8, 1, UINT, NONE, 0) };
	const struct rc_event_desc evs[] = {
		{ 256, 216, "bpf:vals", sizeof(vals) / sizeof(vals[0]), vals, 0 },
		{ 257, 48, "bpf:\"odd\", name", 1, seq,
		  RC_EVENT_NO_PID | RC_EVENT_NO_TID | RC_EVENT_NO_CPU | RC_EVENT_NO_COMM },
	};
	unsigned char recs[216 + 48 + 216] = {}, *r;
	struct rc_schema *s = rc_schema__new(rc_builtin_schema());
	struct rc_rec_hdr h;
	struct mem_capture mc = {};
	const char *keep = getenv("RC_VALUES_RCAP");
	struct rc_meta m;
	uint64_t u;
	int64_t v;
	uint32_t w;
	int16_t ss[2] = { -1, 7 };
	uint32_t xs[3] = { 0, 0xdeadbeef, 1 };
	FILE *f;
	int err = 0, i;

	if (!s)
		return -errno;
	/* the first record: each value at an edge */
	r = recs;
	h = (struct rc_rec_hdr){ .ts = 995, .pid = 1, .tid = 2, .cpu = 3, .type = 256, .size = 216 };
	memcpy(h.comm, "t\001st\377", 6);
	memcpy(r, &h, sizeof(h));
	r[40] = 0xff;
	r[41] = 0x80;
	memset(r + 42, 0xff, 2);
	r[44] = 0xfe, r[45] = 0xff; /* -2 */
	r[46] = 0xef, r[47] = 0xbe;
	memset(r + 48, 0xff, 4);
	w = 0x80000000;
	memcpy(r + 52, &w, 4);
	memset(r + 56, 0xff, 8);
	u = 1ull << 63;
	memcpy(r + 64, &u, 8);
	v = -2;
	memcpy(r + 72, &v, 8);
	v = -4095;
	memcpy(r + 80, &v, 8);
	w = 39;
	memcpy(r + 88, &w, 4);
	w = 1;
	memcpy(r + 92, &w, 4);
	u = 999;
	memcpy(r + 96, &u, 8);
	u = 1500;
	memcpy(r + 104, &u, 8);
	u = 1000500;
	memcpy(r + 112, &u, 8);
	u = 2500000001ull;
	memcpy(r + 120, &u, 8);
	memcpy(r + 128, xs, sizeof(xs));
	memcpy(r + 140, ss, sizeof(ss));
	memcpy(r + 144, "a\\b\"c,d\001\303\251\377x\n\r y", 16);
	memcpy(r + 160, " lead  ", 7);
	w = 8u << 16 | (192 - 40);
	memcpy(r + 168, &w, 4);
	w = 8u << 16 | (200 - 40);
	memcpy(r + 172, &w, 4);
	w = 100u << 16 | 300;
	memcpy(r + 176, &w, 4);
	w = 4u << 16 | (208 - 184);
	memcpy(r + 180, &w, 4);
	u = 77;
	memcpy(r + 184, &u, 8);
	memcpy(r + 192, "dyn\tstr", 8);
	w = 1;
	memcpy(r + 200, &w, 4);
	w = 0x80000000;
	memcpy(r + 204, &w, 4);
	memcpy(r + 208, "rel", 4);
	/* a record of no known task */
	r = recs + 216;
	h = (struct rc_rec_hdr){ .ts = 1001, .pid = 5, .tid = 6, .cpu = 1, .type = 257, .size = 48 };
	memcpy(r, &h, sizeof(h));
	u = 12345678901234567890ull;
	memcpy(r + 40, &u, 8);
	/* the first again, with zeros and ids at their largest */
	r = recs + 216 + 48;
	memcpy(r, recs, 216);
	h = (struct rc_rec_hdr){ .ts = 1000001007ull,
				 .pid = 4294967295u,
				 .tid = 4294967294u,
				 .cpu = 0,
				 .type = 256,
				 .size = 216 };
	memcpy(h.comm, "sixteen-bytes-xx", 16);
	memcpy(r, &h, sizeof(h));
	memset(r + 40, 0, 128 - 40);
	memset(r + 92, 0xff, 4); /* state: every bit; nr: a call the enum lacks */
	w = 99999;
	memcpy(r + 88, &w, 4);
	test_meta(&m);
	m.schema = s;
	m.ncpus = 4;
	err = rc_schema__add_event(s, &evs[0]) ?: rc_schema__add_event(s, &evs[1]);
	err = err ?: write_meta_capture(&mc, &m, NULL, recs, sizeof(recs), NULL);
	rc_schema__free(s);
	for (i = 0; i < 2 && !err; i++) {
		const char *p = i ? keep : path;

		if (!p)
			continue;
		f = fopen(p, "w");
		if (!f || fwrite(mc.buf, 1, mc.len, f) != mc.len)
			err = -EIO;
		if (f && fclose(f))
			err = -EIO;
	}
	free(mc.buf);
	return err;
}

/* Text, JSON, CSV and Perfetto print every kind of value exactly as stored. */
void test_report_values(void)
{
	static const char *const fmts[] = { "text", "json", "csv", "perfetto-json" };
	const char *src = getenv("RINGCAP_SRCDIR"), *cap = tmpfile_path("v.rcap");
	char path[4096];
	size_t i;

	if (!src) {
		test__skip("RINGCAP_SRCDIR is not set: run through 'make check'");
		return;
	}
	if (!ASSERT_OK(values_capture(cap), "capture"))
		goto out;
	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		struct mem_capture want = {};
		char *out;

		if (!test__start_subtest(fmts[i]))
			continue;
		out = report_of(cap, "report", "--format", fmts[i]);
		snprintf(path, sizeof(path), "%s/tests/fixtures/values.%s.out", src, fmts[i]);
		if (out && ASSERT_OK(slurp(path, &want), "expected output")) {
			ASSERT_EQ(strlen(out), want.len, "output length");
			ASSERT_TRUE(!memcmp(out, want.buf,
					    want.len < strlen(out) ? want.len : strlen(out)),
				    "output as stored");
		}
		free(want.buf);
		free(out);
	}
out:
	tmpdir_cleanup();
}

/*
 * JSON's integers beyond 2^53 as strings of their digits, read back exact
 * by two readers that parse numbers as doubles or as typed columns:
 * Node's JSON.parse (every number it gets must be a safe integer, or a
 * time with a fraction) and DuckDB (npm @duckdb/node-api, installed by
 * scripts/deps.sh as speedscope is), each giving the values the capture
 * holds: the u64 and s64 limits, a u64 sequence number, and small values
 * as numbers still.
 */
static const char json_node_js[] =
	"const fs = require('fs');\n"
	"const lines = fs.readFileSync(process.argv[2], 'utf8').split('\\n').filter(l => l);\n"
	"const out = [];\n"
	"function walk(v, at) {\n"
	"  if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v))\n"
	"    out.push('UNSAFE ' + at);\n"
	"  if (v && typeof v === 'object') for (const k in v) walk(v[k], at + '.' + k);\n"
	"}\n"
	"lines.forEach((l, i) => {\n"
	"  const o = JSON.parse(l), f = o.fields;\n"
	"  walk(o, String(i));\n"
	"  for (const k of ['u64', 's64', 'seq', 'u32', 's32', 'd_s'])\n"
	"    if (k in f) out.push(i + ' ' + k + ' ' + typeof f[k] + ' ' + BigInt(f[k]));\n"
	"});\n"
	"console.log(out.join('\\n'));\n";

static const char json_duckdb_js[] =
	"const { DuckDBInstance } = require(process.argv[2] + '/@duckdb/node-api');\n"
	"(async () => {\n"
	"  const c = await (await DuckDBInstance.create(':memory:')).connect();\n"
	"  const r = await c.runAndReadAll(\"SELECT ts, fields.u64::HUGEINT::VARCHAR, \" +\n"
	"    \"fields.s64::HUGEINT::VARCHAR, fields.seq::HUGEINT::VARCHAR FROM \" +\n"
	"    \"read_json('\" + process.argv[3] + \"', format='newline_delimited') ORDER BY ts\");\n"
	"  for (const row of r.getRows()) console.log(row.map(String).join(' '));\n"
	"})().catch(e => { console.error(e.message); process.exit(1); });\n";

void test_report_json_readers(void)
{
	const char *cap = tmpfile_path("v.rcap"), *json = tmpfile_path("v.json");
	const char *njs = tmpfile_path("node.js"), *djs = tmpfile_path("duckdb.js");
	char root[512] = "", mod[600], *out = NULL;
	struct run r = {};
	FILE *f;

	if (access("/usr/bin/node", X_OK)) {
		test__skip("no node (Debian's nodejs, scripts/deps.sh): this test runs on the host");
		return;
	}
	if (!ASSERT_OK(values_capture(cap), "capture"))
		goto out;
	out = report_of(cap, "report", "--format", "json");
	if (!ASSERT_OK_PTR(out, "report --format json") || !ASSERT_TRUE(save_text(json, out), "save") ||
	    !ASSERT_TRUE(save_text(njs, json_node_js) && save_text(djs, json_duckdb_js), "scripts"))
		goto out;
	ASSERT_HAS(out, "\"u64\":\"18446744073709551615\",\"s64\":\"-9223372036854775808\"",
		   "beyond 2^53: strings of the digits");
	ASSERT_HAS(out, "\"u32\":4294967295,\"s32\":-2147483648", "within: numbers");

	if (ASSERT_EQ(run_sync(&r, (char *[]){ "/usr/bin/node", (char *)njs, (char *)json, NULL },
			       30000),
		      0, "node: JSON.parse"))
		ASSERT_STREQ(r.out,
			     "0 u64 string 18446744073709551615\n"
			     "0 s64 string -9223372036854775808\n"
			     "0 u32 number 4294967295\n"
			     "0 s32 number -2147483648\n"
			     "0 d_s number 2500000001\n"
			     "1 seq string 12345678901234567890\n"
			     "2 u64 number 0\n"
			     "2 s64 number 0\n"
			     "2 u32 number 0\n"
			     "2 s32 number 0\n"
			     "2 d_s number 0\n",
			     "JSON.parse: every value exact, no unsafe number");
	run_free(&r);

	f = popen("npm root -g 2>/dev/null", "r");
	if (f) {
		if (!fgets(root, sizeof(root), f))
			root[0] = '\0';
		pclose(f);
	}
	root[strcspn(root, "\n")] = '\0';
	snprintf(mod, sizeof(mod), "%s/@duckdb/node-api/package.json", root);
	if (!root[0] || access(mod, R_OK)) {
		test__skip("no @duckdb/node-api: npm install -g @duckdb/node-api (scripts/deps.sh)");
		goto out;
	}
	if (ASSERT_EQ(run_sync(&r, (char *[]){ "/usr/bin/node", (char *)djs, root, (char *)json,
					       NULL },
			       60000),
		      0, "node: DuckDB's read_json"))
		ASSERT_STREQ(r.out,
			     "995 18446744073709551615 -9223372036854775808 null\n"
			     "1001 null null 12345678901234567890\n"
			     "1000001007 0 0 null\n",
			     "DuckDB: every value exact");
out:
	run_free(&r);
	free(out);
	tmpdir_cleanup();
}

/*
 * A 32-bit task's calls (int $0x80 from a 64-bit task: i386's numbers):
 * recorded flagged (RC_SYSCALL_F_COMPAT), never named or counted by the
 * 64-bit table whose number they share: i386's getpid is 20, x86-64's
 * writev. Their args from i386's registers (ebx..ebp), all six, no name,
 * their own summary row; i386's exit_group (252) recorded at entry.
 */
void test_report_compat_calls(void)
{
	const char *cap = tmpfile_path("c80.rcap"), *js = tmpfile_path("c80.json");
	char *rc = (char *)bin("ringcap"), *res = NULL;
	struct run r = {};

	if (!need_root())
		return;
#if !defined(__x86_64__)
	test__skip("int $0x80 from a 64-bit task is x86-64's");
	return;
#endif
	/* a kernel without IA32 emulation (or booted with ia32_emulation=0) kills it */
	if (run_sync(&r, (char *[]){ (char *)bin("rc_workload"), "int80", "1", NULL }, 60000) != 7) {
		test__skip("int $0x80 does not run here (no IA32 emulation)");
		goto out;
	}
	run_free(&r);
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ rc, "record", "-q", "-e", "syscalls", "-o", (char *)cap,
					    "--", (char *)bin("rc_workload"), "int80", "200", NULL },
				60000),
		       0, "record"))
		goto out;
	run_free(&r);
	if (!ASSERT_EQ(run_sync(&r, (char *[]){ rc, "report", "--format", "json", (char *)cap, NULL },
				60000),
		       0, "report") ||
	    !ASSERT_TRUE(save_text(js, r.out), "save"))
		goto out;
	if (!run_py("import json,sys\n"
		    "ev=[json.loads(l) for l in open(sys.argv[1])]\n"
		    "sc=[e['fields'] for e in ev if e['event']=='syscall' and e['comm']=='rc_workload']\n"
		    "regs=[0x1001,0x1002,0x1003,0x1004,0x1005,0x1006]\n"
		    "print(sum(1 for f in sc if f['nr']==20 and f['args']==regs),"
		    " sum(1 for f in sc if f['nr']=='writev'),"
		    " sum(1 for f in sc if f['nr']==252 and f['args'][0]==7 and f['duration']==0))\n",
		    (char *[]){ (char *)js, NULL }, &res)) {
		long n32 = -1, wv = -1, eg = -1;

		ASSERT_EQ(sscanf(res, "%ld %ld %ld", &n32, &wv, &eg), 3, "parsed");
		ASSERT_EQ(n32, 200, "i386 getpid: number 20, i386's six registers");
		ASSERT_EQ(wv, 0, "none named writev");
		ASSERT_EQ(eg, 1, "i386 exit_group: at entry, its status");
	}
	free(res);
	res = NULL;
	run_free(&r);
	if (ASSERT_EQ(run_sync(&r, (char *[]){ rc, "report", "--summary", (char *)cap, NULL }, 60000),
		      0, "summary"))
		ASSERT_HAS(r.out, "\nsys32_20                    200 ", "a row of its own");
out:
	free(res);
	run_free(&r);
}
