// SPDX-License-Identifier: GPL-2.0-only
/*
 * ringcap stat: live counters equal a recorded file's for the same
 * workload; the JSON parses and carries every counter; --fail-on-drops;
 * and back-pressure: a slow reader of the capture makes the kernel drop,
 * counted, while user space drops nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "capture_util.h"
#include "run_util.h"
#include "test_progs.h"

/* A number after "key": in our compact JSON, within @obj (e.g. "\"total\":{"). */
static long long json_num(const char *json, const char *obj, const char *key)
{
	const char *p = obj ? strstr(json, obj) : json;
	char pat[64];
	long long v;

	if (!p)
		return -1;
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(p, pat);
	if (!p || sscanf(p + strlen(pat), "%lld", &v) != 1)
		return -1;
	return v;
}

/* python3's json module accepts @text, and it has every key. */
static bool json_valid(const char *path)
{
	static const char *const script =
	    "import json,sys\n"
	    "d=json.load(open(sys.argv[1]))\n"
	    "keys=['source','complete','duration_s','lost','has_counters','ring','user_dropped',"
	    "'writer_wait_ns','worst_second','total','by_event','by_cpu']\n"
	    "missing=[k for k in keys if k not in d]\n"
	    "row=['made','captured','dropped','filtered','missed']\n"
	    "missing+=[k for r in [d['total']]+d['by_event']+d['by_cpu'] for k in row if k not in "
	    "r]\n"
	    "sys.exit(1 if missing else 0)\n";
	struct run r = {};
	int rc = run_sync(
	    &r, (char *[]){ "/usr/bin/python3", "-c", (char *)script, (char *)path, NULL }, 30000);

	if (rc)
		test__fail(__FILE__, __LINE__, "json", "python3 rejects it: %s", r.err);
	run_free(&r);
	return rc == 0;
}

static bool write_text(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	bool ok = f && fputs(s, f) >= 0;

	return f && !fclose(f) && ok;
}

#define N_STAT "30000"

void test_stat_live_matches_file(void)
{
	const char *out = tmpfile_path("s.rcap"), *js = tmpfile_path("s.json");
	char *rc = (char *)bin("ringcap"), *wl = (char *)bin("rc_workload");
	struct run live = {}, rec = {}, fst = {};
	long long made;

	if (!need_root())
		return;
	if (!ASSERT_EQ(run_sync(&live,
				(char *[]){ rc, "stat", "--json", "-e", "syscalls", "--", wl,
					    "getppid", N_STAT, NULL },
				60000),
		       0, "live stat") ||
	    !ASSERT_TRUE(write_text(js, live.out), "save json") || !json_valid(js))
		goto out;
	made = json_num(live.out, "\"total\":{", "made");
	ASSERT_TRUE(made > 30000, "events made");
	ASSERT_EQ(json_num(live.out, "\"total\":{", "captured"), made, "live: captured = made");
	ASSERT_EQ(json_num(live.out, NULL, "lost"), 0, "live: nothing lost");

	if (!ASSERT_EQ(run_sync(&rec,
				(char *[]){ rc, "record", "-q", "-e", "syscalls", "-o", (char *)out,
					    "--", wl, "getppid", N_STAT, NULL },
				60000),
		       0, "record") ||
	    !ASSERT_EQ(run_sync(&fst, (char *[]){ rc, "stat", "--json", (char *)out, NULL }, 60000),
		       0, "file stat") ||
	    !ASSERT_TRUE(write_text(js, fst.out), "save json") || !json_valid(js))
		goto out;
	ASSERT_EQ(json_num(fst.out, "\"total\":{", "made"), made, "same events made");
	ASSERT_EQ(json_num(fst.out, "\"total\":{", "in_file"), made, "all in the file");
	ASSERT_EQ(json_num(fst.out, NULL, "events"), made, "events");
	ASSERT_EQ(json_num(fst.out, NULL, "lost"), 0, "nothing lost");
	ASSERT_TRUE(json_num(fst.out, NULL, "file_bytes") > 0, "file bytes");
	ASSERT_TRUE(strstr(fst.out, "\"complete\":true") != NULL, "complete");
out:
	run_free(&live);
	run_free(&rec);
	run_free(&fst);
	tmpdir_cleanup();
}

