// SPDX-License-Identifier: GPL-2.0-only
/*
 * record --on-switch=CMD (issue 37 item 5): each finished file given to
 * CMD once, in order, the last at the end; failures retried, a hung CMD
 * killed, the queue's overflow and the caps' deletions of waiting files
 * said, and the capture unaffected. CMD is a shell script of the test's,
 * which logs the path it gets.
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "events.h"
#include "capture_util.h"
#include "run_util.h"
#include "test_progs.h"

#define ASSERT_GE(a, b, name) ASSERT_TRUE((a) >= (b), name)
#define ASSERT_LE(a, b, name) ASSERT_TRUE((a) <= (b), name)

struct ship_env {
	char prefix[PATH_MAX], log[PATH_MAX], script[PATH_MAX], cmd[3 * PATH_MAX];
};

/* The script @body (sh: $1 the log, $2 the file), and --on-switch's CMD running it. */
static bool ship_setup(struct ship_env *e, const char *body)
{
	snprintf(e->prefix, sizeof(e->prefix), "%s", tmpfile_path("run.rcap"));
	snprintf(e->log, sizeof(e->log), "%s", tmpfile_path("shipped.log"));
	snprintf(e->script, sizeof(e->script), "%s", tmpfile_path("ship.sh"));
	snprintf(e->cmd, sizeof(e->cmd), "--on-switch=/bin/sh %s %s", e->script, e->log);
	return ASSERT_TRUE(save_text(e->script, body), "script");
}

/* The lines of @path (free them with globfree-like free_lines()); -1 if unreadable. */
static long read_lines(const char *path, char ***out)
{
	char buf[PATH_MAX + 64], **v = NULL;
	long n = 0;
	FILE *f = fopen(path, "r");

	*out = NULL;
	if (!f)
		return errno == ENOENT ? 0 : -1;
	while (fgets(buf, sizeof(buf), f)) {
		char **nv = realloc(v, (n + 1) * sizeof(*v));

		if (!nv)
			break;
		v = nv;
		buf[strcspn(buf, "\n")] = '\0';
		v[n++] = strdup(buf);
	}
	fclose(f);
	*out = v;
	return n;
}

static void free_lines(char **v, long n)
{
	while (n-- > 0)
		free(v[n]);
	free(v);
}

/* The seq of a rotated file's name (its last 6 digits), or 0. */
static unsigned int name_seq(const char *name, size_t len)
{
	unsigned int seq = 0;
	size_t i;

	if (len < 7 || name[len - 7] != '.')
		return 0;
	for (i = len - 6; i < len; i++)
		seq = seq * 10 + (name[i] - '0');
	return seq;
}

/* The run's files in name order (in time). */
static size_t run_files(const char *prefix, glob_t *g)
{
	char pat[PATH_MAX + 8];

	snprintf(pat, sizeof(pat), "%s.*", prefix);
	return glob(pat, 0, NULL, g) ? 0 : g->gl_pathc;
}

/* getppid records in @path; *@complete: read to its end block. */
static long count_getppid(const char *path, bool *complete)
{
	const struct rc_rec_hdr *rec;
	struct rc_reader *r = rc_reader__open(path);
	long n = 0;
	int err;

	*complete = false;
	if (!r)
		return -1;
	while ((err = rc_reader__next(r, &rec)) > 0)
		if (rec->type == RC_EV_SYSCALL &&
		    ((const struct rc_ev_syscall *)rec)->nr == __NR_getppid)
			n++;
	*complete = !err && !rc_reader__truncated(r) && !rc_reader__corrupt(r, NULL) &&
		    rc_reader__trailer(r);
	rc_reader__free(r);
	return n;
}

/* "N events captured, D dropped" of record's summary: D, or -1. */
static long summary_dropped(const char *err)
{
	const char *p = strstr(err, " events captured, ");
	long d;

	return p && sscanf(p, " events captured, %ld dropped", &d) == 1 ? d : -1;
}

/* Size rotation: every finished file shipped exactly once, in order, the last at the end. */
void test_ship_order(void)
{
	struct ship_env e;
	struct run r = {};
	glob_t g = {};
	char **lines = NULL;
	long n = 0, i;

	if (!need_root() || !ship_setup(&e, "printf '%s\\n' \"$2\" >> \"$1\"\n"))
		goto out;
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-e", "syscalls",
					    "--switch-output=64K", "-o", e.prefix, e.cmd, "--",
					    (char *)bin("rc_workload"), "getppid", "500000", NULL },
				60000),
		       0, "record")) {
		fprintf(stderr, "%s", r.err);
		goto out;
	}
	ASSERT_GE(run_files(e.prefix, &g), 3, "files made");
	n = read_lines(e.log, &lines);
	if (!ASSERT_EQ(n, (long)g.gl_pathc, "each file shipped once")) {
		fprintf(stderr, "%s", r.err);
		goto out;
	}
	for (i = 0; i < n; i++)
		ASSERT_STREQ(lines[i], g.gl_pathv[i], "in order");
	ASSERT_EQ(count_lines_with(r.err, "--on-switch"), 0, "nothing to say");
