// SPDX-License-Identifier: GPL-2.0-only
/* Bad input to the command line: one clear line, a non-zero exit, no file left. */
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "capture_util.h"
#include "format/format.h"
#include "run_util.h"
#include "test_progs.h"

/*
 * @argv exits @code and says @msg on stderr: both asserted whatever the
 * other is, so a wrong code still shows the message, and a message is
 * never "" (which every output has). One such run is in flight at a time
 * (@pending): the next starts before it is waited for, so that two run
 * side by side (under make valgrind's memcheck each is a second of a
 * CPU's time, 53 of them); settle() waits for it and checks it, before
 * anything looks at what it may have left (a file), and before the next
 * subtest (subtest()), so that each check is its own subtest's.
 */
static struct {
	struct run r;
	int code;
	const char *msg;
	bool on;
} pending;

static void settle(void)
{
	int rc;

	if (!pending.on)
		return;
	pending.on = false;
	rc = run_wait(&pending.r, 30000) || !WIFEXITED(pending.r.status)
		     ? -1
		     : WEXITSTATUS(pending.r.status);
	ASSERT_EQ(rc, pending.code, "exit code");
	ASSERT_HAS(pending.r.err, pending.msg, "message");
	run_free(&pending.r);
}

static void expect_fail(char *const argv[], int code, const char *msg)
{
	struct run r = {};

	ASSERT_TRUE(msg && *msg, "a message to look for");
	if (run_start(&r, argv)) {
		settle();
		ASSERT_EQ(-1, code, "exit code");
		run_free(&r);
		return;
	}
	settle();
	pending.r = r;
	pending.code = code;
	pending.msg = msg;
	pending.on = true;
}

static bool subtest(const char *name)
{
	settle();
	return test__start_subtest(name);
}

static bool write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");
	bool ok = f && fwrite(buf, 1, len, f) == len;

	if (f)
		ok = !fclose(f) && ok;
	return ok;
}

static size_t cut_after_header(const struct mem_capture *mc)
{
	uint32_t hsz;

	memcpy(&hsz, mc->buf + 4, sizeof(hsz));
	return 8 + hsz + (mc->len - 8 - hsz) * 2 / 3;
}

