// SPDX-License-Identifier: GPL-2.0-only
/*
 * report -j: the records decoded on several threads print exactly what one
 * thread prints, byte for byte, stderr and exit status too: text, JSON
 * Lines, CSV, --summary, folded stacks and perf-script (one thread), for
 * the fixtures, for captures of each transport, for one with stacks, for
 * damaged and cut files, from a pipe, with --since/--until and a filter,
 * and for several files (which take one thread).
 */
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "capture_util.h"
#include "run_util.h"
#include "test_progs.h"

static const char *const modes[][2] = {
	{ "--format", "text" }, { "--format", "json" }, { "--format", "csv" },
	{ "--summary", NULL },	{ "--format", "folded" }, { "--format", "perf-script" },
};

/* Start report -j @jobs @args... on @cap (NULL: the args name the input) into @r. */
static int report_start(struct run *r, const char *jobs, const char *cap,
			const char *const *args, size_t nargs)
{
	char *argv[32];
	size_t n = 0, i;

	argv[n++] = (char *)bin("ringcap");
	argv[n++] = "report";
	argv[n++] = "-j";
	argv[n++] = (char *)jobs;
	for (i = 0; i < nargs && n < 30; i++)
		argv[n++] = (char *)args[i];
	if (cap)
		argv[n++] = (char *)cap;
	argv[n] = NULL;
	return run_start(r, argv);
}

/*
 * -j 2 and -j 4 print what -j 1 prints, for @args: false, said, when not.
 * -j 4 (more threads than this machine's CPUs) only for the written
 * capture of many chunks (@four): the rest, at -j 2, keeps the test's time
 * in the sanitizer build down. The runs go side by side, each its own
 * process reading the file and writing its own memfds: -j 1 and
 * perf-script (one thread at any -j) leave a CPU idle otherwise, and
 * what is compared is each run's whole output, whenever it ran.
 */
static bool four;

static bool same_as_one(const char *what, const char *cap, const char *const *args, size_t nargs)
{
	static const char *const jobs[] = { "1", "2", "4" };
	struct run r[3] = {};
	size_t i, n = four ? 3 : 2;
	bool ok = true;

	for (i = 0; i < n; i++)
		if (!ASSERT_OK(report_start(&r[i], jobs[i], cap, args, nargs), "start report")) {
			n = i;
			ok = false;
		}
	for (i = 0; i < n; i++)
		run_wait(&r[i], 120000);
	for (i = 1; i < n && ok; i++) {
		char name[256];

		snprintf(name, sizeof(name), "%s -j %s: stdout (%zu bytes at -j 1)", what, jobs[i],
			 r[0].out ? strlen(r[0].out) : 0);
		ok = ASSERT_TRUE(r[0].out && r[i].out && !strcmp(r[0].out, r[i].out), name);
		snprintf(name, sizeof(name), "%s -j %s: stderr", what, jobs[i]);
		ok = ok && ASSERT_STREQ(r[i].err, r[0].err, name);
		snprintf(name, sizeof(name), "%s -j %s: exit status", what, jobs[i]);
		ok = ok && ASSERT_EQ(r[i].status, r[0].status, name);
	}
	for (i = 0; i < 3; i++)
		run_free(&r[i]);
	return ok;
}

/* Every mode on @cap, with @extra options before it. */
static void all_modes(const char *what, const char *cap, const char *e1, const char *e2)
{
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		const char *args[4];
		size_t n = 0;
		char name[512];

		args[n++] = modes[i][0];
		if (modes[i][1])
			args[n++] = modes[i][1];
		if (e1)
			args[n++] = e1;
		if (e2)
			args[n++] = e2;
		snprintf(name, sizeof(name), "%s %s %s %s %s", what, modes[i][0],
			 modes[i][1] ? modes[i][1] : "", e1 ? e1 : "", e2 ? e2 : "");
		if (!same_as_one(name, cap, args, n))
			return;
	}
}

static bool write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");
	bool ok = f && fwrite(buf, 1, len, f) == len;

	if (f)
		ok = !fclose(f) && ok;
	return ok;
}

