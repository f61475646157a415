// SPDX-License-Identifier: GPL-2.0-only
/*
 * libcurl is not linked into ringcap, but loaded by export when it first
 * talks to a server (lib/output/clickhouse_http.c): no other command pays
 * for linking it at start. Checked here: the binary needs no libcurl, nor
 * does any library it needs (ldd's whole list); without libcurl.so.4
 * (RINGCAP_LIBCURL, the test hook, naming a file that is not there) export
 * fails with one line naming the fix and exit 1, --schema works, and
 * --version says it is not found; with a library that is not libcurl, the
 * function it lacks is named. Host-only, no server: well under a second.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "run_util.h"
#include "test_progs.h"

/* readelf -d, and ldd: the libraries ringcap and its libraries need */
void test_curl_not_linked(void)
{
	struct run r = {};

	if (!ASSERT_EQ(
		run_sync(&r, (char *[]){ "/usr/bin/readelf", "-d", (char *)bin("ringcap"), NULL },
			 10000),
		0, "readelf -d"))
		goto out;
	ASSERT_HAS(r.out, "(NEEDED)             Shared library: [libc.so.6]", "readelf's NEEDED");
	ASSERT_TRUE(!strstr(r.out, "libcurl"), "no libcurl in NEEDED");
	run_free(&r);
	if (!ASSERT_EQ(
		run_sync(&r, (char *[]){ "/usr/bin/ldd", (char *)bin("ringcap"), NULL }, 10000), 0,
		"ldd"))
		goto out;
	ASSERT_HAS(r.out, "libzstd.so.1 => ", "ldd's list");
	ASSERT_TRUE(!strstr(r.out, "libcurl"), "no libcurl under any library either");
	if (strstr(r.out, "libcurl"))
		fprintf(stderr, "ldd %s:\n%s", bin("ringcap"), r.out);
out:
	run_free(&r);
}

/* ringcap @args with RINGCAP_LIBCURL=@lib; its exit code, the run in @r */
static int with_libcurl(struct run *r, const char *lib, char *const args[])
{
	char *argv[8] = { (char *)bin("ringcap") };
	int i, rc;

	for (i = 0; args[i] && i < 6; i++)
		argv[i + 1] = args[i];
	setenv("RINGCAP_LIBCURL", lib, 1);
	rc = run_sync(r, argv, 10000);
	unsetenv("RINGCAP_LIBCURL");
	return rc;
}

void test_curl_missing(void)
{
	char lib[4096], want[8192];
	struct run r = {};

	snprintf(lib, sizeof(lib), "%s/no-such-dir/libcurl.so.4", tmpdir());
	/* the server's port does not matter: nothing is sent */
	ASSERT_EQ(
	    with_libcurl(&r, lib,
			 (char *[]){ "export", "--clickhouse=http://127.0.0.1:9", "x.rc", NULL }),
	    1, "export exits 1");
#ifdef RC_NO_CURL
#ifdef RC_NO_DLOPEN
	snprintf(want, sizeof(want),
		 "ringcap: this build is static and cannot load libcurl.so.4: "
		 "no export (its --schema works)\n");
#else
	snprintf(want, sizeof(want),
		 "ringcap: ringcap was built without libcurl (make NO_CURL=1): "
		 "no export (its --schema works)\n");
#endif
#else
	snprintf(want, sizeof(want),
		 "ringcap: ringcap export needs libcurl.so.4 (Debian: apt install libcurl4): "
		 "%s: cannot open shared object file: No such file or directory\n",
		 lib);
#endif
	ASSERT_STREQ(r.err, want, "one line: the cause and the fix");
	ASSERT_STREQ(r.out, "", "nothing on stdout");
	run_free(&r);

	/* --schema needs no libcurl */
	if (ASSERT_EQ(with_libcurl(&r, lib, (char *[]){ "export", "--schema", NULL }), 0,
		      "export --schema"))
		ASSERT_HAS(r.out, "CREATE TABLE IF NOT EXISTS ringcap.", "the DDL");
	ASSERT_STREQ(r.err, "", "--schema: nothing on stderr");
	run_free(&r);

#ifndef RC_NO_CURL
	/* --version says it is not there, and why */
	if (ASSERT_EQ(with_libcurl(&r, lib, (char *[]){ "--version", NULL }), 0, "--version")) {
		snprintf(want, sizeof(want),
			 " not found: ringcap export needs libcurl.so.4 (Debian: apt install "
			 "libcurl4): %s: cannot open shared object file: No such file or "
			 "directory\n",
			 lib);
		ASSERT_HAS(r.out, want, "--version's libcurl line");
	}
	run_free(&r);

	/* a library that is not libcurl: the first function it lacks */
	ASSERT_EQ(
	    with_libcurl(&r, "libz.so.1",
			 (char *[]){ "export", "--clickhouse=http://127.0.0.1:9", "x.rc", NULL }),
	    1, "export with libz as libcurl");
	ASSERT_STREQ(r.err,
		     "ringcap: libz.so.1 has no curl_global_init: ringcap export needs libcurl "
		     "7.80.0 or later (Debian: apt install libcurl4)\n",
		     "the function it lacks");
	run_free(&r);
#endif
}