void test_cli_errors(void)
{
	char *rc = (char *)bin("ringcap");
	const char *out = tmpfile_path("x.rcap");
	struct mem_capture mc = {};
	struct run r = {};

	if (subtest("version")) {
		if (ASSERT_EQ(run_sync(&r, (char *[]){ rc, "--version", NULL }, 10000), 0, "exit"))
			ASSERT_HAS(r.out, "ringcap ", "version");
		run_free(&r);
	}
	if (subtest("unknown_command"))
		expect_fail((char *[]){ rc, "recrod", NULL }, 64, "unknown command 'recrod'");
	if (subtest("unknown_event")) {
		expect_fail((char *[]){ rc, "record", "-e", "bogus", "-o", (char *)out, NULL }, 64,
			    "unknown event 'bogus': not one of ringcap's (syscalls, sched");
		settle();
		ASSERT_TRUE(access(out, F_OK) != 0, "no file");
	}
	/* -p of a process that does not exist: refused before anything starts */
	if (subtest("no_such_pid")) {
		expect_fail((char *[]){ rc, "record", "-p", "2147483646", "-o", (char *)out, NULL },
			    64, "no process 2147483646");
		settle();
		ASSERT_TRUE(access(out, F_OK) != 0, "no file");
	}
	/* the ledger's records are not events a source makes (their ids are past the mask) */
	if (subtest("ledger_event"))
		expect_fail(
		    (char *[]){ rc, "record", "-e", "ringcap:lost", "-o", (char *)out, NULL }, 64,
		    "unknown event 'ringcap:lost'");
	if (subtest("ringbuf_size"))
		expect_fail((char *[]){ rc, "record", "--ringbuf-size", "3M", NULL }, 64,
			    "a power of two");
	if (subtest("duration"))
		expect_fail((char *[]){ rc, "record", "-d", "-1", NULL }, 64,
			    "invalid duration '-1'");
	if (subtest("unknown_format"))
		expect_fail(
		    (char *[]){ rc, "report", "--format", "xml", NULL }, 64,
		    "unknown format 'xml': text, json, csv, perfetto, perfetto-json, perf-script, "
		    "folded, flamegraph or pprof");
	if (subtest("flush_ms"))
		expect_fail((char *[]){ rc, "record", "--flush-ms", "5", NULL }, 64,
			    "invalid --flush-ms '5': milliseconds from 10 to 60000");
	if (subtest("transport")) {
		expect_fail((char *[]){ rc, "record", "--transport", "ftrace", "-e", "syscalls",
					"-o", (char *)out, NULL },
			    64, "-e syscalls is ringcap's own event");
		expect_fail((char *[]){ rc, "record", "--transport", "ftrace", "-e", "sched", "-o",
					(char *)out, NULL },
			    64, "like -e 'sched:*'");
		expect_fail((char *[]){ rc, "record", "--transport", "splice", NULL }, 64,
			    "invalid transport 'splice': ringbuf, perfbuf, ftrace or auto");
	}
	if (subtest("mmap_pages")) {
		expect_fail((char *[]){ rc, "record", "-m", "0", NULL }, 64,
			    "invalid -m/--mmap-pages '0'");
		expect_fail((char *[]){ rc, "record", "-m", "2G", NULL }, 64,
			    "from one page to 1G");
		expect_fail((char *[]){ rc, "record", "--transport", "ringbuf", "-m", "8", NULL },
			    64, "with --transport ringbuf, use --ringbuf-size");
	}
	if (subtest("mmap_pages_rounded")) {
		/* said before anything else can fail: the rounding is on stderr, then -d's error */
		ASSERT_EQ(run_sync(&r, (char *[]){ rc, "record", "-m", "100", "-d", "-1", NULL },
				   10000),
			  64, "exit code: -d -1 is bad");
		ASSERT_HAS(r.err, "-m 100: 128 pages", "rounded up, and said so");
		ASSERT_HAS(r.err, "invalid duration '-1'", "then the bad argument");
		run_free(&r);
	}
	if (subtest("wakeup")) {
		expect_fail((char *[]){ rc, "record", "--wakeup", "0", NULL }, 64,
			    "invalid --wakeup '0'");
		expect_fail(
		    (char *[]){ rc, "record", "--transport", "ringbuf", "--wakeup", "10", NULL },
		    64, "--wakeup N (records) needs --transport perfbuf");
	}
	if (subtest("bad_pid")) {
		/* the token is said whole: it lives in a copy freed after the message */
		expect_fail((char *[]){ rc, "record", "-p", "1,0", NULL }, 64, "invalid pid '0'");
		expect_fail((char *[]){ rc, "report", "--pid", "1,-2", NULL }, 64,
			    "invalid pid '-2'");
		expect_fail((char *[]){ rc, "report", "--cpu", "x", NULL }, 64, "invalid cpu 'x'");
	}
	if (subtest("compression")) {
		static const char *const bad[] = { "0", "-8", "20", "", "3x" };
		size_t i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			expect_fail(
			    (char *[]){ rc, "record", "--compress-level", (char *)bad[i], NULL },
			    64, "invalid --compress-level");
		expect_fail(
		    (char *[]){ rc, "record", "--no-compress", "--compress-level", "3", NULL }, 64,
		    "--no-compress and --compress-level exclude each other");
	}
	if (subtest("wakeup_ms")) {
		expect_fail((char *[]){ rc, "record", "--wakeup-ms", "0", NULL }, 64,
			    "invalid --wakeup-ms '0'");
		expect_fail((char *[]){ rc, "stat", "--wakeup-ms", "60001", NULL }, 64,
			    "invalid --wakeup-ms '60001'");
	}
	if (subtest("overwrite")) {
		expect_fail((char *[]){ rc, "record", "--snapshot-on", "syscall:kill", NULL }, 64,
			    "--snapshot-on is for the flight recorder: add --overwrite");
		expect_fail(
		    (char *[]){ rc, "record", "--overwrite", "--transport", "ringbuf", NULL }, 64,
		    "--overwrite needs the perf buffer");
		expect_fail((char *[]){ rc, "record", "--overwrite", "--snapshot-on",
					"syscall:nosuch", "-o", (char *)out, NULL },
			    1, "unknown syscall in --snapshot-on 'syscall:nosuch'");
		expect_fail((char *[]){ rc, "record", "--overwrite", "-e", "sched", "--snapshot-on",
					"syscall:kill", "-o", (char *)out, NULL },
			    1, "is not among the events recorded");
		settle();
		ASSERT_TRUE(access(out, F_OK) != 0, "no file");
	}
	if (subtest("pid_and_command"))
		expect_fail((char *[]){ rc, "record", "-p", "1", "--", "true", NULL }, 64,
			    "exclude each other");
	if (subtest("stat_file_and_command"))
		expect_fail((char *[]){ rc, "stat", (char *)out, "--", "true", NULL }, 64,
			    "a capture file, or what to trace live: not both");
	if (subtest("missing_command") && need_root()) {
		expect_fail((char *[]){ rc, "record", "-q", "-o", (char *)out, "--",
					"/nonexistent/workload", NULL },
			    1, "failed to run '/nonexistent/workload': No such file");
		settle();
		ASSERT_TRUE(access(out, F_OK) != 0, "no file left behind");
	}
	/* the file named once, with the cause */
	if (subtest("report_missing")) {
		if (ASSERT_EQ(
			run_sync(&r, (char *[]){ rc, "report", "/nonexistent.rcap", NULL }, 30000),
			1, "exit code")) {
			ASSERT_HAS(r.err, "'/nonexistent.rcap': No such file", "message");
			ASSERT_EQ(count_lines_with(r.err, "/nonexistent.rcap"), 1, "named once");
		}
		run_free(&r);
	}
	if (subtest("report_since") &&
	    ASSERT_OK(make_capture(&mc, 5, 4096), "capture") &&
	    ASSERT_TRUE(write_file(out, mc.buf, mc.len), "write")) {
		expect_fail((char *[]){ rc, "report", "--since", "bogus", (char *)out, NULL }, 64,
			    "invalid --since 'bogus'");
		expect_fail((char *[]){ rc, "report", "--until", "bogus", (char *)out, NULL }, 64,
			    "invalid --until 'bogus'");
		/* one chunk, said as one */
		if (ASSERT_EQ(run_sync(&r, (char *[]){ rc, "stat", (char *)out, NULL }, 30000), 0,
			      "stat"))
			ASSERT_HAS(r.out, " events in 1 chunk, ", "1 chunk, not 1 chunks");
		run_free(&r);
		/* no stacks: said, a failure, and no SVG on stdout */
		if (ASSERT_EQ(run_sync(&r,
				       (char *[]){ rc, "report", "--format", "flamegraph",
						   (char *)out, NULL },
				       30000),
			      1, "flamegraph without stacks fails")) {
			ASSERT_HAS(r.err, "no stacks in this capture", "said");
			ASSERT_STREQ(r.out, "", "no SVG");
		}
		run_free(&r);
		expect_fail((char *[]){ rc, "report", "--format", "folded", (char *)out, NULL }, 1,
			    "no stacks in this capture");
		free(mc.buf);
		mc.buf = NULL;
	}
	if (subtest("help_short")) {
		static const char *const cmds[] = { "record", "report", "stat", "export" };
		size_t i;

		for (i = 0; i < 3; i++) {
			if (ASSERT_EQ(
				run_sync(&r, (char *[]){ rc, (char *)cmds[i], "-h", NULL }, 10000),
				0, "-h"))
				ASSERT_HAS(r.out, "Usage: ringcap ", "the usage, as --help");
			run_free(&r);
		}
	}
	/* a listing of nothing is not a success: said, and non-zero */
	if (subtest("list_nomatch") && need_root())
		expect_fail((char *[]){ rc, "record", "-l", "nomatch:*", NULL }, 1,
			    "no event matches 'nomatch:*'");
	if (subtest("bad_set") && need_root())
		expect_fail((char *[]){ rc, "record", "--bpf",
					(char *)bin("tests/bpf/roundtrip.bpf.o"), "--event-type",
					"rt_event", "--set", "nosuch=1", "-o", (char *)out, "--",
					"/bin/true", NULL },
			    64, "--set nosuch=1: no global nosuch in the object");
	if (subtest("unknown_tracepoint_glob") && need_root())
		expect_fail(
		    (char *[]){ rc, "record", "-e", "syscalls,nomatch:*", "-o", (char *)out, NULL },
		    64, "unknown event 'nomatch:*'");
	if (subtest("report_foreign")) {
		static const char text[] = "not a capture at all\n";

		struct run fr = {};

		/* one line: the file, the cause and the byte offset */
		if (ASSERT_TRUE(write_file(out, text, sizeof(text)), "write") &&
		    ASSERT_EQ(run_sync(&fr, (char *[]){ rc, "report", (char *)out, NULL }, 30000),
			      1, "exit code")) {
			ASSERT_HAS(fr.err, "not a ringcap capture: no ringcap magic at byte 0",
				   "the cause and where");
			ASSERT_HAS(fr.err, out, "the file named");
			ASSERT_TRUE(*fr.err && strchr(fr.err, '\n') == fr.err + strlen(fr.err) - 1,
				    "one line");
		}
		run_free(&fr);
	}
	/*
	 * A missing file: named once, with the cause, in one line (it was
	 * "failed to open" and then "failed to read"), by report and stat.
	 */
	if (subtest("missing_file")) {
		static const char *const cmds[] = { "report", "stat" };
		const char *gone = tmpfile_path("gone.rcap");
		size_t i;

		for (i = 0; i < 2; i++) {
			if (ASSERT_EQ(run_sync(&r, (char *[]){ rc, (char *)cmds[i], (char *)gone,
								NULL },
					       30000),
				      1, cmds[i])) {
				ASSERT_HAS(r.err, "No such file or directory", "the cause");
				ASSERT_TRUE(strstr(r.err, gone) &&
						!strstr(strstr(r.err, gone) + 1, gone),
					    "the file named once");
				ASSERT_TRUE(*r.err && strchr(r.err, '\n') ==
							  r.err + strlen(r.err) - 1,
					    "one line");
				ASSERT_STREQ(r.out, "", "nothing on stdout");
			}
			run_free(&r);
		}
	}
	/* cut two thirds into what follows the header: some chunks are whole */
	if (subtest("report_truncated") &&
	    ASSERT_OK(make_capture(&mc, 500, 4096), "capture") &&
	    ASSERT_TRUE(write_file(out, mc.buf, cut_after_header(&mc)), "write")) {
		expect_fail((char *[]){ rc, "report", (char *)out, NULL }, 2, "is truncated");
		/* stat says it on stdout, in the file's state, and exits 2 */
		ASSERT_EQ(run_sync(&r, (char *[]){ rc, "stat", (char *)out, NULL }, 30000), 2,
			  "stat: exit code");
		ASSERT_HAS(r.out, "TRUNCATED", "stat: the file's state");
		run_free(&r);
	}
	settle();
	free(mc.buf);
	tmpdir_cleanup();
}

