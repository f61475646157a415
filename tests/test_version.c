// SPDX-License-Identifier: GPL-2.0-only
/*
 * ringcap --version, line by line, against what this test reads itself:
 * the Makefile's VERSION (the one source), version.h's git describe, the
 * libraries' headers and run-time calls, and format.h's version. The man
 * pages show the same version, NEWS has an entry for it, and record
 * --check ends with what the build left out.
 */
#include <bpf/libbpf.h>
#include <bpf/libbpf_version.h>
#include <elfutils/libdwfl.h>
#include <elfutils/version.h>
#include <gnu/libc-version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zlib.h>
#include <zstd.h>
#ifdef HAVE_LIBIPT
#include <intel-pt.h>
#endif
#include "capture_util.h"
#include "format/format.h"
#include "run_util.h"
#ifndef RC_NO_CURL
#include <curl/curl.h>
#include <dlfcn.h>
#endif
#include "test_progs.h"
#include "version.h"

/* The Makefile's "VERSION := X" into @out; false if it has none. */
static bool makefile_version(char *out, size_t len)
{
	const char *src = getenv("RINGCAP_SRCDIR");
	struct mem_capture mk = {};
	char path[4096], *p;
	bool ok = false;

	snprintf(path, sizeof(path), "%s/Makefile", src);
	if (!ASSERT_OK(slurp(path, &mk), "Makefile"))
		return false;
	mk.buf[mk.len - 1] = '\0';
	p = strstr((char *)mk.buf, "\nVERSION := ");
	if (ASSERT_OK_PTR(p, "VERSION := in the Makefile"))
		ok = sscanf(p + 12, "%63[0-9a-z.~+-]", out) == 1 && len > 63;
	free(mk.buf);
	return ok;
}

/* Line @n (from 0) of @text, or "" */
static const char *line_at(const char *text, int n, char *buf, size_t len)
{
	const char *pos = text;
	int i;

	for (i = 0; i <= n; i++)
		if (!next_line(&pos, buf, len))
			return "";
	return buf;
}

#ifdef RC_NO_DLOPEN
#define LINK "static"
#else
#define LINK "dynamic"
#endif