out:
	free_lines(lines, n);
	globfree(&g);
	run_free(&r);
	tmpdir_cleanup();
}

/* A CMD that fails twice: each failure said, the same file again, shipped the third time. */
void test_ship_retry(void)
{
	struct ship_env e;
	struct run r = {};
	char **lines = NULL;
	long n = 0, i;

	if (!need_root() || !ship_setup(&e, "n=$(( $(cat \"$1.n\" 2>/dev/null || echo 0) + 1 ))\n"
					    "echo $n > \"$1.n\"\n"
					    "printf '%s\\n' \"$2\" >> \"$1\"\n"
					    "[ $n -ge 3 ] || exit 5\n"))
		goto out;
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-e", "syscalls",
					    "-o", e.prefix, e.cmd, "--", (char *)bin("rc_workload"),
					    "getppid", "1000", NULL },
				60000),
		       0, "record")) {
		fprintf(stderr, "%s", r.err);
		goto out;
	}
	ASSERT_EQ(count_lines_with(r.err, "exited with status 5: trying again in"), 2,
		  "two failures said");
	ASSERT_EQ(count_lines_with(r.err, "retry 1 of 3"), 1, "first retry");
	ASSERT_EQ(count_lines_with(r.err, "retry 2 of 3"), 1, "second retry");
	ASSERT_EQ(count_lines_with(r.err, "not shipped"), 0, "shipped in the end");
	n = read_lines(e.log, &lines);
	if (ASSERT_EQ(n, 3, "three attempts"))
		for (i = 0; i < n; i++)
			ASSERT_STREQ(lines[i], e.prefix, "the same file each time");
out:
	free_lines(lines, n);
	run_free(&r);
	tmpdir_cleanup();
}

/* A CMD that hangs: killed at its timeout, said; the capture's counts exact all the same. */
void test_ship_timeout(void)
{
	struct ship_env e;
	struct run r = {};
	glob_t g = {};
	long total = 0, dropped;
	size_t i;

	if (!need_root() || !ship_setup(&e, "printf '%s\\n' \"$2\" >> \"$1\"\nexec sleep 100\n"))
		goto out;
	if (!ASSERT_EQ(
		run_sync(&r,
			 (char *[]){ (char *)bin("ringcap"), "record", "-e", "syscalls",
				     "--switch-output=64K", "-o", e.prefix, e.cmd,
				     "--on-switch-timeout=1", "--", (char *)bin("rc_workload"),
				     "steady", "100000", "3", NULL },
			 60000),
		0, "record")) {
		fprintf(stderr, "%s", r.err);
		goto out;
	}
	ASSERT_GE(count_lines_with(r.err, "ran past --on-switch-timeout=1 and was killed: "
					  "trying again in 1 s (retry 1 of 3)"),
		  1, "the timeout said");
	ASSERT_GE(run_files(e.prefix, &g), 3, "files made");
	for (i = 0; i < g.gl_pathc; i++) {
		bool complete;
		long c = count_getppid(g.gl_pathv[i], &complete);

		ASSERT_TRUE(complete, g.gl_pathv[i]);
		total += c;
	}
	dropped = summary_dropped(r.err);
	ASSERT_GE(dropped, 0, "summary");
	ASSERT_EQ(total + dropped, 300000, "every call in the files or dropped");
	/* none shipped: each named at the end */
	ASSERT_EQ(count_lines_with(r.err, "is not shipped: the wait at the end"), (long)g.gl_pathc,
		  "each file not shipped named");
out:
	globfree(&g);
	run_free(&r);
	tmpdir_cleanup();
}

/*
 * A CMD slower than the switches (150 SIGUSR2, 10 ms apart): 64 files wait,
 * each one more is named as not shipped.
 */