/* Every long option --help lists is documented in the subcommand's man page. */
void test_cli_help_documented(void)
{
	static const char *const cmds[] = { "record", "report", "stat", "export" };
	const char *src = getenv("RINGCAP_SRCDIR");
	struct mem_capture page = {};
	char path[4096], opt[64], want[80], *opts, *end;
	struct run r = {};
	size_t i;

	if (!src) {
		test__skip("RINGCAP_SRCDIR is not set: run through 'make check'");
		return;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *p;
		int n = 0;

		if (!test__start_subtest(cmds[i]))
			continue;
		snprintf(path, sizeof(path), "%s/man/ringcap-%s.1.rst", src, cmds[i]);
		if (!ASSERT_OK(slurp(path, &page), "man page") ||
		    !ASSERT_EQ(run_sync(&r,
					(char *[]){ (char *)bin("ringcap"), (char *)cmds[i],
						    "--help", NULL },
					10000),
			       0, "--help"))
			goto next;
		page.buf[page.len - 1] = '\0';
		/* in OPTIONS, not only mentioned elsewhere */
		opts = strstr((char *)page.buf, "\nOPTIONS\n=");
		if (!ASSERT_OK_PTR(opts, "OPTIONS section"))
			goto next;
		end = strstr(opts + 10, "\n=");
		if (end) {
			while (end > opts && end[-1] != '\n')
				end--; /* the heading's title line */
			*end = '\0';
		}
		for (p = r.out; (p = strstr(p, "--")); p += 2) {
			if (sscanf(p + 2, "%63[a-z-]", opt) != 1 || !strcmp(opt, "help") ||
			    !strcmp(opt, "usage") || !strcmp(opt, "version"))
				continue;
			snprintf(want, sizeof(want), "**--%s**", opt);
			ASSERT_HAS(opts, want, "option documented in OPTIONS");
			n++;
		}
		if (strcmp(cmds[i], "stat"))
			ASSERT_TRUE(n > 0, "options found");
	next:
		run_free(&r);
		free(page.buf);
		page.buf = NULL;
	}
}

