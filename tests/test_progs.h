/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small test harness after tools/testing/selftests/bpf/test_progs.h:
 * ASSERT_* return bool so that a failed step can jump to cleanup, and a
 * test may split into subtests. The run ends with "N passed, N failed".
 */
#ifndef RINGCAP_TEST_PROGS_H
#define RINGCAP_TEST_PROGS_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void test__fail(const char *file, int line, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Start a subtest; false when it is filtered out. */
bool test__start_subtest(const char *name);
/* Skip the current test or subtest, saying why. */
void test__skip(const char *why);
/*
 * A branch of the current test not taken here, reported as its subtest
 * @name skipped for @why; the current test or subtest goes on.
 */
void test__skip_subtest(const char *name, const char *why);
/* Directory with ringcap and rc_workload (the build directory). */
const char *test__bindir(void);

/* every test, declared */
#define TEST(name) void test_##name(void);
#include "tests.def"
#undef TEST

#define ASSERT_TRUE(cond, name)                                                                    \
	({                                                                                         \
		bool ___ok = (cond);                                                               \
		if (!___ok)                                                                        \
			test__fail(__FILE__, __LINE__, name, "unexpected false: %s", #cond);       \
		___ok;                                                                             \
	})

#define ASSERT_OK(res, name)                                                                       \
	({                                                                                         \
		long long ___res = (res);                                                          \
		bool ___ok = ___res == 0;                                                          \
		if (!___ok)                                                                        \
			test__fail(__FILE__, __LINE__, name, "unexpected error: %lld", ___res);    \
		___ok;                                                                             \
	})

#define ASSERT_EQ(actual, expected, name)                                                          \
	({                                                                                         \
		long long ___a = (actual), ___e = (expected);                                      \
		bool ___ok = ___a == ___e;                                                         \
		if (!___ok)                                                                        \
			test__fail(__FILE__, __LINE__, name, "%s = %lld, expected %lld", #actual,  \
				   ___a, ___e);                                                    \
		___ok;                                                                             \
	})

#define ASSERT_LT(actual, bound, name)                                                             \
	({                                                                                         \
		long long ___a = (actual), ___b = (bound);                                         \
		bool ___ok = ___a < ___b;                                                          \
		if (!___ok)                                                                        \
			test__fail(__FILE__, __LINE__, name, "%s = %lld, expected < %lld",         \
				   #actual, ___a, ___b);                                           \
		___ok;                                                                             \
	})

#define ASSERT_STREQ(actual, expected, name)                                                       \
	({                                                                                         \
		const char *___a = (actual), *___e = (expected);                                   \
		bool ___ok = ___a && ___e && !strcmp(___a, ___e);                                  \
		if (!___ok)                                                                        \
			test__fail(__FILE__, __LINE__, name, "%s = '%s', expected '%s'", #actual,  \
				   ___a ? ___a : "(null)", ___e ? ___e : "(null)");                \
		___ok;                                                                             \
	})

#define ASSERT_HAS(haystack, needle, name)                                                         \
	({                                                                                         \
		const char *___h = (haystack), *___n = (needle);                                   \
		bool ___ok = ___h && strstr(___h, ___n);                                           \
		if (!___ok)                                                                        \
			test__fail(__FILE__, __LINE__, name, "'%s' not in '%s'", ___n,             \
				   ___h ? ___h : "(null)");                                        \
		___ok;                                                                             \
	})

#define ASSERT_OK_PTR(ptr, name)                                                                   \
	({                                                                                         \
		const void *___p = (ptr);                                                          \
		bool ___ok = ___p != NULL;                                                         \
		if (!___ok)                                                                        \
			test__fail(__FILE__, __LINE__, name, "unexpected NULL: %s",                \
				   strerror(errno));                                               \
		___ok;                                                                             \
	})

#endif