void test_stat_fail_on_drops(void)
{
	char *rc = (char *)bin("ringcap"), *wl = (char *)bin("rc_workload");
	struct run r = {};

	if (!need_root())
		return;
	/* a one-page ring overflows: lost events, exit status 3 */
	if (ASSERT_EQ(
		run_sync(&r,
			 (char *[]){ rc, "stat", "--json", "--fail-on-drops", "-e", "syscalls",
				     "--ringbuf-size", "4K", "--", wl, "getppid", "200000", NULL },
			 60000),
		3, "exit status")) {
		long long made = json_num(r.out, "\"total\":{", "made");
		long long dropped = json_num(r.out, "\"total\":{", "dropped");

		ASSERT_TRUE(dropped > 0, "dropped");
		ASSERT_EQ(json_num(r.out, "\"total\":{", "captured") + dropped, made,
			  "made = captured + dropped");
		ASSERT_EQ(json_num(r.out, NULL, "lost"), dropped, "lost = dropped");
		ASSERT_TRUE(json_num(r.out, "\"worst_second\":{", "dropped") > 0, "worst second");
		ASSERT_HAS(r.err, "events lost, more than the 0 allowed", "message");
	}
	run_free(&r);
	/* more allowed than can be lost: success */
	ASSERT_EQ(
	    run_sync(&r,
		     (char *[]){ rc, "stat", "--fail-on-drops=1000000000", "-e", "syscalls",
				 "--ringbuf-size", "4K", "--", wl, "getppid", "200000", NULL },
		     60000),
	    0, "threshold not reached");
	run_free(&r);
}