/* The fixtures, and a written capture of many chunks: whole, damaged, cut short. */
static void written(void)
{
	const char *src = getenv("RINGCAP_SRCDIR");
	const char *cap = tmpfile_path("many.rcap"), *bad = tmpfile_path("bad.rcap");
	const char *cut = tmpfile_path("cut.rcap");
	struct mem_capture mc = {};
	char pattern[4096];
	glob_t g = {};
	size_t i;

	if (src) {
		snprintf(pattern, sizeof(pattern), "%s/tests/fixtures/*.rcap", src);
		if (ASSERT_OK(glob(pattern, 0, NULL, &g), "fixtures"))
			for (i = 0; i < g.gl_pathc; i++)
				all_modes(g.gl_pathv[i], g.gl_pathv[i], NULL, NULL);
		globfree(&g);
	}
	if (!ASSERT_OK(make_capture(&mc, 60000, 65536), "capture") ||
	    !ASSERT_TRUE(write_file(cap, mc.buf, mc.len), "write"))
		goto out;
	four = true;
	all_modes("written", cap, NULL, NULL);
	four = false;
	/* damage: a byte of a chunk in the middle; chunks settle in order */
	mc.buf[mc.len / 2] ^= 0x40;
	if (ASSERT_TRUE(write_file(bad, mc.buf, mc.len), "write damaged"))
		all_modes("damaged", bad, NULL, NULL);
	mc.buf[mc.len / 2] ^= 0x40;
	/* two stretches: their order in the warning is the file's */
	for (i = 2; i <= 3; i++)
		mc.buf[mc.len * i / 5] ^= 0x01;
	if (ASSERT_TRUE(write_file(bad, mc.buf, mc.len), "write damaged twice"))
		all_modes("damaged twice", bad, NULL, NULL);
	for (i = 2; i <= 3; i++)
		mc.buf[mc.len * i / 5] ^= 0x01;
	if (ASSERT_TRUE(write_file(cut, mc.buf, mc.len * 2 / 3), "write cut"))
		all_modes("cut", cut, NULL, NULL);
	all_modes("range", cap, "--since=0.0002", "--until=0.0004");
	all_modes("filter", cap, "--cpu=1", NULL);
out:
	free(mc.buf);
}

/* A capture of each transport, a profile with stacks, a pipe, and two files. */
static void recorded(void)
{
	static const char *const transports[][2] = {
		{ "ringbuf", "syscalls,sched" },
		{ "perfbuf", "syscalls,sched" },
		{ "ftrace", "syscalls:sys_enter_getppid,sched:sched_switch" },
	};
	char rc[PATH_MAX]; /* bin()'s buffers are a ring of four, reused */
	const char *prof = tmpfile_path("prof.rcap");
	char cmd[8192], name[64];
	size_t i;

	snprintf(rc, sizeof(rc), "%s", bin("ringcap"));
	for (i = 0; i < 3; i++) {
		const char *cap = tmpfile_path(transports[i][0]);
		struct run r = {};

		snprintf(name, sizeof(name), "record --transport %s", transports[i][0]);
		if (ASSERT_EQ(run_sync(&r,
				       (char *[]){ rc, "record", "-q", "--transport",
						   (char *)transports[i][0], "-e",
						   (char *)transports[i][1], "-o", (char *)cap, "--",
						   (char *)bin("rc_workload"), "getppid", "100000",
						   NULL },
				       120000),
			      0, name))
			all_modes(transports[i][0], cap, NULL, NULL);
		run_free(&r);
	}
	{
		struct run r = {};

		if (ASSERT_EQ(run_sync(&r,
				       (char *[]){ rc, "record", "-q", "-F", rate(), "-g", "-e",
						   "syscalls", "-o", (char *)prof, "--",
						   (char *)bin("rc_prof"), "burn", "1000",
						   (char *)tmpfile_path("truth"), NULL },
				       120000),
			      0, "record -g")) {
			all_modes("stacks", prof, NULL, NULL);
			all_modes("stacks, one event", prof, "--event=sample", NULL);
		}
		run_free(&r);
	}
	/* a pipe: -i - */
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct run one = {}, two = {};
		bool started[2];

		/* side by side, as same_as_one()'s */
		snprintf(cmd, sizeof(cmd), "'%s' report -j 1 %s %s -i - < '%s'", rc, modes[i][0],
			 modes[i][1] ? modes[i][1] : "", tmpfile_path("ringbuf"));
		started[0] = ASSERT_OK(run_start(&one, (char *[]){ "/bin/sh", "-c", cmd, NULL }),
				       "start -j 1");
		snprintf(cmd, sizeof(cmd), "cat '%s' | '%s' report -j 2 %s %s -i -",
			 tmpfile_path("ringbuf"), rc, modes[i][0], modes[i][1] ? modes[i][1] : "");
		started[1] = ASSERT_OK(run_start(&two, (char *[]){ "/bin/sh", "-c", cmd, NULL }),
				       "start -j 2");
		if (started[0])
			run_wait(&one, 120000);
		if (started[1])
			run_wait(&two, 120000);
		snprintf(name, sizeof(name), "pipe %s %s", modes[i][0],
			 modes[i][1] ? modes[i][1] : "");
		ASSERT_TRUE(one.out && two.out && !strcmp(one.out, two.out), name);
		ASSERT_STREQ(two.err, one.err, name);
		ASSERT_EQ(two.status, one.status, name);
		run_free(&one);
		run_free(&two);
	}
	/* several files: merged in time on one thread, the same at any -j */
	{
		const char *args[] = { "--format", "json", tmpfile_path("ringbuf"),
				       tmpfile_path("perfbuf") };

		same_as_one("two files", NULL, args, 4);
	}
}

void test_jobs(void)
{
	if (test__start_subtest("written"))
		written();
	if (test__start_subtest("recorded") && need_root())
		recorded();
	tmpdir_cleanup();
}