void test_ship_overflow(void)
{
	struct ship_env e;
	struct run r = {};
	char line[PATH_MAX + 64];
	glob_t g = {};
	size_t n;
	int i;

	if (!need_root() || !ship_setup(&e, "exec sleep 100\n"))
		goto out;
	if (!ASSERT_OK(
		run_start(&r, (char *[]){ (char *)bin("ringcap"), "record", "-e", "syscalls",
					  "--switch-output=signal", "-o", e.prefix, e.cmd,
					  "--on-switch-timeout=1", "--", (char *)bin("rc_workload"),
					  "steady", "10000", "2", NULL }),
		"start"))
		goto out;
	/*
	 * The handlers are in place once the run's first file is there: a
	 * SIGUSR2 before them would end ringcap (a fixed 300 ms head start
	 * was a guess at a loaded machine's start-up).
	 */
	for (i = 0; i < 1000 && !run_files(e.prefix, &g); i++) {
		globfree(&g);
		usleep(10000);
	}
	globfree(&g);
	for (i = 0; i < 150; i++) {
		kill(r.pid, SIGUSR2);
		usleep(10000);
	}
	if (!ASSERT_EQ(run_wait(&r, 60000), 0, "record")) {
		fprintf(stderr, "%s", r.err);
		goto out;
	}
	n = run_files(e.prefix, &g);
	printf("    %zu files made of %d signals\n", n, i);
	/* 65 at least for one past the queue; signals that coalesce make fewer */
	if (!ASSERT_GE(n, 70, "files made"))
		goto out;
	ASSERT_EQ(count_lines_with(r.err, "64 files wait to be shipped already: '"), (long)n - 64,
		  "each file past the queue named");
	ASSERT_EQ(count_lines_with(r.err, "is not shipped: the wait at the end"), 64,
		  "each file of the queue named at the end");
	/* the newest overflowed: the last file is among them */
	snprintf(line, sizeof(line), "already: '%s' is not shipped", g.gl_pathv[n - 1]);
	ASSERT_EQ(count_lines_with(r.err, line), 1, "the last named");
out:
	globfree(&g);
	run_free(&r);
	tmpdir_cleanup();
}

/*
 * --switch-max-files=2 with a CMD slower than the switches (0.5 s): each file is
 * shipped, or named as deleted before it was, exactly once.
 */
void test_ship_max_files(void)
{
	struct ship_env e;
	struct run r = {};
	char **lines = NULL, buf[PATH_MAX + 256];
	unsigned int made = 0, seen[4096] = {}, seq, i;
	const char *p, *pos;
	long n = 0, j, gone = 0;

	if (!need_root() || !ship_setup(&e, "printf '%s\\n' \"$2\" >> \"$1\"\nexec sleep 0.5\n"))
		goto out;
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-e", "syscalls",
					    "--switch-output=64K", "--switch-max-files=2", "-o",
					    e.prefix, e.cmd, "--", (char *)bin("rc_workload"),
					    "getppid", "600000", NULL },
				60000),
		       0, "record")) {
		fprintf(stderr, "%s", r.err);
		goto out;
	}
	p = strstr(r.err, " files of this run");
	while (p && p > r.err && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (!ASSERT_OK_PTR(p, "summary") || !ASSERT_EQ(sscanf(p, "%u", &made), 1, "count") ||
	    !ASSERT_GE(made, 5, "files made") || !ASSERT_LE(made, 4000, "files made"))
		goto out;
	n = read_lines(e.log, &lines);
	for (j = 0; j < n; j++) {
		seq = name_seq(lines[j], strlen(lines[j]));
		if (ASSERT_TRUE(seq >= 1 && seq <= made, "a file of the run"))
			seen[seq]++;
	}
	pos = r.err;
	while (next_line(&pos, buf, sizeof(buf))) {
		const char *q = strstr(buf, "--switch-max-files deleted '"), *end;

		if (!q || !strstr(buf, "' before it was shipped: it is not shipped"))
			continue;
		q += strlen("--switch-max-files deleted '");
		end = strchr(q, '\'');
		seq = end ? name_seq(q, end - q) : 0;
		if (ASSERT_TRUE(seq >= 1 && seq <= made, "a file of the run"))
			seen[seq]++;
		gone++;
	}
	printf("    %u files made, %ld deleted before they were shipped\n", made, gone);
	ASSERT_GE(gone, 1, "a waiting file deleted, and said");
	for (i = 1; i <= made; i++)
		if (!ASSERT_EQ(seen[i], 1, "each file shipped or said deleted, once")) {
			fprintf(stderr, "file %u\n%s", i, r.err);
			break;
		}
out:
	free_lines(lines, n);
	run_free(&r);
	tmpdir_cleanup();
}

