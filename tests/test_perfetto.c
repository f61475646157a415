// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --format perfetto (Perfetto's protobuf trace), read by a reader
 * nobody here wrote: Debian's protoc, against Perfetto's published
 * perfetto_trace.proto (a test reference, in ../shared/reference beside
 * the source tree, never copied into it). tests/check_perfetto_pb.py
 * reads protoc's text.
 *
 * perfetto_proto  rc_workload steady (syscalls and sleeps), with sched,
 *                 sched_waking and -g samples: protoc reads the whole file;
 *                 every interned id resolves by its sequence and flags;
 *                 every sched_switch and syscall of report --format json
 *                 is in it with its CPU, times, tids, pids, fields and
 *                 return; one machine, with its SystemInfo and clocks; at
 *                 most a fifth of --format perfetto-json's size. Then a
 *                 second host's capture (recorded in a UTS namespace of its
 *                 own) with the first: two machines. The stored forkexec
 *                 capture: its fork, exits and wakeup as ftrace events, its
 *                 switches and syscalls exactly. Refused on a terminal.
 *
 * Skipped only when the reference schema is absent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "run_util.h"
#include "test_progs.h"

/* A path in the test's directory, kept (tmpfile_path() reuses its buffers). */
#define TMP(var, name)                                                                             \
	char var[4096];                                                                            \
	snprintf(var, sizeof(var), "%s/%s", tmpdir(), name)

/* ringcap report --format FORMAT INPUTS > @out; its exit code. */
static int report_to(const char *format, const char *inputs, const char *out)
{
	char cmd[16384];
	struct run r = {};
	int err;

	snprintf(cmd, sizeof(cmd), "%.4000s report --format %s %.8000s > '%.3000s'", ringcap_sh(),
		 format, inputs, out);
	err = run_sync(&r, (char *[]){ "/bin/sh", "-c", cmd, NULL }, 120000);
	if (err && r.err)
		printf("    %s", r.err);
	run_free(&r);
	return err;
}

/* check_perfetto_pb.py PROTO_DIR TRACE [ARGS]: its exit code, its stdout in @r. */
static int check(struct run *r, const char *proto_dir, const char *trace, const char *a1,
		 const char *a2, const char *a3, const char *a4)
{
	char checker[4200];
	int err;

	snprintf(checker, sizeof(checker), "%s/tests/check_perfetto_pb.py",
		 getenv("RINGCAP_SRCDIR") ?: "..");
	err = run_sync(r,
		       (char *[]){ "/usr/bin/python3", checker, (char *)proto_dir, (char *)trace,
				   (char *)a1, (char *)a2, (char *)a3, (char *)a4, NULL },
		       120000);
	if (r->out)
		printf("%s", r->out);
	if (err && r->err)
		printf("    %s", r->err);
	return err;
}

static long long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long long)st.st_size;
}

void test_perfetto_proto(void)
{
	char proto_dir[4200], proto[4300], cmd[16384], inputs[8300];
	TMP(cap, "a.rcap");
	TMP(cap2, "b.rcap");
	TMP(pf, "a.pftrace");
	TMP(pf2, "ab.pftrace");
	TMP(jl, "a.jsonl");
	TMP(pj, "a.json");
	TMP(fe, "fe.pftrace");
	TMP(fej, "fe.jsonl");
	char fixture[4200];
	struct run r = {};
	long long pb_size, json_size;

	if (!need_root())
		return;
	snprintf(proto_dir, sizeof(proto_dir), "%s/../shared/reference",
		 getenv("RINGCAP_SRCDIR") ?: "..");
	snprintf(proto, sizeof(proto), "%s/perfetto_trace.proto", proto_dir);
	if (access(proto, R_OK)) {
		test__skip("../shared/reference/perfetto_trace.proto is absent");
		return;
	}
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-q", "-e",
					    "syscalls,sched,sched:sched_waking", "-F", rate(), "-g",
					    "-o", cap, "--", (char *)bin("rc_workload"), "steady",
					    "5000", "1", NULL },
				120000),
		       0, "record"))
		goto out;
	run_free(&r);
	if (!ASSERT_EQ(report_to("perfetto", cap, pf), 0, "report --format perfetto") ||
	    !ASSERT_EQ(report_to("json", cap, jl), 0, "report --format json") ||
	    !ASSERT_EQ(report_to("perfetto-json", cap, pj), 0, "report --format perfetto-json"))
		goto out;

	if (ASSERT_EQ(check(&r, proto_dir, pf, "--json", jl, "--machines", "1"), 0,
		      "protoc reads it; ids resolve; the JSON's switches and syscalls")) {
		ASSERT_HAS(r.out, " all equal", "every sched_switch and syscall");
		ASSERT_TRUE(!strstr(r.out, "\n0 sched_switch"), "sched_switch there");
		ASSERT_TRUE(!strstr(r.out, " 0 samples"), "samples there");
	}
	run_free(&r);
	pb_size = file_size(pf);
	json_size = file_size(pj);
	printf("    perfetto %lld bytes, perfetto-json %lld bytes\n", pb_size, json_size);
	ASSERT_TRUE(pb_size > 0 && pb_size * 5 <= json_size, "at most a fifth of the JSON");

	/* the stored forkexec capture: fork, exec, exit and a wakeup besides */
	snprintf(fixture, sizeof(fixture), "%s/tests/fixtures/forkexec.rcap",
		 getenv("RINGCAP_SRCDIR") ?: "..");
	if (ASSERT_EQ(report_to("perfetto", fixture, fe), 0, "report forkexec.rcap") &&
	    ASSERT_EQ(report_to("json", fixture, fej), 0, "report forkexec.rcap as json") &&
	    ASSERT_EQ(check(&r, proto_dir, fe, "--json", fej, NULL, NULL), 0, "forkexec")) {
		ASSERT_HAS(r.out,
			   "\n5 sched_switch, 36 syscall slices, 1 sched_wakeup, 1 fork, 2 exit, ",
			   "forkexec's events");
		ASSERT_HAS(r.out, " all equal", "forkexec's switches and syscalls");
	}
	run_free(&r);

	/* binary: never to a terminal (script(1) gives it one) */
	snprintf(cmd, sizeof(cmd), "%.4000s report --format perfetto '%.4000s'", ringcap_sh(), cap);
	if (ASSERT_EQ(run_sync(&r, (char *[]){ "/usr/bin/script", "-qec", cmd, "/dev/null", NULL },
			       60000),
		      1, "refused on a terminal"))
		ASSERT_HAS(r.out, "perfetto is a binary protobuf trace: send it to a file", "why");
	run_free(&r);

	/* a second host: its own machine */
	snprintf(cmd, sizeof(cmd),
		 "hostname rc-perfetto-b && exec %.4000s record -q -e syscalls,sched -o "
		 "'%.4000s' -- '%.4000s' steady 2000 1",
		 ringcap_sh(), cap2, bin("rc_workload"));
	if (!ASSERT_EQ(
		run_sync(&r, (char *[]){ "/usr/bin/unshare", "--uts", "/bin/sh", "-c", cmd, NULL },
			 120000),
		0, "record on host rc-perfetto-b"))
		goto out;
	run_free(&r);
	snprintf(inputs, sizeof(inputs), "'%.4000s' '%.4000s'", cap, cap2);
	if (ASSERT_EQ(report_to("perfetto", inputs, pf2), 0, "report --format perfetto of two") &&
	    ASSERT_EQ(check(&r, proto_dir, pf2, "--machines", "2", NULL, NULL), 0, "two machines"))
		ASSERT_HAS(r.out, " 2 machines", "a machine a host");
out:
	run_free(&r);
}
