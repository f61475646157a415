// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test runner: runs every test of tests/tests.def (or those named with
 * -t, a comma-separated list of substrings), prints one line per test and subtest, and ends with
 * the line "N passed, N failed, N skipped" that CI reads.
 *
 * Skips are bounded: with RINGCAP_EXPECTED_SKIPS=FILE (or -s FILE), a
 * test or subtest that skips without a line of FILE naming it fails, and
 * a line of FILE whose units ran and did not skip is said (tests/skips/).
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "ringcap.h"
#include "run_util.h"
#include "test_progs.h"

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
#define TEST(name) { #name, test_##name },
#include "tests.def"
#undef TEST
};

static struct {
	const char *filter;
	const char *test;
	char subtest[128];
	bool in_subtest, failed, skipped, verbose;
	int passed_cnt, failed_cnt, skipped_cnt;
	char first_why[768];	/* the unit's first failure, or why it skipped */
	char summary[16384];	/* a line per failed or skipped unit, for the end */
	size_t summary_len;
	const char *skips_file; /* the skips allowed here (RINGCAP_EXPECTED_SKIPS) */
} st;

/* A line of the expected-skips file: a unit's name (a glob), and whether it ran, and skipped. */
#define MAX_EXPECTED 256
static struct expected {
	char pattern[128];
	int line;
	bool ran, skipped;
} expected[MAX_EXPECTED];
static int nexpected;

/*
 * Read @path: a unit's name or glob (TEST or TEST/SUBTEST) at the start of
 * each line, then why it may skip here; '#' starts a comment. -errno, or
 * -EINVAL for a file of more than MAX_EXPECTED lines or a name too long.
 */
static int load_expected(const char *path)
{
	char buf[1024];
	int lineno = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(buf, sizeof(buf), f)) {
		size_t n;

		lineno++;
		n = strcspn(buf, " \t\n#");
		if (!n)
			continue;
		if (n >= sizeof(expected[0].pattern) || nexpected == MAX_EXPECTED) {
			fprintf(stderr, "%s:%d: a name too long, or too many lines\n", path,
				lineno);
			fclose(f);
			return -EINVAL;
		}
		memcpy(expected[nexpected].pattern, buf, n);
		expected[nexpected].pattern[n] = '\0';
		expected[nexpected++].line = lineno;
	}
	fclose(f);
	return 0;
}

/*
 * Note that @unit ran (and @skipped or not) against each line matching
 * it; true when a line allows it to skip.
 */
static bool expected_skip(const char *unit, bool skipped)
{
	bool allowed = false;
	int i;

	for (i = 0; i < nexpected; i++) {
		if (fnmatch(expected[i].pattern, unit, 0))
			continue;
		expected[i].ran = true;
		expected[i].skipped |= skipped;
		allowed = true;
	}
	return allowed;
}

/*
 * Keep a line per failed or skipped unit for the end of the output: CI shows
 * only the tail of a run, and that tail must name what failed and why.
 */
static void note_unit(const char *what, const char *unit)
{
	size_t room = sizeof(st.summary) - st.summary_len;
	int n;

	if (room <= 1)
		return;
	n = snprintf(st.summary + st.summary_len, room, "%s %s: %s\n", what, unit, st.first_why);
	if (n < 0)
		return;
	st.summary_len += (size_t)n < room ? (size_t)n : room - 1;
}

static void end_unit(void)
{
	const char *res = st.failed ? "FAIL" : st.skipped ? "SKIP" : "OK";
	char unit[256];

	if (st.in_subtest)
		snprintf(unit, sizeof(unit), "%s/%s", st.test, st.subtest);
	else
		snprintf(unit, sizeof(unit), "%s", st.test);
	if (st.skips_file && !expected_skip(unit, st.skipped) && st.skipped && !st.failed) {
		char why[sizeof(st.first_why)];

		/* a skip where the test must run: a failure, and said as one */
		memcpy(why, st.first_why, sizeof(why));
		snprintf(st.first_why, sizeof(st.first_why),
			 "skipped, and %s does not allow it here: %.500s", st.skips_file, why);
		printf("    %s\n", st.first_why);
		st.failed = true;
		res = "FAIL";
	}
	printf("#%s%s:%s\n", st.in_subtest ? "   " : " ", unit, res);
	if (st.failed) {
		note_unit("FAILED", unit);
		st.failed_cnt++;
	} else if (st.skipped) {
		note_unit("SKIPPED", unit);
		st.skipped_cnt++;
	} else
		st.passed_cnt++;
	st.failed = st.skipped = false;
	st.first_why[0] = '\0';
	fflush(stdout);
}