/* examples/ringcap-ship with RINGCAP_SHIP_DIR: a copy of each file of the run, the same bytes. */
void test_ship_example(void)
{
	char script[PATH_MAX], prefix[PATH_MAX], dir[PATH_MAX], cmd[PATH_MAX + 16];
	char copy[2 * PATH_MAX], diff[5 * PATH_MAX];
	const char *src = getenv("RINGCAP_SRCDIR");
	struct run r = {};
	glob_t g = {}, c = {};
	size_t i;

	if (!need_root())
		return;
	snprintf(script, sizeof(script), "%s/examples/ringcap-ship", src ? src : "..");
	snprintf(prefix, sizeof(prefix), "%s", tmpfile_path("run.rcap"));
	snprintf(dir, sizeof(dir), "%s", tmpfile_path("collector"));
	snprintf(cmd, sizeof(cmd), "--on-switch=%s", script);
	if (!ASSERT_OK(mkdir(dir, 0700), "mkdir"))
		goto out;
	setenv("RINGCAP_SHIP_DIR", dir, 1);
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-e", "syscalls",
					    "--switch-output=64K", "-o", prefix, cmd, "--",
					    (char *)bin("rc_workload"), "getppid", "300000", NULL },
				60000),
		       0, "record"))
		fprintf(stderr, "%s", r.err);
	unsetenv("RINGCAP_SHIP_DIR");
	ASSERT_GE(run_files(prefix, &g), 3, "files made");
	snprintf(copy, sizeof(copy), "%s/*", dir);
	if (!ASSERT_OK(glob(copy, 0, NULL, &c), "copies") ||
	    !ASSERT_EQ(c.gl_pathc, g.gl_pathc, "a copy each, nothing else"))
		goto out;
	for (i = 0; i < g.gl_pathc; i++) {
		snprintf(diff, sizeof(diff), "cmp -s '%s' '%s/%s'", g.gl_pathv[i], dir,
			 strrchr(g.gl_pathv[i], '/') + 1);
		ASSERT_EQ(system(diff), 0, "the same bytes");
	}
out:
	globfree(&c);
	globfree(&g);
	run_free(&r);
	tmpdir_cleanup();
}

/*
 * CMD's words without a shell: quotes group, the path is one more
 * argument ($0 of sh -c); a program not found and an unterminated quote
 * are refused before anything starts (exit 64, one line, no file made).
 */
void test_ship_words(void)
{
	char prefix[PATH_MAX], log[PATH_MAX], cmd[3 * PATH_MAX], **lines = NULL;
	struct run r = {};
	long n = 0;
	glob_t g = {};

	if (!need_root())
		return;
	snprintf(prefix, sizeof(prefix), "%s", tmpfile_path("a b.rcap"));
	snprintf(log, sizeof(log), "%s", tmpfile_path("log"));
	snprintf(cmd, sizeof(cmd),
		 "--on-switch=/bin/sh -c 'printf \"%%s|%%s\\n\" \"$0\" \"$1\" >> %s' \"two "
		 "words\"",
		 log);
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-q", "-e",
					    "syscalls", "-o", prefix, cmd, "--",
					    (char *)bin("rc_workload"), "getppid", "10", NULL },
				60000),
		       0, "record"))
		fprintf(stderr, "%s", r.err);
	n = read_lines(log, &lines);
	if (ASSERT_EQ(n, 1, "shipped once")) {
		char want[2 * PATH_MAX];

		snprintf(want, sizeof(want), "two words|%s", prefix);
		ASSERT_STREQ(lines[0], want, "quoted words, then the path");
	}
	run_free(&r);
	memset(&r, 0, sizeof(r));
	ASSERT_EQ(run_sync(&r,
			   (char *[]){ (char *)bin("ringcap"), "record", "-o", prefix,
				       "--on-switch=no-such-ringcap-shipper x", "--",
				       (char *)bin("rc_workload"), "getppid", "10", NULL },
			   60000),
		  64, "a program not found");
	ASSERT_HAS(r.err, "'no-such-ringcap-shipper' is not a program found in $PATH", "named");
	run_free(&r);
	memset(&r, 0, sizeof(r));
	ASSERT_EQ(run_sync(&r,
			   (char *[]){ (char *)bin("ringcap"), "record", "-o", prefix,
				       "--on-switch=/bin/echo 'open", "--",
				       (char *)bin("rc_workload"), "getppid", "10", NULL },
			   60000),
		  64, "an unterminated quote");
	ASSERT_HAS(r.err, "invalid --on-switch", "said");
	ASSERT_EQ(run_files(prefix, &g), 0, "no file of a run left");
	free_lines(lines, n);
	globfree(&g);
	run_free(&r);
	tmpdir_cleanup();
}