/* Whether process @pid has exited: gone, or a zombie its parent has not reaped yet. */
static bool exited(pid_t pid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* "pid (comm) S ...": comm may hold anything */
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

/*
 * Back-pressure: ringcap writes the capture into a pipe read slowly. The
 * writer falls behind, the drain waits for it, the ring fills, and the
 * kernel drops, counted; user space drops nothing, and every event made
 * is in the file or counted as dropped. Slowly while the workload runs,
 * when events are made: after, at full speed, as nothing is made any more
 * to drop (read slowly to the end, the megabytes queued in the writer
 * took 12 of the test's 13 s in CI).
 */
void test_stat_backpressure(void)
{
	const char *out = tmpfile_path("bp.rcap"), *js = tmpfile_path("bp.json");
	const char *pidfile = tmpfile_path("bp.pid");
	char *rc = (char *)bin("ringcap");
	int p[2], fd = -1, status;
	pid_t wl = -1;
	bool slow = true;
	struct timespec nap = { 0, 5000000 };
	struct run st = {};
	char buf[4096];
	pid_t pid;
	ssize_t n;

	if (!need_root() || !ASSERT_OK(pipe(p), "pipe"))
		return;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		close(p[0]);
		close(p[1]);
		/* uncompressed: 112 bytes a call, so that the pipe is the bottleneck */
		execl(rc, rc, "record", "-q", "-e", "syscalls", "--ringbuf-size", "64K",
		      "--no-compress", "-o", "-", "--", bin("rc_workload"), "getppid", "400000",
		      pidfile, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (!ASSERT_TRUE(fd >= 0, "open"))
		goto out;
	/* 4 KiB every 5 ms, far slower than the workload makes events, until it has exited */
	while ((n = read(p[0], buf, sizeof(buf))) > 0) {
		if (write(fd, buf, n) != n)
			break;
		if (!slow)
			continue;
		nanosleep(&nap, NULL);
		if (wl <= 0)
			wl = read_pidfile(pidfile);
		slow = wl <= 0 || !exited(wl);
	}
	close(fd);
	if (!ASSERT_EQ(waitpid(pid, &status, 0), pid, "wait") ||
	    !ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0, "record succeeded") ||
	    !ASSERT_EQ(run_sync(&st, (char *[]){ rc, "stat", "--json", (char *)out, NULL }, 60000),
		       0, "stat") ||
	    !ASSERT_TRUE(write_text(js, st.out), "save json") || !json_valid(js))
		goto out;
	ASSERT_TRUE(json_num(st.out, NULL, "writer_wait_ns") > 0,
		    "the drain waited for the writer");
	ASSERT_TRUE(json_num(st.out, "\"total\":{", "dropped") > 0, "the kernel dropped");
	ASSERT_EQ(json_num(st.out, NULL, "user_dropped"), 0, "user space dropped nothing");
	ASSERT_EQ(json_num(st.out, "\"total\":{", "in_file") +
		      json_num(st.out, "\"total\":{", "dropped"),
		  json_num(st.out, "\"total\":{", "made"), "made = in file + dropped");
out:
	close(p[0]);
	run_free(&st);
	tmpdir_cleanup();
}

/* record --progress: a status line a second even when stderr is not a terminal. */
void test_stat_progress(void)
{
	struct run r = {};

	if (!need_root())
		return;
	if (ASSERT_EQ(
		run_sync(&r,
			 (char *[]){ (char *)bin("ringcap"), "record", "--progress", "-e", "sched",
				     "-d", "2.5", "-o", (char *)tmpfile_path("p.rcap"), NULL },
			 30000),
		0, "record")) {
		ASSERT_HAS(r.err, "events", "status line");
		ASSERT_HAS(r.err, "dropped  ring", "status line");
		ASSERT_HAS(r.err, "x compressed", "summary");
	}
	run_free(&r);
	tmpdir_cleanup();
}

/* The one string stat's JSON takes from the user, the file name: UTF-8 kept, other bytes escaped.
 */
void test_stat_json_names(void)
{
	static const char *const names[] = { "caf\xc3\xa9.rcap", "bad\xff\x01.rcap" };
	static const char *const want[] = { "/caf\xc3\xa9.rcap\"", "/bad\\u00ff\\u0001.rcap\"" };
	struct mem_capture mc = {};
	struct run r = {};
	size_t i;

	if (!ASSERT_OK(make_capture(&mc, 10, 4096), "capture"))
		return;
	for (i = 0; i < 2; i++) {
		const char *path = tmpfile_path(names[i]), *js = tmpfile_path("n.json");
		FILE *f = fopen(path, "w");

		if (!ASSERT_OK_PTR(f, "create") ||
		    !ASSERT_EQ(fwrite(mc.buf, 1, mc.len, f), mc.len, "write") ||
		    !ASSERT_OK(fclose(f), "close"))
			break;
		if (ASSERT_EQ(run_sync(&r,
				       (char *[]){ (char *)bin("ringcap"), "stat", "--json",
						   (char *)path, NULL },
				       30000),
			      0, "stat") &&
		    ASSERT_TRUE(write_text(js, r.out), "save") && json_valid(js))
			ASSERT_HAS(r.out, want[i], "source");
		run_free(&r);
	}
	free(mc.buf);
	tmpdir_cleanup();
}

/*
 * Times in stat's and report's JSON print exactly, never as %g's
 * 1.7e+09: a wall time to the nanosecond (the test captures start at
 * 1000 ns on a clock 1.7e18 ns behind the wall), seconds from the start
 * with 9 decimals, ratios without an exponent.
 */
void test_stat_json_times(void)
{
	const char *a = tmpfile_path("a.rcap"), *b = tmpfile_path("b.rcap");
	struct mem_capture mc = {};
	struct run r = {};
	size_t i;

	if (!ASSERT_OK(make_capture(&mc, 10, 4096), "capture"))
		return;
	for (i = 0; i < 2; i++) {
		FILE *f = fopen(i ? b : a, "w");

		if (!ASSERT_OK_PTR(f, "create") ||
		    !ASSERT_EQ(fwrite(mc.buf, 1, mc.len, f), mc.len, "write") ||
		    !ASSERT_OK(fclose(f), "close"))
			goto out;
	}
	if (ASSERT_EQ(run_sync(&r,
			       (char *[]){ (char *)bin("ringcap"), "stat", "--json", (char *)a,
					   (char *)b, NULL },
			       30000),
		      0, "stat")) {
		ASSERT_HAS(r.out, "\"start_wall_s\":1700000000.000001000,", "start, to the ns");
		ASSERT_HAS(r.out, "\"end_wall_s\":1700000000.000001090,", "end, to the ns");
		ASSERT_HAS(r.out, "\"duration_s\":0.000000090,", "duration, 9 decimals");
		ASSERT_TRUE(r.out && !strstr(r.out, "e+") && !strstr(r.out, "e-"), "no exponent");
	}
	run_free(&r);
	if (ASSERT_EQ(run_sync(&r,
			       (char *[]){ (char *)bin("ringcap"), "report", "--format", "json",
					   (char *)a, NULL },
			       30000),
		      0, "report --format json"))
		ASSERT_HAS(r.out, "{\"time\":0.000000090,\"ts\":1090,", "the last event's time");
out:
	run_free(&r);
	free(mc.buf);
	tmpdir_cleanup();
}