void test_version_output(void)
{
	char version[64], want[512], got[512], runs[80], built[64];
	unsigned int xv = XXH_versionNumber();
	struct run r = {};
	int n = 0;

	if (!getenv("RINGCAP_SRCDIR")) {
		test__skip("RINGCAP_SRCDIR is not set: run through 'make check'");
		return;
	}
	if (!makefile_version(version, sizeof(version)))
		return;
	ASSERT_STREQ(RC_BUILD_VERSION, version, "version.h is the Makefile's");
	if (!ASSERT_EQ(run_sync(&r, (char *[]){ (char *)bin("ringcap"), "--version", NULL }, 10000),
		       0, "--version") ||
	    !ASSERT_STREQ(r.err, "", "nothing on stderr"))
		goto out;
#define LINE(...)                                                                                  \
	do {                                                                                       \
		snprintf(want, sizeof(want), __VA_ARGS__);                                         \
		ASSERT_STREQ(line_at(r.out, n++, got, sizeof(got)), want, want);                   \
	} while (0)
	LINE("ringcap %s", version);
	if (RC_BUILD_GIT[0])
		LINE("git: %s", RC_BUILD_GIT);
	/* "build: x86_64, dynamic, gcc 12.2.0" */
	line_at(r.out, n++, got, sizeof(got));
#ifdef __x86_64__
	snprintf(want, sizeof(want), "build: x86_64, %s%s, ", LINK,
#ifdef __SANITIZE_ADDRESS__
		 ", ASan+UBSan"
#else
		 ""
#endif
	);
	ASSERT_TRUE(!strncmp(got, want, strlen(want)), "build line");
#endif
	{
		/* the features in, in the order version.c lists them */
		char feat[128] = "features:";
		const char *sep = "";

#ifndef RC_NO_DLOPEN
		strcat(feat, " debuginfod");
		sep = ",";
#endif
#ifndef RC_NO_CURL
		strcat(feat, sep);
		strcat(feat, " clickhouse");
		sep = ",";
#endif
#ifdef HAVE_LIBTRACEEVENT
		strcat(feat, sep);
		strcat(feat, " print-formats");
		sep = ",";
#endif
#ifdef HAVE_LIBIPT
		strcat(feat, sep);
		strcat(feat, " intel-pt");
		sep = ",";
#endif
		if (!*sep)
			strcat(feat, " none");
		LINE("%s", feat);
	}
#ifdef RC_NO_DLOPEN
	LINE("without debuginfod: static build: no dlopen() of libdebuginfod.so.1; --debuginfod "
	     "asks no server, debug files are looked for locally only");
#endif
#ifdef RC_NO_CURL
	LINE("without clickhouse: %s: ringcap export prints its tables' DDL "
	     "(--schema) and loads nothing",
#ifdef RC_NO_DLOPEN
	     "static build: no dlopen() of libcurl.so.4"
#else
	     "built without libcurl"
#endif
	);
#endif
#ifndef HAVE_LIBTRACEEVENT
	LINE("without print-formats: built without libtraceevent: report --format perf-script shows "
	     "tracepoints other than sched and syscalls as field=value, not by the kernel's print "
	     "format");
#endif
#ifndef HAVE_LIBIPT
	LINE("without intel-pt: built without libipt: report --aux gives no Intel PT packet summary "
	     "(the AUX stream is still recorded, and --aux-dump writes it)");
#endif
	LINE("capture format: writes %d.%d, reads %d.0 and later", RC_VERSION_MAJOR,
	     RC_VERSION_MINOR, RC_VERSION_MAJOR);
	LINE("libraries:  built with   runs with");
	snprintf(built, sizeof(built), "%d.%d", __GLIBC__, __GLIBC_MINOR__);
	LINE("  %-10s %-12s %s", "glibc", built, gnu_get_libc_version());
	snprintf(built, sizeof(built), "%d.%d", LIBBPF_MAJOR_VERSION, LIBBPF_MINOR_VERSION);
	/* libbpf_version_string() is "v1.1": the same numbers, with a v */
	snprintf(runs, sizeof(runs), "v%s", built);
	ASSERT_STREQ(libbpf_version_string(), runs, "libbpf runs as built (this test's libbpf)");
	LINE("  %-10s %-12s %u.%u", "libbpf", built, libbpf_major_version(),
	     libbpf_minor_version());
	LINE("  %-10s %-12s %s", "libzstd", ZSTD_VERSION_STRING, ZSTD_versionString());
	snprintf(built, sizeof(built), "0.%d", _ELFUTILS_VERSION % 1000);
	LINE("  %-10s %-12s %s", "libdw", built, dwfl_version(NULL));
	LINE("  %-10s %-12s %s", "libelf", built, "(no version call: libdw's elfutils)");
	LINE("  %-10s %-12s %s", "zlib", ZLIB_VERSION, zlibVersion());
	snprintf(built, sizeof(built), "%d.%d.%d", XXH_VERSION_MAJOR, XXH_VERSION_MINOR,
		 XXH_VERSION_RELEASE);
	LINE("  %-10s %-12s %u.%u.%u", "libxxhash", built, xv / 10000, xv / 100 % 100, xv % 100);
#ifndef RC_NO_CURL
	{
		/* ringcap does not link libcurl: what libcurl.so.4 says it is, loaded here */
		void *h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
		curl_version_info_data *(*info)(CURLversion) =
		    h ? (curl_version_info_data * (*)(CURLversion)) dlsym(h, "curl_version_info")
		      : NULL;

		if (ASSERT_OK_PTR(info, "libcurl.so.4 here (libcurl4)"))
			LINE("  %-10s %-12s %s", "libcurl", LIBCURL_VERSION,
			     info(CURLVERSION_NOW)->version);
		/* not closed: as ringcap, this process keeps it */
	}
#endif
#ifdef HAVE_LIBIPT
	snprintf(built, sizeof(built), "%d.%d.%d", LIBIPT_VERSION_MAJOR, LIBIPT_VERSION_MINOR,
		 LIBIPT_VERSION_PATCH);
	{
		struct pt_version pv = pt_library_version();

		LINE("  %-10s %-12s %u.%u.%u", "libipt", built, pv.major, pv.minor, pv.patch);
	}
#endif
	LINE("%s", ""); /* no more */
#undef LINE
	/* -V is the same */
	run_free(&r);
	if (ASSERT_EQ(run_sync(&r, (char *[]){ (char *)bin("ringcap"), "-V", NULL }, 10000), 0,
		      "-V"))
		ASSERT_TRUE(!strncmp(r.out, "ringcap ", 8), "-V prints the version");
out:
	run_free(&r);
}