/*
 * --help lays every option out as argp does when its name and argument fit
 * before the descriptions' column (29, argp's opt-doc-col): the description
 * starts on the option's line. "--call-graph=fp|dwarf[,SIZE]" did not fit:
 * it stood alone on a line, further in, its description at column 0.
 */
void test_cli_help_layout(void)
{
	static const char *const cmds[] = { "record", "report", "stat" };
	struct run r = {};
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *line, *nl;
		int nopts = 0;

		if (!test__start_subtest(cmds[i]))
			continue;
		/* argp's layout, whatever the environment asks */
		unsetenv("ARGP_HELP_FMT");
		if (!ASSERT_EQ(run_sync(&r, (char *[]){ (char *)bin("ringcap"), (char *)cmds[i],
							"--help", NULL },
					10000),
			       0, "--help"))
			goto next;
		for (line = r.out; *line; line = *nl ? nl + 1 : nl) {
			size_t len, ind, j;
			bool doc = false;

			nl = strchrnul(line, '\n');
			len = nl - line;
			ind = strspn(line, " ");
			/* an option, not a description's line that starts with one */
			if (ind >= len || line[ind] != '-' || ind == 29)
				continue;
			nopts++;
			for (j = 29; j < len && ind < 29; j++)
				doc |= line[j - 1] == ' ' && line[j] != ' ';
			if (!ASSERT_TRUE(doc, "the option's description on its line"))
				fprintf(stderr, "    %.*s\n", (int)len, line);
		}
		ASSERT_TRUE(nopts > 0, "options found");
	next:
		run_free(&r);
	}
}