void test__fail(const char *file, int line, const char *name, const char *fmt, ...)
{
	char why[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	printf("    %s:%d: %s: %s\n", file, line, name, why);
	if (!st.failed) {
		const char *said = run_last_failure();

		snprintf(st.first_why, sizeof(st.first_why), "%s:%d: %s: %s%s%s", file, line, name,
			 why, *said ? "\n    the last command that failed: " : "", said);
	}
	st.failed = true;
}

bool test__start_subtest(const char *name)
{
	/* what failed or skipped before the first subtest is the test's own */
	if (st.in_subtest || st.failed || st.skipped)
		end_unit();
	snprintf(st.subtest, sizeof(st.subtest), "%s", name);
	st.in_subtest = true;
	return true;
}

void test__skip(const char *why)
{
	st.skipped = true;
	printf("    skipped: %s\n", why);
	if (!st.failed)
		snprintf(st.first_why, sizeof(st.first_why), "%s", why);
}

void test__skip_subtest(const char *name, const char *why)
{
	char first_why[sizeof(st.first_why)], subtest[sizeof(st.subtest)];
	bool in_subtest = st.in_subtest, failed = st.failed, skipped = st.skipped;

	/* a unit of its own, between the current unit's lines: that unit goes on after it */
	memcpy(first_why, st.first_why, sizeof(first_why));
	memcpy(subtest, st.subtest, sizeof(subtest));
	snprintf(st.subtest, sizeof(st.subtest), "%.60s%s%.60s", in_subtest ? subtest : "",
		 in_subtest ? "/" : "", name);
	st.in_subtest = true;
	st.failed = false;
	test__skip(why);
	end_unit();
	memcpy(st.first_why, first_why, sizeof(first_why));
	memcpy(st.subtest, subtest, sizeof(subtest));
	st.in_subtest = in_subtest;
	st.failed = failed;
	st.skipped = skipped;
}

const char *test__bindir(void)
{
	const char *d = getenv("RINGCAP_BINDIR");

	return d && *d ? d : ".";
}

static int quiet_print(enum rc_print_level level, const char *fmt, va_list ap)
{
	if (!st.verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/*
 * Does test @name match the -t filter: any of its comma-separated
 * substrings, or, written =NAME, the name whole; and none written -SUBSTR?
 */
static bool wanted(const char *name)
{
	const char *f = st.filter, *end;
	bool in = false;
	char one[128];

	if (!f)
		return true;
	for (; *f; f = *end ? end + 1 : end) {
		end = strchrnul(f, ',');
		if ((size_t)(end - f) >= sizeof(one) || end == f)
			continue;
		memcpy(one, f, end - f);
		one[end - f] = '\0';
		if (one[0] == '-' && strstr(name, one + 1))
			return false;
		if (one[0] != '-' && (one[0] == '=' ? !strcmp(name, one + 1) : !!strstr(name, one)))
			in = true;
	}
	return in;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define NSLOW 8

/* Keep test @i among the NSLOW slowest, @secs its wall time. */
static void note_time(size_t slow[NSLOW], double slow_s[NSLOW], size_t i, double secs)
{
	int k = NSLOW - 1;

	if (secs <= slow_s[k])
		return;
	for (; k > 0 && secs > slow_s[k - 1]; k--) {
		slow[k] = slow[k - 1];
		slow_s[k] = slow_s[k - 1];
	}
	slow[k] = i;
	slow_s[k] = secs;
}

/* One line naming the slowest tests, for whoever keeps CI within its time. */
static void print_slowest(const size_t slow[NSLOW], const double slow_s[NSLOW], double total)
{
	int k;

	printf("wall time %.0f s; slowest:", total);
	for (k = 0; k < NSLOW && slow_s[k] > 0; k++)
		printf("%s %s %.1f s", k ? "," : "", tests[slow[k]].name, slow_s[k]);
	printf("\n");
}

/* @dir and the files in it (no deeper) removed. */
static void remove_dir(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	char cache[] = "/tmp/ringcap-test-cache.XXXXXX";
	bool own_cache;
	size_t slow[NSLOW] = { 0 };
	double slow_s[NSLOW] = { 0 }, start = now_s(), t0;
	int opt, err;
	size_t i;

	st.skips_file = getenv("RINGCAP_EXPECTED_SKIPS");
	while ((opt = getopt(argc, argv, "s:t:v")) != -1) {
		if (opt == 's')
			st.skips_file = optarg;
		else if (opt == 't')
			st.filter = optarg;
		else if (opt == 'v')
			st.verbose = true;
		else {
			fprintf(stderr, "usage: test_progs [-v] [-s SKIPS_FILE] "
					"[-t [=|-]TEST[,[=|-]TEST...]]\n");
			return 2;
		}
	}
	if (st.skips_file && !*st.skips_file)
		st.skips_file = NULL;
	err = st.skips_file ? load_expected(st.skips_file) : 0;
	if (err) {
		fprintf(stderr, "test_progs: cannot read the expected skips, %s: %s\n",
			st.skips_file, strerror(-err));
		return 2;
	}
	rc_set_print(quiet_print);
	/*
	 * The kernel BTF's cache (ringcap-record(1), FILES) of this run's
	 * own: what another build or run left never counts, and the first
	 * test to start ringcap makes it.
	 */
	own_cache = !getenv("RINGCAP_CACHE_DIR") && mkdtemp(cache);
	if (own_cache)
		setenv("RINGCAP_CACHE_DIR", cache, 1);
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (!wanted(tests[i].name))
			continue;
		st.test = tests[i].name;
		st.in_subtest = false;
		t0 = now_s();
		tests[i].fn();
		end_unit();
		note_time(slow, slow_s, i, now_s() - t0);
	}
	if (own_cache)
		remove_dir(cache);
	print_slowest(slow, slow_s, now_s() - start);
	fputs(st.summary, stdout);
	/* a summary cut at its end: the count still starts a line of its own, for CI */
	if (st.summary_len && st.summary[st.summary_len - 1] != '\n')
		printf(" (cut)\n");
	/* allowed to skip, and ran: the line is stale, or the skip is of another machine */
	for (i = 0; i < (size_t)nexpected; i++)
		if (expected[i].ran && !expected[i].skipped)
			printf("NOT SKIPPED %s: allowed to skip by %s:%d, and ran\n",
			       expected[i].pattern, st.skips_file, expected[i].line);
	printf("%d passed, %d failed, %d skipped\n", st.passed_cnt, st.failed_cnt, st.skipped_cnt);
	return st.failed_cnt ? EXIT_FAILURE : EXIT_SUCCESS;
}