/* record --check ends with the build's features (root or not: the probes say what they can) */
void test_version_check(void)
{
	char want[512], version[64];
	struct run r = {};

	if (!getenv("RINGCAP_SRCDIR")) {
		test__skip("RINGCAP_SRCDIR is not set: run through 'make check'");
		return;
	}
	if (!makefile_version(version, sizeof(version)) ||
	    !ASSERT_EQ(run_sync(&r, (char *[]){ (char *)bin("ringcap"), "record", "--check", NULL },
				30000),
		       0, "record --check"))
		goto out;
	snprintf(want, sizeof(want), "\nthis build (ringcap %s, %s):\n  %-50s %s", version, LINK,
		 "debuginfod",
#ifdef RC_NO_DLOPEN
		 "no: static build: no dlopen() of libdebuginfod.so.1; --debuginfod asks no server, "
		 "debug files are looked for locally only\n"
#else
		 "yes\n"
#endif
	);
	ASSERT_HAS(r.out, want, "the build's lines");
	snprintf(want, sizeof(want), "  %-50s %s\n", "intel-pt",
#ifdef HAVE_LIBIPT
		 "yes"
#else
		 "no: built without libipt: report --aux gives no Intel PT packet summary (the AUX "
		 "stream is still recorded, and --aux-dump writes it)"
#endif
	);
	ASSERT_TRUE(strlen(r.out) >= strlen(want) &&
			!strcmp(r.out + strlen(r.out) - strlen(want), want),
		    "intel-pt, last");
out:
	run_free(&r);
}

/* The man pages show the version (their .TH line), as made by make man. */
void test_version_man(void)
{
	static const char *const pages[] = { "ringcap.1", "ringcap-record.1", "ringcap-report.1",
					     "ringcap-stat.1", "ringcap-file.5" };
	char version[64], path[4096], want[128];
	struct mem_capture page = {};
	size_t i;

	if (!getenv("RINGCAP_SRCDIR")) {
		test__skip("RINGCAP_SRCDIR is not set: run through 'make check'");
		return;
	}
	if (!makefile_version(version, sizeof(version)))
		return;
	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		/* the build directory is the test's working directory */
		snprintf(path, sizeof(path), "man/%s", pages[i]);
		if (!ASSERT_OK(slurp(path, &page), path))
			continue;
		page.buf[page.len - 1] = '\0';
		snprintf(want, sizeof(want), " \"ringcap %s\"\n", version);
		ASSERT_HAS((char *)page.buf, want, pages[i]);
		ASSERT_HAS((char *)page.buf, "\n.TH \"", ".TH");
		free(page.buf);
		page.buf = NULL;
	}
}

/* NEWS begins with the version the Makefile builds. */
void test_version_news(void)
{
	const char *src = getenv("RINGCAP_SRCDIR");
	char version[64], path[4096], want[128];
	struct mem_capture news = {};

	if (!src) {
		test__skip("RINGCAP_SRCDIR is not set: run through 'make check'");
		return;
	}
	if (!makefile_version(version, sizeof(version)))
		return;
	snprintf(path, sizeof(path), "%s/NEWS.md", src);
	if (!ASSERT_OK(slurp(path, &news), "NEWS.md"))
		return;
	news.buf[news.len - 1] = '\0';
	snprintf(want, sizeof(want), "## %s ", version);
	ASSERT_HAS((char *)news.buf, want, "an entry for VERSION");
	ASSERT_TRUE(strstr((char *)news.buf, want) == strstr((char *)news.buf, "\n## ") + 1,
		    "the first entry");
	free(news.buf);
}