/* The last occurrence of @needle in @s, or NULL. */
static char *last_of(char *s, const char *needle)
{
	char *p, *last = NULL;

	for (p = s; (p = strstr(p, needle)); p++)
		last = p;
	return last;
}

/*
 * @argv run with stderr a pseudo-terminal, stdout into @out: what the
 * terminal got into *@tty (to free); the exit status, or -1.
 */
static int run_tty_stderr(char *const argv[], const char *out, char **tty)
{
	int master = -1, slave = -1, status = 0;
	size_t len = 0, cap = 0;
	char buf[4096];
	ssize_t n;
	pid_t pid;

	*tty = NULL;
	if (openpty(&master, &slave, NULL, NULL, NULL))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(master);
		close(slave);
		return -1;
	}
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int null = open("/dev/null", O_RDONLY);

		if (fd < 0 || null < 0 || dup2(null, 0) < 0 || dup2(fd, 1) < 0 ||
		    dup2(slave, 2) < 0)
			_exit(126);
		close(master);
		execv(argv[0], argv);
		_exit(127);
	}
	close(slave);
	/* until the last writer closes the terminal: EIO */
	while ((n = read(master, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
		if (n <= 0)
			continue;
		if (len + n + 1 > cap) {
			char *p = realloc(*tty, cap = (len + n + 1) * 2);

			if (!p)
				break;
			*tty = p;
		}
		memcpy(*tty + len, buf, n);
		len += n;
	}
	if (!*tty)
		*tty = calloc(1, 1);
	else
		(*tty)[len] = '\0';
	close(master);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * report and stat show how far they read on a terminal (stderr), when it
 * takes over a second (RINGCAP_PROGRESS_AFTER_MS=0 here, the tests'
 * knob): bytes and events so far, erased at the end; never on a pipe; and
 * stdout is the same either way. A file read in well under a second
 * shows none with the default threshold.
 */
void test_cli_progress(void)
{
	const char *erase = "\r\033[K";
	const char *cap = tmpfile_path("prog.rcap"), *out = tmpfile_path("prog.out");
	char *rc = (char *)bin("ringcap"), *tty = NULL;
	char *const cmds[][5] = {
		{ rc, "report", (char *)cap, NULL },
		{ rc, "report", "-j", "1", (char *)cap },
		{ rc, "report", "--summary", (char *)cap, NULL },
		{ rc, "stat", (char *)cap, NULL },
	};
	const char *const names[] = { "report", "report_j1", "summary", "stat" };
	struct mem_capture mc = {}, got = {};
	struct run r = {};
	size_t i;

	if (!ASSERT_OK(make_capture(&mc, 50000, 4096), "capture") ||
	    !ASSERT_TRUE(write_file(cap, mc.buf, mc.len), "write"))
		goto out;
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char *argv[6] = {};

		if (!test__start_subtest(names[i]))
			continue;
		memcpy(argv, cmds[i], sizeof(cmds[i]));
		setenv("RINGCAP_PROGRESS_AFTER_MS", "0", 1);
		/* a pipe: none */
		if (!ASSERT_EQ(run_sync(&r, argv, 60000), 0, "exit, on a pipe"))
			goto next;
		ASSERT_TRUE(!strstr(r.err, "reading") && !strchr(r.err, '\033') &&
				    !strchr(r.err, '\r'),
			    "no progress on a pipe");
		/* a terminal: shown, then erased; stdout the same */
		if (!ASSERT_EQ(run_tty_stderr(argv, out, &tty), 0, "exit, on a terminal"))
			goto next;
		ASSERT_HAS(tty, "reading: ", "progress shown");
		ASSERT_HAS(tty, " events", "events counted");
		ASSERT_HAS(tty, " of ", "the file's size");
		/* erased: then what stderr says on a pipe too (the terminal's \r\n) */
		if (ASSERT_OK_PTR(last_of(tty, erase), "erased")) {
			char *rest = last_of(tty, erase) + strlen(erase), *w = rest;
			const char *c;

			for (c = rest; *c; c++)
				if (!(c[0] == '\r' && c[1] == '\n'))
					*w++ = *c;
			*w = '\0';
			ASSERT_TRUE(!strstr(rest, "reading"), "erased at the end");
			ASSERT_STREQ(rest, r.err, "then stderr as on a pipe");
		}
		if (ASSERT_OK(slurp(out, &got), "stdout") &&
		    ASSERT_EQ(got.len, strlen(r.out), "stdout's length the same"))
			ASSERT_TRUE(!memcmp(got.buf, r.out, got.len), "stdout the same");
		free(got.buf);
		got.buf = NULL;
		free(tty);
		tty = NULL;
		/* the default second: not reached on this file */
		unsetenv("RINGCAP_PROGRESS_AFTER_MS");
		if (ASSERT_EQ(run_tty_stderr(argv, out, &tty), 0, "exit, default threshold"))
			ASSERT_TRUE(!strstr(tty, "reading"), "none under a second");
	next:
		unsetenv("RINGCAP_PROGRESS_AFTER_MS");
		free(tty);
		tty = NULL;
		run_free(&r);
	}
out:
	free(mc.buf);
	tmpdir_cleanup();
}

/* ringcap-file(5) gives the version that files are written in. */
void test_cli_file_version(void)
{
	const char *src = getenv("RINGCAP_SRCDIR");
	struct mem_capture page = {};
	char path[4096], want[64];

	if (!src) {
		test__skip("RINGCAP_SRCDIR is not set: run through 'make check'");
		return;
	}
	snprintf(path, sizeof(path), "%s/man/ringcap-file.5.rst", src);
	if (!ASSERT_OK(slurp(path, &page), "man page"))
		return;
	page.buf[page.len - 1] = '\0';
	snprintf(want, sizeof(want), "    2    major  %d\n    2    minor  %d\n", RC_VERSION_MAJOR,
		 RC_VERSION_MINOR);
	ASSERT_HAS((char *)page.buf, want, "HEADER's major and minor");
	free(page.buf);
}
